"""Review 250 #2: stopping ``serve_async(..., transport="http")`` the way its docstring gives, by cancelling its task,
while a client held a session, logged uvicorn's "Cancel 1 running task(s), timeout graceful shutdown exceeded" and
"Exception in ASGI application" with a traceback for each open stream (the client's standing GET stream, a call in
flight) after waiting two seconds for streams that never end on their own; the call in flight got no answer, and the
client's close afterwards logged "Session termination failed: All connection attempts failed"."""

from __future__ import annotations

import asyncio
import logging
import socket

import pytest

pytest.importorskip("mcp")
pytest.importorskip("uvicorn")

from toolwire import tool
from toolwire.mcp import connect, serve_async

pytestmark = pytest.mark.timeout(60)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _Records(logging.Handler):
    """Keeps every record of WARNING or above that reaches uvicorn's loggers or the root logger (the SDK's)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def lines(self) -> list[str]:
        return [f"{r.name}: {r.getMessage()}" + (" (with a traceback)" if r.exc_info else "") for r in self.records]


@pytest.fixture
def records():
    handler = _Records()
    loggers = [logging.getLogger(), logging.getLogger("uvicorn")]
    yield handler, loggers
    for logger in loggers:
        logger.removeHandler(handler)


async def _start(tools: list, records) -> tuple[asyncio.Task, str]:
    """Serve ``tools`` over HTTP in this loop; once it listens, collect the log records (uvicorn sets up its
    loggers as it starts, which would drop a handler added before)."""
    handler, loggers = records
    port = _free_port()
    listening = asyncio.Event()

    def ready() -> None:
        for logger in loggers:
            logger.addHandler(handler)
        listening.set()

    task = asyncio.create_task(serve_async(tools, transport="http", port=port, ready=ready))
    waiting = asyncio.ensure_future(listening.wait())
    await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        task.result()
    return task, f"http://127.0.0.1:{port}/mcp"


def test_cancelling_the_task_with_an_idle_session_open_stops_quietly(records):
    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    async def run() -> None:
        server, url = await _start([add], records)
        async with connect(url, connect_timeout=20) as client:  # (closed after the server stopped, as a user might)
            assert (await client[0].ainvoke({"a": 1, "b": 2}))[0] == "3"
            server.cancel()
            with pytest.raises(asyncio.CancelledError):
                await server

    asyncio.run(run())
    assert records[0].lines() == []


def test_cancelling_the_task_with_a_call_in_flight_ends_that_call_cleanly(records):
    started = asyncio.Event()

    @tool
    async def wait_forever() -> str:
        """Wait until the server stops."""
        started.set()
        await asyncio.Event().wait()
        return "never"

    async def run() -> None:
        server, url = await _start([wait_forever], records)
        async with connect(url, connect_timeout=20) as client:
            call = asyncio.create_task(client[0].ainvoke(
                {"name": "wait_forever", "args": {}, "id": "c1", "type": "tool_call"}))
            await started.wait()
            server.cancel()
            with pytest.raises(asyncio.CancelledError):
                await server
            message = await asyncio.wait_for(call, 10)
        assert message.status == "error"
        assert "Connection closed" in message.text and "wait_forever" in message.text

    asyncio.run(run())
    assert records[0].lines() == []
