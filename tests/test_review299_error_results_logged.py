"""Review 299 #3: every tool call answered with an error result is logged once at DEBUG on ``toolwire.tools``, as
the README says: a call of an unknown tool, argument text that is no JSON object, an ``invalid_tool_calls`` entry,
``Tool.invoke`` of a call whose argument text is no JSON; no record for a call that succeeds, and none for a call
whose error is raised (``handle_errors=False``)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from toolwire import Agent, ToolExecutor, tool
from toolwire.errors import ToolExecutionError
from toolwire.messages import AIMessage
from toolwire.testing import ScriptedChatModel


@tool
def ok(x: int) -> int:
    """Echo x."""
    return x


def call(call_id: str, name: object, args: object) -> dict:
    return {"id": call_id, "name": name, "args": args, "type": "tool_call"}


def records(caplog: pytest.LogCaptureFixture) -> list[tuple]:
    return [(r.levelno, r.tool_name, r.tool_call_id) for r in caplog.records if r.name == "toolwire.tools"]


INVALID = AIMessage("", invalid_tool_calls=[
    {"id": "c4", "name": "ok", "args": '{"x": 1', "error": "bad JSON", "type": "invalid_tool_call"}])

CASES = {
    "unknown tool": (lambda: [call("c2", "okk", {"x": 1})], ("okk", "c2")),
    "args text not JSON": (lambda: [call("c3", "ok", '{"x": 1')], ("ok", "c3")),
    "invalid_tool_calls": (lambda: INVALID, ("ok", "c4")),
}


@pytest.mark.parametrize("how", ["execute", "aexecute"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_error_answer_is_logged_once(case: str, how: str, caplog: pytest.LogCaptureFixture) -> None:
    given, (name, call_id) = CASES[case]
    executor = ToolExecutor([ok])
    with caplog.at_level(logging.DEBUG, logger="toolwire.tools"):
        answers = executor.execute(given()) if how == "execute" else asyncio.run(executor.aexecute(given()))
    assert [(m.tool_call_id, m.status) for m in answers] == [(call_id, "error")]
    assert records(caplog) == [(logging.DEBUG, name, call_id)]
    record = next(r for r in caplog.records if r.name == "toolwire.tools")
    assert record.exc_info is not None and isinstance(record.exc_info[1], ToolExecutionError)
    assert call_id in record.getMessage()


def test_unknown_tool_name_that_is_not_text(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="toolwire.tools"):
        answers = ToolExecutor([ok]).execute([call("c9", 42, {"x": 1})])
    assert answers[0].status == "error"
    assert [(level, call_id) for level, _, call_id in records(caplog)] == [(logging.DEBUG, "c9")]


def test_tool_invoke_with_argument_text_not_json(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="toolwire.tools"):
        message = ok.invoke(call("c5", "ok", '{"x": 1'))
        amessage = asyncio.run(ok.ainvoke(call("c6", "ok", '{"x": 1')))
    assert (message.status, amessage.status) == ("error", "error")
    assert records(caplog) == [(logging.DEBUG, "ok", "c5"), (logging.DEBUG, "ok", "c6")]


def test_agent_run_logs_a_call_of_an_unknown_tool(caplog: pytest.LogCaptureFixture) -> None:
    reply = AIMessage("", tool_calls=[call("a1", "ok", {"x": 1}), call("a2", "get_weather", {"city": "Paris"})])
    with caplog.at_level(logging.DEBUG, logger="toolwire.tools"):
        Agent(ScriptedChatModel([reply, "done"]), [ok]).invoke("q")
    assert records(caplog) == [(logging.DEBUG, "get_weather", "a2")]


def test_no_record_on_success_or_when_raised(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="toolwire.tools"):
        assert ToolExecutor([ok]).execute([call("s1", "ok", {"x": 1})])[0].status == "success"
        for given in (lambda: [call("r1", "okk", {})], lambda: INVALID, lambda: [call("r2", "ok", "{")]):
            with pytest.raises(ToolExecutionError):
                ToolExecutor([ok], handle_errors=False).execute(given())
    assert records(caplog) == []
