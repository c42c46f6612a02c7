"""A model call that raises ``StopIteration`` or ``StopAsyncIteration`` (a scripted reply function's
``next(replies)`` once the replies ran out, the usual way to script a fake model) said as one clear error.

asyncio cannot put either into a Future: a sync model run on a worker thread (``run_in_executor``) would leave its
awaiting caller waiting forever, and one raised inside a generator becomes Python's bare "generator raised
StopIteration" (PEP 479). So each is turned into a ``RuntimeError`` that names it, chained to it, where it would cross
a Future or a generator, as a tool's is (:func:`toolwire._tool_run.escaped`; review 226 #1).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["model_stop_error", "model_stopped", "stops_escaped"]

T = TypeVar("T")

STOPS = (StopIteration, StopAsyncIteration)
# Python's own words for a StopIteration/StopAsyncIteration raised inside a generator or coroutine (PEP 479, PEP 525)
_PEP479 = ("generator raised StopIteration", "async generator raised StopIteration", "coroutine raised StopIteration",
           "async generator raised StopAsyncIteration")


def model_stop_error(exc: BaseException, where: str = "the model call") -> RuntimeError:
    """The ``RuntimeError`` to raise in place of ``exc``, a ``StopIteration``/``StopAsyncIteration`` raised inside
    ``where`` (its ``__cause__`` set to ``exc``).

    Args:
        exc: the exception raised.
        where: what raised it, as the message names it (``"the model call"``, ``"a pipeline step"``).

    Returns:
        A ``RuntimeError`` whose one sentence names ``exc`` and says what to do instead.
    """
    kind = type(exc).__name__
    try:
        detail = str(exc).strip()
    except Exception:  # an exception whose __str__ fails still gets named
        detail = ""
    said = f" ({detail})" if detail else ""
    error = RuntimeError(f"{kind} raised inside {where}{said}: raise an ordinary exception instead, since asyncio "
                         f"cannot carry {kind} (a reply function calling next() on its replies has run out of them: "
                         "give it one reply per model call).")
    error.__cause__ = exc
    return error


def model_stopped(exc: BaseException) -> BaseException:
    """``exc``, an exception a model call raised, or :func:`model_stop_error` in its place when it is a
    ``StopIteration``/``StopAsyncIteration`` (also one Python already turned into "generator raised StopIteration",
    its ``__cause__``).

    Args:
        exc: the exception raised by the model call.

    Returns:
        ``exc`` itself, or a new ``RuntimeError`` (with ``__cause__`` the stop) to raise in its place.
    """
    if isinstance(exc, STOPS):
        return model_stop_error(exc)
    if type(exc) is RuntimeError and isinstance(exc.__cause__, STOPS) and str(exc) in _PEP479:
        return model_stop_error(exc.__cause__)
    return exc


def stops_escaped(func: Callable[..., T], where: str = "the model call") -> Callable[..., T]:
    """``func``, with a ``StopIteration``/``StopAsyncIteration`` it raises turned into :func:`model_stop_error`'s
    ``RuntimeError`` (raised from it), so it can cross a Future (``run_in_executor``) or a generator.

    Args:
        func: the sync function to call (a model's ``_generate``, a pipeline step).
        where: as for :func:`model_stop_error`.

    Returns:
        A function taking and returning what ``func`` does.

    Raises:
        RuntimeError: (when called) ``func`` raised ``StopIteration`` or ``StopAsyncIteration``.
    """
    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> T:
        try:
            return func(*args, **kwargs)
        except STOPS as exc:
            raise model_stop_error(exc, where) from exc

    return call
