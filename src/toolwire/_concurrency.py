"""Running sync code from async code and async code from sync code, in one place.

* :func:`thread_pool` is the process-wide pool for sync tools (64 threads at most, created on demand;
  the per-call bound is the executor's ``max_concurrency``). Python's default executor holds only
  ``cpu + 4`` threads, which would serialise ten slow sync tools on a 2-core machine.
* :func:`run_coroutine_sync` runs a coroutine to completion from sync code: ``asyncio.run`` when no
  loop runs in this thread, else in a worker thread with its own loop (a running loop cannot be
  re-entered).
* :func:`run_sync_with_timeout` runs a sync function with a timeout in seconds. A thread cannot be
  killed in Python: on timeout the caller stops waiting and gets :class:`ToolTimeoutError`, while the
  abandoned thread finishes on its own in the background. Timed calls run on a thread of their own
  (:func:`start_thread`), never on the shared pool, so tools that hang past their timeout cannot
  fill the pool and starve later calls.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from toolwire.errors import ToolTimeoutError

T = TypeVar("T")
MAX_THREADS = 64
_pool: concurrent.futures.ThreadPoolExecutor | None = None
_lock = threading.Lock()


def thread_pool() -> concurrent.futures.ThreadPoolExecutor:
    """Return the shared thread pool for sync tools (created on first use, up to 64 threads)."""
    global _pool
    if _pool is None:
        with _lock:
            if _pool is None:
                _pool = concurrent.futures.ThreadPoolExecutor(MAX_THREADS, thread_name_prefix="toolwire")
    return _pool


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_coroutine_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion from sync code and return its result (exceptions propagate)."""
    if not _loop_running():
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="toolwire-loop") as worker:
        return worker.submit(asyncio.run, coro).result()


def start_thread(func: Callable[[dict[str, Any]], T], kwargs: dict[str, Any]) -> concurrent.futures.Future[T]:
    """Run ``func(kwargs)`` on a new daemon thread and return a future of its result.

    Used for calls with a timeout: a call abandoned at its timeout keeps only its own thread busy.
    """
    future: concurrent.futures.Future[T] = concurrent.futures.Future()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(func(kwargs))
        except BaseException as exc:  # handed to the waiting caller, who decides
            future.set_exception(exc)

    threading.Thread(target=run, name="toolwire-timed", daemon=True).start()
    return future


def run_sync_with_timeout(func: Callable[[dict[str, Any]], T], kwargs: dict[str, Any], timeout: float,
                          name: str) -> T:
    """Call ``func(kwargs)`` on a thread of its own and wait at most ``timeout`` seconds.

    Raises:
        ToolTimeoutError: the call did not finish in time (its thread is abandoned, not killed).
    """
    future = start_thread(func, kwargs)
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError:
        raise ToolTimeoutError(
            f"Tool '{name}' did not finish within {timeout:g} seconds; its result will not be used. "
            "Try a smaller request.",
            name,
        ) from None
