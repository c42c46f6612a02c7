"""Review 180 #4: LangGraph's astream_events, astream_log, get_state, get_graph and with_config on an Agent give one
sentence saying what to use instead, not a bare AttributeError."""

from __future__ import annotations

import pytest

from toolwire import Agent
from toolwire.testing import ScriptedChatModel


@pytest.mark.parametrize(("name", "advice"), [
    ("astream_events", 'agent.astream(question, stream_mode="messages")'),
    ("astream_log", "stream_tokens=True"),
    ("get_state", "result.messages"),
    ("get_graph", "agent.stream(question)"),
    ("with_config", "Agent(model, tools, max_steps="),
])
def test_langgraph_methods_get_advice(name: str, advice: str) -> None:
    agent = Agent(ScriptedChatModel(["hi"]), [])
    with pytest.raises(AttributeError) as info:
        getattr(agent, name)
    text = str(info.value)
    assert advice in text and text.endswith(".") and text.count(": ") >= 1
    assert not hasattr(agent, name)
