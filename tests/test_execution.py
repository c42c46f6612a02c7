"""toolwire.execution.ToolExecutor: every call answered, in order, concurrently within a bound (issue [1]).

Concurrency is checked with a counter of simultaneous runs, never with timing: each tool waits until
the expected number of runs overlap (a generous wait bounds a broken run; it is no assertion).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
import time

import pytest

from toolwire import (
    AIMessage,
    SchemaError,
    ToolExecutor,
    ToolMessage,
    UnknownToolError,
    tool,
)
from toolwire.errors import ToolExecutionError, UserError
from toolwire.messages import invalid_tool_call, tool_call

WAIT = 5.0  # seconds a broken run may hang before the assertion reports it


@tool
def get_time(tz: str = "UTC") -> str:
    """Get the current time."""
    return f"12:00 {tz}"


@tool
def boom(x: int) -> str:
    """Always fails."""
    raise ValueError("boom")


def reply(*calls: dict, invalid: tuple = ()) -> AIMessage:
    return AIMessage("", tool_calls=list(calls), invalid_tool_calls=list(invalid))


class Overlap:
    """Counts simultaneous runs of a tool.

    Each run waits until ``floor`` runs overlap (at most ``WAIT`` seconds), then until ``release_at`` runs overlap,
    at most ``hold`` seconds; once one run has stopped waiting, later runs go straight through. A run never waits
    past ``WAIT + hold`` (that bounds a broken run), and no assertion depends on how long anything took.
    """

    def __init__(self, release_at: int, hold: float = WAIT, floor: int = 0) -> None:
        self.release_at = release_at
        self.hold = hold
        self.floor = floor
        self.current = 0
        self.peak = 0
        self.lock = threading.Lock()
        self.reached = threading.Event()
        self.floor_reached = threading.Event()
        self.released = threading.Event()

    def enter(self) -> bool:
        with self.lock:
            self.current += 1
            self.peak = max(self.peak, self.current)
            if self.current >= self.floor:
                self.floor_reached.set()
            if self.current >= self.release_at:
                self.reached.set()
        return not self.released.is_set()

    def leave(self) -> None:
        with self.lock:
            self.current -= 1
        self.released.set()


def sync_overlap_tool(overlap: Overlap):
    @tool
    def work(i: int) -> int:
        """Work."""
        try:
            if overlap.enter():
                overlap.floor_reached.wait(WAIT)
                overlap.reached.wait(overlap.hold)
        finally:
            overlap.leave()
        return i * 10

    return work


def async_overlap_tool(overlap: Overlap):
    @tool
    async def awork(i: int) -> int:
        """Async work."""
        try:
            if overlap.enter():
                for _ in range(int(WAIT / 0.001)):
                    if overlap.floor_reached.is_set():
                        break
                    await asyncio.sleep(0.001)
                for _ in range(int(overlap.hold / 0.001)):
                    if overlap.reached.is_set():
                        break
                    await asyncio.sleep(0.001)
        finally:
            overlap.leave()
        return i * 10

    return awork


# -- every call answered, in order ------------------------------------------------------------------


def test_results_in_call_order_one_per_call() -> None:
    executor = ToolExecutor([get_time, boom])
    message = reply(
        tool_call("boom", {"x": 1}, "c1"),
        tool_call("get_date", {}, "c2"),
        tool_call("get_time", {"tz": 5}, "c3"),
        tool_call("get_time", {}, "c4"),
        invalid=(invalid_tool_call("get_time", "[1, 2]", "c5", "The arguments are an array, not an object"),),
    )
    results = executor.execute(message)
    assert [r.tool_call_id for r in results] == ["c1", "c2", "c3", "c4", "c5"]
    assert [r.status for r in results] == ["error", "error", "error", "success", "error"]
    assert results[0].content == "Error: tool 'boom' raised ValueError: boom"
    assert results[1].content == ("Error: There is no tool named 'get_date'. Available tools: boom, get_time. "
                                  "Call one of them by its exact name.")
    assert results[2].content == ("Error: Invalid arguments for tool 'get_time': 'tz': Input should be a valid "
                                  "string (got 5).")
    assert results[3] == ToolMessage("12:00 UTC", "c4", name="get_time")
    assert results[4].content == (
        "Error: the call to 'get_time' was not valid: the arguments are an array, not an object. "
        "The arguments received were: [1, 2]. Send the call again with the arguments as a JSON object.")
    assert all("Traceback" not in r.content for r in results)


def test_no_calls_no_results() -> None:
    assert ToolExecutor([get_time]).execute(AIMessage("just text")) == []


def test_string_arguments_in_a_call_are_read_as_json() -> None:
    executor = ToolExecutor([get_time])
    ok, bad = executor.execute(reply(tool_call("get_time", {}, "c1") | {"args": '{"tz": "CET"}'},
                                     tool_call("get_time", {}, "c2") | {"args": "[1, 2]"}))
    assert ok.content == "12:00 CET"
    # arguments that are no object make an invalid call, answered in its place with the parser's error (review 77)
    assert bad.status == "error" and bad.tool_call_id == "c2" and "got a JSON array" in bad.content


def test_async_entry_point_gives_the_same_results() -> None:
    executor = ToolExecutor([get_time, boom])
    message = reply(tool_call("get_time", {"tz": "CET"}, "a"), tool_call("boom", {"x": 2}, "b"))
    assert asyncio.run(executor.aexecute(message)) == executor.execute(message)


def test_execute_from_inside_a_running_loop() -> None:
    executor = ToolExecutor([get_time])

    async def main() -> list[ToolMessage]:
        return executor.execute(reply(tool_call("get_time", {}, "a")))

    assert asyncio.run(main()) == [ToolMessage("12:00 UTC", "a", name="get_time")]
    # the helper thread that ran the loop is gone once the call returns
    assert [t.name for t in threading.enumerate() if t.name.startswith("toolwire-loop")] == []


def test_handle_errors_false_re_raises() -> None:
    executor = ToolExecutor([get_time, boom], handle_errors=False)
    with pytest.raises(ValueError, match="boom"):
        executor.execute(reply(tool_call("boom", {"x": 1}, "c9")))
    with pytest.raises(UnknownToolError, match="There is no tool named 'nope'"):
        executor.execute(reply(tool_call("nope", {}, "c1")))
    with pytest.raises(ToolExecutionError, match="cut off"):
        executor.execute(reply(invalid=(invalid_tool_call("get_time", "{", "c1", "cut off"),)))


def test_hide_error_details() -> None:
    executor = ToolExecutor([boom], hide_error_details=True)
    [result] = executor.execute(reply(tool_call("boom", {"x": 1}, "c1")))
    assert result.content == "Error: tool 'boom' raised ValueError. Try different arguments or another approach."


def test_long_results_are_cut_with_a_marker() -> None:
    @tool
    def dump(n: int) -> str:
        """Dump."""
        return "x" * n

    [short, long] = ToolExecutor([dump]).execute(reply(tool_call("dump", {"n": 20_000}, "a"),
                                                      tool_call("dump", {"n": 20_001}, "b")))
    assert short.content == "x" * 20_000
    assert long.content == "x" * 20_000 + ("\n[... result truncated: 1 of 20001 characters cut; "
                                          "ask for a narrower result ...]")
    [kept] = ToolExecutor([dump], max_result_chars=None).execute(reply(tool_call("dump", {"n": 30_000}, "c")))
    assert len(kept.content) == 30_000


def test_timeouts_sync_and_async() -> None:
    release = threading.Event()

    @tool
    def stuck() -> str:
        """Stuck."""
        release.wait(WAIT)
        return "late"

    @tool
    async def astuck() -> str:
        """Stuck."""
        await asyncio.sleep(WAIT)
        return "late"

    try:
        # (0.5 s, not 0.05: get_time must finish within it too, on a thread of its own, also on a loaded machine)
        results = ToolExecutor([stuck, astuck, get_time], timeout=0.5).execute(
            reply(tool_call("stuck", {}, "s"), tool_call("astuck", {}, "a"), tool_call("get_time", {}, "t")))
    finally:
        release.set()
    assert [r.status for r in results] == ["error", "error", "success"]
    assert results[0].content == ("Error: Tool 'stuck' did not finish within 0.5 seconds and is still running, so it "
                                  "may yet take effect; its result will not be used: check what it did before calling "
                                  "it again.")
    assert results[1].content == ("Error: Tool 'astuck' did not finish within 0.5 seconds and was stopped, but what "
                                  "it did before that may have taken effect; its result will not be used: check what "
                                  "it did before calling it again.")


def test_the_tool_timeout_wins_over_the_executor_timeout() -> None:
    release = threading.Event()

    @tool(timeout=0.05)
    def stuck() -> str:
        """Stuck."""
        release.wait(WAIT)
        return "late"

    try:
        [result] = ToolExecutor([stuck], timeout=100).execute(reply(tool_call("stuck", {}, "s")))
    finally:
        release.set()
    assert "within 0.05 seconds" in result.content


# -- concurrency --------------------------------------------------------------------------------------


@pytest.mark.parametrize("make_tool", [sync_overlap_tool, async_overlap_tool])
def test_all_calls_of_a_reply_run_at_once(make_tool) -> None:
    overlap = Overlap(release_at=6)  # the runs wait for each other: only concurrent runs get through
    work = make_tool(overlap)
    calls = [tool_call(work.name, {"i": i}, f"c{i}") for i in range(6)]
    results = ToolExecutor([work]).execute(reply(*calls))
    assert overlap.peak == 6
    assert [r.content for r in results] == ["0", "10", "20", "30", "40", "50"]


@pytest.mark.parametrize("make_tool", [sync_overlap_tool, async_overlap_tool])
def test_max_concurrency_bounds_simultaneous_runs(make_tool) -> None:
    # the first runs hold for a fourth to join them; with the bound kept, none can (they first wait for the third, so
    # that the three overlap however slowly a loaded machine starts them: the 0.2 s hold alone did not ensure it)
    overlap = Overlap(release_at=4, hold=0.2, floor=3)
    work = make_tool(overlap)
    calls = [tool_call(work.name, {"i": i}, f"c{i}") for i in range(9)]
    results = ToolExecutor([work], max_concurrency=3).execute(reply(*calls))
    assert overlap.peak == 3
    assert [r.tool_call_id for r in results] == [f"c{i}" for i in range(9)]
    assert [r.content for r in results] == [str(i * 10) for i in range(9)]


def test_max_concurrency_one_runs_one_at_a_time() -> None:
    overlap = Overlap(release_at=2, hold=0.2)
    work = sync_overlap_tool(overlap)
    ToolExecutor([work], max_concurrency=1).execute(reply(*[tool_call("work", {"i": i}) for i in range(4)]))
    assert overlap.peak == 1


# -- construction ---------------------------------------------------------------------------------


def test_construction_errors_and_plain_functions() -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    executor = ToolExecutor([add])
    assert list(executor.tools) == ["add"]
    assert executor.execute(reply(tool_call("add", {"a": 1, "b": 2}, "x")))[0].content == "3"
    with pytest.raises(SchemaError, match="Two tools are named 'add'"):
        ToolExecutor([add, add])
    with pytest.raises(SchemaError, match="has a schema but no function to run"):
        ToolExecutor([{"name": "lookup", "description": "d", "parameters": {"type": "object"}}])
    with pytest.raises(UserError, match="max_concurrency must be a whole number of at least 1"):
        ToolExecutor([add], max_concurrency=0)
    with pytest.raises(UserError, match="max_concurrency"):
        ToolExecutor([add], max_concurrency="a")  # type: ignore[arg-type]
    for bad in (0, -1):
        with pytest.raises(UserError, match="timeout must be a positive number of seconds"):
            ToolExecutor([add], timeout=bad)
    # the reply's tool_calls list is accepted as well as the reply; anything else is a clear error
    assert executor.execute([tool_call("add", {"a": 2, "b": 2}, "y")])[0].content == "4"
    with pytest.raises(UserError, match="takes the model's AIMessage"):
        executor.execute(None)  # type: ignore[arg-type]


def test_a_tool_that_exits_gets_an_error_result_and_the_program_goes_on() -> None:
    import sys

    @tool
    def bye(x: int) -> int:
        """Exits."""
        sys.exit(3)

    @tool
    async def abye(x: int) -> int:
        """Exits (async)."""
        sys.exit(4)

    for timeout in (None, 5.0):  # with a timeout the async tool runs as a task of its own
        results = ToolExecutor([bye, abye], timeout=timeout).execute(
            reply(tool_call("bye", {"x": 1}, "a"), tool_call("abye", {"x": 1}, "b")))
        assert [(m.tool_call_id, m.status) for m in results] == [("a", "error"), ("b", "error")]
        assert "tried to exit the program (sys.exit(3))" in results[0].content
        assert "tried to exit the program (sys.exit(4))" in results[1].content


def test_tools_stuck_past_their_timeout_do_not_starve_later_calls() -> None:
    import threading

    release = threading.Event()

    @tool(timeout=0.05)
    def stuck(i: int) -> str:
        """Blocks until released."""
        release.wait(30)
        return "late"

    @tool
    def quick(i: int) -> str:
        """Answers at once."""
        return "q"

    executor = ToolExecutor([stuck, quick])
    try:
        # more stuck calls than the shared pool has threads (64)
        stuck_results = executor.execute([tool_call("stuck", {"i": i}, f"s{i}") for i in range(80)])
        assert {m.status for m in stuck_results} == {"error"}
        assert executor.execute([tool_call("quick", {"i": 1}, "q")])[0].content == "q"
    finally:
        release.set()


def test_method_tools_bind_to_their_instance() -> None:
    class Counter:
        def __init__(self, start: int) -> None:
            self.start = start

        @tool
        def bump(self, by: int) -> int:
            """Add to the counter."""
            return self.start + by

    assert Counter.bump.parameters["properties"] == {"by": {"type": "integer"}}
    assert Counter(10).bump.invoke({"by": 1}) == 11
    assert ToolExecutor([Counter(5).bump]).execute([tool_call("bump", {"by": 2}, "m")])[0].content == "7"


# -- review findings: tools that misbehave in unusual ways still get one error result -------------------


class _UnprintableError(Exception):
    def __str__(self) -> str:  # a broken __str__, as in hand-written API error classes
        raise AttributeError("detail")


def test_an_exception_whose_str_fails_still_gives_an_error_result() -> None:
    @tool
    def fetch(url: str) -> str:
        """Fetch a URL."""
        raise _UnprintableError

    message = reply(tool_call("fetch", {"url": "x"}, "c1"))
    expected = ToolMessage("Error: tool 'fetch' raised _UnprintableError.", "c1", name="fetch", status="error")
    assert fetch.invoke(message.tool_calls[0]) == expected
    assert ToolExecutor([fetch]).execute(message) == [expected]
    assert asyncio.run(ToolExecutor([fetch]).aexecute(message)) == [expected]


def test_an_async_tool_under_a_plain_wrapping_decorator_is_awaited() -> None:
    def logged(fn):  # type: ignore[no-untyped-def]
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
            return fn(*args, **kwargs)
        return wrapper

    @tool
    @logged
    async def get_weather(city: str) -> str:
        """Weather of a city."""
        return f"sunny in {city}"

    assert get_weather.is_async
    results = ToolExecutor([get_weather]).execute(reply(tool_call("get_weather", {"city": "Oslo"}, "c1")))
    assert results == [ToolMessage("sunny in Oslo", "c1", name="get_weather")]


def test_a_sync_function_returning_a_coroutine_is_an_error_not_a_success() -> None:
    async def later() -> str:
        return "never"

    @tool
    def sneaky(x: int) -> str:
        """Returns a coroutine without being async def."""
        return later()  # type: ignore[return-value]

    [result] = ToolExecutor([sneaky]).execute(reply(tool_call("sneaky", {"x": 1}, "c1")))
    assert result.status == "error"
    assert "returned an awaitable or async generator instead of a result" in result.content


def test_an_async_tool_that_blocks_past_its_timeout_is_a_timeout_not_a_success() -> None:
    @tool(timeout=0.05)
    async def blocking(q: str) -> str:
        """Calls blocking code inside async def (a common mistake)."""
        time.sleep(0.3)
        return "late"

    @tool(timeout=0.05)
    async def stubborn(q: str) -> str:
        """Ignores its cancellation."""
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(1)
        return "late"

    for slow in (blocking, stubborn):
        result = slow.invoke(tool_call(slow.name, {"q": "x"}, "c1"))
        assert result.status == "error", slow.name
        assert "did not finish within 0.05 seconds and " in result.content
        assert ("may have taken effect" if slow is blocking else "did not stop when cancelled, so it may yet take "
                "effect") in result.content
        assert result.content.endswith("; its result will not be used: check what it did before calling it again.")
        [executed] = ToolExecutor([slow]).execute(reply(tool_call(slow.name, {"q": "x"}, "c2")))
        assert executed.status == "error" and "did not finish within" in executed.content


def test_a_tool_sees_the_call_it_runs_for_in_every_path() -> None:
    from toolwire import current_tool_call

    def seen() -> str:
        call = current_tool_call()
        return call["id"] if call else "none"

    @tool
    def plain(x: int) -> str:
        """Sync."""
        return seen()

    @tool(timeout=5)
    def threaded(x: int) -> str:
        """Sync, on a thread of its own (it has a timeout)."""
        return seen()

    @tool
    async def coro(x: int) -> str:
        """Async."""
        return seen()

    for each in (plain, threaded, coro):
        assert each.invoke(tool_call(each.name, {"x": 1}, "c1")).content == "c1"
        assert asyncio.run(each.ainvoke(tool_call(each.name, {"x": 1}, "c2"))).content == "c2"
        assert each.invoke({"x": 1}) == "none"
    message = reply(*(tool_call(t.name, {"x": 1}, f"e{i}") for i, t in enumerate((plain, threaded, coro))))
    assert [m.content for m in ToolExecutor([plain, threaded, coro]).execute(message)] == ["e0", "e1", "e2"]
    assert current_tool_call() is None


def test_the_fast_tool_message_path_gives_the_same_message_and_resets_the_current_call() -> None:
    from toolwire import current_tool_call

    @tool
    def echo(x: str) -> str:
        """Echo."""
        return x

    @tool
    def fails(x: str) -> str:
        """Fails."""
        raise ValueError("no")

    made = echo.invoke(tool_call(echo.name, {"x": "hi"}, "c1"))
    built = ToolMessage("hi", "c1", name=echo.name)
    assert made == built and repr(made) == repr(built) and made.to_dict() == built.to_dict()
    assert fails.invoke(tool_call(fails.name, {"x": "a"}, "c2")).status == "error"
    assert asyncio.run(fails.ainvoke(tool_call(fails.name, {"x": "a"}, "c3"))).status == "error"
    assert current_tool_call() is None
