"""Review 289 #2: a tool call answered with an error result (the default ``handle_errors=True``) leaves a trace for
the developer: one DEBUG record on the ``toolwire.tools`` logger, with the exception (traceback and cause) as its
``exc_info``, naming the tool and the call, also with ``hide_error_details=True``; the model's text is unchanged.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from toolwire import Agent, ToolExecutor, tool
from toolwire.errors import ToolTimeoutError, ToolValidationError
from toolwire.messages import AIMessage
from toolwire.testing import ScriptedChatModel


def db_query(sql: str) -> str:
    raise KeyError("orders_2024")


@tool
def report(year: int) -> str:
    """Sales report."""
    try:
        return db_query(f"select * from orders_{year}")
    except KeyError as exc:
        raise RuntimeError("report failed") from exc


@tool
def echo(x: int) -> int:
    """Echo x."""
    return x


@tool
async def slow(x: int) -> int:
    """Wait far past any timeout."""
    await asyncio.sleep(30)
    return x


def call(call_id: str, name: str, args: dict) -> dict:
    return {"id": call_id, "name": name, "args": args, "type": "tool_call"}


def failures(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "toolwire.tools" and r.exc_info is not None]


@pytest.mark.parametrize("hide", [False, True])
@pytest.mark.parametrize("how", ["sync", "async"])
def test_a_raising_tool_is_logged_once_with_its_traceback(caplog: pytest.LogCaptureFixture, hide: bool,
                                                          how: str) -> None:
    caplog.set_level(logging.DEBUG, logger="toolwire.tools")
    executor = ToolExecutor([report, echo], hide_error_details=hide)
    calls = [call("a", "report", {"year": 2024}), call("b", "echo", {"x": 1})]
    answers = executor.execute(calls) if how == "sync" else asyncio.run(executor.aexecute(calls))
    shown = ("Error: tool 'report' raised RuntimeError. Try different arguments or another approach." if hide
             else "Error: tool 'report' raised RuntimeError: report failed")
    assert answers[0].content == shown  # the model's text is as it was
    assert answers[1].content == "1"
    [record] = failures(caplog)
    assert record.levelno == logging.DEBUG
    assert record.tool_name == "report" and record.tool_call_id == "a"
    assert "'report'" in record.getMessage() and "'a'" in record.getMessage()
    exc = record.exc_info[1]
    assert isinstance(exc, RuntimeError) and isinstance(exc.__cause__, KeyError)
    assert "orders_2024" in caplog.text and "Traceback" in caplog.text  # the cause, for the developer
    assert "db_query" in caplog.text  # the frame that raised


def test_other_failures_are_logged_too(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="toolwire.tools")
    executor = ToolExecutor([echo, slow], timeout=0.05)
    answers = executor.execute([call("v", "echo", {"x": "nope"}), call("t", "slow", {"x": 1})])
    assert [a.status for a in answers] == ["error", "error"]
    found = sorted((r.tool_call_id, r.tool_name, type(r.exc_info[1])) for r in failures(caplog))
    assert found == [("t", "slow", ToolTimeoutError), ("v", "echo", ToolValidationError)]


def test_successful_calls_log_nothing(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="toolwire.tools")
    ToolExecutor([echo]).execute([call(f"c{i}", "echo", {"x": i}) for i in range(5)])
    assert failures(caplog) == []


def test_nothing_is_logged_above_debug(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="toolwire.tools")
    ToolExecutor([report]).execute([call("a", "report", {"year": 2024})])
    assert failures(caplog) == []


@pytest.mark.parametrize("how", ["stream", "astream"])
def test_an_agent_run_logs_each_failed_call_once(caplog: pytest.LogCaptureFixture, how: str) -> None:
    caplog.set_level(logging.DEBUG, logger="toolwire.tools")
    reply = AIMessage("", tool_calls=[call("a", "report", {"year": 2024}), call("b", "report", {"year": 2025})])
    agent = Agent(ScriptedChatModel([reply, "Sorry, the report failed."]), [report], hide_error_details=True)
    if how == "stream":
        events = list(agent.stream("report"))
    else:
        async def collect() -> list:
            return [event async for event in agent.astream("report")]
        events = asyncio.run(collect())
    results = [e.data for e in events if e.type == "tool_result"]
    assert [m.content for m in results] == [
        "Error: tool 'report' raised RuntimeError. Try different arguments or another approach."] * 2
    assert sorted(r.tool_call_id for r in failures(caplog)) == ["a", "b"]
