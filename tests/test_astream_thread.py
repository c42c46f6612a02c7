"""A model that implements only ``_stream``: ``astream`` streams it as ``stream`` does (review 79), through the
same thread bridge the embedded model uses (``toolwire._concurrency.iterate_in_thread``)."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Iterator

import pytest

from toolwire import tool
from toolwire._concurrency import iterate_in_thread
from toolwire.messages import AIMessageChunk, merge_chunks
from toolwire.models.base import BaseChatModel, ChatRequest

LIMIT = 10.0  # seconds: a bound on waiting, never a measured value


@tool
def double(x: int) -> int:
    """Double a number.

    Args:
        x: the number.
    """
    return 2 * x


class StreamOnly(BaseChatModel):
    """Yields text, then waits for ``go`` before its calls, so a test can see chunks arrive one by one."""

    model_name = "stream-only"

    def __init__(self, go: threading.Event | None = None, closed: threading.Event | None = None) -> None:
        super().__init__()
        self.go, self.closed = go, closed

    def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
        try:
            yield AIMessageChunk("thinking")
            if self.go is not None and not self.go.wait(LIMIT):
                raise TimeoutError("the test never let the stream go on")
            yield AIMessageChunk(tool_call_chunks=[{"name": "nope", "args": '{"x": 1}', "id": "c0", "index": 0}])
            yield AIMessageChunk(tool_call_chunks=[{"name": "double", "args": '{"x": 2}', "id": "c1", "index": 1}])
        finally:
            if self.closed is not None:
                self.closed.set()


def test_astream_passes_chunks_on_as_the_sync_stream_makes_them() -> None:
    go = threading.Event()
    model = StreamOnly(go)

    async def first_then_rest() -> tuple[AIMessageChunk, list[AIMessageChunk]]:
        stream = model.astream("hi")
        first = await asyncio.wait_for(stream.__anext__(), LIMIT)  # before the model may go on: it streams
        go.set()
        return first, [chunk async for chunk in stream]

    first, rest = asyncio.run(first_then_rest())
    assert first.content == "thinking"
    merged = merge_chunks([first, *rest], as_chunk=False)
    assert [c["name"] for c in merged.tool_calls] == ["nope", "double"]


@pytest.mark.parametrize("parallel", [False, None])
def test_stream_astream_and_invoke_keep_the_same_calls(parallel: bool | None) -> None:
    model = StreamOnly().bind_tools([double], parallel_tool_calls=parallel)

    async def collect() -> list[AIMessageChunk]:
        return [chunk async for chunk in model.astream("hi")]

    synced = merge_chunks(list(model.stream("hi")), as_chunk=False)
    streamed = merge_chunks(asyncio.run(collect()), as_chunk=False)
    assert synced.tool_calls == streamed.tool_calls == model.invoke("hi").tool_calls
    assert len(synced.tool_calls) == (1 if parallel is False else 2)


def test_leaving_astream_early_closes_the_sync_stream() -> None:
    go, closed = threading.Event(), threading.Event()
    model = StreamOnly(go, closed)

    async def first_only() -> AIMessageChunk:
        stream = model.astream("hi")
        first = await stream.__anext__()
        await stream.aclose()  # the consumer leaves
        go.set()  # the stream's thread goes on to its next chunk, sees it is not wanted, and closes it
        return first

    assert asyncio.run(first_only()).content == "thinking"
    assert closed.wait(LIMIT)


def test_iterate_in_thread_raises_the_iterators_error_in_place_and_keeps_context() -> None:
    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")

    def produce(stop: threading.Event) -> Iterator[str]:
        yield var.get()
        raise ValueError("boom")

    async def run() -> list[str]:
        var.set("caller's")
        got: list[str] = []
        with pytest.raises(ValueError, match="boom"):
            async for item in iterate_in_thread(produce, "test"):
                got.append(item)
        return got

    assert asyncio.run(run()) == ["caller's"]
