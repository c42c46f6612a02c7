"""Review 313 #3 and review 306 #3 (concurrent), #4, #5: the identity a ToolExecutionError raised for a tool call under
``handle_errors=False`` carries (``tool_name``, ``tool_call_id``).

* An error of an inner tool run with plain arguments (no call, no id) names the model's call, both attributes; its
  message still names the inner tool.
* One error object caught inside one call and raised by the tool itself in a later call with the same id names that
  later call, not the inner call of the first one.
* One error object of an inner call with a fixed id keeps that inner call's identity in concurrent outer calls too.
* Inner calls made on another thread keep their identity when the thread runs in a copy of the caller's context
  (``asyncio.to_thread``, ``contextvars.copy_context().run``); without it they are named for the outer call.
"""

from __future__ import annotations

import asyncio
import contextvars
import pickle
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from toolwire import ToolExecutor, tool
from toolwire._failed_calls import identified
from toolwire.errors import ToolExecutionError, ToolResultError, ToolValidationError
from toolwire.messages import AIMessage


def call(call_id: str, name: str, args: object) -> dict:
    return {"id": call_id, "name": name, "args": args, "type": "tool_call"}


@tool
def inner(n: int) -> int:
    """Inner."""
    return n


@tool
def outer(q: str) -> str:
    """Calls inner with plain (bad) arguments."""
    return str(inner.invoke({"n": "not a number"}))


@tool
async def aouter(q: str) -> str:
    """Calls inner with plain (bad) arguments, awaited."""
    return str(await inner.ainvoke({"n": "not a number"}))


def _reply(name: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[call("call_A", name, {"q": "a"}), call("call_B", name, {"q": "b"})])


# -- review 313 #3: an inner call with plain arguments ----------------------------------------------------------------

@pytest.mark.parametrize("how", ["execute", "aexecute"])
@pytest.mark.parametrize("outer_tool", [outer, aouter])
def test_inner_plain_call_error_names_the_model_call(outer_tool, how: str) -> None:
    executor = ToolExecutor([outer_tool, inner], handle_errors=False)
    with pytest.raises(ToolValidationError) as caught:
        if how == "execute":
            executor.execute(_reply(outer_tool.name))
        else:
            asyncio.run(executor.aexecute(_reply(outer_tool.name)))
    assert (caught.value.tool_name, caught.value.tool_call_id) == (outer_tool.name, "call_A")
    assert "inner" in str(caught.value)  # (the message still says which tool refused the arguments)


def test_inner_plain_call_error_through_tool_invoke_names_the_call() -> None:
    strict_outer = tool(handle_errors=False)(outer.func)
    with pytest.raises(ToolValidationError) as caught:
        strict_outer.invoke(call("call_B", "outer", {"q": "b"}))
    assert (caught.value.tool_name, caught.value.tool_call_id) == ("outer", "call_B")


def test_error_naming_a_tool_but_no_call_is_named_for_the_call_message_kept() -> None:
    exc = ToolResultError("The tool returned bytes that are not UTF-8 text.", tool_name="inner")
    assert identified(exc, "outer", "c1", None) is exc
    assert (exc.tool_name, exc.tool_call_id) == ("outer", "c1")
    assert str(exc).startswith("Tool 'inner' returned bytes")  # (the tool that returned them)


def test_error_naming_its_own_call_keeps_it() -> None:
    exc = ToolExecutionError("no such tool", "ghost", "ghost_1")
    assert identified(exc, "outer", "c1", None) is exc
    assert (exc.tool_name, exc.tool_call_id) == ("ghost", "ghost_1")


# -- review 306 #4: one error object caught in one call, raised by the tool itself in a later call with the same id --

_NOT_FOUND = ToolExecutionError("record not found")


@tool(handle_errors=False)
def _fetch(key: str) -> str:
    """Fetch a record."""
    raise _NOT_FOUND


@tool(handle_errors=False)
def _lookup(key: str, strict: bool = False) -> str:
    """Look a record up."""
    if strict:
        raise _NOT_FOUND
    try:
        return _fetch.invoke(call("inner_7", "_fetch", {"key": key})).content  # type: ignore[no-any-return]
    except ToolExecutionError:
        return "nothing found"


@tool(handle_errors=False)
async def _alookup(key: str, strict: bool = False) -> str:
    """Look a record up (async)."""
    if strict:
        raise _NOT_FOUND
    try:
        return (await _fetch.ainvoke(call("inner_7", "_fetch", {"key": key}))).content  # type: ignore[no-any-return]
    except ToolExecutionError:
        return "nothing found"


def test_error_caught_in_an_earlier_call_then_raised_by_the_tool_names_the_tool() -> None:
    assert _lookup.invoke(call("call_0", "_lookup", {"key": "k"})).content == "nothing found"
    with pytest.raises(ToolExecutionError) as caught:
        _lookup.invoke(call("call_0", "_lookup", {"key": "k", "strict": True}))
    assert (caught.value.tool_name, caught.value.tool_call_id) == ("_lookup", "call_0")


def test_error_caught_in_an_earlier_call_then_raised_by_the_tool_names_the_tool_async() -> None:
    async def main() -> ToolExecutionError:
        assert (await _alookup.ainvoke(call("call_0", "_alookup", {"key": "k"}))).content == "nothing found"
        try:
            await _alookup.ainvoke(call("call_0", "_alookup", {"key": "k", "strict": True}))
        except ToolExecutionError as exc:
            return exc
        raise AssertionError("not raised")

    exc = asyncio.run(main())
    assert (exc.tool_name, exc.tool_call_id) == ("_alookup", "call_0")


# -- review 306 #3, concurrent: one error object of an inner call with a fixed id, in outer calls at once -------------

_GONE = ToolExecutionError("record gone")


@tool(handle_errors=False)
async def _afetch(key: str) -> str:
    """Fetch a record."""
    await asyncio.sleep(0)
    raise _GONE


@tool(handle_errors=False)
async def _afind(key: str) -> str:
    """Find a record through _afetch with a fixed id."""
    return (await _afetch.ainvoke(call("fetch_1", "_afetch", {"key": key}))).content  # type: ignore[no-any-return]


def test_one_error_of_an_inner_call_keeps_its_identity_in_concurrent_outer_calls() -> None:
    async def main() -> list:
        return await asyncio.gather(*[_afind.ainvoke(call(f"call_{i}", "_afind", {"key": "k"})) for i in range(4)],
                                    return_exceptions=True)

    errors = asyncio.run(main())
    assert [(e.tool_name, e.tool_call_id) for e in errors] == [("_afetch", "fetch_1")] * 4


def test_one_error_of_an_inner_call_keeps_its_identity_in_concurrent_executor_runs() -> None:
    executor = ToolExecutor([_afind], handle_errors=False)

    async def main() -> list:
        return await asyncio.gather(*[executor.aexecute([call(f"call_{i}", "_afind", {"key": "k"})])
                                      for i in range(4)], return_exceptions=True)

    errors = asyncio.run(main())
    assert [(e.tool_name, e.tool_call_id) for e in errors] == [("_afetch", "fetch_1")] * 4


# -- review 306 #5: inner calls made on other threads -----------------------------------------------------------------

@tool(handle_errors=False)
def _pfetch(key: str) -> str:
    """Fetch a record."""
    raise ToolExecutionError(f"record {key} not found")


def _inner(key: str) -> dict:
    return call(f"inner_{key}", "_pfetch", {"key": key})


@tool(handle_errors=False)
async def _fetch_to_thread(key: str) -> str:
    """Fetch on a worker thread with asyncio.to_thread (the context copied)."""
    return (await asyncio.to_thread(_pfetch.invoke, _inner(key))).content  # type: ignore[no-any-return]


@tool(handle_errors=False)
def _fetch_pool_context(key: str) -> str:
    """Fetch on a pool thread in a copy of the context."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(contextvars.copy_context().run, _pfetch.invoke, _inner(key)).result().content


@tool(handle_errors=False)
def _fetch_pool(key: str) -> str:
    """Fetch on a pool thread without the context."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(_pfetch.invoke, _inner(key)).result().content  # type: ignore[no-any-return]


@pytest.mark.parametrize("outer_tool", [_fetch_to_thread, _fetch_pool_context])
def test_inner_call_on_a_thread_in_the_callers_context_keeps_its_identity(outer_tool) -> None:
    for run in (lambda: outer_tool.invoke(call("outer_1", outer_tool.name, {"key": "a"})),
                lambda: ToolExecutor([outer_tool], handle_errors=False).execute([call("outer_1", outer_tool.name,
                                                                                      {"key": "a"})])):
        with pytest.raises(ToolExecutionError) as caught:
            run()
        assert (caught.value.tool_name, caught.value.tool_call_id) == ("_pfetch", "inner_a")


def test_inner_call_on_a_thread_without_the_context_is_named_for_the_outer_call() -> None:
    with pytest.raises(ToolExecutionError) as caught:
        _fetch_pool.invoke(call("outer_1", "_fetch_pool", {"key": "a"}))
    assert (caught.value.tool_name, caught.value.tool_call_id) == ("_fetch_pool", "outer_1")


# -- the identity record does not stop an error from pickling ---------------------------------------------------------

@tool(handle_errors=False)
def _holder(lock: Any, key: str) -> str:
    """Fetches through an inner call; its own arguments hold an object pickle refuses."""
    return _pfetch.invoke(_inner(key)).content  # type: ignore[no-any-return]


def test_an_error_named_inside_a_call_with_unpicklable_arguments_pickles() -> None:
    with pytest.raises(ToolExecutionError) as caught:
        _holder.invoke(call("outer_1", "_holder", {"lock": threading.Lock(), "key": "a"}))
    back = pickle.loads(pickle.dumps(caught.value))
    assert (back.tool_name, back.tool_call_id, str(back)) == ("_pfetch", "inner_a", "record a not found")
