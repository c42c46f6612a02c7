"""A ``KeyboardInterrupt`` a tool raises itself, inside ``asyncio.run`` (review 113 #6): asyncio re-raises one that
leaves a task straight out of the event loop, so the run awaiting the tool's task never saw it and the conversation
so far was lost. toolwire carries it out of its tasks and raises it in the caller's, where the run keeps its work."""

from __future__ import annotations

import asyncio
import time

import pytest

from toolwire import Agent, AIMessage, ToolExecutor, ToolMessage, tool
from toolwire.testing import ScriptedChatModel


def _calls(*names: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": n, "args": {}, "id": f"c{i}"} for i, n in enumerate(names, 1)])


def _tools(sent: list[str], interrupted_is_async: bool) -> list:
    @tool
    def send_email() -> str:
        """Send an email (a side effect)."""
        sent.append("bob")
        return "sent"

    if interrupted_is_async:
        @tool
        async def stop_here() -> str:
            """A tool that raises KeyboardInterrupt after the email went out."""
            await asyncio.sleep(0.05)
            raise KeyboardInterrupt

    else:
        @tool
        def stop_here() -> str:
            """A tool that raises KeyboardInterrupt after the email went out."""
            time.sleep(0.05)
            raise KeyboardInterrupt

    return [send_email, stop_here]


@pytest.mark.parametrize("interrupted_is_async", [True, False], ids=["async tool", "sync tool"])
def test_a_tools_keyboard_interrupt_inside_asyncio_run_keeps_the_agent_run(interrupted_is_async: bool) -> None:
    sent: list[str] = []
    tools = _tools(sent, interrupted_is_async)
    agent = Agent(ScriptedChatModel([_calls("send_email", "stop_here"), "done"]), tools)
    with pytest.raises(KeyboardInterrupt) as error:
        asyncio.run(agent.ainvoke("go"))
    assert type(error.value) is KeyboardInterrupt  # (not toolwire's wrapper)
    kept = error.value.messages  # type: ignore[attr-defined]  (was: no .messages at all)
    assert [m.type for m in kept] == ["human", "ai", "tool", "tool"]  # the tool that raised it had started: answered
    assert kept[2].tool_call_id == "c1" and kept[2].text == "sent"  # (review 137 #3)
    assert kept[3].tool_call_id == "c2" and "raised KeyboardInterrupt" in kept[3].text
    assert any(frame.name == "stop_here" for frame in __import__("traceback").extract_tb(error.value.__traceback__))
    resumed = Agent(ScriptedChatModel(["done"]), tools[:1]).invoke(kept)  # (its unanswered c2 runs again on resume)
    assert resumed.output is not None and sent == ["bob"]  # the email was not sent a second time


def test_the_executor_hands_the_finished_answers_on_with_the_interrupt() -> None:
    sent: list[str] = []
    executor = ToolExecutor(_tools(sent, True))
    with pytest.raises(KeyboardInterrupt) as error:
        asyncio.run(executor.aexecute(_calls("send_email", "stop_here")))
    answers = error.value.tool_messages  # type: ignore[attr-defined]
    assert [(m.tool_call_id, m.status) for m in answers] == [("c1", "success"), ("c2", "error")]
    assert all(isinstance(m, ToolMessage) for m in answers)


@pytest.mark.parametrize("timeout", [None, 5.0], ids=["untimed", "timed"])
def test_ainvoke_of_an_async_tool_raises_its_keyboard_interrupt_as_itself(timeout: float | None) -> None:
    @tool(timeout=timeout)
    async def stop_here() -> str:
        """A tool that raises KeyboardInterrupt."""
        raise KeyboardInterrupt("from the tool")

    async def scenario() -> None:
        with pytest.raises(KeyboardInterrupt, match="from the tool") as error:
            await stop_here.ainvoke({})
        assert type(error.value) is KeyboardInterrupt
        await asyncio.sleep(0)  # the event loop goes on: it was not ended by the interrupt

    asyncio.run(scenario())


def test_the_sync_api_still_keeps_the_run() -> None:
    sent: list[str] = []
    agent = Agent(ScriptedChatModel([_calls("send_email", "stop_here"), "done"]), _tools(sent, True))
    with pytest.raises(KeyboardInterrupt) as error:
        agent.invoke("go")
    assert [m.type for m in error.value.messages] == ["human", "ai", "tool", "tool"]  # type: ignore[attr-defined]
