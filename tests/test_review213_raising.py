"""Review 213 #2: a reply holding a call of a tool made with ``handle_errors=False`` follows the rules of
``ToolExecutor(handle_errors=False)`` for that tool's calls: every such call is checked before any call runs, a
refused one stops the calls after it and its error is raised once the calls before it finish, the first failure in
call order is raised, and sync and async agree. The other tools' failures are still answered (``handle_errors=True``).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from toolwire import Agent, AIMessage, ToolExecutor, tool
from toolwire.errors import ToolValidationError
from toolwire.testing import ScriptedChatModel

ran: list[tuple[str, Any]] = []


@tool(handle_errors=False)
def pay(amount: int) -> str:
    """Make a payment; a failure must stop the run."""
    ran.append(("pay", amount))
    return f"paid {amount}"


@tool
def send_email(to: str) -> str:
    """Send an email."""
    time.sleep(0.05)
    ran.append(("email", to))
    return "sent"


@tool
async def log_line(text: str) -> str:
    """Write a log line (at once, before any await)."""
    ran.append(("log", text))
    return "logged"


@tool
def note(text: str) -> str:
    """Take a note."""
    raise ValueError("disk full")


@tool(handle_errors=False)
def strict(x: int) -> int:
    """A strict tool that fails when it runs."""
    time.sleep(0.05)
    ran.append(("strict", x))
    raise ValueError(f"strict failed for {x}")


TOOLS = [pay, send_email, log_line, note, strict]


def _call(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def _run(mode: str, calls: list[dict[str, Any]], invalid: list[Any] | None = None) -> Any:
    executor = ToolExecutor(TOOLS)
    reply = AIMessage("", tool_calls=calls, invalid_tool_calls=invalid or [])
    ran.clear()
    if mode == "sync":
        return executor.execute(reply)
    return asyncio.run(executor.aexecute(reply))


MODES = ["sync", "async"]


@pytest.mark.parametrize("mode", MODES)
def test_a_refused_call_stops_the_calls_after_it_and_is_raised_once_those_before_finish(mode: str) -> None:
    calls = [_call("send_email", {"to": "before@x"}, "e1"), _call("pay", {"amount": "ten"}, "p1"),
             _call("log_line", {"text": "after"}, "l1"), _call("send_email", {"to": "after@x"}, "e2")]
    for _ in range(3):
        with pytest.raises(ToolValidationError) as caught:
            _run(mode, calls)
        assert ran == [("email", "before@x")]  # the call before it ran, those after it did not start
        assert [m.tool_call_id for m in caught.value.tool_messages] == ["e1"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("mode", MODES)
def test_the_first_failure_in_call_order_is_raised_and_the_call_that_ran_is_not_lost(mode: str) -> None:
    calls = [_call("strict", {"x": 1}, "s1"), _call("strict", {"x": "bad"}, "s2")]
    with pytest.raises(ValueError, match="strict failed for 1"):
        _run(mode, calls)
    assert ran == [("strict", 1)]


@pytest.mark.parametrize("mode", MODES)
def test_the_other_tools_failures_are_still_answered(mode: str) -> None:
    calls = [_call("note", {"text": "x"}, "n1"), _call("send_email", {"to": 5}, "e1"),
             _call("nope", {}, "u1"), _call("pay", {"amount": 5}, "p1")]
    answers = _run(mode, calls)
    assert [(m.tool_call_id, m.status) for m in answers] == [("n1", "error"), ("e1", "error"), ("u1", "error"),
                                                             ("p1", "success")]
    assert ran == [("pay", 5)]


@pytest.mark.parametrize("mode", MODES)
def test_an_answered_failure_before_the_refused_call_is_kept_on_the_error(mode: str) -> None:
    calls = [_call("note", {"text": "x"}, "n1"), _call("pay", {"amount": "ten"}, "p1")]
    with pytest.raises(ToolValidationError) as caught:
        _run(mode, calls)
    kept = caught.value.tool_messages  # type: ignore[attr-defined]
    assert [(m.tool_call_id, m.status) for m in kept] == [("n1", "error")]
    assert ran == []


@pytest.mark.parametrize("mode", MODES)
def test_invalid_calls_are_answered_in_their_place(mode: str) -> None:
    calls = [_call("log_line", {"text": "a"}, "l1"), _call("pay", {"amount": "ten"}, "p1")]
    invalid = [{"name": "send_email", "args": "{oops", "id": "i0", "error": "bad JSON", "type": "invalid_tool_call",
                "index": 0},
               {"name": "send_email", "args": "{oops", "id": "i9", "error": "bad JSON", "type": "invalid_tool_call",
                "index": 3}]
    with pytest.raises(ToolValidationError) as caught:
        _run(mode, calls, invalid)
    kept = caught.value.tool_messages  # type: ignore[attr-defined]
    assert [(m.tool_call_id, m.status) for m in kept] == [("i0", "error"), ("l1", "success")]
    valid = _run(mode, [_call("log_line", {"text": "a"}, "l1"), _call("pay", {"amount": 5}, "p1")], invalid)
    assert [m.tool_call_id for m in valid] == ["i0", "l1", "p1", "i9"]
    assert [m.status for m in valid] == ["error", "success", "success", "error"]


def test_an_agent_raises_after_the_calls_before_the_refused_one_and_keeps_their_answers() -> None:
    reply = AIMessage("", tool_calls=[_call("send_email", {"to": "before@x"}, "e1"),
                                      _call("pay", {"amount": "ten"}, "p1"),
                                      _call("send_email", {"to": "after@x"}, "e2")])
    model = ScriptedChatModel([reply, "done"])
    ran.clear()
    with pytest.raises(ToolValidationError) as caught:
        Agent(model, TOOLS).invoke("pay ten")
    assert ran == [("email", "before@x")]
    assert len(model.requests) == 1
    tool_ids = [m.tool_call_id for m in caught.value.messages if m.type == "tool"]  # type: ignore[attr-defined]
    assert tool_ids == ["e1"]
