"""Running sync code from async code and async code from sync code, in one place.

* :func:`thread_pool` is the pool for sync tools (64 threads at most per pool, created on demand; the
  per-call bound is the executor's ``max_concurrency``; a child made by ``os.fork()`` starts with none).
  Python's default executor holds only ``cpu + 4`` threads, which would serialise ten slow sync tools on a
  2-core machine.

  There is one pool per *nesting depth*: code running on a pool thread of depth ``d`` (a sync tool
  that runs an inner Agent, say) gets the pool of depth ``d + 1``. A thread that waits for a pool's
  work is then never one of that pool's own threads, so nested agents run from a tool's own thread
  cannot deadlock however many outer calls fill a pool. (A thread a tool starts itself counts as depth
  0: an inner run waited for there can still find the outer pool full.) Idle threads stay for reuse, up
  to 64 per depth that was used. Pool threads are daemon threads: an untimed sync tool still running does
  not keep the process alive after Ctrl-C (its work is cut off when the interpreter exits;
  :func:`still_running` names such calls).
* :func:`run_coroutine_sync` runs a coroutine to completion from sync code: on a new event loop in
  this thread when no loop runs here, else in a worker thread with its own loop (a running loop cannot
  be re-entered), in a copy of the caller's :mod:`contextvars` context either way. A Ctrl-C cancels the coroutine
  and carries the tool answers it had (``tool_messages``), also inside ``asyncio.run``, whose own handler could not
  stop a sync call that blocks its loop (:func:`ctrl_c_interrupts`).

  The loop ends as ``asyncio.run`` ends one (tasks left over are cancelled and waited for), except that it is
  never made the thread's current loop (a loop the thread set itself stays), its default executor is a daemon
  pool whose work is waited for at the interpreter's exit, except the work of a call given up at its timeout
  (:func:`~toolwire._daemon_pool.loop_pool`), and tasks given up with :func:`abandon` (an async tool that ignored its
  cancellation at its timeout) are closed and not waited for, so such a tool cannot keep a sync call from
  returning. A leftover
  task (a background helper an async tool started) that is still running ``CANCEL_GRACE`` seconds after its
  cancellation is abandoned the same way (and logged), so it cannot either.
* :func:`iterate_in_thread` (:mod:`toolwire._thread_iter`'s, imported here) passes a sync iterator's items to async
  code as they come: the iterator runs on a daemon thread of its own, and stops at its next item once the async
  consumer stops reading.
* :func:`run_sync_with_timeout` runs a sync function with a timeout in seconds. A thread cannot be
  killed in Python: on timeout the caller stops waiting and gets :class:`ToolTimeoutError`, while the
  abandoned thread finishes on its own in the background. Timed calls run on a thread of their own
  (:func:`start_thread`), never on the shared pool, so tools that hang past their timeout cannot
  fill the pool and starve later calls.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import functools
import logging
import os
import signal
import threading
import time
import weakref
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

from toolwire._daemon_pool import (
    _DaemonPool,
    _depth,
    _local,
    _threads_made_here_not_daemon,
    given_up_names,
    loop_pool,
)
from toolwire._grace import close_coro, interrupt_waits
from toolwire._thread_iter import AHEAD, iterate_in_thread  # noqa: F401  (its home before: imported from here)

T = TypeVar("T")
log = logging.getLogger("toolwire.tools")
MAX_THREADS = 64
_pools: list[_DaemonPool] = []
_lock = threading.Lock()
_abandoned: weakref.WeakSet[asyncio.Task[Any]] = weakref.WeakSet()
_SYNC_CALL: contextvars.ContextVar[_Main | None] = contextvars.ContextVar("toolwire_sync_call", default=None)


def _forget_pools_after_fork() -> None:
    """In a child made by ``os.fork()`` (gunicorn ``--preload``, a fork ``multiprocessing`` pool), start with no pool:
    the parent's pool threads do not exist in the child, but its pools still count them as started or idle, so
    the child's first sync tool waited forever for one of them (review 34)."""
    global _lock
    _pools.clear()
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):  # (POSIX)
    os.register_at_fork(after_in_child=_forget_pools_after_fork)


def thread_pool() -> concurrent.futures.Executor:
    """Return the thread pool for sync work started from this thread (created on first use).

    The pool depends on the nesting depth: 0 outside toolwire's threads, ``d + 1`` on a thread of the
    depth-``d`` pool (and on the threads and loops it starts), so nested agents use a pool of their own.
    """
    depth = _depth()
    try:
        return _pools[depth]
    except IndexError:
        with _lock:
            while len(_pools) <= depth:
                _pools.append(_DaemonPool(MAX_THREADS, len(_pools)))
        return _pools[depth]


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def abandon(task: asyncio.Task[Any]) -> None:
    """Give up on ``task``, a task that ignored its cancellation.

    Its coroutine is closed (``GeneratorExit`` at the ``await`` where it waits, as when Python collects
    an unfinished coroutine: its ``finally`` blocks run) and the task cancelled again, which ends it. A
    coroutine that ignores even that is left running; a loop of :func:`run_coroutine_sync` does not wait
    for it at its end. Its eventual outcome is neither reported nor logged as lost. An exception that closing it
    raises (``RuntimeError: coroutine ignored GeneratorExit`` when it awaited while closing, or what its cleanup
    raised) does not stop the call being given up; it is logged at debug level on ``toolwire.tools``, and so is the
    same error when Python collects a coroutine that ignored its close (:func:`toolwire._grace.close_coro`).
    """
    _abandoned.add(task)
    task.add_done_callback(_forget)
    with contextlib.suppress(AttributeError):
        task._log_destroy_pending = False  # type: ignore[attr-defined]  # a pending task at loop close
    if (failure := close_coro(task.get_coro())) is not None:  # given up all the same; the failure is only logged
        log.debug("Closing the abandoned task %s raised %s", task.get_name(), failure)
    task.cancel()


def _forget(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved: no "exception was never retrieved" log


def _finish_tasks(loop: asyncio.AbstractEventLoop, echoes: tuple[BaseException, ...] = ()) -> None:
    """Cancel the tasks left on ``loop`` and wait for them as ``asyncio.run`` does, except abandoned ones, and
    at most :data:`toolwire._tool_run.CANCEL_GRACE` seconds: the tasks still running then (they ignore their
    cancellation) are abandoned (:func:`abandon`) and logged, so the loop's end is bounded. ``echoes``: the Ctrl-C
    being handled, which a task raises again when it awaited the one it interrupted (see :func:`_wait_past`).

    Returns:
        None. An exception a finished task raised is passed to the loop's exception handler, not raised.
    """
    from toolwire._tool_run import CANCEL_GRACE  # read at each loop's end: imported here, it imports this module

    tasks = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in tasks:
        task.cancel()
    waited = [task for task in tasks if task not in _abandoned]
    if not waited:
        return
    done, pending = _wait_past(loop, waited, CANCEL_GRACE, echoes)
    if pending:
        for task in pending:
            abandon(task)
        log.warning("%d task(s) left behind by a tool were still running %gs after their cancellation at the end "
                    "of the run (they ignore cancellation); their coroutines were closed: %s", len(pending),
                    CANCEL_GRACE, ", ".join(sorted(_task_text(task) for task in pending)))
    for task in done:  # (not a task given up meanwhile, by the executor at a second Ctrl-C: its end is not reported)
        if task not in _abandoned and not task.cancelled() and task.exception() is not None:
            loop.call_exception_handler({"message": "unhandled exception during toolwire's loop shutdown",
                                         "exception": task.exception(), "task": task})


def _task_text(task: asyncio.Task[Any]) -> str:
    """Return the task's name and the function its coroutine runs (``"Task-3 (helper)"``), for a log line."""
    coro = task.get_coro()
    func = getattr(coro, "__qualname__", None) or type(coro).__name__
    return f"{task.get_name()} ({func})"


class _Main:
    """The task :func:`_run_loop` runs, and what it leaves on its cancellation: the executor puts the answers of
    the calls that finished on the ``CancelledError`` (``tool_messages``), which a Ctrl-C hands on (review 58); it
    also hands them here as they finish (:func:`answers_sink`), so a tool that ignores its cancellation, or blocks
    the event loop, cannot keep them from the ``KeyboardInterrupt`` (review 65)."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.task: asyncio.Task[Any] | None = None
        self.answers: Any = None
        self.ready = threading.Event()

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        _SYNC_CALL.set(self)  # (this task's own context)
        try:
            return await coro
        except (asyncio.CancelledError, KeyboardInterrupt) as exc:
            answers = getattr(exc, "tool_messages", None)
            if isinstance(answers, list):
                self.answers = answers
            raise

    def note(self, answers: list[Any] | Callable[[], list[Any]]) -> None:
        """Keep ``answers``, the tool answers finished so far, or a function that lists them when called, for a
        Ctrl-C (see :func:`answers_sink`)."""
        self.answers = answers

    def keep(self, interrupt: BaseException) -> None:
        """Put the answers kept at the cancellation on ``interrupt`` as ``tool_messages`` (an Agent adds them to
        the conversation on the error, so a resumed run does not run those calls again): the list kept, or the one
        the function kept returns now."""
        from toolwire._error_state import mark

        answers = self.answers() if callable(self.answers) else self.answers
        if isinstance(answers, list) and answers and "tool_messages" not in vars(interrupt):
            with contextlib.suppress(AttributeError, TypeError):
                interrupt.tool_messages = answers  # type: ignore[attr-defined]
                mark(interrupt)


def answers_sink() -> Callable[[list[Any] | Callable[[], list[Any]]], None] | None:
    """Where the coroutine a sync call runs (:func:`run_coroutine_sync`) hands the tool answers finished so far, so
    that a Ctrl-C carries them (:meth:`_Main.keep`) even when its task cannot end in time.

    Returns:
        A function taking the list of answers, or a function of no arguments that returns that list when a Ctrl-C
        asks for it (so a reply of N calls is listed once, not as each call ends: review 266 #2); each call
        replaces the last. None when the running task is not the one a sync call runs (the async API, or code
        inside a tool).
    """
    main = _SYNC_CALL.get()
    if main is None or main.task is None or main.task is not asyncio.current_task():
        return None
    return main.note


def _run_loop(coro: Coroutine[Any, Any, T], main: _Main | None = None) -> T:
    """``asyncio.run(coro)``, but a task given up with :func:`abandon` cannot hold up the loop's end, nor can work
    a tool left on the loop's default executor (``asyncio.to_thread`` in an async tool stopped at its timeout:
    the loop's default executor is a daemon pool, :func:`~toolwire._daemon_pool.loop_pool`, so neither the loop's end
    nor the process's exit waits for the work of a call given up at its timeout, which finishes on its own or is cut
    off at exit; other work there is waited for at exit, review 243 #1); and the thread's current event
    loop is left as it was (``asyncio.run`` sets it to None, which broke a thread that had set its own, review
    34), as the coroutine only needs the running loop.

    On Ctrl-C (``KeyboardInterrupt`` out of the loop) the coroutine's task is cancelled and waited for, at most
    :data:`toolwire._tool_run.CANCEL_GRACE` seconds, as ``asyncio.run`` does, and the answers it kept are put on
    the ``KeyboardInterrupt`` (:meth:`_Main.keep`) before it propagates: after the loop's last passes, in which the
    executor answers the calls it gives up at a second Ctrl-C (review 218 #2: those answers were missing, and a
    resumed run ran those calls again).
    """
    main = main or _Main()
    loop = asyncio.new_event_loop()
    loop.set_default_executor(loop_pool())  # (daemon threads; the work of a call given up is not waited for)
    interrupts: tuple[BaseException, ...] = ()
    try:
        main.loop, main.task = loop, loop.create_task(main.run(coro))
        main.ready.set()
        try:
            return loop.run_until_complete(main.task)
        except KeyboardInterrupt as first:
            interrupts = (first,)
            try:
                _wind_down(loop, main.task, first)
            except KeyboardInterrupt as again:  # a second Ctrl-C: stop waiting, the tools' grace too
                interrupts = (first, again)
                interrupt_waits(loop)
                raise
            raise
    finally:
        main.ready.set()
        try:
            _finish_tasks(loop, interrupts)
            loop.run_until_complete(loop.shutdown_asyncgens())
        except KeyboardInterrupt as more:  # (yet another Ctrl-C: the one raised, so the one to carry them)
            interrupts = (*interrupts, more)
            raise
        finally:
            loop.close()  # (shuts the default executor down without waiting for its threads)
            if interrupts:  # the answers the loop's last passes gave too (the calls given up at a second Ctrl-C)
                main.keep(interrupts[-1])


def _wind_down(loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any], interrupt: BaseException) -> None:
    """Cancel ``task`` and run ``loop`` until it ends, at most ``CANCEL_GRACE`` seconds (and a quarter more, so that
    the executor, which gives its stuck calls up after ``CANCEL_GRACE``, can answer them: review 113), past
    ``interrupt``."""
    from toolwire._tool_run import CANCEL_GRACE

    if not task.done():
        task.cancel()
        _wait_past(loop, [task], 1.25 * CANCEL_GRACE, (interrupt,))


def _wait_past(loop: asyncio.AbstractEventLoop, tasks: list[asyncio.Task[Any]], timeout: float,
               echoes: tuple[BaseException, ...]) -> tuple[set[asyncio.Task[Any]], set[asyncio.Task[Any]]]:
    """Run ``loop`` until ``tasks`` are done or ``timeout`` seconds have passed, and return ``(done, pending)``.

    A Ctrl-C that hit an async tool blocking the event loop (``time.sleep`` in an ``async def``) is that tool's task's
    exception, and each task awaiting it raises it again out of the loop: such an echo (one of ``echoes``, the same
    object) is not a new Ctrl-C, so the wait goes on past it (it stopped short, and the answers of the other calls were
    lost, review 65).

    Raises:
        KeyboardInterrupt: a new Ctrl-C (not one of ``echoes``).
    """
    waiter = loop.create_task(asyncio.wait(tasks, timeout=timeout))
    while True:
        try:
            return loop.run_until_complete(waiter)
        except KeyboardInterrupt as again:
            if not any(again is echo for echo in echoes):
                raise


def _sigint_is_asyncio_run() -> bool:
    """Whether Ctrl-C is handled by ``asyncio.run`` (``asyncio.Runner``): it only cancels the main task, which cannot
    happen while that task is blocked in a sync call."""
    handler = signal.getsignal(signal.SIGINT)
    owner = getattr(getattr(handler, "func", None), "__func__", None)  # functools.partial(runner._on_sigint, ...)
    return owner is not None and owner is getattr(asyncio.Runner, "_on_sigint", None)


@contextlib.contextmanager
def ctrl_c_interrupts() -> Iterator[None]:
    """Make Ctrl-C raise ``KeyboardInterrupt`` in the block, a sync call that blocks the main thread's running event
    loop inside ``asyncio.run``, as it does outside one.

    ``asyncio.run`` turns Ctrl-C into a cancellation of its main task, which cannot be delivered while that task waits
    in a sync call (``agent.invoke`` in an ``async def``): the call went on to its end, and ``asyncio.run`` then raised
    a ``KeyboardInterrupt`` without the work done (review 65). In the block, ``asyncio.run``'s handler is replaced
    by Python's default one (and put back after); any other handler, or another thread, is left alone.
    """
    if threading.current_thread() is not threading.main_thread() or not _sigint_is_asyncio_run():
        yield
        return
    handler = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, handler)


def run_coroutine_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion from sync code and return its result (exceptions propagate).

    The coroutine sees the caller's context variables (``current_tool_call()``, a request id) also
    when it has to run on a worker thread because a loop already runs here (Jupyter). A Ctrl-C cancels the
    coroutine (on the worker thread's loop too) and carries the tool answers it kept (:func:`_run_loop`).
    """
    if not _loop_running():
        return _run_loop(coro)
    depth = _depth()
    context = contextvars.copy_context()
    future: concurrent.futures.Future[T] = concurrent.futures.Future()
    main = _Main()

    def run() -> None:
        _local.depth = depth  # the caller waits on this thread: it takes the caller's place
        _threads_made_here_not_daemon(threading.current_thread())  # (threads its tools start: review 251 #1)
        try:
            future.set_result(context.run(_run_loop, coro, main))
        except BaseException as exc:  # handed to the waiting caller
            future.set_exception(exc)

    with ctrl_c_interrupts():  # (asyncio.run's handler could not stop this wait)
        try:  # (a Ctrl-C may come while start() waits: the worker may have run the whole call by then)
            threading.Thread(target=run, name="toolwire-loop", daemon=True).start()
            return future.result()
        except KeyboardInterrupt as interrupt:
            if future.done():  # the worker's own, raised as it is; or a Ctrl-C pending as the run finished, which
                if future.exception() is not interrupt:  # carries the answers as on the plain path (review 265 #1)
                    main.keep(interrupt)
                raise
            from toolwire._tool_run import CANCEL_GRACE

            main.ready.wait(CANCEL_GRACE)
            if main.loop is not None and main.task is not None:
                with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                    main.loop.call_soon_threadsafe(main.task.cancel)
            try:  # (a quarter more: the executor's stuck calls answered, as in _wind_down)
                future.exception(timeout=1.25 * CANCEL_GRACE)
            except KeyboardInterrupt:  # a second Ctrl-C: the tools' grace ends too, and the calls given up then
                if main.loop is not None:  # are answered in the loop's last passes (review 218 #2)
                    with contextlib.suppress(RuntimeError):
                        main.loop.call_soon_threadsafe(interrupt_waits, main.loop)
                with contextlib.suppress(BaseException):  # (a third Ctrl-C stops this wait)
                    future.exception(timeout=CANCEL_GRACE)
            except BaseException:
                pass
            main.keep(interrupt)
            raise


def start_thread(func: Callable[[dict[str, Any]], T], kwargs: dict[str, Any],
                 name: str = "", timeout: float | None = None) -> concurrent.futures.Future[T]:
    """Run ``func(kwargs)`` on a new daemon thread and return a future of its result.

    Used for calls with a timeout: a call abandoned at its timeout keeps only its own thread busy. ``name``, the
    tool's, goes in the thread's name, so :func:`still_running` can say which calls an exiting program cuts off, and
    ``timeout`` (seconds) on the thread, so :func:`late_calls` can say which of them run past it.
    """
    future: concurrent.futures.Future[T] = concurrent.futures.Future()
    depth = _depth()

    def run() -> None:
        _local.depth = depth  # not a pool thread: the caller's pool serves it without deadlock
        # (threads a timed tool starts stay daemon, as this thread is: a call given up at its timeout often waits on
        # one, and the exit must not wait for it: review 258 #1; a pool thread's are normal threads: review 251 #1)
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(func(kwargs))
        except BaseException as exc:  # handed to the waiting caller, who decides
            future.set_exception(exc)

    thread = threading.Thread(target=run, name=f"{_TIMED}{name}", daemon=True)
    thread.toolwire_deadline = None if timeout is None else time.monotonic() + timeout  # type: ignore[attr-defined]
    thread.start()
    return future


_TIMED = "toolwire-timed:"
"""The start of the name of a thread :func:`start_thread` runs a call on; the tool's name follows."""


def still_running(*, timed: bool = True, untimed: bool = True, late: bool = True) -> list[str]:
    """The names of the tools whose calls still run on a thread, one per call, in no set order: with ``timed``, the
    calls with a timeout, each on a thread of its own (:func:`start_thread`; abandoned at the timeout or not), and
    with ``late`` the async calls given up at their timeout whose work on the default executor of a toolwire event loop
    (``asyncio.to_thread``, ``run_in_executor(None, ...)``) is still queued or running (review 240 #1, 243 #1: other
    work there is waited for at exit, so it is not named); with ``untimed``, the sync calls with no timeout, on the
    :func:`thread_pool` threads (without ``late``, not the calls past their timeout, :func:`late_calls`) (review 199
    #5: a call cut off by Ctrl-C was not named), told by the tool call current in the context their work runs in
    (:func:`~toolwire._tool_run.current_tool_call`). Python stops these daemon threads part-way when the interpreter
    exits, so a program about to end can say which calls it cuts off (``toolwire ask``/``chat``).

    Returns:
        The tools' names (a call whose name is not text counts as ``"?"``). Raises nothing.
    """
    now = time.monotonic()
    names = [thread.name[len(_TIMED):] for thread in threading.enumerate()
             if timed and thread.name.startswith(_TIMED) and thread.is_alive() and (late or not _past(thread, now))]
    if timed and late:
        names += given_up_names()
    if untimed:
        for pool in list(_pools):
            names += [name for work in pool.busy.copy().values() if (name := _call_name(work)) is not None]
    return names


def late_calls() -> list[str]:
    """The names of the tools whose calls still run on a thread of their own past their timeout (one per call, in no
    set order; :func:`start_thread` given its ``timeout``), and of the async calls given up at their timeout whose
    work on a toolwire loop's default executor goes on: of :func:`still_running`'s, those an exiting program cuts
    off after the model was told they timed out, rather than calls a Ctrl-C stopped in time (review 208 #3). Raises
    nothing."""
    now = time.monotonic()
    return [thread.name[len(_TIMED):] for thread in threading.enumerate()
            if thread.name.startswith(_TIMED) and thread.is_alive() and _past(thread, now)] + given_up_names()


def _past(thread: threading.Thread, now: float) -> bool:
    """Whether ``thread`` (:func:`start_thread`'s) runs a call past its timeout at ``now`` (:func:`time.monotonic`)."""
    deadline = getattr(thread, "toolwire_deadline", None)
    return deadline is not None and now > deadline


def _call_name(work: Callable[..., Any]) -> str | None:
    """The name of the tool call a pool thread's ``work`` runs: the one current in the :class:`contextvars.Context`
    the work runs in (``partial(context.run, ...)``, as the sync tools' calls are submitted, or ``context.run``
    itself), or None for work outside a tool call (a model's reply)."""
    from toolwire._tool_run import _CURRENT_CALL

    run = work.func if isinstance(work, functools.partial) else work
    context = getattr(run, "__self__", None)
    if not isinstance(context, contextvars.Context):
        return None
    call = context.get(_CURRENT_CALL)
    if call is None:
        return None
    name = call.get("name")
    return name if isinstance(name, str) else "?"


def run_sync_with_timeout(func: Callable[[dict[str, Any]], T], kwargs: dict[str, Any], timeout: float,
                          name: str) -> T:
    """Call ``func(kwargs)`` on a thread of its own and wait at most ``timeout`` seconds.

    A ``timeout`` above ``threading.TIMEOUT_MAX`` (about 292 years) is waited as that maximum, as the async paths
    do, rather than overflow once the call has started (review 155).

    Raises:
        ToolTimeoutError: the call did not finish in time (its thread is abandoned, not killed).
    """
    future = start_thread(func, kwargs, name, timeout)
    try:
        return future.result(min(timeout, threading.TIMEOUT_MAX))
    except concurrent.futures.TimeoutError:
        from toolwire._tool_run import timeout_error

        raise timeout_error(name, timeout, "running") from None
