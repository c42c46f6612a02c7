"""toolwire's thread pools of daemon threads (used by :mod:`toolwire._concurrency`).

* :class:`_DaemonPool`: up to ``max_workers`` daemon threads, started on demand and reused when idle: the pools of
  sync tools (:func:`toolwire._concurrency.thread_pool`).
* :func:`loop_pool`: the default executor of an event loop toolwire runs (a sync call's, ``toolwire mcp serve``'s),
  what ``asyncio.to_thread`` and ``loop.run_in_executor(None, ...)`` use there. Each piece of work is noted with the
  *fate* of the timed async call it was handed off by (:func:`fated_task`), and runs to its end as on asyncio's own
  executor (the loop's end, or the interpreter's exit, waits for it: review 243 #1), unless that call was given up at
  its timeout (:func:`give_up_work`): that work alone does not hold up the loop's end or the process's exit, where it
  is cut off (review 240 #1), and :func:`given_up_names` names it (:func:`toolwire._concurrency.still_running`).
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import contextvars
import os
import queue
import threading
import weakref
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
_local = threading.local()  # .depth: the nesting depth of the code running on this thread (default 0)
_Item = tuple[concurrent.futures.Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]


def _depth() -> int:
    return getattr(_local, "depth", 0)  # type: ignore[no-any-return]


class _DaemonPool(concurrent.futures.Executor):
    """A thread pool of up to ``max_workers`` daemon threads, started on demand and reused when idle.

    Its threads run at nesting depth ``depth + 1`` (see :func:`toolwire._concurrency.thread_pool`). The threads the
    work on them makes are normal (non-daemon) threads unless it asks otherwise (:func:`_threads_made_here_not_daemon`;
    not on a :class:`_LoopPool`, see there).
    """

    _normal_children = True

    def __init__(self, max_workers: int, depth: int, prefix: str = "toolwire") -> None:
        self._max_workers = max_workers
        self._depth = depth
        self._prefix = prefix
        self._work: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)
        self._threads: list[threading.Thread] = []
        self._shut = False
        self._lock = threading.Lock()
        self.busy: dict[int, Callable[..., Any]] = {}  # thread id: the work that thread runs now (still_running)

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[T]:
        """Run ``fn(*args, **kwargs)`` on a pool thread and return a future of its result.

        Raises:
            RuntimeError: the pool was shut down (:meth:`shutdown`), as ``ThreadPoolExecutor`` raises then.
        """
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._lock:
            if self._shut:
                raise RuntimeError("cannot schedule new futures after shutdown")
            self._work.put((future, fn, args, kwargs))
        if not self._idle.acquire(blocking=False):  # no idle thread: start one, up to the bound
            with self._lock:
                if len(self._threads) < self._max_workers and not self._shut:
                    thread = threading.Thread(target=self._serve, daemon=True,
                                              name=f"{self._prefix}-{self._depth}-{len(self._threads) + 1}")
                    self._threads.append(thread)
                    thread.start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Take no more work; each thread ends once the work queued before is done (an event loop's end calls
        ``shutdown(wait=False)`` on its default executor). ``wait``: join the threads; ``cancel_futures``: cancel
        the work not started yet."""
        threads = self._shut_down(cancel_futures)
        if wait:
            for thread in threads:
                if thread is not threading.current_thread():
                    thread.join()

    def _shut_down(self, cancel_futures: bool) -> list[threading.Thread]:
        """Take no more work (``cancel_futures``: cancel the work queued) and queue an end mark per thread, behind
        the work queued so far; return the threads."""
        with self._lock:
            self._shut = True
            threads = list(self._threads)
        if cancel_futures:
            with contextlib.suppress(queue.Empty):
                while True:
                    if (item := self._work.get_nowait()) is not None:
                        item[0].cancel()
        for _ in threads:
            self._work.put(None)
        return threads

    def _serve(self) -> None:
        _local.depth = self._depth + 1
        if self._normal_children:
            _threads_made_here_not_daemon(threading.current_thread())
        while True:
            if (item := self._work.get()) is None:  # shut down
                return
            self._run(item)
            del item  # keep no reference to the finished call while idle
            self._idle.release()

    def _run(self, item: _Item) -> None:
        """Run a piece of work taken off the queue on this thread, its outcome set on its future."""
        future, fn, args, kwargs = item
        if future.set_running_or_notify_cancel():
            self.busy[threading.get_ident()] = fn
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # handed to the waiting caller, who decides
                future.set_exception(exc)
            else:
                future.set_result(result)
            finally:
                self.busy.pop(threading.get_ident(), None)


def _threads_made_here_not_daemon(thread: threading.Thread) -> None:
    """Let the threads that code running on ``thread``, a started daemon thread of toolwire's, makes without saying
    ``daemon=`` be normal threads, which the interpreter waits for at exit, as under a direct call or a
    ``ThreadPoolExecutor`` (review 251 #1: a tool's background writer was cut off part-way at exit).

    A new ``threading.Thread`` takes its default flag from ``current_thread().daemon``, which CPython reads from
    ``Thread._daemonic``; ``thread`` says False from now on. ``thread`` itself still does not hold up the exit: what
    the exit waits for was settled as it started (3.11, 3.12: ``_set_tstate_lock`` put only non-daemon threads in
    ``_shutdown_locks``, the set ``threading._shutdown`` joins; 3.13: ``_start_joinable_thread(..., daemon=True)``
    told the runtime, whose ``_thread_shutdown`` joins only the others). Where ``Thread`` keeps the flag elsewhere,
    nothing is changed. Raises nothing.
    """
    if getattr(thread, "_daemonic", None) is True:
        thread._daemonic = False  # (read by .daemon, and so by the Thread made next on this thread)
        if thread.daemon is not False:  # (a Thread whose .daemon reads something else: left as it was)
            thread._daemonic = True


class _Fate:
    """Whether the timed async call some work was handed off by was given up at its timeout (:func:`give_up_work`),
    with the fate of the call that one runs inside (``outer``: a tool running tools on a thread), and the tool's
    name (:func:`given_up_names`)."""

    __slots__ = ("given_up", "name", "outer")

    def __init__(self, name: str, outer: _Fate | None) -> None:
        self.given_up = False
        self.name = name
        self.outer = outer

    def lost(self) -> _Fate | None:
        """This fate, or the first one it runs inside, that was given up; None when none was."""
        fate: _Fate | None = self
        while fate is not None and not fate.given_up:
            fate = fate.outer
        return fate


_FATE: contextvars.ContextVar[_Fate | None] = contextvars.ContextVar("toolwire_fate", default=None)


def fated_task(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T],
               name: str) -> tuple[asyncio.Task[T], _Fate]:
    """Run ``coro``, a timed async call of the tool ``name``, as a task on ``loop``, and return it with its fate: the
    work it (or a task it starts) hands to the default executor of a toolwire loop is noted with that fate, so that
    :func:`give_up_work` can let go of it at the call's timeout."""
    fate = _Fate(name, _FATE.get())
    token = _FATE.set(fate)
    try:
        return loop.create_task(coro), fate
    finally:
        _FATE.reset(token)


def give_up_work(fate: _Fate) -> bool:
    """Mark ``fate``'s call as given up at its timeout: its work on toolwire loops' default executors (and that of
    the calls it runs inside it) no longer holds up a loop's end or the process's exit, where it is cut off.

    Returns:
        Whether any of that work is still queued or running (it may yet take effect). Raises nothing.
    """
    fate.given_up = True
    return any(work.fate is not None and _within(work.fate, fate)
               for pool in list(_loop_pools) for work in list(pool.unfinished.values()))


def _within(fate: _Fate | None, outer: _Fate) -> bool:
    while fate is not None and fate is not outer:
        fate = fate.outer
    return fate is outer


class _Work:
    """A piece of work on a :class:`_LoopPool`, and the fate of the call that handed it off (None: none)."""

    __slots__ = ("fate", "fn")

    def __init__(self, fn: Callable[..., Any], fate: _Fate | None) -> None:
        self.fn = fn
        self.fate = fate

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def lost(self) -> _Fate | None:
        """The given-up fate this work belongs to (see :meth:`_Fate.lost`), or None: the work is kept."""
        return None if self.fate is None else self.fate.lost()


class _LoopPool(_DaemonPool, concurrent.futures.ThreadPoolExecutor):
    """A :class:`_DaemonPool` that is a ``ThreadPoolExecutor`` in type only, as ``loop.set_default_executor`` takes
    nothing else (Python 3.11): its work runs on the daemon pool's threads, none of ``ThreadPoolExecutor``'s. Its
    work is kept to its end (:meth:`finish`) unless the call that handed it off was given up (:func:`give_up_work`).
    The threads that work makes stay daemon threads, as its own: an async tool given up at its timeout often waits
    on one through ``asyncio.to_thread``, and the exit waited for it for ever (review 261 #3).
    """

    _normal_children = False

    def __init__(self, max_workers: int, depth: int, prefix: str = "toolwire") -> None:
        super().__init__(max_workers, depth, prefix)
        self.unfinished: dict[concurrent.futures.Future[Any], _Work] = {}  # the work queued or running

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[T]:
        """Run ``fn(*args, **kwargs)`` on a pool thread and return a future of its result; the work is noted with
        the fate of the call submitting it (:func:`fated_task`).

        Raises:
            RuntimeError: the pool was shut down, as ``ThreadPoolExecutor`` raises then.
        """
        work = _Work(fn, _FATE.get())
        future = super().submit(work, *args, **kwargs)
        self.unfinished[future] = work
        future.add_done_callback(self._forget)
        return future

    def _forget(self, future: concurrent.futures.Future[Any]) -> None:
        self.unfinished.pop(future, None)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Take no more work; each thread ends once the work queued before is done (an event loop's end calls
        ``shutdown(wait=False)`` on its default executor, ``asyncio.run``'s end ``shutdown(wait=True)``). ``wait``:
        wait for the work of the calls not given up (:meth:`finish`), not for the rest, nor for the threads;
        ``cancel_futures``: cancel the work not started yet."""
        if wait:
            with self._lock:
                self._shut = True
            self.finish()
        self._shut_down(cancel_futures)

    def finish(self) -> None:
        """Wait until the work of the calls not given up, queued or running, has ended (as ``asyncio.run`` and the
        interpreter's exit wait for the work on asyncio's own executor). Work queued behind threads that all run
        given-up work is run on this thread (or dropped, when its own call was given up); work this thread runs is
        not waited for. Raises KeyboardInterrupt at a Ctrl-C during the wait."""
        while kept := [future for future, work in list(self.unfinished.items()) if work.lost() is None
                       and not future.done() and work is not self.busy.get(threading.get_ident())]:
            if not self._stuck() or not self._help():
                concurrent.futures.wait(kept, 0.05, concurrent.futures.FIRST_COMPLETED)

    def _stuck(self) -> bool:
        """Whether no thread of the pool will take queued work: each runs work of a call given up, or has ended."""
        for thread in list(self._threads):
            work = self.busy.get(thread.ident or 0)
            if thread.is_alive() and not (isinstance(work, _Work) and work.lost() is not None):
                return False
        return True

    def _help(self) -> bool:
        """Run the next queued work on this thread, or cancel it when its call was given up; False when none."""
        try:
            item = self._work.get_nowait()
        except queue.Empty:
            return False
        if item is None:  # (an end mark: all the work queued before it was taken)
            self._work.put(None)
            return False
        if isinstance(work := item[1], _Work) and work.lost() is not None:
            item[0].cancel()
        else:
            self._run(item)
        return True

    def after_fork(self) -> None:
        """In a child made by ``os.fork()``: none of the parent's threads, nor its work, is here."""
        self._work, self._idle, self._lock = queue.SimpleQueue(), threading.Semaphore(0), threading.Lock()
        self._threads, self.busy, self.unfinished = [], {}, {}


LOOP_THREADS = min(32, (os.cpu_count() or 1) + 4)
"""The most threads of the default executor of an event loop toolwire runs: Python's own bound for it."""
_loop_pools: weakref.WeakSet[_LoopPool] = weakref.WeakSet()
_at_exit: list[bool] = []


def loop_pool() -> _LoopPool:
    """A default executor for an event loop toolwire runs (``loop.set_default_executor``): what
    ``asyncio.to_thread`` and ``loop.run_in_executor(None, ...)`` use there. Its threads are daemon threads. The work
    of a call given up at its timeout (``await asyncio.to_thread(...)`` on a blocking call that never returns) does
    not hold up the loop's end nor the process's exit (review 240 #1); any other work runs to its end, also past the
    loop's end: the interpreter's exit waits for it, as for asyncio's own executor (review 243 #1). The pool stays
    known while a thread of it runs.

    Returns:
        A new pool, bound to ``min(32, cpu + 4)`` threads, at the caller's nesting depth.
    """
    pool = _LoopPool(LOOP_THREADS, _depth(), "toolwire-loop")
    _loop_pools.add(pool)
    if not _at_exit:  # (first use: what exit waits for)
        _at_exit.append(True)
        register = getattr(threading, "_register_atexit", atexit.register)  # (before the threads are joined, as
        with contextlib.suppress(RuntimeError):  # asyncio's executor's work is waited for; RuntimeError: exit has begun
            register(_finish_all)
    return pool


def _finish_all() -> None:
    """At the interpreter's exit: wait for the work on the loop pools of the calls not given up (:meth:`finish`); a
    Ctrl-C ends the wait."""
    with contextlib.suppress(KeyboardInterrupt):
        for pool in list(_loop_pools):
            pool.finish()


def given_up_names() -> list[str]:
    """The names of the tools whose calls were given up at their timeout while work they handed to a loop pool is
    still queued or running (cut off at exit), one per call, in no set order. Raises nothing."""
    lost = {id(fate): fate.name for pool in list(_loop_pools) for work in list(pool.unfinished.values())
            if (fate := work.lost()) is not None}
    return list(lost.values())


def _after_fork_in_child() -> None:
    for pool in list(_loop_pools):
        pool.after_fork()


if hasattr(os, "register_at_fork"):  # (POSIX)
    os.register_at_fork(after_in_child=_after_fork_in_child)
