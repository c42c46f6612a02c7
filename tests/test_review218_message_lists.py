"""messages_to_dict / messages_from_dict given the holder of the list (an AgentResult, a LangGraph-style state dict)
say to pass its messages (review 218 #6)."""

from __future__ import annotations

import pytest

from toolwire import Agent, messages_from_dict, messages_to_dict
from toolwire.errors import UserError
from toolwire.testing import ScriptedChatModel


def test_agent_result_is_told_to_pass_its_messages() -> None:
    result = Agent(ScriptedChatModel(["Hello."]), []).invoke("hi")
    with pytest.raises(UserError, match=r"not a .*AgentResult holding them: pass its \.messages"):
        messages_to_dict(result)
    assert [d["type"] for d in messages_to_dict(result.messages)] == ["human", "ai"]


def test_state_dict_is_told_to_pass_its_messages_key() -> None:
    dumped = messages_to_dict(Agent(ScriptedChatModel(["Hello."]), []).invoke("hi").messages)
    with pytest.raises(UserError, match=r'not a dict holding them: pass its \["messages"\]'):
        messages_from_dict({"messages": dumped})
    with pytest.raises(UserError, match=r'not a dict holding them: pass its \["messages"\]'):
        messages_to_dict({"messages": []})
    assert [m.text for m in messages_from_dict(dumped)] == ["hi", "Hello."]
