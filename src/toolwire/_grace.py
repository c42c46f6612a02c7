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

A call still running at the end of the wait is given up with :func:`give_up_calls`, so that it ends cancelled, not
with a ``RuntimeError`` that ``asyncio.run`` would log at its end (review 203 #1), and so do the tasks it started and
waits for that ignore their cancellation too (a helper task the tool awaits, through ``asyncio.shield``,
``asyncio.gather`` or a ``TaskGroup`` too): neither the run's end nor ``asyncio.run``'s then waits for them
(review 210 #2).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import gc
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
_CALL: contextvars.ContextVar[object | None] = contextvars.ContextVar("toolwire_call", default=None)
_calls: weakref.WeakKeyDictionary[asyncio.Future[Any], object] = weakref.WeakKeyDictionary()


class _Mark:
    """A call's mark (:func:`mark_call`), holding the mark of the call it runs inside (a tool that runs tools through
    its own :class:`~toolwire.execution.ToolExecutor`), or None."""

    __slots__ = ("__weakref__", "outer")

    def __init__(self, outer: object | None) -> None:
        self.outer = outer


def mark_call() -> None:
    """Mark the running task as a tool call's, so that :func:`give_up_calls` finds the tasks it starts (they inherit
    its context, and the mark in it), and the calls (with their tasks) of a tool it runs through an executor of its
    own: their marks hold its one (review 218 #1). Nothing outside a task."""
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return
    if task is not None:
        token = _Mark(_CALL.get())
        _CALL.set(token)
        _calls[task] = token


def _within(mark: object | None, tokens: list[object]) -> bool:
    """Whether ``mark`` (a context's :data:`_CALL`) is one of ``tokens`` or the mark of a call run inside one."""
    while mark is not None:
        if any(mark is token for token in tokens):
            return True
        mark = mark.outer if isinstance(mark, _Mark) else None
    return False


async def give_up_calls(tasks: list[asyncio.Future[Any]], ending: bool = False) -> list[asyncio.Future[Any]]:
    """Give up on ``tasks``, calls' tasks still running after their run stopped, and on the tasks each started or
    waits for that were cancelled and still run (they ignore their cancellation, or their cleanup takes longer), so
    that each ends cancelled at once, or at the next pass of the event loop.

    A task awaiting another that ignores its cancellation hands its own cancellation on there and never wakes up
    (review 210 #2: a tool awaiting ``asyncio.ensure_future(...)``, ``asyncio.shield``, ``asyncio.gather`` or a
    ``TaskGroup`` held the run, and ``asyncio.run``'s end, until a third Ctrl-C). So each of these tasks has its
    coroutine closed (``GeneratorExit`` where it waits, its ``finally`` blocks run), is detached from the future it
    waits on, and is marked cancelled, which wakes the tasks awaiting it. One about to run (woken by its
    cancellation) is so ended after that run, a pass of the event loop later; one that waits on nothing (it polls
    with ``await asyncio.sleep(0)``) has its next step taken off the event loop's queue. A task that cannot be so
    ended (its cleanup awaits, so its coroutine goes on past ``GeneratorExit``; an event loop whose futures do not
    show their callbacks) is given up with :func:`give_up` instead when it is toolwire's own, and cancelled again
    when it is a tool's, its end neither logged nor waited for (review 218 #4: give_up had it fail with "cannot
    reuse already awaited coroutine").

    Which tasks: each of ``tasks``, the ones it waits on (each task's future, a ``gather``'s children) and those
    started in its context (:func:`mark_call`), when they are being cancelled (``cancelling()``): a helper that
    nobody cancelled (``asyncio.shield``'s inner task while the event loop goes on) is left running, unless the
    event loop is ``ending``.

    Args:
        tasks: the calls' tasks, pending; ending: whether the event loop ends (a new Ctrl-C stopped the wait): the
            tasks they started that nobody cancelled are given up too (one a tool started again as it was
            cancelled, which no one would wait for).

    Returns:
        The tasks given up, each of ``tasks`` among them (some end at the loop's next passes).
    """
    family: list[asyncio.Future[Any]] = []
    for task in tasks:
        family += [member for member in _family(task, ending) if all(member is not known for known in family)]
    later = _end_all(family)
    for _ in range(3):  # (a few passes: each runs the tasks about to run, which then wait again)
        if not later:
            break
        with contextlib.suppress(asyncio.CancelledError):  # (the run is stopping already)
            await asyncio.sleep(0)
        later = _end_all([task for task in later if not task.done()])
    for task in later:  # (a tool's task woken at every pass)
        if not (ended := _end_scheduled(task)):
            _let_go(task, ended is False)
    with contextlib.suppress(asyncio.CancelledError):  # a pass: the done callbacks of the tasks ended run now, not
        await asyncio.sleep(0)  # after the caller took its own off (the executor's note of the answers so far)
    return family


def _end_all(tasks: list[asyncio.Future[Any]]) -> list[asyncio.Future[Any]]:
    """End ``tasks`` cancelled (:func:`_end_cancelled`, else :func:`give_up`) and return those about to run, which
    cannot be yet: they are woken already (the future they wait on is done)."""
    plans = [_detached(task) for task in tasks]  # (every one before any ends: its end wakes those awaiting it)
    later = []
    for task, plan in zip(tasks, plans, strict=True):
        waiter = getattr(task, "_fut_waiter", None)
        if plan is None and isinstance(waiter, asyncio.Future) and waiter.done() and not _asks_given_up(task):
            later.append(task)  # (a tool's task that would run its code once more; toolwire's own would not)
        elif plan is not None and _end_cancelled(task, *plan):
            pass
        elif _asks_given_up(task):
            give_up(task)  # type: ignore[arg-type]
        elif plan is not None:  # (a tool's task: give_up would have it fail with "cannot reuse already awaited
            _let_go(task, True)  # coroutine", review 218 #4)
        elif not (ended := _end_scheduled(task)):
            _let_go(task, ended is False)
    return later


def _end_scheduled(task: asyncio.Future[Any]) -> bool | None:
    """End ``task``, a tool's task with no future to be detached from (it polls with ``await asyncio.sleep(0)``, or
    what it waits on is done), cancelled now: its next step taken off the event loop's queue, its coroutine closed,
    the task marked cancelled. False, the step left, when its coroutine goes on (its cleanup awaits); None when
    nothing was done (an event loop whose queue cannot be read)."""
    ready = getattr(task.get_loop(), "_ready", None)
    coro: Any = task.get_coro() if isinstance(task, asyncio.Task) else None
    steps = [handle for handle in (ready if isinstance(ready, collections.deque) else ())
             if isinstance(handle, asyncio.Handle) and not handle.cancelled()
             and getattr(getattr(handle, "_callback", None), "__self__", None) is task]
    if not steps or not callable(getattr(coro, "close", None)):
        return None
    if (failure := close_coro(coro)) is not None:  # (its cleanup failed: logged; it awaited: it still runs, _let_go)
        log.debug("Closing the coroutine of the task %s given up raised %s", task.get_name(), failure)  # type: ignore[attr-defined]
    if getattr(coro, "cr_frame", None) is not None:
        return False
    for handle in steps:
        handle.cancel()
    asyncio.Future.cancel(task)
    return True


def _let_go(task: asyncio.Future[Any], closed: bool) -> None:
    """Give up on ``task``, a tool's task that could not be ended at once (its cleanup awaits, the event loop does
    not show its callbacks): it is cancelled again, which its cleanup gets where it waits, and its end is neither
    logged nor waited for at the end of a sync call's event loop (:func:`toolwire._concurrency.abandon`'s rules),
    rather than failing with "cannot reuse already awaited coroutine" (:func:`give_up`, for toolwire's own tasks).
    ``closed``: whether its coroutine was closed already (else it is closed first, by ``abandon``)."""
    from toolwire._concurrency import _abandoned, _forget, abandon  # (that module imports this one)

    if not closed:
        abandon(task)  # type: ignore[arg-type]
        return
    _abandoned.add(task)  # type: ignore[arg-type]
    task.add_done_callback(_forget)  # type: ignore[arg-type]
    with contextlib.suppress(AttributeError):
        task._log_destroy_pending = False  # type: ignore[attr-defined]
    task.cancel()


def _asks_given_up(task: asyncio.Future[Any]) -> bool:
    """Whether ``task`` is toolwire's own, whose coroutine asks :func:`given_up`: a call's (:func:`mark_call`), or
    the task running an async tool's coroutine (:func:`toolwire._tool_run.guarded`)."""
    from toolwire._tool_run import guarded  # (that module imports this one)

    code = getattr(task.get_coro(), "cr_code", None) if isinstance(task, asyncio.Task) else None
    return task in _calls or code is guarded.__code__


def _cancelling(task: asyncio.Future[Any]) -> bool:
    """Whether ``task`` (pending) was asked to cancel (always, for a task that cannot tell)."""
    cancelling = getattr(task, "cancelling", None)
    try:
        return not callable(cancelling) or bool(cancelling())
    except Exception:
        return True


def _context(task: asyncio.Future[Any]) -> contextvars.Context | None:
    """The context ``task`` runs in, or None when it cannot be read. (``get_context()`` is Python 3.12's; before,
    the first context a C task refers to is its own, and a Python one keeps it as ``_context``.)"""
    get = getattr(task, "get_context", None)
    if callable(get):
        with contextlib.suppress(Exception):
            context = get()
            return context if isinstance(context, contextvars.Context) else None
        return None
    for ref in gc.get_referents(task):
        if isinstance(ref, contextvars.Context):
            return ref
        if isinstance(ref, dict) and isinstance(ref.get("_context"), contextvars.Context):
            return ref["_context"]
    return None


async def wait_calls(tasks: list[asyncio.Future[Any]], timeout: float) -> tuple[bool, asyncio.CancelledError | None]:
    """:func:`wait_through` for the calls' ``tasks``, then for the tasks they started that are being cancelled and
    still run, all within ``timeout`` seconds: a timed call answers at once when its run is cancelled, its tool's
    task going on (which then gets the same grace as an untimed call's, and is given up after it: review 210 #2).

    Returns:
        ``(interrupted, cancellation)``, as :func:`wait_through` does.

    Raises:
        KeyboardInterrupt: as :func:`wait_through` does.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    interrupted, again = False, None
    if pending := [task for task in tasks if not task.done()]:
        interrupted, again = await wait_through(pending, timeout)
    if not interrupted and (helpers := started(tasks, False)) and deadline > loop.time():
        interrupted, later = await wait_through(helpers, deadline - loop.time())
        again = later or again
    return interrupted, again


def started(tasks: list[asyncio.Future[Any]], ending: bool) -> list[asyncio.Future[Any]]:
    """The pending tasks the calls' ``tasks`` started (:func:`mark_call`), other than theirs, that are being
    cancelled (any, when the event loop is ``ending``)."""
    tokens = [token for token in (_calls.get(task) for task in tasks) if token is not None]
    found: list[asyncio.Future[Any]] = []
    if tokens:
        with contextlib.suppress(Exception):  # (a loop without tasks to list)
            for other in asyncio.all_tasks(tasks[0].get_loop()):
                context = None if other.done() or any(other is task for task in tasks) else _context(other)
                if context is not None and _within(context.get(_CALL), tokens) and (ending or _cancelling(other)):
                    found.append(other)  # (a call of an executor a call's tool runs too, and the tasks it started)
    return found


def _family(task: asyncio.Future[Any], ending: bool) -> list[asyncio.Future[Any]]:
    """``task`` and the pending tasks being cancelled (any, when ``ending``) that it waits on, directly or not, or
    that it started (see :func:`give_up_calls`)."""
    token = _calls.get(task)
    if token is None and (context := _context(task)) is not None:  # (a task a call started: the call's)
        token = context.get(_CALL)
    started: list[asyncio.Future[Any]] = []
    if token is not None:
        with contextlib.suppress(Exception):  # (a loop without tasks to list: the ones waited on only)
            loop = task.get_loop()
            for other in asyncio.all_tasks(loop):
                context = None if other is task or other.done() else _context(other)
                if context is not None and _within(context.get(_CALL), [token]):  # (nested calls' too)
                    started.append(other)
    family: list[asyncio.Future[Any]] = [task]
    for member in family:  # (it grows as it is walked)
        waiter = getattr(member, "_fut_waiter", None)
        waited = [waiter, *(getattr(waiter, "_children", None) or ())] if waiter is not None else []
        for other in [*waited, *(started if member is task else ())]:
            if (isinstance(other, asyncio.Task) and not other.done() and (ending or _cancelling(other))
                    and all(other is not known for known in family)):
                family.append(other)
    return family


_Wakeups = tuple[asyncio.Future[Any], list[tuple[Any, Any]]]


def _detached(task: asyncio.Future[Any]) -> _Wakeups | None:
    """Take ``task``'s wake-up off the future it waits on, which would run it again once it is ended (a closed
    coroutine raises "cannot reuse already awaited coroutine"), and return ``(that future, the wake-ups taken off
    with their contexts)``; None when there is none to take (see :func:`give_up_calls`)."""
    waiter = getattr(task, "_fut_waiter", None)
    callbacks = getattr(waiter, "_callbacks", None) if isinstance(waiter, asyncio.Future) else None
    if not isinstance(task, asyncio.Task) or not callable(getattr(task.get_coro(), "close", None)):
        return None
    wakeups = [(entry[0], entry[1] if len(entry) > 1 else None) for entry in callbacks or ()
               if isinstance(entry, tuple) and entry and getattr(entry[0], "__self__", None) is task]
    if waiter is None or waiter.done() or not wakeups:
        return None
    for wakeup, _ in wakeups:
        waiter.remove_done_callback(wakeup)
    return waiter, wakeups


def _end_cancelled(task: asyncio.Future[Any], waiter: asyncio.Future[Any], wakeups: list[tuple[Any, Any]]) -> bool:
    """End ``task``, :func:`_detached` from ``waiter``, cancelled now: its coroutine closed, the task marked cancelled
    as a future (the tasks awaiting it then wake up). False, its ``wakeups`` put back, when its coroutine goes on
    (it ignores ``GeneratorExit``)."""
    coro: Any = task.get_coro()  # type: ignore[attr-defined]
    if (failure := close_coro(coro)) is not None:  # (its cleanup failed: logged; it ignored GeneratorExit: still runs)
        log.debug("Closing the coroutine of the task %s given up raised %s", task.get_name(), failure)  # type: ignore[attr-defined]
    if getattr(coro, "cr_frame", None) is not None or getattr(coro, "gi_frame", None) is not None:  # not closed
        for wakeup, context in wakeups:
            waiter.add_done_callback(wakeup, context=context)
        return False
    asyncio.Future.cancel(task)  # (the task's own cancel() would hand it on to its waiter, or run it again)
    if not isinstance(waiter, asyncio.Task):  # (nobody awaits it now: a gather's, a shield's, a TaskGroup's future;
        with contextlib.suppress(Exception):  # done, it retrieves what the tasks it follows raise)
            asyncio.Future.cancel(waiter)
    return True


_ignored: dict[int, types.CodeType] = {}  # id of a coroutine left suspended by its close: its code (see close_coro)
_IGNORED_KEPT = 1024
_previous_hook: Callable[[Any], Any] | None = None
_hooked: list[bool] = []  # (True once _unraisable was installed: it is installed at most once per process)
_hook_lock = threading.Lock()
_in_hook = threading.local()  # .active: this thread is inside _unraisable (a hook that calls it back: see there)


def close_coro(coro: Any) -> str | None:
    """Close ``coro`` (``GeneratorExit`` where it waits: its ``finally`` blocks run) and return the exception closing it
    raised as text (``"RuntimeError: coroutine ignored GeneratorExit"``; None when none), for the caller to log.

    A coroutine on its ``await`` chain that ignores ``GeneratorExit`` (``except BaseException: continue``) stays
    suspended, and Python's collection of it later closes it again, which it ignores again: Python printed that as an
    "Exception ignored ... RuntimeError: coroutine ignored GeneratorExit" traceback on stderr (review 240 #2). Such a
    coroutine is noted, and that report of its collection is logged at debug level on ``toolwire.tools`` instead
    (:func:`_unraisable`, installed as ``sys.unraisablehook`` around the hook in place then, which gets every other
    report; installed once per process, and never over a hook set later: review 243 #2). It is not kept alive: kept
    for the life of the process, it was closed at the interpreter's end, with no event loop, where a tool that polls
    with ``asyncio.sleep`` loops for good.
    """
    chain: list[types.CoroutineType[Any, Any, Any]] = []
    link = coro
    while isinstance(link, types.CoroutineType) and len(chain) < 64:
        chain.append(link)
        link = link.cr_await
    try:
        coro.close()
    except Exception as exc:
        _note_ignored([link for link in chain if link.cr_frame is not None])
        chain.clear()  # (nor may the exception's traceback, through this frame, keep them alive: see above)
        return f"{type(exc).__name__}: {exc}"
    return None


def _note_ignored(coros: list[types.CoroutineType[Any, Any, Any]]) -> None:
    """Note ``coros``, coroutines that ignored their close, for :func:`_unraisable`, installed on first use only: a
    hook set later stays in place (their reports then go to it), and one set before is never captured again, which
    made a later hook that chains to the one it replaced call back into itself for good, or a temporary hook since
    put back swallow every later report (review 243 #2)."""
    global _previous_hook
    if not coros:
        return
    for coro in coros:
        _ignored[id(coro)] = coro.cr_code
    while len(_ignored) > _IGNORED_KEPT:  # (the oldest notes go: a coroutine that did end after all leaves its own)
        del _ignored[next(iter(_ignored))]
    if not _hooked:
        with _hook_lock:
            if not _hooked:
                _hooked.append(True)
                _previous_hook = sys.unraisablehook
                sys.unraisablehook = _unraisable


def _unraisable(unraisable: Any) -> None:
    """``sys.unraisablehook``: the report of a noted coroutine (:func:`close_coro`) that ignored its close once more
    as Python collected it is logged at debug level on ``toolwire.tools``; every other report goes to the hook that was
    in place when it was installed (Python's own, which prints it), or to Python's own when that hook calls this one
    back (one that hands each report to whatever ``sys.unraisablehook`` is then)."""
    coro, exc = unraisable.object, unraisable.exc_value
    if (isinstance(coro, types.CoroutineType) and isinstance(exc, RuntimeError)
            and _ignored.get(id(coro)) is coro.cr_code):
        del _ignored[id(coro)]
        log.debug("The coroutine %s given up ignored its close again as it was collected (%s: %s)",
                  getattr(coro, "__qualname__", "?"), type(exc).__name__, exc)
        return
    if getattr(_in_hook, "active", False):  # (called back by the hook it passed the report to)
        sys.__unraisablehook__(unraisable)
        return
    _in_hook.active = True
    try:
        (_previous_hook or sys.__unraisablehook__)(unraisable)
    finally:
        _in_hook.active = False


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
        if (failure := close_coro(inner)) is not None:  # given up all the same; the cleanup's failure is only logged
            log.debug("Closing the coroutine of the task %s given up raised %s", task.get_name(), failure)
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
