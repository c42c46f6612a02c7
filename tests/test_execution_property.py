"""Property: every tool call, and every invalid tool call, gets exactly one ToolMessage, in order.

Random mixes of good calls, unknown names, invalid arguments, raising tools, slow tools past their
timeout (sync and async) and invalid tool calls, run through the sync and the async entry points.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire import AIMessage, ToolExecutor, tool
from toolwire.messages import invalid_tool_call, tool_call


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def aecho(text: str) -> str:
    """Echo text back (async)."""
    await asyncio.sleep(0)
    return text


@tool
def boom(reason: str) -> str:
    """Always fails."""
    raise ValueError(f"boom: {reason}")


_RELEASE = threading.Event()  # set when the module's tests end, so that abandoned threads finish


@tool(timeout=0.05)
def slow_sync(n: int) -> int:
    """Waits far past its timeout (sync: the thread is abandoned, not killed); long enough that a
    starved event loop (a busy machine) still sees the timeout before the tool finishes."""
    _RELEASE.wait(30)
    return n


@pytest.fixture(autouse=True, scope="module")
def _release_abandoned_threads():
    yield
    _RELEASE.set()


@tool(timeout=0.05)
async def slow_async(n: int) -> int:
    """Sleeps past its timeout (async: cancelled)."""
    await asyncio.sleep(5)
    return n


TOOLS = [add, aecho, boom, slow_sync, slow_async]

KINDS = ["good_sync", "good_async", "unknown", "bad_args", "raises", "slow_sync", "slow_async", "invalid"]


def build(kind: str, i: int, value: int):
    """Return (call or None, invalid call or None, a check of the answer)."""
    cid = f"c{i}"
    if kind == "good_sync":
        return tool_call("add", {"a": value, "b": 1}, cid), None, \
            lambda m: m.status == "success" and m.content == str(value + 1)
    if kind == "good_async":
        return tool_call("aecho", {"text": f"t{value}é"}, cid), None, \
            lambda m: m.status == "success" and m.content == f"t{value}é"
    if kind == "unknown":
        return tool_call(f"nope_{value}", {}, cid), None, \
            lambda m: m.status == "error" and "There is no tool named" in m.content and "add" in m.content
    if kind == "bad_args":
        return tool_call("add", {"a": "not a number", "c": value}, cid), None, \
            lambda m: m.status == "error" and "'a'" in m.content and "'b' is required" in m.content
    if kind == "raises":
        return tool_call("boom", {"reason": str(value)}, cid), None, \
            lambda m: m.status == "error" and f"ValueError: boom: {value}" in m.content
    if kind in ("slow_sync", "slow_async"):
        return tool_call(kind, {"n": value}, cid), None, \
            lambda m: m.status == "error" and "did not finish within 0.05 seconds" in m.content
    return None, invalid_tool_call("add", '{"a": ' + str(value), cid, "cut off"), \
        lambda m: m.status == "error" and '{"a": ' in m.content


plans = st.lists(st.tuples(st.sampled_from(KINDS), st.integers(-1000, 1000)), min_size=0, max_size=8)


def run_plan(plan, use_async: bool) -> None:
    calls, invalid, checks_calls, checks_invalid = [], [], [], []
    for i, (kind, value) in enumerate(plan):
        call, bad, check = build(kind, i, value)
        if call is not None:
            calls.append(call)
            checks_calls.append((call["id"], check))
        else:
            invalid.append(bad)
            checks_invalid.append((bad["id"], check))
    message = AIMessage("", tool_calls=calls, invalid_tool_calls=invalid)
    executor = ToolExecutor(TOOLS, max_concurrency=4)
    results = asyncio.run(executor.aexecute(message)) if use_async else executor.execute(message)
    expected = checks_calls + checks_invalid
    assert len(results) == len(expected)
    for result, (cid, check) in zip(results, expected, strict=True):
        assert result.tool_call_id == cid
        assert check(result), result


@settings(derandomize=True, database=None, deadline=None, max_examples=60,
          suppress_health_check=[HealthCheck.too_slow])
@given(plans, st.booleans())
def test_every_call_gets_exactly_one_tool_message(plan, use_async):
    run_plan(plan, use_async)


def test_a_timed_out_sync_call_is_not_waited_for():
    release = threading.Event()
    finished = threading.Event()

    @tool(timeout=0.05)
    def stuck(n: int) -> int:
        """Blocks until the test releases it."""
        release.wait(10)
        finished.set()
        return n

    message = AIMessage("", tool_calls=[tool_call("stuck", {"n": 1}, "s"), tool_call("add", {"a": 1, "b": 2}, "g")])
    try:
        results = ToolExecutor([stuck, add]).execute(message)
        # the executor answered both calls while the stuck thread was still running
        assert not finished.is_set()
        assert [(m.tool_call_id, m.status) for m in results] == [("s", "error"), ("g", "success")]
        assert "did not finish within 0.05 seconds" in results[0].content and results[1].content == "3"
    finally:
        release.set()
    assert finished.wait(10)
