"""Review 269 #1-#3.

#1: a sync ``functools.wraps`` wrapper that runs an ``async def`` itself and returns its value (asgiref's
``async_to_sync``, asyncer's ``syncify``, a hand-written "run this coroutine" decorator) is a sync tool, as
``inspect.iscoroutinefunction`` says; a plain wrapper that returns the coroutine of the ``async def`` it wraps is
still awaited, and a value that is not awaitable is never awaited.
#2: un-awaited coroutines inside a sync tool's result (a list or dict of them) or as its artifact, and a generator-based
``@types.coroutine`` awaitable, are refused with the sentence a top-level awaitable gets, the coroutines closed.
#3: ``tool.invoke(tool_call)`` whose arguments are a Python list or number answers as ``ToolExecutor`` does.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import gc
import inspect
import types
import warnings
from typing import Any

import pytest

from toolwire import ToolExecutor, tool
from toolwire._bridges import BRIDGE
from toolwire._signature import sync_wrapper
from toolwire.errors import ToolExecutionError, ToolValidationError


def _call(args: Any, name: str = "get_time", call_id: str = "c1") -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


# -- #3 ------------------------------------------------------------------------------------------------------------

@tool
def get_time(tz: str) -> str:
    """Time in a zone."""
    return "12:00 " + tz


@pytest.mark.parametrize("args", [[1, 2], 42, 3.5, True, (1, 2)])
def test_invoke_answers_arguments_that_are_no_object_as_the_executor_does(args: Any) -> None:
    expected = ToolExecutor([get_time]).execute([_call(args)])[0]
    assert expected.status == "error" and "Send the call again" in expected.content
    for got in (get_time.invoke(_call(args)), asyncio.run(get_time.ainvoke(_call(args))),
                get_time.batch([_call(args)])[0], asyncio.run(get_time.abatch([_call(args)]))[0]):
        assert (got.content, got.status, got.tool_call_id, got.name) == (expected.content, "error", "c1", "get_time")


def test_bare_arguments_that_are_no_object_keep_their_error() -> None:
    with pytest.raises(ToolValidationError, match="expected a JSON object of named arguments, got list"):
        get_time.invoke([1, 2])


# -- #2 ------------------------------------------------------------------------------------------------------------

MADE: list[Any] = []


async def _page(url: str) -> str:
    return "page " + url


def _made(url: str) -> Any:
    made = _page(url)
    MADE.append(made)
    return made


@tool
def fetch_all(urls: list[str]) -> list[Any]:
    """Fetch every URL (asyncio.gather forgotten)."""
    return [_made(url) for url in urls]


@tool
def fetch_map(urls: list[str]) -> dict[str, Any]:
    """Fetch every URL into a dict."""
    return {"pages": {url: _made(url) for url in urls}, "count": len(urls)}


@tool(response_format="content_and_artifact")
def fetch_with_artifact(urls: list[str]) -> Any:
    """Fetch, the page as the artifact."""
    return "text", _made(urls[0])


@types.coroutine
def _generator_based() -> Any:
    yield
    return "y"


@tool
def old_style(urls: list[str]) -> Any:
    """Returns a generator-based coroutine."""
    return _generator_based()


NESTED = ("returned a result that holds an awaitable or async generator (a coroutine never awaited); declare the "
          "function `async def` and await them inside it (asyncio.gather for several), returning their values.")


@pytest.mark.parametrize("made", [fetch_all, fetch_map])
def test_coroutines_inside_a_result_are_refused_and_closed(made: Any) -> None:
    MADE.clear()
    call = _call({"urls": ["a", "b"]}, name=made.name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        answers = [made.invoke(call), asyncio.run(made.ainvoke(call)), ToolExecutor([made]).execute([call])[0],
                   asyncio.run(ToolExecutor([made]).aexecute([call]))[0]]
        gc.collect()
    for answer in answers:
        assert (answer.status, answer.content) == ("error", f"Error: tool '{made.name}' failed: Tool '{made.name}' "
                                                            f"{NESTED}")
        assert answer.artifact is None
    assert len(MADE) == 8 and all(made.cr_frame is None for made in MADE)  # closed: no "never awaited" warning


def test_a_coroutine_artifact_is_refused_and_closed() -> None:
    MADE.clear()
    call = _call({"urls": ["a"]}, name="fetch_with_artifact")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        answers = [fetch_with_artifact.invoke(call), ToolExecutor([fetch_with_artifact]).execute([call])[0]]
        gc.collect()
    for answer in answers:
        assert answer.status == "error" and "returned an awaitable or async generator" in answer.content
    assert len(MADE) == 2 and all(made.cr_frame is None for made in MADE)


def test_a_generator_based_coroutine_is_refused_as_a_coroutine_is() -> None:
    with pytest.raises(ToolExecutionError, match="returned an awaitable or async generator instead of a result"):
        old_style.invoke({"urls": []})
    with pytest.raises(ToolExecutionError, match="returned an awaitable or async generator instead of a result"):
        asyncio.run(old_style.ainvoke({"urls": []}, timeout=5))
    answer = ToolExecutor([old_style]).execute([_call({"urls": []}, name="old_style")])[0]
    assert answer.status == "error" and "returned an awaitable" in answer.content


def test_plain_generators_and_other_objects_are_unchanged() -> None:
    @tool
    def count(n: int) -> Any:
        """Count."""
        return (i for i in range(n))

    @tool
    def other(n: int) -> Any:
        """A list of plain objects."""
        return [range(n), {1, 2}]

    assert count.invoke({"n": 3}) == [0, 1, 2]
    assert other.invoke(_call({"n": 2}, name="other")).content == "[[0, 1], [1, 2]]"


# -- #1 ------------------------------------------------------------------------------------------------------------

RAN: list[str] = []


async def _fetch(q: str) -> str:
    """Fetch a page."""
    await asyncio.sleep(0)
    RAN.append(q)
    return "got " + q


def _in_own_loop(func: Any) -> Any:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:  # asgiref's async_to_sync, asyncer's syncify, by hand
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, func(*args, **kwargs)).result()
    return wrapper


def _asyncio_run(func: Any) -> Any:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:  # fails where an event loop runs, as async_to_sync does
        return asyncio.run(func(*args, **kwargs))
    return wrapper


class _AsyncToSync:
    """asgiref.sync.AsyncToSync's shape: an object made with functools.update_wrapper, refusing a running loop."""

    def __init__(self, func: Any) -> None:
        self.func = func
        functools.update_wrapper(self, func)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.func(*args, **kwargs))
        raise RuntimeError("You cannot use AsyncToSync in the same thread as an async event loop.")


def _answers(made: Any, timeout: float | None = None) -> list[Any]:
    call = _call({"q": "a"}, name=made.name)
    return [made.invoke({"q": "a"}, timeout=timeout), made.invoke(call, timeout=timeout).content,
            asyncio.run(made.ainvoke({"q": "a"}, timeout=timeout)),
            ToolExecutor([made]).execute([call])[0].content,
            asyncio.run(ToolExecutor([made]).aexecute([call]))[0].content]


@pytest.mark.parametrize("wrap", [_in_own_loop, _asyncio_run])
@pytest.mark.parametrize("timeout", [None, 5.0])
@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_a_sync_wrapper_that_runs_the_async_def_itself_is_run_as_sync_code(wrap: Any, timeout: float | None) -> None:
    made = tool(wrap(_fetch), name="fetch")
    assert not inspect.iscoroutinefunction(made.func)
    RAN.clear()
    assert _answers(made, timeout) == ["got a"] * 5
    assert RAN == ["a"] * 5  # each call ran once: none failed after its work was done


def test_a_plain_wrapper_returning_the_coroutine_is_still_awaited_on_the_callers_loop() -> None:
    loops: list[Any] = []

    async def where(q: str) -> str:
        """Say which loop runs it."""
        loops.append(asyncio.get_running_loop())
        return q

    @functools.wraps(where)
    def logged(*args: Any, **kwargs: Any) -> Any:
        return where(*args, **kwargs)

    made = tool(logged, name="where")
    assert made.is_async

    async def run() -> Any:
        return await made.ainvoke({"q": "x"}), asyncio.get_running_loop()

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value, caller = asyncio.run(run())
        assert made.invoke({"q": "y"}) == "y"
        assert asyncio.run(made.ainvoke({"q": "z"}, timeout=5)) == "z"
    assert value == "x" and loops[0] is caller


@pytest.mark.parametrize("wrap", [_in_own_loop, _asyncio_run])
def test_a_structured_tools_coroutine_that_is_a_sync_wrapper_is_run_as_sync_code(wrap: Any) -> None:
    """The async twin of ``StructuredTool.from_function(func=..., coroutine=...)`` reads its own ``coroutine``'s
    kind, not ``func``'s (review 269 #1)."""
    from toolwire import StructuredTool

    def fetch(q: str) -> str:
        """Fetch a page."""
        return "sync " + q

    made = StructuredTool.from_function(func=fetch, coroutine=wrap(_fetch), name="fetch")
    RAN.clear()
    assert made.invoke({"q": "a"}) == "sync a"
    assert asyncio.run(made.ainvoke({"q": "a"})) == "got a"
    assert asyncio.run(ToolExecutor([made]).aexecute([_call({"q": "a"}, name="fetch")]))[0].content == "got a"
    assert RAN == ["a", "a"]


def test_a_wrappers_own_refusal_of_the_running_loop_is_not_retried_elsewhere() -> None:
    """A wrapper that would raise the refusal of the running loop itself is not called on the loop and then again
    (review 275 #1): this asgiref look-alike's ``__call__`` runs the coroutine with ``asyncio.run``, so it is read as a
    bridge and called once, on a worker thread, where it succeeds (review 300 #1); its check for a running loop makes
    no "sync or async" wrapper of it, as it raises its own ``RuntimeError`` then (review 313 #1)."""
    assert sync_wrapper(_AsyncToSync(_fetch)) == BRIDGE
    made = tool(_AsyncToSync(_fetch), name="fetch")
    calls: list[str] = []
    made.func.func = functools.partial(_counted, calls)  # type: ignore[attr-defined]
    answer = asyncio.run(made.ainvoke(_call({"q": "a"}, name="fetch")))
    assert answer.content == "a" and calls == ["a"]


async def _counted(calls: list[str], q: str) -> str:
    calls.append(q)
    return q


def test_a_wrapper_that_uses_the_running_loop_runs_on_its_thread() -> None:
    """A ``functools.wraps`` wrapper that schedules the coroutine on the running loop (``ensure_future``) or sets a
    ContextVar before handing it back is called on the loop's thread, as an ``async def`` is (review 275 #1)."""
    import contextvars

    tenant: contextvars.ContextVar[str | None] = contextvars.ContextVar("tenant", default=None)

    async def fetch(q: str) -> str:
        """Fetch a page."""
        return f"{q} for {tenant.get()}"

    @functools.wraps(fetch)
    def scheduled(*args: Any, **kwargs: Any) -> Any:
        tenant.set("acme")
        return asyncio.ensure_future(fetch(*args, **kwargs))

    made = tool(scheduled, name="fetch")
    assert asyncio.run(made.ainvoke({"q": "a"})) == "a for acme"
    assert made.invoke(_call({"q": "a"}, name="fetch")).content == "a for acme"
