"""A worker thread's exception passed to the awaiting coroutine as the very object raised.

asyncio rebuilds three exception classes when it copies a ``concurrent.futures.Future``'s outcome to an asyncio
one (``run_in_executor``, ``asyncio.wrap_future``: ``asyncio.futures._convert_future_exc``): exactly
``TimeoutError`` (which ``concurrent.futures.TimeoutError`` and ``socket.timeout`` are, on Python 3.11),
``concurrent.futures.CancelledError`` and ``concurrent.futures.InvalidStateError`` become new objects of asyncio's
classes, made from their ``args`` alone. What the raised object carried is lost: an Agent run's ``exc.messages``,
the traceback down to the line that raised it (a tool's own), its notes; and a ``concurrent.futures.CancelledError``
a tool raises would read as the run being cancelled. :func:`carrying` boxes such an exception on the thread in a
:class:`Carried`, which asyncio passes on as it is, and :func:`uncarried` raises the original again
(review 226 #3).
"""

from __future__ import annotations

import concurrent.futures
import functools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

__all__ = ["Carried", "carrying", "uncarried"]

T = TypeVar("T")

_REBUILT = (TimeoutError, concurrent.futures.CancelledError, concurrent.futures.InvalidStateError)
"""The exact classes asyncio rebuilds (a subclass is passed on as it is)."""


class Carried(Exception):
    """An exception asyncio would rebuild, boxed on the worker thread that raised it.

    Args:
        error: the exception raised.

    Attributes:
        error: as given.
    """

    def __init__(self, error: BaseException) -> None:
        super().__init__(error)
        self.error = error


def carrying(func: Callable[..., T]) -> Callable[..., T]:
    """``func``, to be run on a worker thread, with an exception of a class asyncio rebuilds raised in a
    :class:`Carried` instead.

    Args:
        func: the sync function the thread runs.

    Returns:
        A function taking and returning what ``func`` does.

    Raises:
        Carried: (when called) ``func`` raised exactly ``TimeoutError``, ``concurrent.futures.CancelledError`` or
            ``concurrent.futures.InvalidStateError``.
    """
    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> T:
        try:
            return func(*args, **kwargs)
        except _REBUILT as exc:
            if type(exc) not in _REBUILT:
                raise
            raise Carried(exc) from None

    return call


async def uncarried(awaitable: Awaitable[T]) -> T:
    """``await awaitable`` (the future of a thread running a :func:`carrying` function), a :class:`Carried` raised
    as the original exception it holds, with its own traceback and attributes.

    Returns:
        What ``awaitable`` gives.

    Raises:
        BaseException: the exception the thread raised, the very object; anything else ``awaitable`` raises.
    """
    try:
        return await awaitable
    except Carried as box:
        error = box.error
    raise error  # (outside the except block: its context stays its own, not the box)
