"""Review 9 (tools and concurrency): StopIteration, nested agents, a tool's own CancelledError and
BaseException subclasses, async timeouts a tool ignores, generator tools, contextvars from a running
loop, daemon pool threads. Every run that used to hang is run on a thread joined with a timeout."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from toolwire import Agent, AIMessage, ToolExecutor, ToolMessage, _concurrency, current_tool_call, tool
from toolwire.errors import SchemaError
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel

HANG = 30  # seconds: a bound that turns a hang into a failure (the runs take well under a second; was 3 to 5 s,
# little enough for a loaded machine to come near)


def within(seconds: float, func: Callable[[], Any]) -> Any:
    """``func()`` on a daemon thread; fail (instead of hanging the suite) if it takes longer than ``seconds``."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = func()
        except BaseException as exc:  # handed to the test
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"still running after {seconds} s (hang)")
    if "error" in box:
        raise box["error"]
    return box["result"]


def reply(*calls: tuple[str, dict[str, Any], str]) -> AIMessage:
    return AIMessage("", tool_calls=[tool_call(name, args, cid) for name, args, cid in calls])


@tool
def first_item(items: list[str]) -> str:
    """Return the first item (next() on an empty iterator raises StopIteration)."""
    return next(iter(items))


@tool
def fine(x: int) -> str:
    """Return 'fine'."""
    return "fine"


# -- 1: StopIteration ------------------------------------------------------------------------------


def test_stop_iteration_of_a_sync_tool_is_an_error_result_on_every_path() -> None:
    empty = tool_call("first_item", {"items": []}, "c1")
    timed = within(HANG, lambda: first_item.invoke(empty, timeout=1))
    assert timed.status == "error" and "StopIteration" in timed.text and "did not finish" not in timed.text
    untimed = within(HANG, lambda: asyncio.run(first_item.ainvoke(empty)))
    assert untimed.status == "error" and "StopIteration" in untimed.text
    results = within(HANG, lambda: ToolExecutor([first_item, fine]).execute(
        reply(("first_item", {"items": []}, "a"), ("fine", {"x": 1}, "b"))))
    assert [m.status for m in results] == ["error", "success"] and "StopIteration" in results[0].text
    run = within(HANG, lambda: Agent(ScriptedChatModel([reply(("first_item", {"items": []}, "c")), "ok"]),
                                  [first_item]).invoke("x"))
    assert run.output == "ok"
    with pytest.raises(RuntimeError, match="StopIteration raised inside the tool") as info:
        first_item.invoke({"items": []})  # the arguments form raises, chained from the StopIteration
    assert isinstance(info.value.__cause__, StopIteration)


def test_stop_async_iteration_is_an_error_result_sync_or_async() -> None:
    @tool(timeout=1)
    async def exhausted(x: int) -> str:
        """Raises StopAsyncIteration."""
        raise StopAsyncIteration

    @tool
    def sync_exhausted(x: int) -> str:
        """Raises StopAsyncIteration (sync)."""
        raise StopAsyncIteration

    result = within(HANG, lambda: exhausted.invoke(tool_call("exhausted", {"x": 1}, "c1")))
    assert result.status == "error" and "StopAsyncIteration" in result.text
    result = within(HANG, lambda: asyncio.run(sync_exhausted.ainvoke(tool_call("sync_exhausted", {"x": 1}, "c2"))))
    assert result.status == "error" and "StopAsyncIteration" in result.text


# -- 2: nested agents ------------------------------------------------------------------------------


def test_nested_agents_do_not_deadlock_when_outer_calls_fill_the_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_concurrency, "MAX_THREADS", 4)
    monkeypatch.setattr(_concurrency, "_pools", [])  # fresh pools of 4 threads

    @tool
    def leaf(q: str) -> str:
        """Leaf."""
        return "leaf:" + q

    def sub_reply(messages: list[Any]) -> Any:
        return "sub done" if isinstance(messages[-1], ToolMessage) else reply(("leaf", {"q": "x"}, "l1"))

    sub_agent = Agent(ScriptedChatModel([sub_reply], cycle=True), [leaf])
    holding = [0]
    lock = threading.Lock()
    full = threading.Event()

    @tool
    def delegate(q: str) -> str:
        """Ask a sub agent (a sync tool blocking on an inner run)."""
        with lock:
            holding[0] += 1
            if holding[0] >= 4:
                full.set()
        full.wait(10)  # the outer calls hold all 4 threads at once (was: a fixed 50 ms, maybe too short to fill it)
        return sub_agent.invoke(q).output

    model = ScriptedChatModel([reply(*[("delegate", {"q": str(i)}, f"c{i}") for i in range(5)]), "done"])
    run = within(HANG, lambda: Agent(model, [delegate]).invoke("go"))
    assert run.output == "done"
    assert [m.text for m in run.messages if isinstance(m, ToolMessage)] == ["sub done"] * 5


def test_pool_threads_report_non_daemon_so_threads_tools_start_are_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    # (they start as daemon threads, so they do not block the exit: tests/test_review251_threads.py)
    monkeypatch.setattr(_concurrency, "_pools", [])  # threads started now, from the main (non-daemon) thread

    @tool
    def where(x: int) -> str:
        """Report the running thread."""
        return f"{threading.current_thread().daemon}"

    results = ToolExecutor([where]).execute(reply(("where", {"x": 1}, "a"), ("where", {"x": 2}, "b")))
    assert [m.text for m in results] == ["False", "False"]


# -- 3 (tool side): a tool's own CancelledError, BaseException subclasses ---------------------------------


class Abort(BaseException):
    """A library's own BaseException subclass."""


@tool
async def inner_cancelled(x: int) -> str:
    """An async tool whose inner task got cancelled."""
    task = asyncio.create_task(asyncio.sleep(10))
    await asyncio.sleep(0)
    task.cancel()
    await task
    return "unreachable"


@tool
def aborts(x: int) -> str:
    """Raises a BaseException subclass."""
    raise Abort("abort")


@tool
def sync_cancelled(x: int) -> str:
    """A sync tool raising CancelledError (always its own)."""
    raise asyncio.CancelledError


@pytest.mark.parametrize("target", [inner_cancelled, aborts, sync_cancelled])
def test_a_tools_own_cancellation_or_base_exception_is_an_error_result(target: Any) -> None:
    call = tool_call(target.name, {"x": 1}, "c1")
    for result in (within(HANG, lambda: target.invoke(call)), within(HANG, lambda: asyncio.run(target.ainvoke(call))),
                   within(HANG, lambda: target.invoke(call, timeout=1))):
        assert result.status == "error", result
        assert "CancelledError" in result.text or "Abort" in result.text


def test_cancelling_the_caller_still_cancels_an_async_tool_call() -> None:
    @tool
    async def slow(x: int) -> str:
        """Sleeps."""
        await asyncio.sleep(5)
        return "late"

    async def main() -> None:
        for limit in (None, 3.0):
            task = asyncio.create_task(slow.ainvoke(tool_call("slow", {"x": 1}, "c1"), timeout=limit))
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    within(HANG, lambda: asyncio.run(main()))


def test_keyboard_interrupt_from_a_tool_still_propagates() -> None:
    @tool
    def interrupted(x: int) -> str:
        """Raises KeyboardInterrupt."""
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        interrupted.invoke(tool_call("interrupted", {"x": 1}, "c1"))


# -- 4: an async tool that swallows its cancellation -----------------------------------------------


TICKS: list[int] = []


@tool(timeout=0.2)
async def stubborn(x: int) -> str:
    """Swallows every cancellation (a retry loop catching BaseException)."""
    while True:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0.02)
            TICKS.append(x)


def test_an_async_timeout_bounds_a_tool_that_swallows_cancellation(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolwire._tool_run

    monkeypatch.setattr(toolwire._tool_run, "CANCEL_GRACE", 0.2)  # 2 s by default, shortened for the test
    call = tool_call("stubborn", {"x": 1}, "c1")

    async def main() -> Any:
        started = time.monotonic()
        result = await stubborn.ainvoke(call)
        assert time.monotonic() - started < 1.8  # about 0.4 s (timeout and grace); 2.2 s with the default grace
        ticks = len(TICKS)
        await asyncio.sleep(0.1)
        assert len(TICKS) == ticks  # it does not keep running in the background
        return result

    result = within(HANG, lambda: asyncio.run(main()))  # and asyncio.run's end does not wait for it forever
    assert result.status == "error" and "did not finish within 0.2 seconds" in result.text
    model = ScriptedChatModel([reply(("stubborn", {"x": 1}, "c1")), "ok"])
    run = within(HANG, lambda: Agent(model, [stubborn]).invoke("x"))  # the sync entry point's loop ends too
    assert run.output == "ok"


# -- 5: generator tools ------------------------------------------------------------------------------


def test_a_generator_tool_runs_on_the_worker_thread_inside_its_timeout() -> None:
    @tool(timeout=0.3)
    def slow_items(n: int):  # type: ignore[no-untyped-def]
        """Yields slowly."""
        for i in range(n):
            time.sleep(0.15)
            yield i

    @tool
    async def ticker(x: int) -> str:
        """Measures event-loop lag."""
        started = time.monotonic()
        await asyncio.sleep(0.05)
        return "lagged" if time.monotonic() - started > 1.0 else "prompt"  # (drained on the loop: 3 s)

    started = time.monotonic()
    results = within(HANG, lambda: ToolExecutor([slow_items, ticker]).execute(
        reply(("slow_items", {"n": 20}, "a"), ("ticker", {"x": 1}, "b"))))
    assert results[0].status == "error" and "did not finish within 0.3 seconds" in results[0].text
    assert results[1].text == "prompt"  # the generator did not block the event loop
    assert time.monotonic() - started < 2.5  # all 20 items would take 3 seconds
    assert slow_items.invoke(tool_call("slow_items", {"n": 1}, "c")).text == "[0]"
    assert slow_items.invoke({"n": 1}) == [0]  # consumed into a list


def test_an_async_generator_tool_is_async_and_consumed_inside_its_timeout() -> None:
    @tool
    async def items(n: int):  # type: ignore[no-untyped-def]
        """Yields n items."""
        for i in range(n):
            await asyncio.sleep(0)
            yield i

    @tool(timeout=0.2)
    async def endless(n: int):  # type: ignore[no-untyped-def]
        """Yields forever."""
        while True:
            await asyncio.sleep(0.05)
            yield n

    assert items.is_async and endless.is_async
    assert items.invoke(tool_call("items", {"n": 3}, "c1")).text == "[0, 1, 2]"
    result = within(HANG, lambda: asyncio.run(endless.ainvoke(tool_call("endless", {"n": 1}, "c2"))))
    assert result.status == "error" and "did not finish within 0.2 seconds" in result.text


def test_a_generator_function_still_needs_a_description() -> None:
    with pytest.raises(SchemaError):
        tool(lambda: (yield 1))


# -- 8: contextvars from a sync entry point inside a running loop (Jupyter) ------------------------------

REQUEST = contextvars.ContextVar("request", default=None)


def test_sync_entry_points_inside_a_running_loop_keep_the_callers_context() -> None:
    @tool
    async def who(x: int) -> str:
        """The current call's id and request."""
        call = current_tool_call()
        return f"{call and call['id']} {REQUEST.get()}"

    @tool
    def swho(x: int) -> str:
        """Sync: the current call's id and request."""
        call = current_tool_call()
        return f"{call and call['id']} {REQUEST.get()}"

    async def main() -> list[str]:
        REQUEST.set("req-1")
        texts = [who.invoke(tool_call("who", {"x": 1}, "id-1")).text]
        results = ToolExecutor([who, swho]).execute(reply(("who", {"x": 1}, "e1"), ("swho", {"x": 1}, "e2")))
        return texts + [m.text for m in results]

    assert within(HANG, lambda: asyncio.run(main())) == ["id-1 req-1", "e1 req-1", "e2 req-1"]


def test_an_async_tools_cleanup_after_its_timeout_runs_to_the_end_and_is_not_blamed() -> None:
    """Review 10: a tool that handles its cancellation (a rollback taking 0.4 s) had its cleanup cut off after
    0.2 s, and the error said it ignored its cancellation."""
    state: list[str] = []

    @tool(timeout=0.3)
    async def txn(x: int) -> str:
        """A transaction rolled back when cancelled."""
        state.append("begin")
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            await asyncio.sleep(0.4)  # the rollback
            state.append("rolled back")
            raise
        finally:
            state.append("finally")
        return "done"

    result = within(HANG, lambda: txn.invoke(tool_call("txn", {"x": 1}, "c1")))
    assert state == ["begin", "rolled back", "finally"]
    assert result.status == "error" and "was stopped" in result.text and "cancellation" not in result.text
