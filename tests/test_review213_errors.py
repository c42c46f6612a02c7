"""Review 213 #1: a toolwire error raised inside a tool's own code (a nested tool call's ToolValidationError, a
ToolExecutionError the tool raises) is the tool's failure: hidden by hide_error_details like any other exception,
and, shown, worded as "tool 'X' raised ToolValidationError: ...", not as a verdict on the model's own call."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from toolwire import Agent, AIMessage, ToolExecutor, tool
from toolwire.errors import ToolExecutionError, ToolResultError, ToolTimeoutError
from toolwire.testing import ScriptedChatModel

SECRET = "ssn=123-45-6789"


@tool
def lookup_user(user_id: int) -> dict[str, Any]:
    """Internal helper tool."""
    return {"id": user_id}


@tool
def account_summary(name: str) -> dict[str, Any]:
    """Calls the helper tool with a malformed value of its own."""
    return lookup_user.invoke({"user_id": SECRET})


@tool
async def async_summary(name: str) -> dict[str, Any]:
    """The async form of account_summary."""
    return await lookup_user.ainvoke({"user_id": SECRET})


@tool
def charge(amount: int) -> str:
    """Raises ToolExecutionError with internal details."""
    raise ToolExecutionError(f"gateway rejected key {SECRET}")


@tool
def lister(n: int) -> Iterator[int]:
    """A generator tool whose body fails while it is drained."""
    yield n
    lookup_user.invoke({"user_id": SECRET})


@tool
def exporter() -> str:
    """Raises a ToolResultError from its own code."""
    raise ToolResultError(f"export failed: {SECRET}", reason="the export step failed")


@tool
def timer() -> str:
    """Raises a ToolTimeoutError of its own."""
    raise ToolTimeoutError(f"Tool 'sub' did not finish within 1 second ({SECRET})", "sub")


BODY = [account_summary, async_summary, charge, lister, exporter, timer]
KINDS = {"account_summary": "ToolValidationError", "async_summary": "ToolValidationError",
         "charge": "ToolExecutionError", "lister": "ToolValidationError", "exporter": "ToolResultError",
         "timer": "ToolTimeoutError"}


def _calls() -> list[dict[str, Any]]:
    args = {"account_summary": {"name": "bob"}, "async_summary": {"name": "bob"}, "charge": {"amount": 1},
            "lister": {"n": 1}}
    return [{"name": t.name, "args": args.get(t.name, {}), "id": t.name} for t in BODY]


def _hidden(name: str) -> str:
    return f"Error: tool '{name}' raised {KINDS[name]}. Try different arguments or another approach."


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_hide_error_details_hides_toolwire_errors_raised_in_a_tool(timeout: float | None) -> None:
    executor = ToolExecutor(BODY, hide_error_details=True, timeout=timeout)
    for answers in (executor.execute(AIMessage("", tool_calls=_calls())),
                    asyncio.run(executor.aexecute(AIMessage("", tool_calls=_calls())))):
        assert [m.status for m in answers] == ["error"] * len(BODY)
        for message in answers:
            assert message.content == _hidden(message.tool_call_id), message.content
            assert SECRET not in message.content


def test_hide_error_details_on_the_tool_and_the_agent() -> None:
    for made in BODY:
        hiding = tool(hide_error_details=True)(made.func)
        call = {"name": made.name, "args": _calls()[BODY.index(made)]["args"], "id": "c1", "type": "tool_call"}
        answer = hiding.invoke(call) if not made.is_async else asyncio.run(hiding.ainvoke(call))
        assert answer.content == _hidden(made.name)
    model = ScriptedChatModel([AIMessage("", tool_calls=_calls()), "done"])
    Agent(model, BODY, hide_error_details=True).invoke("q")
    sent = [m for m in model.requests[-1].messages if m.type == "tool"]
    assert [m.content for m in sent] == [_hidden(m.tool_call_id) for m in sent]


def test_shown_the_error_names_the_tool_that_raised_it(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolwire.tools"):
        answers = ToolExecutor(BODY).execute(AIMessage("", tool_calls=_calls()))
    text = {m.tool_call_id: m.content for m in answers}
    assert text["account_summary"].startswith(
        "Error: tool 'account_summary' raised ToolValidationError: Invalid arguments for tool 'lookup_user'")
    assert text["async_summary"].startswith("Error: tool 'async_summary' raised ToolValidationError: ")
    assert text["lister"].startswith("Error: tool 'lister' raised ToolValidationError: ")
    assert text["charge"] == f"Error: tool 'charge' raised ToolExecutionError: gateway rejected key {SECRET}"
    assert text["exporter"] == f"Error: tool 'exporter' raised ToolResultError: export failed: {SECRET}"
    assert text["timer"].startswith("Error: tool 'timer' raised ToolTimeoutError: Tool 'sub' did not finish")
    # a ToolResultError the tool raised: not "ran, but its result could not be sent back", nothing said kept
    assert all(m.artifact is None for m in answers)
    assert "kept as the error ToolMessage's artifact" not in caplog.text


def test_errors_about_the_models_own_call_keep_their_wording() -> None:
    @tool(timeout=0.05)
    async def slow() -> str:
        """Sleeps past its timeout."""
        await asyncio.sleep(5)
        return "late"

    @tool
    def picture() -> bytes:
        """Returns bytes that are not UTF-8."""
        return b"\xff\xfe\x00"

    @tool
    def quits() -> str:
        """Calls sys.exit with a secret."""
        sys.exit(SECRET)

    calls = [{"name": "lookup_user", "args": {"user_id": "abc"}, "id": "v"}, {"name": "slow", "args": {}, "id": "t"},
             {"name": "picture", "args": {}, "id": "r"}, {"name": "nope", "args": {}, "id": "u"},
             {"name": "quits", "args": {}, "id": "q"}]
    for hide in (False, True):
        answers = ToolExecutor([lookup_user, slow, picture, quits], hide_error_details=hide).execute(
            AIMessage("", tool_calls=calls))
        text = {m.tool_call_id: m.content for m in answers}
        assert text["v"].startswith("Error: Invalid arguments for tool 'lookup_user': 'user_id'")
        assert text["t"].startswith("Error: Tool 'slow' did not finish within 0.05 seconds")
        assert text["r"].startswith("Error: tool 'picture' ran, but its result could not be sent back")
        assert text["u"].startswith("Error: ") and "nope" in text["u"]
        assert SECRET not in text["q"] if hide else text["q"].startswith("Error: tool 'quits' failed: Tool 'quits'")
    wrong = lookup_user.invoke({"name": "other", "args": {"user_id": 1}, "id": "w", "type": "tool_call"})
    assert wrong.content.startswith("Error: tool 'lookup_user' did not run this call")


def test_handle_errors_false_still_raises_the_tools_own_error() -> None:
    raising = tool(handle_errors=False)(account_summary.func)
    with pytest.raises(ToolExecutionError, match="Invalid arguments for tool 'lookup_user'"):
        raising.invoke({"name": "account_summary", "args": {"name": "bob"}, "id": "c1", "type": "tool_call"})
