"""Passing a sync iterator's items to async code as they come (:func:`iterate_in_thread`), moved out of
:mod:`toolwire._concurrency`, which imports it from here."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

from toolwire._daemon_pool import _threads_made_here_not_daemon

T = TypeVar("T")


class _Raised:
    """What the iterator of :func:`iterate_in_thread` raised, as it crosses to the consumer."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


AHEAD = 16
"""How many items :func:`iterate_in_thread`'s thread makes before the consumer has taken them: past that it waits, so
a consumer that stops reading without closing the stream does not keep the producer (a model writing its reply) at
work."""

_ROOM_POLL = 0.1  # seconds between checks, while the thread waits for room, of whether the consumer has left


async def iterate_in_thread(produce: Callable[[threading.Event], Iterator[T]], name: str) -> AsyncIterator[T]:
    """Yield the items of a sync iterator as it makes them, without blocking the event loop.

    The iterator (``produce(stop)``) is made and read on a daemon thread of its own (a stream can last long, so
    it takes no pool thread), in a copy of the caller's :mod:`contextvars` context. When the consumer stops (it
    leaves the ``async for``, or its task is cancelled), ``stop`` is set: the thread stops at the iterator's next
    item and closes it (``produce`` may also watch ``stop`` to stop sooner, as the embedded model does during a
    prompt's evaluation). The thread keeps at most :data:`AHEAD` items the consumer has not taken, then waits, the
    iterator paused, until it takes one or leaves.

    Args:
        produce: makes the iterator, given the event set when the consumer has stopped.
        name: the thread's name (shown in debuggers and thread dumps).

    Yields:
        The iterator's items, in order.

    Raises:
        BaseException: what the iterator raised, raised here at that point of the stream.
    """
    loop = asyncio.get_running_loop()
    items: asyncio.Queue[Any] = asyncio.Queue()
    done = object()
    stop = threading.Event()
    room = threading.Semaphore(AHEAD)  # items the thread may make before the consumer has taken them

    def put(item: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop may be closed if the consumer left
            loop.call_soon_threadsafe(items.put_nowait, item)

    def work() -> None:
        _threads_made_here_not_daemon(threading.current_thread())  # (threads the producer starts: review 251 #1)
        iterator = None
        try:
            iterator = produce(stop)
            for item in iterator:
                # a consumer that stopped reading without leaving (a `break` that kept the stream open) stops the
                # thread within AHEAD items, as a paused sync stream does (review 107: the embedded model wrote the
                # whole reply for no one, and held a core)
                while not room.acquire(timeout=_ROOM_POLL):
                    if stop.is_set():
                        break
                if stop.is_set():
                    break
                put(item)
        except BaseException as exc:
            put(_Raised(exc))  # (boxed: an item may itself be an exception, which is passed on, review 82)
        finally:
            try:
                close = getattr(iterator, "close", None)
                if close is not None:
                    with contextlib.suppress(Exception):  # closing cannot lose what was already passed on
                        close()
            finally:
                put(done)  # also when closing raised a SystemExit: the consumer is not left waiting (review 82)

    context = contextvars.copy_context()
    threading.Thread(target=context.run, args=(work,), name=name, daemon=True).start()
    try:
        while (item := await items.get()) is not done:
            room.release()
            if isinstance(item, _Raised):
                raise item.error
            yield item
    finally:
        stop.set()
