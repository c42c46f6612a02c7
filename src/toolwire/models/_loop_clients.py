"""The SDK clients a hosted-provider model holds: one sync client, and one async client per event loop.

An async HTTP pool belongs to the loop it was opened in, so each running loop gets its own async client, reused
by every call on that loop. A client is closed on its own loop when that loop shuts down: with it a small
asynchronous generator is started on the loop, and ``loop.shutdown_asyncgens()`` (which ``asyncio.run`` and
``asyncio.Runner`` call before they close the loop) closes that generator, which closes the client and drops it
from the cache. Without that (a loop closed by hand without ``shutdown_asyncgens``), the client of a closed loop
is dropped the next time a client is made for another loop, and its sockets close as it is collected. So a
process that calls ``asyncio.run(model.ainvoke(...))`` once per request keeps no loops, clients or sockets of
the earlier requests (review 72: it kept all of them, and ran out of file descriptors after ~500 requests).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import weakref
from collections.abc import AsyncGenerator, Callable
from typing import Any

from toolwire.models._retry import aclose_stream

__all__ = ["Clients"]

log = logging.getLogger("toolwire.providers")


async def _closer(owner: weakref.ref[Clients], loop: asyncio.AbstractEventLoop,
                  slot: list[Any]) -> AsyncGenerator[None, None]:
    """Wait (suspended at its ``yield``) for the loop to shut down, then close the client in ``slot`` on it.

    ``slot`` holds the client until someone else takes it over (``aclose``, or a sweep of closed loops empties
    it first): then there is nothing left to do here. ``owner`` is weak, so this generator keeps no model
    alive; when the model goes first, the generator is finalized on the loop and still closes the client."""
    try:
        yield
    finally:
        client = slot.pop() if slot else None
        if client is not None:
            clients = owner()
            if clients is not None:
                clients.forget(loop, client)
            await aclose_stream(client)  # (its aclose() or close(), failures logged)


def _start(gen: AsyncGenerator[None, None]) -> None:
    """Run ``gen`` to its first ``yield``, here and now (no await happens before it): its first step registers
    it with the running loop (``sys.set_asyncgen_hooks``), so the loop closes it at ``shutdown_asyncgens``."""
    step = gen.asend(None)
    try:
        step.send(None)
    except StopIteration:
        return
    step.close()  # (cannot happen: the generator awaits nothing before its yield)


def _finish(gen: AsyncGenerator[None, None]) -> None:
    """Close ``gen`` here and now, its ``slot`` already emptied (so its ``finally`` awaits nothing): a closed
    generator is not handed to its loop's finalizer when it is collected, which would fail on a closed loop."""
    step_once(gen.aclose(), "closing the client closer failed")


def step_once(coroutine: Any, failure: str) -> None:
    """Run ``coroutine`` here, outside any event loop, up to its first wait: all of it when it waits for nothing (a
    closing on a closed loop only marks things closed); what it would have waited for is left (the coroutine
    closed). A failure is logged at DEBUG with ``failure``, never raised."""
    try:
        coroutine.send(None)
    except StopIteration:
        return
    except Exception:
        log.debug(failure, exc_info=True)
        return
    coroutine.close()


def _quiet(client: Any) -> None:
    """Mark the HTTP client of an SDK ``client`` of a loop that was closed as closed, without I/O: the SDKs' wrapper
    otherwise schedules its ``aclose()`` on whatever loop runs when it is collected, which fails on the closed loop's
    transports and logs "Task exception was never retrieved" (review 155 #1). Its sockets close as it is collected.
    A client with a ``drop_closed()`` method of its own (Gemini's, with toolwire's aiohttp session) is left to it
    (review 270 #1); anything of another shape is left alone."""
    drop = getattr(type(client), "drop_closed", None)
    if callable(drop):
        drop(client)
        return
    http = getattr(client, "_client", None)
    state = getattr(http, "_state", None)
    closed = getattr(type(state), "CLOSED", None)
    if closed is not None:
        with contextlib.suppress(Exception):
            http._state = closed  # (httpx's ClientState: is_closed is then True)


class _LoopClient:
    """One loop's async client and the generator that closes it when the loop shuts down."""

    __slots__ = ("client", "closer", "loop", "slot")

    def __init__(self, owner: Clients, loop: asyncio.AbstractEventLoop, client: Any) -> None:
        self.client = client
        self.loop = loop
        self.slot = [client]
        self.closer = _closer(weakref.ref(owner), loop, self.slot)
        _start(self.closer)

    def take(self) -> Any:
        """The client, no longer the closer's to close (``None`` when the closer has closed it already)."""
        client = self.slot.pop() if self.slot else None
        _finish(self.closer)
        return client

    def __del__(self) -> None:
        # dropped with its model while the loop still runs, the closer is finalized on the loop and closes the
        # client there; on a loop already closed that would fail, so the client is left to be collected, quietly
        if self.loop.is_closed():
            _quiet(self.take())


class Clients:
    """SDK clients shared by a model and its ``bind_tools`` copies: one sync client (:attr:`sync`), and one async
    client per event loop (:meth:`for_loop`), closed on that loop when it shuts down.

    A child process made by ``os.fork()`` (gunicorn ``--preload``, a 'fork' multiprocessing pool) starts with none:
    the parent's clients hold its connections, which parent and children reading at once mix up (workers got one
    another's replies: review 207 #1). They are dropped there unclosed (their sockets are the parent's), with a new
    lock (one another thread held at the fork would never be released in the child)."""

    def __init__(self) -> None:
        self._reset()
        _ALL.add(self)

    def _reset(self) -> None:
        self.lock = threading.Lock()
        self.sync: Any = None
        # event loop -> its async client (the loop only weakly: a loop that is collected takes its entry along)
        self.async_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopClient] = \
            weakref.WeakKeyDictionary()

    def for_loop(self, loop: asyncio.AbstractEventLoop, make: Callable[[], Any]) -> Any:
        """The async client of ``loop`` (the running loop), made with ``make()`` on its first use there.

        Making one also drops the clients of loops that were closed without closing them (see the module
        docstring), so their count stays bounded."""
        stale: list[_LoopClient] = []
        with self.lock:
            entry = self.async_by_loop.get(loop)
            if entry is None:
                for other in [o for o in list(self.async_by_loop.keys()) if o.is_closed()]:
                    stale.append(self.async_by_loop.pop(other))
                entry = self.async_by_loop[loop] = _LoopClient(self, loop, make())
        for old in stale:
            _quiet(old.take())
        return entry.client

    def forget(self, loop: asyncio.AbstractEventLoop, client: Any) -> None:
        """Drop ``loop``'s entry if it still holds ``client`` (its closer is closing it)."""
        with self.lock:
            entry = self.async_by_loop.get(loop)
            if entry is not None and entry.client is client:
                del self.async_by_loop[loop]

    def pop(self, loop: asyncio.AbstractEventLoop) -> Any:
        """Remove and return ``loop``'s async client for the caller to close (``None``: it has none)."""
        with self.lock:
            entry = self.async_by_loop.pop(loop, None)
        return entry.take() if entry is not None else None


_ALL: weakref.WeakSet[Clients] = weakref.WeakSet()
"""Every :class:`Clients` of this process, so a fork child starts each with none (see :class:`Clients`)."""


def _after_fork() -> None:
    for clients in list(_ALL):
        clients._reset()


if hasattr(os, "register_at_fork"):  # (POSIX)
    os.register_at_fork(after_in_child=_after_fork)
