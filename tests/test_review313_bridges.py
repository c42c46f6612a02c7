"""Review 313 #1-#2: sync wrappers of an ``async def`` that run it themselves (bridges).

#1: a "sync or async" wrapper (it runs its coroutine with ``asyncio.run`` only when no event loop runs, else hands it
back) is read as a bridge because it names ``asyncio.run``: under ``ainvoke``/Agent it is called on a worker thread,
where no loop runs, so the tool runs on a private loop and the app's loop-bound objects fail there. Telling it from
a bridge by reading its paths (7abdf4b, 7cc47bf) mistook bridges for it (reviews 315, 323), so it stays a bridge: a
documented limit, with the README's advice (give ``@tool`` the ``async def`` itself); it answers once on every path.
#2: a bridge still running on its worker thread when the run stopped was answered "was stopped while it ran", while
its thread went on: it is answered as a sync tool's call still on its thread, and counted as one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import threading
from typing import Any

import pytest
import sniffio

from bridge_kit import create_ticket
from toolwire import Agent, AIMessage, ToolExecutor, _bridges, tool
from toolwire._bridges import BRIDGE
from toolwire._signature import sync_wrapper
from toolwire.testing import ScriptedChatModel

LOOPS: list[asyncio.AbstractEventLoop] = []


async def where(q: str) -> str:
    """Say which loop runs it.

    Args:
        q: Any text.
    """
    LOOPS.append(asyncio.get_running_loop())
    return q


def _call(name: str = "where", **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args or {"q": "a"}, "id": "c1", "type": "tool_call"}


# -- #1: wrappers that hand the coroutine back when a loop runs ------------------------------------------------------

def _dual_get_running_loop(fn: Any) -> Any:  # the review's shape
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        coro = fn(*a, **k)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(coro)
        return coro
    return wrapper


def _dual_private_check(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        if asyncio.events._get_running_loop() is None:
            return asyncio.run(fn(*a, **k))
        return asyncio.ensure_future(fn(*a, **k))
    return wrapper


def _dual_is_running(fn: Any) -> Any:  # the older get_event_loop shape
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:
            return asyncio.run(fn(*a, **k))
        if loop.is_running():
            return fn(*a, **k)
        return loop.run_until_complete(fn(*a, **k))
    return wrapper


def _dual_sniffio(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        try:
            sniffio.current_async_library()
        except sniffio.AsyncLibraryNotFoundError:
            return asyncio.run(fn(*a, **k))
        return fn(*a, **k)
    return wrapper


def _maybe_run(coro: Any) -> Any:  # a module-level "run it unless a loop runs" helper the wrapper names
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    return coro


def _dual_through_helper(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        return _maybe_run(fn(*a, **k))
    return wrapper


def _run_it(coro: Any) -> Any:
    return asyncio.run(coro)


def _dual_checked_here_run_in_helper(fn: Any) -> Any:  # the check in the wrapper, the bridge in a helper it names
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        coro = fn(*a, **k)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return _run_it(coro)
        return coro
    return wrapper


_DUALS = [_dual_get_running_loop, _dual_private_check, _dual_is_running, _dual_sniffio, _dual_through_helper,
          _dual_checked_here_run_in_helper]


@pytest.mark.parametrize("wrap", _DUALS)
def test_a_sync_or_async_wrapper_answers_once_on_every_path(wrap: Any) -> None:
    """Such a wrapper is a bridge when its code names the bridge (review 323: reading its paths mistook bridges for
    it): it answers right on every path, its coroutine on a private loop under an async caller."""
    made = tool(wrap(where), name="where")

    async def run() -> tuple[Any, ...]:
        value = await made.ainvoke({"q": "x"})
        message = (await ToolExecutor([made]).aexecute([_call()]))[0]
        return value, message.content

    assert asyncio.run(run()) == ("x", "a")
    assert made.invoke({"q": "y"}) == "y"
    assert ToolExecutor([made]).execute([_call()])[0].content == "a"


def test_the_reviews_wrapper_is_answered_once_with_a_clear_error_under_an_agent() -> None:
    """The review's reproduction, now a documented limit (README: give ``@tool`` the ``async def`` itself): the
    tool awaits a future made on the app's loop while its coroutine runs on a private loop, and the call is answered
    once, with the error, rather than hanging."""
    made_on: dict[str, asyncio.Future[str]] = {}

    @_dual_get_running_loop
    async def fetch(key: str) -> str:
        """Fetch a key.

        Args:
            key: The key.
        """
        return f"{key}: " + await asyncio.wait_for(made_on["loop"], 5)

    model = ScriptedChatModel([AIMessage("", tool_calls=[_call("fetch", key="a")]), "done"])

    async def run() -> Any:
        made_on["loop"] = ready = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_soon(ready.set_result, "ok")
        return await Agent(model, [tool(fetch)]).ainvoke("fetch a")

    result = asyncio.run(run())
    assert [m.status for m in result.messages if m.type == "tool"] == ["error"]
    direct = tool(fetch.__wrapped__)  # (the README's advice: the async def itself runs on the caller's loop)
    result = asyncio.run(_agent_run(model_reply=_call("fetch", key="a"), made=direct, made_on=made_on))
    assert [m.text for m in result.messages if m.type == "tool"] == ["a: ok"]


async def _agent_run(*, model_reply: Any, made: Any, made_on: dict[str, asyncio.Future[str]]) -> Any:
    made_on["loop"] = ready = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_soon(ready.set_result, "ok")
    model = ScriptedChatModel([AIMessage("", tool_calls=[model_reply]), "done"])
    return await Agent(model, [made]).ainvoke("fetch a")


# -- #1: shapes that stay bridges ---------------------------------------------------------------------------------

def _refusing(fn: Any) -> Any:  # asgiref's AsyncToSync's way: it checks, and refuses a running loop
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(fn(*a, **k))
        raise RuntimeError("You cannot use this wrapper in the same thread as an async event loop.")
    return wrapper


def _to_a_thread(fn: Any) -> Any:  # "run it from anywhere": checks, and runs it on another thread's loop
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        coro = fn(*a, **k)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(coro)
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, coro).result()
    return wrapper


def _run_from_anywhere(coro: Any) -> Any:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    result: list[Any] = []
    thread = threading.Thread(target=lambda: result.append(asyncio.run(coro)))
    thread.start()
    thread.join()
    return result[0]


def _to_a_thread_in_helper(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        return _run_from_anywhere(fn(*a, **k))
    return wrapper


def _review_313_patterns() -> list[Any]:  # /tmp/review313/bridge_patterns.py: all detected as bridges
    def w1(fn: Any) -> Any:
        @functools.wraps(fn)
        def wrapper(*a: Any, **k: Any) -> Any:
            import asyncio.runners as runners_mod
            return runners_mod.run(fn(*a, **k))
        return wrapper

    def w2(fn: Any) -> Any:
        @functools.wraps(fn)
        def wrapper(*a: Any, **k: Any) -> Any:
            from asyncio import runners
            return runners.run(fn(*a, **k))
        return wrapper

    def w3(fn: Any) -> Any:
        @functools.wraps(fn)
        def wrapper(*a: Any, **k: Any) -> Any:
            with concurrent.futures.ThreadPoolExecutor(1) as ex:
                return ex.submit(asyncio.run, fn(*a, **k)).result()
        return wrapper

    def w4(fn: Any) -> Any:
        runner = asyncio.run

        @functools.wraps(fn)
        def wrapper(*a: Any, **k: Any) -> Any:
            return runner(fn(*a, **k))
        return wrapper

    def w5(fn: Any) -> Any:
        @functools.wraps(fn)
        def wrapper(*a: Any, **k: Any) -> Any:
            loop = asyncio.new_event_loop()
            try:
                return loop.run_until_complete(fn(*a, **k))
            finally:
                loop.close()
        return wrapper

    class W7:
        def __init__(self, fn: Any) -> None:
            functools.update_wrapper(self, fn)
            self.fn = fn

        def __call__(self, *a: Any, **k: Any) -> Any:
            return asyncio.run(self.fn(*a, **k))

    def w8(fn: Any) -> Any:
        @functools.wraps(fn)
        def wrapper(*a: Any, **k: Any) -> Any:
            run = asyncio.run
            return run(fn(*a, **k))
        return wrapper

    return [w1, w2, w3, w4, w5, _global_alias, W7, w8]


_RUN = asyncio.run


def _global_alias(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        return _RUN(fn(*a, **k))
    return wrapper


@pytest.mark.parametrize("wrap", [_refusing, _to_a_thread, _to_a_thread_in_helper, *_review_313_patterns()])
def test_bridges_stay_bridges(wrap: Any) -> None:
    made = tool(wrap(create_ticket), name="create_ticket")
    assert sync_wrapper(made.func) == BRIDGE
    assert asyncio.run(made.ainvoke({"order_id": "7"})) == "TCK-7 for None"


def test_a_local_asyncio_loaded_by_a_313_superinstruction_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Python 3.13 fuses ``STORE_FAST asyncio; LOAD_FAST asyncio`` (``import asyncio`` in the function, then
    ``asyncio.run``) into ``STORE_FAST_LOAD_FAST``, and a pair of loads into ``LOAD_FAST_LOAD_FAST`` (3.14:
    ``LOAD_FAST_BORROW_LOAD_FAST_BORROW``), whose ``argval`` is a pair of names: read as the 3.13 ``dis`` gives them."""
    def wrapper(coro: Any) -> Any:
        import asyncio
        return asyncio.run(coro)

    code = wrapper.__code__
    stored = [("IMPORT_NAME", "asyncio"), ("STORE_FAST_LOAD_FAST", ("asyncio", "asyncio")), ("LOAD_ATTR", "run")]
    paired = [("IMPORT_NAME", "asyncio"), ("STORE_FAST", "asyncio"), ("LOAD_FAST_LOAD_FAST", ("coro", "asyncio")),
              ("LOAD_ATTR", "run")]
    borrowed = [("IMPORT_NAME", "asyncio"), ("STORE_FAST", "asyncio"),
                ("LOAD_FAST_BORROW_LOAD_FAST_BORROW", ("coro", "asyncio")), ("LOAD_ATTR", "run")]
    other = [("IMPORT_NAME", "asyncio"), ("STORE_FAST", "asyncio"), ("LOAD_FAST_LOAD_FAST", ("asyncio", "coro")),
             ("LOAD_ATTR", "run")]  # (``run`` read on ``coro``, not on asyncio)
    for instructions, bridges in ((stored, True), (paired, True), (borrowed, True), (other, False)):
        monkeypatch.setattr(_bridges, "_instructions", lambda _code, listed=instructions: iter(listed))
        assert _bridges._runs_from_library(code, {}, {}) is bridges, instructions


# -- #2: a bridge still running when the run stops -------------------------------------------------------------------

def test_a_bridge_still_running_when_the_run_stops_is_answered_as_a_sync_tools_thread() -> None:
    release, began, done = threading.Event(), threading.Event(), []

    @tool("transfer")
    @functools.wraps(create_ticket)
    def transfer(order_id: str) -> str:  # a bridge: asyncio.run on its worker thread
        async def work() -> str:
            began.set()
            await asyncio.to_thread(release.wait, 10)
            done.append(order_id)
            return "ok"
        return asyncio.run(work())

    assert transfer._off_loop == BRIDGE

    @tool
    def fail(x: int) -> str:
        """Fails once the transfer runs.

        Args:
            x: Anything.
        """
        began.wait(10)
        raise ValueError("boom")

    executor = ToolExecutor([transfer, fail], handle_errors=False)
    calls = [{"name": "transfer", "args": {"order_id": "7"}, "id": "c1", "type": "tool_call"},
             {"name": "fail", "args": {"x": 1}, "id": "c2", "type": "tool_call"}]
    assert executor._threaded(calls[0])  # (counted with the sync tools' threads, which cannot be stopped)
    try:
        for run in (lambda: executor.execute(calls), lambda: asyncio.run(executor.aexecute(calls))):
            began.clear()
            with pytest.raises(ValueError, match="boom") as raised:
                run()
            (answer,) = [m for m in raised.value.tool_messages if m.tool_call_id == "c1"]  # type: ignore[attr-defined]
            assert answer.status == "error"
            assert "was still running when the run was stopped; it may still finish and take effect" in answer.text
            assert "stopped while it ran" not in answer.text
    finally:
        release.set()
