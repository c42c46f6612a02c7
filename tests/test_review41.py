"""Review 41: the async and streaming paths against the sync ones (``ainvoke``/``astream`` vs ``invoke``/``stream``
on scripted models, chunk merging, ``Tool.ainvoke``, ``ToolExecutor.aexecute``, ``Agent.ainvoke``), as a user who
knows LangChain and the OpenAI Agents SDK would use them. No network, no real model: ``ScriptedChatModel`` and
small ``BaseChatModel`` subclasses only.

Faults (each test asserts the correct behaviour and is a strict xfail until fixed):

1. A sync tool that raises ``concurrent.futures.CancelledError`` (it waited on a cancelled future):
   ``tool.invoke(call)`` answers with an error ToolMessage, but ``await tool.ainvoke(call)`` raises
   ``asyncio.CancelledError`` at the caller (asyncio turns the worker future's exception into its own), as if the
   caller had been cancelled. It should be an error ToolMessage the model can act on, as in ``invoke`` and
   ``ToolExecutor.aexecute``.
2. ContextVars on a sync tool's worker thread: ``tool.invoke(args)`` sees the caller's context variables (a request
   id, a user, a tracing span), but ``await tool.ainvoke(args)`` and ``tool.invoke(args, timeout=...)`` run the
   function on a thread with an empty context (``_in_context`` copies the context only inside a tool call). It should
   see the caller's context on every path, as LangChain's ``ainvoke`` and ``asyncio.to_thread`` give it.
3. ``model.ainvoke`` of a model without native async (``ScriptedChatModel``, any ``BaseChatModel`` with only
   ``_generate``) runs ``_generate`` with ``run_in_executor``, which does not copy the context: a scripted callable
   reply sees the caller's ContextVar in ``invoke`` and ``astream`` but its default in ``ainvoke``. It should see the
   caller's context there too.
4. A ContextVar set by an async tool leaks into the caller when the reply has one call: after
   ``await executor.aexecute([call])`` (and ``await agent.ainvoke(...)``) the caller sees the tool's value, while with
   two calls, with ``execute``/``agent.invoke``, or with a timeout it does not. The tool should run in a copy of the
   caller's context on every path (as LangChain's ``BaseTool.arun`` does), so one call or two behave alike.
5. ``handle_errors=False``: a single call whose tool raises leaves the exception without ``exc.tool_messages``
   (AttributeError when read), while two calls, or a single refused call (unknown tool), give ``exc.tool_messages``
   (``[]`` when none finished), as the class docs promise. It should be ``[]`` for the single call too.
6. Closing ``model.astream(...)`` early (``break`` then ``aclose()``, or ``contextlib.aclosing``) does not close the
   provider's own stream (``_astream``: the HTTP response, the llama.cpp worker): its ``finally`` runs later, when the
   garbage collector finalises it, because ``astream`` iterates it with ``async for`` and never closes it.
   ``stream()`` (``yield from``) closes it at once; ``astream`` should too.
7. Reading ``chunk.tool_calls`` on a partial chunk (a streaming UI showing progress) writes a made-up call id into
   the chunk, so when the provider's id arrives in a later chunk, ``(chunk + later).tool_calls`` keeps the made-up
   id and the provider's is lost. Reading a property should not change what a later merge gives: the merged call
   should carry the provider's id.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from toolwire import Agent, AIMessage, ToolExecutor, ToolMessage, tool
from toolwire.messages import AIMessageChunk
from toolwire.models.base import BaseChatModel, ChatRequest
from toolwire.testing import ScriptedChatModel

_var: contextvars.ContextVar[str] = contextvars.ContextVar("review41_var", default="default")


def _call(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


# -- 1 ---------------------------------------------------------------------------------------------------------


@tool
def fetch_cancelled(x: int) -> str:
    """Wait on a future that was cancelled (a worker pool shut down under the tool)."""
    future: concurrent.futures.Future[str] = concurrent.futures.Future()
    future.cancel()
    return future.result()


def test_sync_tool_raising_concurrent_cancelled_error_is_an_error_result_in_ainvoke() -> None:
    call = _call("fetch_cancelled", {"x": 1}, "c1")
    sync_answer = fetch_cancelled.invoke(call)
    assert sync_answer.status == "error" and sync_answer.tool_call_id == "c1"
    try:
        answer = asyncio.run(fetch_cancelled.ainvoke(call))
    except asyncio.CancelledError:
        pytest.fail("ainvoke raised asyncio.CancelledError for the tool's own failure; invoke answered with an error")
    assert isinstance(answer, ToolMessage)
    assert answer.status == "error" and answer.tool_call_id == "c1"


# -- 2 ---------------------------------------------------------------------------------------------------------


@tool
def whoami(x: int) -> str:
    """Say which user the request runs for."""
    return _var.get()


def test_sync_tool_sees_callers_contextvars_on_every_path() -> None:
    def run_sync() -> tuple[Any, Any]:
        _var.set("alice")
        return whoami.invoke({"x": 1}), whoami.invoke({"x": 1}, timeout=5)

    async def run_async() -> Any:
        _var.set("bob")
        return await whoami.ainvoke({"x": 1})

    plain, timed = contextvars.copy_context().run(run_sync)
    assert plain == "alice"
    assert asyncio.run(run_async()) == "bob"
    assert timed == "alice"


# -- 3 ---------------------------------------------------------------------------------------------------------


def test_scripted_model_ainvoke_sees_callers_contextvars() -> None:
    def reply(messages: list[Any]) -> str:
        return f"user={_var.get()}"

    model = ScriptedChatModel([reply], cycle=True)

    def run_sync() -> str:
        _var.set("alice")
        return model.invoke("q").text

    async def run_async() -> tuple[str, str]:
        _var.set("bob")
        streamed = "".join([chunk.text async for chunk in model.astream("q")])
        return streamed, (await model.ainvoke("q")).text

    assert contextvars.copy_context().run(run_sync) == "user=alice"
    streamed, awaited = asyncio.run(run_async())
    assert streamed == "user=bob"
    assert awaited == "user=bob"


# -- 4 ---------------------------------------------------------------------------------------------------------


@tool
async def set_var(x: int) -> str:
    """Set a context variable, as a logging or tracing library does inside a tool."""
    _var.set(f"tool-{x}")
    return "ok"


def test_async_tool_contextvars_do_not_leak_into_the_caller() -> None:
    executor = ToolExecutor([set_var])

    async def main() -> dict[str, str]:
        seen = {}
        _var.set("caller")
        await executor.aexecute([_call("set_var", {"x": 1}, "a"), _call("set_var", {"x": 2}, "b")])
        seen["two calls"] = _var.get()
        await executor.aexecute([_call("set_var", {"x": 3}, "c")])
        seen["one call"] = _var.get()
        _var.set("caller")
        model = ScriptedChatModel([AIMessage("", tool_calls=[_call("set_var", {"x": 4}, "d")]), "done"])
        await Agent(model, [set_var]).ainvoke("go")
        seen["agent"] = _var.get()
        return seen

    seen = asyncio.run(main())
    assert seen["two calls"] == "caller"
    assert seen == {"two calls": "caller", "one call": "caller", "agent": "caller"}


# -- 5 ---------------------------------------------------------------------------------------------------------


@tool
def fails(x: int) -> str:
    """Always fail."""
    raise KeyError("backend down")


@tool
def works(x: int) -> str:
    """Always work."""
    return "fine"


def test_single_failing_call_error_carries_tool_messages() -> None:
    executor = ToolExecutor([fails, works], handle_errors=False)
    with pytest.raises(Exception) as unknown:  # a refused single call: tool_messages == []
        asyncio.run(executor.aexecute([_call("nope", {"x": 1}, "a")]))
    assert unknown.value.tool_messages == []
    with pytest.raises(KeyError) as two:  # two calls: tool_messages holds the answers that finished first
        asyncio.run(executor.aexecute([_call("works", {"x": 1}, "a"), _call("fails", {"x": 1}, "b")]))
    assert [m.tool_call_id for m in two.value.tool_messages] == ["a"]
    with pytest.raises(KeyError) as one:
        asyncio.run(executor.aexecute([_call("fails", {"x": 1}, "b")]))
    assert getattr(one.value, "tool_messages", "missing") == []


# -- 6 ---------------------------------------------------------------------------------------------------------


class _ClosingModel(BaseChatModel):
    """A model with native streams that record when they are closed (an HTTP response released)."""

    def __init__(self) -> None:
        self.closed: list[str] = []

    def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
        try:
            for piece in ("a", "b", "c"):
                yield AIMessageChunk(piece)
        finally:
            self.closed.append("stream")

    async def _astream(self, request: ChatRequest) -> AsyncIterator[AIMessageChunk]:
        try:
            for piece in ("a", "b", "c"):
                yield AIMessageChunk(piece)
                await asyncio.sleep(0)
        finally:
            self.closed.append("astream")


def test_astream_closed_early_closes_the_provider_stream_at_once() -> None:
    model = _ClosingModel()
    chunks = model.stream("q")
    next(chunks)
    chunks.close()
    assert model.closed == ["stream"]

    async def main() -> list[str]:
        stream = model.astream("q")
        await stream.__anext__()
        await stream.aclose()
        return list(model.closed)

    assert asyncio.run(main()) == ["stream", "astream"]


# -- 7 ---------------------------------------------------------------------------------------------------------


def test_reading_tool_calls_of_a_partial_chunk_does_not_change_the_merge() -> None:
    def pieces() -> tuple[AIMessageChunk, AIMessageChunk]:
        first = AIMessageChunk(tool_call_chunks=[
            {"name": "get_weather", "args": "", "id": None, "index": 0, "type": "tool_call_chunk"}])
        later = AIMessageChunk(tool_call_chunks=[
            {"name": None, "args": '{"city": "Paris"}', "id": "call_real", "index": 0, "type": "tool_call_chunk"}])
        return first, later

    first, later = pieces()
    assert (first + later).tool_calls[0]["id"] == "call_real"
    first, later = pieces()
    assert first.tool_calls  # a progress display reads the partial call
    merged = (first + later).tool_calls
    assert merged == [{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_real", "type": "tool_call"}]
