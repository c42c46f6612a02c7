"""The parts of running a tool's function that are not about its schema (used by :mod:`toolwire.tools`).

* :func:`current_tool_call` and the context that carries it to worker threads.
* :func:`escaped`: the exception a tool call raises in place of one that must not leave the tool as is
  (``StopIteration`` cannot be raised into an asyncio future; a tool's own ``CancelledError`` or a
  ``BaseException`` subclass would end the whole run rather than this call).
* :func:`wait_timed`: waiting for a call's task or thread at most its timeout, even when the tool
  swallows its cancellation.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
import math
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from toolwire._concurrency import abandon, start_thread
from toolwire.errors import ToolTimeoutError

log = logging.getLogger("toolwire.tools")

CANCEL_GRACE = 2.0
"""Seconds an async tool cancelled at its timeout gets to finish its cleanup (``except CancelledError`` and
``finally`` blocks: a rollback, closing a connection) before it is abandoned (its coroutine closed) and the
call answered with the timeout error. The timeout error is returned at the end of the cleanup, so a call
takes at most ``timeout + CANCEL_GRACE`` seconds."""

_CURRENT_CALL: contextvars.ContextVar[Mapping[str, Any] | None] = contextvars.ContextVar(
    "toolwire_current_tool_call", default=None)


def current_tool_call() -> Mapping[str, Any] | None:
    """The tool call being executed, when called from inside a tool's function.

    Returns:
        The call ``{"name", "args", "id", "type": "tool_call"}`` that ``tool.invoke(tool_call)``,
        ``ainvoke`` or :class:`~toolwire.execution.ToolExecutor` is running (sync tools on worker threads
        see it too), or None outside a tool call (``tool.invoke(args)``). A tool that needs its call's id,
        as LangChain's ``InjectedToolCallId`` gives it, reads ``current_tool_call()["id"]``.
    """
    return _CURRENT_CALL.get()


@contextlib.contextmanager
def _running(call: Mapping[str, Any]) -> Iterator[None]:
    token = _CURRENT_CALL.set(call)
    try:
        yield
    finally:
        _CURRENT_CALL.reset(token)


def _in_context(func: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``func`` run in a copy of the calling context, so worker threads see :func:`current_tool_call`."""
    if _CURRENT_CALL.get() is None:
        return func
    return functools.partial(contextvars.copy_context().run, func)


def escaped(exc: BaseException) -> RuntimeError:
    """A ``RuntimeError`` naming ``exc`` (chain it with ``from exc``), raised in its place.

    For ``StopIteration``/``StopAsyncIteration`` (asyncio cannot carry them: a run would hang), a
    ``CancelledError`` that is the tool's own (the caller is not being cancelled) and other
    ``BaseException`` subclasses a tool raises: they become an ordinary failure of this one call.
    """
    kind = type(exc).__name__
    try:
        detail = str(exc).strip()
    except Exception:  # an exception whose __str__ fails still gets named
        detail = ""
    return RuntimeError(f"{kind} raised inside the tool: {detail}" if detail else f"{kind} raised inside the tool")


def own_cancellation() -> bool:
    """Whether a ``CancelledError`` caught now is the tool's own (an inner task of it was cancelled),
    not a cancellation of the task running the call (``cancelling() == 0``)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() == 0


def bad_timeout(value: Any) -> str | None:
    """The sentence saying what is wrong with a ``timeout`` value, or None when it is valid: a positive number
    of seconds (int or float, not a bool, not NaN, not infinite) or None."""
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < math.inf):
        return None
    return f"timeout must be a positive number of seconds, or None, not {value!r}."


_CATCH_UP_STEPS = 3  # loop turns a task gets at its deadline to finish steps already due (see wait_timed)


async def wait_timed(task: asyncio.Future[Any], timeout: float, name: str, is_async: bool) -> tuple[str, Any]:
    """Wait for ``task`` (the call's task, or the future of its thread) at most ``timeout`` seconds.

    Returns ``("done", result)`` when it finished in time (its exception propagates); a task whose last
    steps were due at the deadline but had not run because the event loop was blocked (by another tool) gets
    those few loop turns first (whether the tool itself ran late is for the caller to judge: see
    :class:`StepClock` and :func:`finished_at`). At the timeout the
    task is cancelled and the result is ``("stopped", None)``, except for an async task still running
    :data:`CANCEL_GRACE` seconds later (it ignores its cancellation): it is abandoned (its coroutine
    closed, see :func:`toolwire._concurrency.abandon`; logged), ``("abandoned", None)``, so the wait is
    bounded either way. A sync tool's thread cannot be stopped: ``("abandoned", None)`` at once, as for a
    task that returns a result after its cancel. When the caller is cancelled, the task is cancelled too.
    """
    try:
        done, _ = await asyncio.wait((task,), timeout=timeout)
        if not done:
            # when the event loop was blocked at the deadline (another tool), the task's last steps are due
            # in the same loop turn as the timeout: let them run before deciding it did not finish
            for _ in range(_CATCH_UP_STEPS):
                await asyncio.sleep(0)
            done = {task} if task.done() else set()
    except asyncio.CancelledError:
        task.cancel()
        raise
    if done:
        return "done", task.result()
    task.cancel()
    if not is_async:
        return "abandoned", None
    try:
        done, _ = await asyncio.wait((task,), timeout=CANCEL_GRACE)
    except asyncio.CancelledError:
        abandon(task)  # type: ignore[arg-type]
        raise
    if not done:
        abandon(task)  # type: ignore[arg-type]
        log.warning("Tool %r was still running %gs after its cancellation at its %gs timeout (it ignores "
                    "cancellation, or its cleanup takes longer); its coroutine was closed.", name, CANCEL_GRACE,
                    timeout)
        return "abandoned", None
    if not task.cancelled() and task.exception() is None:
        return "abandoned", None  # it ignored its cancellation and returned: the result is dropped
    return "stopped", None


class StepClock:
    """An awaitable that runs a coroutine step by step and notes whether one of the coroutine's own steps
    (the code between two of its awaits, which holds the event loop) ran across ``deadline``.

    That tells an async tool that blocked the event loop past its timeout (``time.sleep``, a sync client:
    its result comes late because of itself) from one whose result was ready in time but whose last step
    ran late because another tool blocked the loop. Cancellation and ``close`` reach the coroutine as
    usual (thrown in at the await it is paused on).

    Args:
        coro: the coroutine (the tool's guarded call).
        deadline: the time, on ``clock``, by which the tool must be done (seconds).
        clock: the event loop's clock (``loop.time``).
    """

    def __init__(self, coro: Any, deadline: float, clock: Callable[[], float]) -> None:
        self.coro = coro
        self.deadline = deadline
        self.clock = clock
        self.crossed = False  # a step started before the deadline and ended after it

    def _step_done(self, start: float) -> None:
        if start <= self.deadline < self.clock():
            self.crossed = True

    def __await__(self) -> Any:
        value: Any = None
        error: BaseException | None = None
        while True:
            start = self.clock()
            try:
                out = self.coro.send(value) if error is None else self.coro.throw(error)
            except StopIteration as stop:
                self._step_done(start)
                return stop.value
            except BaseException:
                self._step_done(start)
                raise
            self._step_done(start)
            try:
                value, error = (yield out), None
            except BaseException as exc:  # CancelledError, GeneratorExit: into the coroutine
                value, error = None, exc


async def clocked(clock: StepClock) -> Any:
    """Await ``clock`` (a coroutine, so that it can run as a task)."""
    return await clock


def finished_at(func: Callable[..., Any], clock: Callable[[], float]) -> Callable[..., tuple[Any, float]]:
    """``func`` made to return ``(its result, the time on clock when it returned)``: a sync tool's thread
    says when it finished, so a result ready in time is kept even when the event loop that waits for it was
    blocked at the timeout."""

    def run(*args: Any, **kwargs: Any) -> tuple[Any, float]:
        result = func(*args, **kwargs)
        return result, clock()

    return run


def drain(generator: Any, stop: threading.Event) -> list[Any]:
    """The items of a sync generator tool's result, read until it ends or ``stop`` is set (its call timed out
    and nobody will read them: the generator is closed, so its ``finally`` blocks run, and the thread ends)."""
    items = []
    for item in generator:
        if stop.is_set():
            generator.close()
            break
        items.append(item)
    return items

async def run_timed(tool: Any, kwargs: dict[str, Any], timeout: float) -> Any:
    """Run a :class:`~toolwire.tools.Tool` with validated ``kwargs`` for at most ``timeout`` seconds and return
    its result (the async path; the sync one without an event loop is
    :func:`toolwire._concurrency.run_sync_with_timeout`).

    An async tool runs as a task under a :class:`StepClock`; a sync tool on a thread of its own (one abandoned
    at its timeout cannot starve the shared pool), which says when it finished (:func:`finished_at`) and
    stops draining a generator once given up (:func:`drain`).

    Raises:
        ToolTimeoutError: at the timeout (an async tool that ignores its cancellation is abandoned, so the
            wait stays bounded), or for a result that came late because the tool itself ran past its deadline
            while the event loop was blocked.
        Exception: only ``Exception`` subclasses for anything the tool does (see ``Tool._call`` and
            ``Tool._guarded``: StopIteration, the tool's own CancelledError and other BaseException subclasses
            arrive as ``RuntimeError``, SystemExit as ToolExecutionError); ``CancelledError`` only when the
            caller is cancelled; ``KeyboardInterrupt``/``GeneratorExit``.
    """
    loop = asyncio.get_running_loop()
    task: asyncio.Future[Any]
    deadline = loop.time() + timeout
    clock: StepClock | None = None
    stop = threading.Event()  # set when a sync tool's thread is given up
    if tool.is_async:
        clock = StepClock(tool._guarded(kwargs), deadline, loop.time)
        task = loop.create_task(clocked(clock))
    else:  # a thread of its own: one abandoned at its timeout cannot starve the shared pool
        call = finished_at(functools.partial(tool._call, stop=stop), loop.time)
        task = asyncio.wrap_future(start_thread(_in_context(call), kwargs))
    state = "gone"  # the caller was cancelled, or the tool raised
    try:
        state, result = await wait_timed(task, timeout, tool.name, tool.is_async)
    finally:
        if state != "done":
            stop.set()
    if state == "stopped":  # an async tool cancelled in time
        raise _timeout(tool, timeout, "it was stopped")
    if state == "abandoned":  # a sync tool's thread cannot be stopped; an async tool did not stop in time
        raise _timeout(tool, timeout, "its result will not be used" + (
            " (it did not stop after its cancellation)" if tool.is_async else ""))
    if not tool.is_async:
        result, ended = result
        if ended > deadline:  # it ran past its timeout while the event loop was blocked: as if abandoned
            stop.set()
            raise _timeout(tool, timeout, "its result will not be used")
    elif clock is not None and clock.crossed:
        # an async tool that blocked the event loop itself (time.sleep, a sync client) past its deadline;
        # one whose last step only ran late because another tool blocked the loop keeps its result
        raise _timeout(tool, timeout, "its result will not be used (an async tool must not block the event loop)")
    return result


def _timeout(tool: Any, timeout: float, what: str) -> ToolTimeoutError:
    return ToolTimeoutError(
        f"Tool '{tool.name}' did not finish within {timeout:g} seconds; {what}. Try a smaller request.", tool.name)
