"""Review 72: the provider layer's async clients, stream retries, ``Retry-After`` dates and Gemini's key error.

Each test runs against the provider's local wire server (no network).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import time

import pytest

from toolwire.messages import AIMessage

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def _sockets() -> int:
    """Open sockets of this process (the client's and the in-process server's ends alike)."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # closed since it was listed
            count += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
    return count


def _settled_sockets(bound: int) -> int:
    """The open sockets once the server's side has seen the client's close (up to 2 s)."""
    deadline = time.monotonic() + 2.0
    while (count := _sockets()) > bound and time.monotonic() < deadline:
        time.sleep(0.02)
    return count


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open sockets through /proc")
def test_asyncio_run_per_call_keeps_no_loop_client_or_socket(provider, server, make_model):
    """``asyncio.run(model.ainvoke(...))`` per request: each loop's client is closed as its loop shuts down (it
    kept every loop, client and connection: a process ran out of file descriptors after ~500 requests)."""
    model = make_model()
    asyncio.run(model.ainvoke("oi"))  # the first round opens what stays open for good (the SDK's own caches)
    before = _sockets()
    for _ in range(30):
        assert isinstance(asyncio.run(model.ainvoke("oi")), AIMessage)
    assert len(model._clients.async_by_loop) == 0
    gc.collect()
    assert sum(isinstance(o, asyncio.AbstractEventLoop) for o in gc.get_objects()) <= 1
    assert _settled_sockets(before + 2) <= before + 2  # not 60 more


def test_loops_closed_by_hand_leave_at_most_one_client(provider, server, make_model):
    """A loop closed without ``shutdown_asyncgens`` (``run_until_complete`` then ``close``): its client is
    dropped when the next loop makes one, so the cache stays bounded."""
    model = make_model()
    for _ in range(10):
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(model.ainvoke("oi"))
        finally:
            loop.close()
        assert len(model._clients.async_by_loop) <= 1


def test_one_client_per_running_loop_is_reused_and_aclose_closes_it(provider, server, make_model):
    model = make_model()

    async def main():
        await model.ainvoke("oi")
        first = model._aclient()
        await model.ainvoke("oi")
        assert [chunk async for chunk in model.astream("oi")]
        assert model._aclient() is first and len(model._clients.async_by_loop) == 1
        await model.aclose()
        assert len(model._clients.async_by_loop) == 0
        await model.ainvoke("oi")  # a new client opens on the next call
        assert model._aclient() is not first

    asyncio.run(main())
    assert len(model._clients.async_by_loop) == 0


def test_clients_of_a_dropped_model_close_on_the_running_loop(provider, server, make_model):
    """A model dropped while its loop still runs: the loop closes its client (nothing fails at shutdown)."""
    errors: list[dict] = []
    gc.collect()  # the garbage of earlier tests goes first (an SDK client collected on this loop may log)

    async def main():
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: errors.append(context))
        model = make_model()
        await model.ainvoke("oi")
        del model
        gc.collect()
        await asyncio.sleep(0.05)

    asyncio.run(main())
    assert errors == []
