"""The grace period a stopped run gives its tool calls, kept through repeated cancellations (review 196 #1).

When a run is cancelled, toolwire cancels its tool calls and waits for them a short while (their cleanup, a sync
tool's thread finishing): :func:`wait_through` is that wait. Only a new interrupt ends it early:

* a ``CancelledError`` delivered again to the waiting task is not one. An anyio cancel scope (Starlette and FastAPI
  on a client's disconnect, ``anyio.move_on_after``) cancels its task again at every ``await`` while the scope is
  cancelled, and a task may simply be cancelled twice (``task.cancel()`` from two places): the wait goes on, and
  the cancellation is handed back to raise after it. Under anyio the wait runs in a shielded cancel scope, so the
  scope's repeated cancellations do not wake it at every pass of the event loop.
* a ``KeyboardInterrupt`` raised in the waiting task (a second Ctrl-C inside ``asyncio.run``) is one: it propagates.
* a second Ctrl-C out of a sync call's event loop (:func:`toolwire._concurrency._run_loop`) is one too: that loop is
  marked with :func:`interrupt_waits`, and the waits on it then end at once; so is one out of ``asyncio.run``'s loop,
  whose end cancels the waiting task once more after its main task's run ended.

A call still running at the end of the wait is given up with :func:`give_up`, so that it ends cancelled, not with a
``RuntimeError`` that ``asyncio.run`` would log at its end (review 203 #1).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import threading
import types
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

log = logging.getLogger("toolwire.tools")
_interrupted: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
_waits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, weakref.WeakSet[asyncio.Future[None]]] = (
    weakref.WeakKeyDictionary())  # (the waits' markers held weakly: a marker holds its loop, which must go)
_given_up: weakref.WeakSet[asyncio.Future[Any]] = weakref.WeakSet()


def give_up(task: asyncio.Task[Any]) -> None:
    """Give up on ``task``, a call's task still running after its run stopped (its tool ignores cancellation, or its
    cleanup takes longer), so that it ends cancelled at its next step.

    The coroutine the task's own one awaits (the tool's coroutine, or the call's run) is closed: ``GeneratorExit``
    where it waits, its ``finally`` blocks run. The task is then cancelled, and its own coroutine, one that asks
    :func:`given_up` (:func:`toolwire._tool_run.guarded`, the executor's answer of a call), turns the "cannot reuse
    already awaited coroutine" of the closed one into a ``CancelledError``. (Closing the task's own coroutine,
    :func:`toolwire._concurrency.abandon`, ended it with that ``RuntimeError``, which ``asyncio.run`` logs with its
    traceback when the task is still pending at its end: review 203 #1, at a second Ctrl-C.) A task whose awaited
    coroutine cannot be closed (it ignores ``GeneratorExit``; not a coroutine) is abandoned instead.

    Args:
        task: the task, pending.

    Returns:
        None. An exception the closing raises (what the tool's cleanup raised) is logged at debug level on
        ``toolwire.tools``.
    """
    from toolwire._concurrency import abandon  # (that module imports this one)

    inner = getattr(task.get_coro(), "cr_await", None)
    if isinstance(inner, types.CoroutineType):
        _given_up.add(task)
        try:
            inner.close()
        except Exception as exc:  # the call is given up all the same; the cleanup's failure is only logged
            log.debug("Closing the coroutine of the task %s given up raised %s: %s", task.get_name(),
                      type(exc).__name__, exc)
        if inner.cr_frame is None:  # closed
            task.cancel()
            return
        _given_up.discard(task)
    abandon(task)


def given_up() -> bool:
    """Whether the running task was given up by :func:`give_up` (a ``RuntimeError`` at its ``await`` is then the
    closed coroutine's: the task is to end cancelled). False outside a task."""
    try:
        return asyncio.current_task() in _given_up
    except RuntimeError:  # no running loop (a coroutine being closed by the garbage collector)
        return False


def interrupt_waits(loop: asyncio.AbstractEventLoop) -> None:
    """End every :func:`wait_through` on ``loop`` at once, now and later (a second Ctrl-C stopped the sync call that
    runs ``loop``: the calls still running are given up rather than waited for)."""
    with contextlib.suppress(TypeError):  # (a loop that takes no weak reference: its waits run their course)
        _interrupted.add(loop)
        for marker in list(_waits.get(loop, ())):
            if not marker.done():
                marker.set_result(None)


def _marker(loop: asyncio.AbstractEventLoop) -> asyncio.Future[None]:
    """A future that :func:`interrupt_waits` sets (at once when it already ran for ``loop``)."""
    marker: asyncio.Future[None] = loop.create_future()
    try:
        if loop in _interrupted:
            marker.set_result(None)
        else:
            _waits.setdefault(loop, weakref.WeakSet()).add(marker)
    except TypeError:
        pass
    return marker


@contextlib.contextmanager
def _anyio_shield() -> Iterator[None]:
    """A shielded anyio cancel scope around the block when anyio is in use (imported), else nothing: an anyio
    scope's level cancellation then does not wake the block's ``await`` at every pass of the event loop. A plain
    ``task.cancel()`` still reaches it."""
    anyio: Any = sys.modules.get("anyio")
    scope = None
    if anyio is not None:
        try:
            scope = anyio.CancelScope(shield=True)
            scope.__enter__()
        except Exception:  # (no anyio backend for this loop, an anyio without CancelScope: wait without it)
            scope = None
    try:
        yield
    except BaseException as exc:
        if scope is not None:
            scope.__exit__(type(exc), exc, exc.__traceback__)
        raise
    if scope is not None:
        scope.__exit__(None, None, None)


def _asyncio_run_ending() -> Callable[[], bool]:
    """A check of whether the ``asyncio.run`` running this wait has ended its main task, when the wait began inside
    one (on the main thread): a second Ctrl-C raised out of its loop, whose end then cancels the tasks left, this
    wait's among them. (``asyncio.run`` puts Python's own Ctrl-C handler back when its main task's run ends.)"""
    if threading.current_thread() is not threading.main_thread():
        return lambda: False
    handler = signal.getsignal(signal.SIGINT)
    owner = getattr(getattr(handler, "func", None), "__func__", None)  # functools.partial(runner._on_sigint, ...)
    if owner is None or owner is not getattr(asyncio.Runner, "_on_sigint", None):
        return lambda: False
    return lambda: signal.getsignal(signal.SIGINT) is not handler


async def wait_through(futures: Iterable[asyncio.Future[Any]], timeout: float
                       ) -> tuple[bool, asyncio.CancelledError | None]:
    """Wait for ``futures`` (tasks, or futures of threads) to be done, at most ``timeout`` seconds, through
    cancellations of the waiting task (see the module's docs).

    Args:
        futures: what to wait for; timeout: seconds.

    Returns:
        ``(interrupted, cancellation)``: whether a new Ctrl-C ended the wait early (:func:`interrupt_waits`), and the
        last ``CancelledError`` the waiting task got meanwhile (None when it got none), for the caller to raise
        once it has dealt with the futures. Which futures are done is read on them.

    Raises:
        KeyboardInterrupt: raised in the waiting task during the wait (a second Ctrl-C inside ``asyncio.run``).
    """
    loop = asyncio.get_running_loop()
    marker = _marker(loop)
    ending = _asyncio_run_ending()
    deadline = loop.time() + timeout
    futures = list(futures)
    cancellation: asyncio.CancelledError | None = None
    with _anyio_shield():
        while not marker.done():
            pending = [future for future in futures if not future.done()]
            remaining = deadline - loop.time()
            if not pending or remaining <= 0:
                break
            try:
                await asyncio.wait([*pending, marker], timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
            except asyncio.CancelledError as again:  # cancelled again (anyio, or twice): not a reason to stop
                cancellation = again
                if ending():  # but asyncio.run's end, at a second Ctrl-C, is
                    interrupt_waits(loop)
    return marker.done(), cancellation
