"""Review 289 #1: a raised ToolExecutionError says which call failed.

With ``handle_errors=False`` (the executor's, the Agent's or the tool's own), the ``ToolValidationError``,
``ToolTimeoutError``, ``ToolResultError`` (any ``ToolExecutionError``) raised for a call carries the call's
``tool_call_id`` and ``tool_name``, as the ``ToolExecutionError`` docstring says; a ``ToolResultError``'s message
names the tool. The exception's type, the rest of its message, its cause and its traceback are kept.
"""

from __future__ import annotations

import asyncio
import pickle
import traceback

import pytest

from toolwire import Agent, ToolExecutor, tool
from toolwire.errors import (
    ToolExecutionError,
    ToolResultError,
    ToolTimeoutError,
    ToolValidationError,
    UnknownToolError,
)
from toolwire.messages import AIMessage
from toolwire.testing import ScriptedChatModel


@tool
def ok(x: int) -> int:
    """Echo x."""
    return x


@tool
async def slow(x: int) -> int:
    """Wait far past any timeout."""
    await asyncio.sleep(30)
    return x


@tool
def raw(x: int) -> bytes:
    """Bytes that are not text."""
    return b"\xff\xfe\x00"


@tool
def holds_raw(x: int) -> dict:
    """A dict holding bytes that are not text."""
    return {"data": b"\xff\xfe\x00"}


@tool
def unjsonable(x: int) -> dict:
    """A dict that holds itself."""
    looped: dict = {"a": 1}
    looped["self"] = looped
    return looped


@tool
def big_raw(x: int) -> list:
    """A big list holding bytes that are not text (turned into text on a worker thread)."""
    return [b"\xff\xfe\x00", *range(50_000)]


@tool
def own_error(x: int) -> int:
    """Raises a ToolExecutionError of its own, naming nothing."""
    raise ToolExecutionError("the backend refused the request")


@tool
def calls_ok(x: int) -> int:
    """Calls another tool with bad arguments, whose error it lets through."""
    return ok.invoke({"x": "not a number"})


SHARED = ToolExecutionError("shared failure")


@tool
def shared(x: int) -> int:
    """Raises one module-level error object every time."""
    raise SHARED


def call(call_id: str, name: str, args: dict) -> dict:
    return {"id": call_id, "name": name, "args": args, "type": "tool_call"}


def run(executor: ToolExecutor, calls: list[dict], how: str) -> BaseException:
    with pytest.raises(ToolExecutionError) as caught:
        if how == "sync":
            executor.execute(calls)
        else:
            asyncio.run(executor.aexecute(calls))
    return caught.value


WAYS = ["sync", "async"]


@pytest.mark.parametrize("how", WAYS)
def test_bad_arguments_name_their_call(how: str) -> None:
    exc = run(ToolExecutor([ok], handle_errors=False),
              [call("call_1", "ok", {"x": 1}), call("call_2", "ok", {"x": "nope"})], how)
    assert type(exc) is ToolValidationError
    assert (exc.tool_name, exc.tool_call_id) == ("ok", "call_2")
    assert [m.tool_call_id for m in exc.tool_messages] == ["call_1"]  # the call before it ran


@pytest.mark.parametrize("how", WAYS)
def test_bad_arguments_of_a_raising_tool_name_their_call(how: str) -> None:
    strict = tool(handle_errors=False)(ok.func)
    exc = run(ToolExecutor([strict]), [call("c9", "ok", {"x": "nope"})], how)
    assert type(exc) is ToolValidationError
    assert (exc.tool_name, exc.tool_call_id) == ("ok", "c9")


@pytest.mark.parametrize("how", WAYS)
def test_timeout_names_its_call(how: str) -> None:
    exc = run(ToolExecutor([slow], handle_errors=False, timeout=0.05), [call("call_3", "slow", {"x": 1})], how)
    assert type(exc) is ToolTimeoutError
    assert (exc.tool_name, exc.tool_call_id) == ("slow", "call_3")
    assert str(exc).startswith("Tool 'slow' did not finish within 0.05 seconds")


@pytest.mark.parametrize("how", WAYS)
def test_bad_result_names_its_tool_and_call(how: str) -> None:
    exc = run(ToolExecutor([ok, raw], handle_errors=False),
              [call("c1", "ok", {"x": 1}), call("c2", "raw", {"x": 1})], how)
    assert type(exc) is ToolResultError
    assert (exc.tool_name, exc.tool_call_id) == ("raw", "c2")
    assert str(exc).startswith("Tool 'raw' returned bytes that are not UTF-8 text, which a model cannot read")
    assert exc.result == b"\xff\xfe\x00"
    assert exc.reason == "it is bytes that are not UTF-8 text"


@pytest.mark.parametrize("name", ["holds_raw", "big_raw"])
def test_a_result_holding_bad_bytes_names_its_tool(name: str) -> None:
    exc = run(ToolExecutor([holds_raw, big_raw], handle_errors=False), [call("c5", name, {"x": 1})], "sync")
    assert type(exc) is ToolResultError
    assert (exc.tool_name, exc.tool_call_id) == (name, "c5")
    assert str(exc).startswith(f"The result of tool '{name}' holds bytes that are not UTF-8 text")


def test_a_bad_result_keeps_its_cause_and_traceback() -> None:
    exc = run(ToolExecutor([unjsonable], handle_errors=False), [call("c6", "unjsonable", {"x": 1})], "sync")
    assert type(exc) is ToolResultError
    assert (exc.tool_name, exc.tool_call_id) == ("unjsonable", "c6")
    assert str(exc).startswith("The result of tool 'unjsonable' could not be turned into JSON text: Circular")
    assert isinstance(exc.__cause__, ValueError)
    frames = [frame.filename for frame in traceback.extract_tb(exc.__traceback__)]
    assert any(name.endswith("results.py") for name in frames)  # where it was made, as before


@pytest.mark.parametrize("how", WAYS)
def test_a_tools_own_execution_error_gets_its_call(how: str) -> None:
    exc = run(ToolExecutor([own_error], handle_errors=False), [call("c7", "own_error", {"x": 1})], how)
    assert type(exc) is ToolExecutionError
    assert str(exc) == "the backend refused the request"  # the tool's own message, as it was
    assert (exc.tool_name, exc.tool_call_id) == ("own_error", "c7")
    frames = [frame.name for frame in traceback.extract_tb(exc.__traceback__)]
    assert frames[-1] == "own_error"  # the traceback still ends where the tool raised it


def test_another_tools_error_without_a_call_names_the_models_call() -> None:
    """An error of another tool the tool ran with plain arguments (no call, no id) names the model's call, both
    attributes, so that it can be found in the reply; its message still names the inner tool (review 313 #3: it kept
    ``("ok", None)``, which named none of the reply's calls)."""
    exc = run(ToolExecutor([calls_ok], handle_errors=False), [call("c8", "calls_ok", {"x": 1})], "sync")
    assert type(exc) is ToolValidationError
    assert (exc.tool_name, exc.tool_call_id) == ("calls_ok", "c8")
    assert "'ok'" in str(exc)


def test_unknown_tool_is_as_before() -> None:
    exc = run(ToolExecutor([ok], handle_errors=False), [call("call_5", "zzz", {})], "sync")
    assert type(exc) is UnknownToolError
    assert (exc.tool_name, exc.tool_call_id) == ("zzz", "call_5")


def test_one_error_object_raised_for_two_calls_names_each() -> None:
    executor = ToolExecutor([shared], handle_errors=False)
    first = run(executor, [call("s1", "shared", {"x": 1})], "sync")
    second = run(executor, [call("s2", "shared", {"x": 1})], "sync")
    assert (first.tool_name, first.tool_call_id) == ("shared", "s1")
    assert (second.tool_name, second.tool_call_id) == ("shared", "s2")
    assert str(second) == "shared failure"


def test_the_identity_survives_pickling() -> None:
    exc = run(ToolExecutor([raw], handle_errors=False), [call("c2", "raw", {"x": 1})], "sync")
    again = pickle.loads(pickle.dumps(exc))
    assert (type(again), again.tool_name, again.tool_call_id, str(again)) == (
        ToolResultError, "raw", "c2", str(exc))


def _two_calls_reply() -> AIMessage:
    return AIMessage("", tool_calls=[call("call_A", "ok", {"x": 1}), call("call_B", "ok", {"x": "nope"})])


@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
def test_agent_run_names_the_failed_call(how: str) -> None:
    agent = Agent(ScriptedChatModel([_two_calls_reply(), "done"]), [ok], handle_errors=False)
    with pytest.raises(ToolValidationError) as caught:
        if how == "invoke":
            agent.invoke("go")
        else:
            asyncio.run(agent.ainvoke("go"))
    assert (caught.value.tool_name, caught.value.tool_call_id) == ("ok", "call_B")


def test_agent_run_names_a_bad_result() -> None:
    reply = AIMessage("", tool_calls=[call("call_R", "raw", {"x": 1})])
    agent = Agent(ScriptedChatModel([reply, "done"]), [raw], handle_errors=False)
    with pytest.raises(ToolResultError) as caught:
        agent.invoke("go")
    assert (caught.value.tool_name, caught.value.tool_call_id) == ("raw", "call_R")
    assert "'raw'" in str(caught.value)


def test_handled_errors_are_unchanged() -> None:
    """Under handle_errors=True the model's text is what it was (no tool name added to the result's text)."""
    [answer] = ToolExecutor([raw]).execute([call("c2", "raw", {"x": 1})])
    assert answer.status == "error"
    assert answer.tool_call_id == "c2"
    assert "Tool 'raw' returned bytes" not in answer.content
