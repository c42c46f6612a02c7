"""Review 180 #3: Agent(system_prompt=...) takes LangChain's SystemMessage (LangGraph's prompt= form), and refuses a
callable or ChatPromptTemplate prompt with a sentence saying what to pass instead."""

from __future__ import annotations

import pytest

from toolwire import Agent, SystemMessage
from toolwire.errors import UserError
from toolwire.testing import ScriptedChatModel


def test_langchain_system_message_is_taken() -> None:
    lc_messages = pytest.importorskip("langchain_core.messages")
    model = ScriptedChatModel(["ok"])
    agent = Agent(model, [], system_prompt=lc_messages.SystemMessage("You are terse."))
    assert isinstance(agent.system_prompt, SystemMessage)
    agent.invoke("hi")
    sent = model.requests[0].messages
    assert isinstance(sent[0], SystemMessage) and sent[0].content == "You are terse."


def test_role_dict_is_taken() -> None:
    agent = Agent(ScriptedChatModel(["ok"]), [], system_prompt={"role": "system", "content": "Be brief."})
    assert isinstance(agent.system_prompt, SystemMessage) and agent.system_prompt.content == "Be brief."


@pytest.mark.parametrize("prompt", [lambda state: state["messages"], {"role": "user", "content": "hi"}, 3])
def test_other_prompts_refused_with_advice(prompt: object) -> None:
    with pytest.raises(UserError) as info:
        Agent(ScriptedChatModel(["ok"]), [], system_prompt=prompt)
    text = str(info.value)
    assert "pass the text as system_prompt=" in text and "not SystemMessage" not in text


def test_chat_prompt_template_refused() -> None:
    prompts = pytest.importorskip("langchain_core.prompts")
    template = prompts.ChatPromptTemplate.from_messages([("system", "x"), ("placeholder", "{messages}")])
    with pytest.raises(UserError, match="ChatPromptTemplate"):
        Agent(ScriptedChatModel(["ok"]), [], system_prompt=template)
