"""Review 137 #3: a tool that raises KeyboardInterrupt itself has started (and may have acted): its call is answered
on the interrupt's messages, so a resumed run does not run it a second time, sync and async alike."""

from __future__ import annotations

import asyncio

import pytest

from toolwire import Agent, AIMessage, ToolMessage, tool
from toolwire.testing import ScriptedChatModel


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("kind", ["sync tool", "async tool"])
def test_a_tool_that_raises_keyboard_interrupt_is_answered_and_not_run_again(mode: str, kind: str) -> None:
    runs: list[str] = []

    def send(to: str) -> str:
        runs.append(to)
        if len(runs) == 1:
            raise KeyboardInterrupt
        return "sent"

    async def asend(to: str) -> str:
        return send(to)

    send_email = tool(send if kind == "sync tool" else asend, name="send_email", description="Send an email.")
    call = {"name": "send_email", "args": {"to": "bob"}, "id": "c1", "type": "tool_call"}
    agent = Agent(ScriptedChatModel([AIMessage("", tool_calls=[call]), "done"]), [send_email])
    with pytest.raises(KeyboardInterrupt) as caught:
        agent.invoke("mail bob") if mode == "sync" else asyncio.run(agent.ainvoke("mail bob"))
    messages = caught.value.messages
    assert [type(m).__name__ for m in messages] == ["HumanMessage", "AIMessage", "ToolMessage"]
    assert messages[-1].status == "error" and "raised KeyboardInterrupt" in messages[-1].content
    resumed = Agent(ScriptedChatModel(["done"]), [send_email]).invoke(messages)
    assert runs == ["bob"] and resumed.output == "done"
    assert [m.tool_call_id for m in resumed.messages if isinstance(m, ToolMessage)] == ["c1"]


def _get_and_reply() -> tuple:
    """A tool ``get`` and a reply with one call of it and one invalid call."""

    @tool
    def get(x: int) -> str:
        """Get x."""
        return f"v{x}"

    reply = AIMessage("", tool_calls=[{"name": "get", "args": {"x": 1}, "id": "a", "type": "tool_call"}],
                      invalid_tool_calls=[{"name": "get", "args": "{", "id": "b", "error": "cut", "type":
                                           "invalid_tool_call"}])
    return get, reply


def test_call_answers_a_reply_and_more_invalid_calls_given_beside_it() -> None:
    """Review 137 #6: ``call(reply, invalid)`` was refused with a message saying call() takes an AIMessage."""
    from toolwire import ToolExecutor
    from toolwire.errors import UserError

    get, reply = _get_and_reply()
    extra = [{"name": "get", "args": "{", "id": "z", "error": "cut off", "type": "invalid_tool_call"}]
    answers = ToolExecutor([get]).call(reply, extra)
    assert [(m.tool_call_id, m.status) for m in answers] == [("a", "success"), ("b", "error"), ("z", "error")]
    assert [m.tool_call_id for m in ToolExecutor([get]).call(reply, None)] == ["a", "b"]  # type: ignore[arg-type]
    with pytest.raises(UserError, match="must be a list"):
        ToolExecutor([get]).call(reply, "x")  # type: ignore[arg-type]


def test_call_answers_each_invalid_call_once_however_it_is_given() -> None:
    """Review 139 #4: the reply's own invalid calls given beside it were answered twice, and given as a generator
    left the reply's invalid calls unanswered."""
    from toolwire import ToolExecutor

    get, reply = _get_and_reply()
    executor = ToolExecutor([get])
    assert [m.tool_call_id for m in executor.call(reply, reply.invalid_tool_calls)] == ["a", "b"]
    extra = {"name": "get", "args": "{", "id": "z", "error": "cut off", "type": "invalid_tool_call"}
    assert [m.tool_call_id for m in executor.call(reply, (c for c in [extra]))] == ["a", "b", "z"]
