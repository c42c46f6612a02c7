"""Review 24: an Agent run that fails keeps its work (finding 1); with ``handle_errors=False`` the executor
raises the failure of the first call in call order (finding 6)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from toolwire import Agent, AIMessage, ProviderError, ToolExecutor, ToolMessage, tool
from toolwire.errors import ToolValidationError, UnknownToolError
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel

SENT: list[str] = []


@tool
def send(to: str) -> str:
    """Send an email.

    Args:
        to: who gets it.
    """
    SENT.append(to)
    return f"sent to {to}"


def _fails(messages: list[Any]) -> AIMessage:
    raise ProviderError("boom", provider="openai", status=500)


def _script() -> ScriptedChatModel:
    return ScriptedChatModel([AIMessage("", tool_calls=[tool_call("send", {"to": "bob"}, "s1")]), _fails])


def _check_kept(exc: ProviderError) -> None:
    kept = exc.messages  # type: ignore[attr-defined]
    assert [type(m).__name__ for m in kept] == ["HumanMessage", "AIMessage", "ToolMessage"]
    assert isinstance(kept[-1], ToolMessage) and kept[-1].text == "sent to bob"
    assert any("pass them to invoke() to resume" in note for note in exc.__notes__)


def test_a_provider_error_after_tools_ran_carries_the_conversation() -> None:
    SENT.clear()
    with pytest.raises(ProviderError) as info:
        Agent(_script(), [send]).invoke("email bob")
    assert info.value.status == 500 and str(info.value).startswith("openai (status 500): boom")
    _check_kept(info.value)
    # resuming with the kept conversation does not send the email again
    resumed = Agent(ScriptedChatModel(["Done: the email went to bob."]), [send]).invoke(info.value.messages)
    assert resumed.output == "Done: the email went to bob." and SENT == ["bob"]


def test_a_provider_error_in_ainvoke_carries_the_conversation() -> None:
    SENT.clear()
    with pytest.raises(ProviderError) as info:
        asyncio.run(Agent(_script(), [send]).ainvoke("email bob"))
    _check_kept(info.value)
    assert SENT == ["bob"]


def test_a_failure_while_streaming_carries_the_conversation_too() -> None:
    events: list[str] = []
    with pytest.raises(ProviderError) as info:
        for event in Agent(_script(), [send]).stream("email bob"):
            events.append(event.type)
    assert events == ["model_reply", "tool_call", "tool_result"]
    _check_kept(info.value)


def test_the_executor_failing_with_handle_errors_false_carries_the_conversation() -> None:
    @tool
    def explode() -> str:
        """Fail."""
        raise KeyError("gone")

    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("explode", {}, "e1")])])
    with pytest.raises(KeyError) as info:
        Agent(model, [explode], handle_errors=False).invoke("go")
    assert [type(m).__name__ for m in info.value.messages] == ["HumanMessage", "AIMessage"]  # type: ignore[attr-defined]


# -- finding 6: the first failure in call order -------------------------------------------------------------


@tool
def boom() -> str:
    """Fail slowly."""
    time.sleep(0.05)
    raise KeyError("boom")


def test_handle_errors_false_raises_the_first_calls_failure_not_the_quickest() -> None:
    executor = ToolExecutor([boom], handle_errors=False)
    calls = [tool_call("boom", {}, "b1"), tool_call("nope", {}, "n1")]
    with pytest.raises(KeyError, match="boom"):
        executor.call(calls)
    with pytest.raises(KeyError, match="boom"):
        asyncio.run(executor.acall(calls))
    with pytest.raises(UnknownToolError):  # the other order: the unknown tool is first
        executor.call(list(reversed(calls)))


def test_handle_errors_false_cancels_the_later_calls_once_an_earlier_one_failed() -> None:
    started: list[str] = []

    @tool
    async def slow() -> str:
        """Wait."""
        started.append("slow")
        await asyncio.sleep(5)
        return "late"

    executor = ToolExecutor([boom, slow], handle_errors=False)
    began = time.monotonic()
    with pytest.raises(KeyError, match="boom"):
        executor.call([tool_call("boom", {}, "b1"), tool_call("slow", {}, "s1")])
    assert time.monotonic() - began < 2 and started == ["slow"]


def test_handle_errors_false_starts_no_call_after_one_that_cannot_run() -> None:
    ran: list[str] = []

    @tool
    def note(text: str) -> str:
        """Note it."""
        ran.append(text)
        return text

    executor = ToolExecutor([note], handle_errors=False)
    for bad in (tool_call("nope", {}, "n1"), tool_call("note", {"text": 5}, "v1")):  # unknown; invalid arguments
        with pytest.raises((UnknownToolError, ToolValidationError)):
            executor.call([tool_call("note", {"text": "before"}, "a"), bad, tool_call("note", {"text": "after"}, "b")])
        assert ran == ["before"]
        ran.clear()


def test_handle_errors_false_with_every_call_succeeding_returns_them_in_order() -> None:
    @tool
    async def echo(text: str) -> str:
        """Echo."""
        await asyncio.sleep(0.01 if text == "a" else 0)
        return text

    results = ToolExecutor([echo], handle_errors=False).call(
        [tool_call("echo", {"text": "a"}, "1"), tool_call("echo", {"text": "b"}, "2")])
    assert [r.text for r in results] == ["a", "b"]


# -- the calls that finished before a handle_errors=False failure are kept --------------------------------


def _noting(ran: list[str]) -> Any:
    """A tool ``note(text)`` that appends ``text`` to ``ran``."""

    @tool
    def note(text: str) -> str:
        """Note it."""
        ran.append(text)
        return f"noted {text}"

    return note


def test_handle_errors_false_keeps_the_answers_of_the_calls_that_ran_before_the_failure() -> None:
    ran: list[str] = []
    note = _noting(ran)

    executor = ToolExecutor([note], handle_errors=False)
    with pytest.raises(UnknownToolError) as refused:  # a call that cannot run, after one that ran
        executor.call([tool_call("note", {"text": "a"}, "1"), tool_call("nope", {}, "2")])
    assert [(m.tool_call_id, m.text) for m in refused.value.tool_messages] == [("1", "noted a")]  # type: ignore[attr-defined]

    @tool
    def late_boom() -> str:
        """Fail after a while."""
        time.sleep(0.5)  # the note has long finished by then
        raise KeyError("late")

    with pytest.raises(KeyError) as failed:  # a tool that raises while another finished first
        ToolExecutor([note, late_boom], handle_errors=False).call(
            [tool_call("note", {"text": "b"}, "3"), tool_call("late_boom", {}, "4")])
    assert [(m.tool_call_id, m.text) for m in failed.value.tool_messages] == [("3", "noted b")]  # type: ignore[attr-defined]
    assert ran == ["a", "b"]


def test_an_agent_resumed_after_a_handle_errors_false_failure_does_not_run_the_finished_calls_again() -> None:
    ran: list[str] = []
    note = _noting(ran)

    reply = AIMessage("", tool_calls=[tool_call("note", {"text": "a"}, "1"), tool_call("boom", {}, "2")])
    agent = Agent(ScriptedChatModel([reply]), [note, boom], handle_errors=False)
    with pytest.raises(KeyError) as info:
        agent.invoke("go")
    kept = info.value.messages  # type: ignore[attr-defined]
    assert [type(m).__name__ for m in kept] == ["HumanMessage", "AIMessage", "ToolMessage"]
    assert kept[2].tool_call_id == "1" and ran == ["a"]
    resumed = Agent(ScriptedChatModel(["done"]), [note, boom]).invoke(kept)  # handle_errors=True now
    assert ran == ["a"]  # the note already taken is not taken again
    answers = {m.tool_call_id: m for m in resumed.messages if isinstance(m, ToolMessage)}
    assert set(answers) == {"1", "2"} and answers["2"].status == "error" and resumed.output == "done"


def test_a_cancelled_async_run_keeps_its_work_on_the_cancellation() -> None:
    ran: list[str] = []
    note = _noting(ran)

    @tool
    async def slow() -> str:
        """Wait a long time."""
        await asyncio.sleep(30)
        return "late"

    reply = AIMessage("", tool_calls=[tool_call("note", {"text": "a"}, "1"), tool_call("slow", {}, "2")])
    agent = Agent(ScriptedChatModel([reply, "never asked"]), [note, slow])
    with pytest.raises(TimeoutError) as info:
        asyncio.run(asyncio.wait_for(agent.ainvoke("go"), 1.0))
    kept = info.value.__cause__.messages  # type: ignore[union-attr]
    assert [type(m).__name__ for m in kept] == ["HumanMessage", "AIMessage", "ToolMessage", "ToolMessage"]
    assert kept[2].tool_call_id == "1" and ran == ["a"]  # the note taken is kept
    # `slow` had started: it is answered, as a sync tool's call still running is, so resuming does not run it again
    # behind the model's back (review 113: a payment was made twice)
    assert kept[3].tool_call_id == "2" and kept[3].status == "error" and "stopped while it ran" in kept[3].text
