"""Review 315 #1-#3: which sync wrapper of an ``async def`` hands its coroutine back (is called on the loop's thread).

7abdf4b took any wrapper whose code, nested ``async def`` included, named a running-loop check for a "sync or async"
wrapper, ahead of the bridge test. #1: bridges that name a check but never hand the coroutine back (A: the check is in
the nested ``async def main``; B: a refusal with its own exception class; D: "reuse the idle loop"; E: ``assert not
loop.is_running()``) were called on toolwire's loop thread, so their body ran twice or every call failed. #2: C (a
check, then the run on a pool thread through a helper) blocked the caller's loop. #3: a dual wrapper whose check sits
in a helper ran the tool on a private loop. A narrower reading of the paths (7cc47bf) still mistook bridges for dual
wrappers (review 323), so every wrapper that names a bridge is one again (as at 39d87fa), dual wrappers included: they
run once on every path, their coroutine on a private loop under an async caller (README).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import threading
from typing import Any

import pytest

from toolwire import ToolExecutor, tool
from toolwire._bridges import BRIDGE
from toolwire._signature import sync_wrapper

BODY: list[str] = []  # one entry per run of a wrapper's own body
_WAIT = 5.0  # (only reached when the test fails)


async def _work(x: int) -> str:
    """Do the work.

    Args:
        x: A number.
    """
    await asyncio.sleep(0)
    return f"ok{x}"


def _shape_a(fn: Any) -> Any:  # a plain bridge whose nested async main reads the running loop
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        BODY.append("A")

        async def main() -> Any:
            asyncio.get_running_loop().slow_callback_duration = 1.0
            return await fn(*a, **k)
        return asyncio.run(main())
    return wrapper


class SyncOnly(Exception):
    """A refusal with its own exception class."""


def _shape_b(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        BODY.append("B")
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(fn(*a, **k))
        raise SyncOnly("called inside a running loop: use the async API")
    return wrapper


_POOL = concurrent.futures.ThreadPoolExecutor(4)


def _in_thread(coro: Any) -> Any:
    return _POOL.submit(asyncio.run, coro).result()


def _shape_c(fn: Any) -> Any:  # "works in Jupyter too": inside a loop, the run goes to a pool thread through a helper
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        BODY.append("C")
        coro = fn(*a, **k)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(coro)
        return _in_thread(coro)
    return wrapper


def _shape_d(fn: Any) -> Any:  # reuse the thread's loop if it is idle, else asyncio.run
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        BODY.append("D")
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:
            loop = None
        if loop is not None and not loop.is_running():
            return loop.run_until_complete(fn(*a, **k))
        return asyncio.run(fn(*a, **k))
    return wrapper


def _shape_e(fn: Any) -> Any:  # review 295 #2's private loop with a defensive assert
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        BODY.append("E")
        loop = asyncio.new_event_loop()
        try:
            assert not loop.is_running()
            return loop.run_until_complete(fn(*a, **k))
        finally:
            loop.close()
    return wrapper


def _call(i: int = 1, name: str = "work") -> dict[str, Any]:
    return {"name": name, "args": {"x": i}, "id": f"c{i}", "type": "tool_call"}


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("shape", [_shape_a, _shape_b, _shape_c, _shape_d, _shape_e,
                                   "_dual_inline", "_dual_helper_check"])  # (defined below)
def test_the_reviews_bridges_are_bridges_and_run_their_body_once_on_every_path(shape: Any) -> None:
    shape = globals()[shape] if isinstance(shape, str) else shape
    made = tool(shape(_work), name="work")
    assert sync_wrapper(made.func) == BRIDGE and made._off_loop == BRIDGE

    async def inside_a_loop() -> Any:  # a sync invoke from code a loop runs (Jupyter)
        return made.invoke(_call()).content

    runs = [lambda: made.invoke(_call()).content, lambda: made.invoke({"x": 1}),
            lambda: asyncio.run(inside_a_loop()), lambda: asyncio.run(made.ainvoke({"x": 1})),
            lambda: asyncio.run(made.ainvoke(_call())).content,
            lambda: asyncio.run(ToolExecutor([made]).aexecute([_call()]))[0].content,
            lambda: ToolExecutor([made]).execute([_call()])[0].content]
    for run in runs:
        BODY.clear()
        assert run() == "ok1"
        assert len(BODY) == 1


def test_shape_c_under_aexecute_runs_three_calls_at_once_without_blocking_the_loop() -> None:
    """Each call waits until all three run (a barrier) and until a task on the caller's loop has run meanwhile: on the
    loop's thread the first call would hold the loop, and the others would wait for it."""
    everyone = threading.Barrier(3, timeout=_WAIT)
    loop_ran = threading.Event()

    @tool("work")
    @_shape_c
    async def work(x: int) -> str:
        """Wait for the others.

        Args:
            x: A number.
        """
        await asyncio.to_thread(everyone.wait)
        await asyncio.to_thread(loop_ran.wait, _WAIT)
        return f"ok{x}" if loop_ran.is_set() else "the caller's loop was blocked"

    assert work._off_loop == BRIDGE

    async def run() -> list[str]:
        async def on_the_loop() -> None:
            await asyncio.sleep(0)
            loop_ran.set()
        messages, _ = await asyncio.gather(ToolExecutor([work], max_concurrency=3).aexecute(
            [_call(i) for i in range(3)]), on_the_loop())
        return [message.content for message in messages]

    BODY.clear()
    assert asyncio.run(run()) == ["ok0", "ok1", "ok2"]
    assert len(BODY) == 3


# -- #3 and 313 #1: dual wrappers are bridges too (review 323), and run their body once on every path ---------------

def _dual_inline(fn: Any) -> Any:  # review 313 #1's wrapper
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        BODY.append("dual")
        coro = fn(*a, **k)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(coro)
        return coro
    return wrapper


def _in_async() -> bool:
    try:
        asyncio.get_running_loop()
        return True
    except RuntimeError:
        return False


def _dual_helper_check(fn: Any) -> Any:  # review 315 #3: the check moved into a helper
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        BODY.append("dual")
        coro = fn(*a, **k)
        if _in_async():
            return coro
        return asyncio.run(coro)
    return wrapper


# -- the rule's edges ----------------------------------------------------------------------------------------------

class _DualObject:  # a class-based dual decorator: it hands back ``self.func(...)``
    def __init__(self, func: Any) -> None:
        self.func = func
        functools.update_wrapper(self, func)

    def __call__(self, *a: Any, **k: Any) -> Any:
        return self.func(*a, **k) if _in_async() else asyncio.run(self.func(*a, **k))


def _result_kept(fn: Any) -> Any:  # checks, but every return gives the run's value (a local set from the bridge)
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            result = asyncio.run(fn(*a, **k))
        else:
            result = _in_thread(fn(*a, **k))
        BODY.append(str(result))
        return result
    return wrapper


def _refusing_helper(coro: Any) -> Any:  # a helper that checks, but refuses rather than hand the coroutine back
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    coro.close()
    raise SyncOnly("use the async API")


def _through_refusing_helper(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        return _refusing_helper(fn(*a, **k))
    return wrapper


@pytest.mark.parametrize(("wrap", "expected"), [(_DualObject, BRIDGE), (_result_kept, BRIDGE),
                                                (_through_refusing_helper, BRIDGE)])
def test_wrappers_that_name_a_bridge_are_bridges_and_answer_on_every_path(wrap: Any, expected: Any) -> None:
    made = tool(wrap(_work), name="work")
    assert sync_wrapper(made.func) == expected
    assert asyncio.run(made.ainvoke({"x": 2})) == "ok2"
    assert made.invoke({"x": 3}) == "ok3"
