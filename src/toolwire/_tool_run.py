"""The parts of running a tool's function that are not about its schema (used by :mod:`toolwire.tools`).

* :func:`current_tool_call` and the context that carries it to worker threads.
* :func:`escaped`: the exception a tool call raises in place of one that must not leave the tool as is
  (``StopIteration`` cannot be raised into an asyncio future; a tool's own ``CancelledError`` or a
  ``BaseException`` subclass would end the whole run rather than this call).
* :func:`guarded`: an async tool's call, its exceptions made ordinary ones as ``Tool._call`` makes a sync tool's.
* :class:`TaskInterrupt` and :func:`unwrapped`: a ``KeyboardInterrupt`` a tool raises in a task, carried to the
  run that awaits the task.
* :func:`wait_timed`: waiting for a call's task or thread at most its timeout, even when the tool
  swallows its cancellation.
* :func:`_call_id` and :func:`check_call_name`: the id that answers a tool call, and a call given to the wrong tool
  (telling a call from arguments: :mod:`toolwire._tool_calls`).
* :func:`receiver`: whether a function is a method, taking ``self`` or ``cls`` first.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import decimal
import functools
import inspect
import logging
import math
import numbers
import operator
import threading
import types
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from toolwire._carried import carrying, uncarried
from toolwire._concurrency import abandon, start_thread, thread_pool
from toolwire._daemon_pool import fated_task, give_up_work
from toolwire._grace import given_up, wait_through
from toolwire._signature import BRIDGE, loop_refused
from toolwire._tool_dispatch import bound_dispatch_method
from toolwire.errors import ToolExecutionError, ToolTimeoutError

log = logging.getLogger("toolwire.tools")

CANCEL_GRACE = 2.0
"""Seconds an async tool cancelled at its timeout gets to finish its cleanup (``except CancelledError`` and ``finally``
blocks: a rollback, closing a connection) before it is abandoned (its coroutine closed) and the call answered with the
timeout error, returned at the end of the cleanup: a call takes at most ``timeout + CANCEL_GRACE`` seconds."""

_CURRENT_CALL: contextvars.ContextVar[Mapping[str, Any] | None] = contextvars.ContextVar(
    "toolwire_current_tool_call", default=None)


def current_tool_call() -> Mapping[str, Any] | None:
    """The tool call being executed, when called from inside a tool's function.

    Returns:
        The call ``{"name", "args", "id", "type": "tool_call"}`` that ``tool.invoke(tool_call)``,
        ``ainvoke`` or :class:`~toolwire.execution.ToolExecutor` is running (sync tools on worker threads see it
        too), or None outside a tool call (``tool.invoke(args)``). A tool that needs its call's id, as LangChain's
        ``InjectedToolCallId`` gives it, reads :func:`current_call_id` (no copy made). The call is a copy of its
        containers (mappings, as dicts, and lists, at any depth) made for this read: changing them (redacting a
        password from ``["args"]`` before logging it) changes neither the call in the conversation nor the caller's
        dict (review 88: it was the live call, and the edit reached the model); other objects in the arguments (a
        session an application passed) are the same objects (review 89), and the copy costs time in proportion to
        the containers' size.
    """
    call = _CURRENT_CALL.get()
    if call is None:
        return None
    args = call.get("args")
    try:
        return {**call, "args": _containers_copied(args)}
    except RecursionError:  # nested past what Python recurses: the call and its arguments' top level are copied
        return {**call, "args": dict(args) if isinstance(args, Mapping) else args}


def _containers_copied(value: Any) -> Any:
    """``value`` with every mapping (an OrderedDict too: review 91) copied as a dict and every list copied, at any
    depth; any other object (a tuple, an application's session) is the same object."""
    if isinstance(value, Mapping):
        return {key: _containers_copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_containers_copied(item) for item in value]
    return value


def current_call_id() -> str | None:
    """The id of the tool call being executed, read without copying the call, when called from inside a tool's
    function (what LangChain's ``InjectedToolCallId`` gives).

    Returns:
        The ``"id"`` of the call :func:`current_tool_call` would return, or None outside a tool call.
    """
    call = _CURRENT_CALL.get()
    return None if call is None else call.get("id")


@contextlib.contextmanager
def _running(call: Mapping[str, Any] | None) -> Iterator[None]:
    """``call`` as :func:`current_tool_call`'s for the block (None: outside any call), the one before restored."""
    token = _CURRENT_CALL.set(call)
    try:
        yield
    finally:
        # (ValueError: the call's coroutine closed from another context, when it was given up: see
        # toolwire._concurrency.abandon; its own context, which the token is of, is gone with it)
        with contextlib.suppress(ValueError):
            _CURRENT_CALL.reset(token)


def _in_context(func: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``func`` run in a copy of the calling context, so a tool on a worker thread sees what the caller's code
    does: :func:`current_tool_call` and the caller's own context variables (a request id, a tracing span), as
    ``asyncio.to_thread`` gives them (review 41)."""
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


def bad_flags(**flags: Any) -> str | None:
    """The sentence saying which of the yes/no options ``flags`` (name -> value) is not ``True`` or ``False``, or
    None when all are: ``"false"`` from a config file would count as true (review 37)."""
    for name, value in flags.items():
        if not isinstance(value, bool):
            return f"{name} must be True or False, not {value!r}."
    return None


def bad_timeout(value: Any, name: str = "timeout", *, optional: bool = True) -> str | None:
    """The sentence saying what is wrong with a timeout value, or None when it is valid: a positive, finite
    real number of seconds (int, float, Fraction, Decimal, NumPy scalars; not a bool, not NaN), or None when
    ``optional``. ``name`` is the option's name in the sentence."""
    if value is None and optional:
        return None
    if isinstance(value, numbers.Real | decimal.Decimal) and not isinstance(value, bool):
        try:
            if 0 < float(value) < math.inf:
                return None
        except (TypeError, ValueError, OverflowError):
            pass
    return f"{name} must be a positive number of seconds{', or None' if optional else ''}, not {value!r}."


def whole_number(value: Any) -> int | None:
    """``value`` as an ``int`` when it is a whole number as ``operator.index`` reads one (an int, a NumPy integer),
    else None: a bool, a float (``4.0`` too), text or None (review 176 #4: as :func:`bad_timeout` takes NumPy
    numbers, ``max_concurrency`` and ``max_result_chars`` take NumPy integers)."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except Exception:
        return None


async def wait_timed(task: asyncio.Future[Any], timeout: float, name: str, is_async: bool) -> tuple[str, Any]:
    """Wait for ``task`` (the call's task, or the future of its thread) at most ``timeout`` seconds.

    Returns ``("done", result)`` when it finished in time (its exception propagates; whether it finished
    late while the event loop was blocked is for the caller to judge: see :func:`run_timed`). At the timeout the
    task is cancelled and the result is ``("stopped", None)``, except for an async task still running
    :data:`CANCEL_GRACE` seconds later (it ignores its cancellation): it is abandoned (its coroutine
    closed, see :func:`toolwire._concurrency.abandon`; logged), ``("abandoned", None)``, so the wait is
    bounded either way. A sync tool's thread cannot be stopped: ``("abandoned", None)`` at once, as for a
    task that returns a result after its cancel. When the caller is cancelled, the task is cancelled too.
    """
    try:
        done, _ = await asyncio.wait((task,), timeout=timeout)
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


THREAD_GRACE_SHARE = 0.8
"""The share of :data:`CANCEL_GRACE` a sync call's thread, still running when its run is cancelled, gets to finish
(less than the whole, so that its answer lands within the run's own wait of ``CANCEL_GRACE`` seconds)."""


class StillRunning(Exception):
    """A sync tool's thread was still running when its run was stopped, and went on past the grace it was given:
    it cannot be stopped, so the call may still take effect. The executor answers the call with this error, so
    that a resumed run does not run it again (review 83)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"Tool '{name}' was still running when the run was stopped; it may still finish and take "
                         "effect, but its result will not be used: check what it did before running it again.")


async def settled(future: concurrent.futures.Future[Any], name: str, most: float | None = None) -> Any:
    """Await a sync tool call's thread (``future``) for the executor, so that no call that ran is lost when the run
    is cancelled meanwhile (review 83: a sync call went on, took effect, lost its answer, and ran again on resume).

    A call still queued for a thread then never runs (``CancelledError`` raised). A running one gets
    ``THREAD_GRACE_SHARE * CANCEL_GRACE`` seconds more to finish: its result is returned, or its exception raised,
    as if the cancellation had come after it (the run still stops: the executor raises the cancellation with this
    answer kept). ``most``: seconds left before the call's own timeout, past which its answer would be dropped
    anyway (review 86), to wait no longer than that. A cancellation that comes again during the grace (an anyio
    cancel scope cancels at every ``await``) does not end it; a new Ctrl-C does (:func:`~toolwire._grace.wait_through`).

    Raises:
        StillRunning: the thread was still running at the end of that grace (or at a new Ctrl-C).
        asyncio.CancelledError: the call had not started.
        KeyboardInterrupt: a new Ctrl-C raised in this task during the grace.
        Exception: the tool's own.
    """
    waited = asyncio.wrap_future(future)
    try:
        return await asyncio.shield(waited)
    except asyncio.CancelledError:
        if future.cancel():  # not started: it never will
            raise
        grace = THREAD_GRACE_SHARE * CANCEL_GRACE
        await wait_through((waited,), grace if most is None else max(min(grace, most), 0.0))  # (review 196 #1)
        if not waited.done():
            raise StillRunning(name) from None
        return waited.result()


async def untimed_thread(call: Callable[..., Any], kwargs: dict[str, Any], name: str, settle: bool) -> Any:
    """Run a sync tool's ``call(kwargs, stop=event)`` (``Tool._call``) with no timeout on the shared thread pool, in
    a copy of the caller's context, and await its answer: with ``settle``, as :func:`settled` waits for it (the
    executor's calls), else as a plain future (``tool.ainvoke``).

    When the caller gives the call up (it is cancelled, or :func:`settled` gives up at the end of its grace), ``stop``
    is set: a generator tool is then closed between items (:func:`drain`), as at a timeout, rather than drained for
    nobody until it ends (review 125 #4: an endless feed grew memory and held a pool thread for good).

    Args:
        call: ``Tool._call``; kwargs: the validated arguments; name: the tool's name (for :class:`StillRunning`);
        settle: wait for a started call when the caller is cancelled (:func:`settled`).

    Returns:
        What ``call`` returned.

    Raises:
        StillRunning, asyncio.CancelledError: as :func:`settled` raises them (or the cancellation, without
            ``settle``).
        Exception: the tool's own.
    """
    stop = threading.Event()
    thread = thread_pool().submit(_in_context(carrying(functools.partial(call, stop=stop))), kwargs)
    try:  # (a TimeoutError the tool raises, passed on as it is: review 226 #3)
        return await uncarried(settled(thread, name) if settle else asyncio.wrap_future(thread))
    except BaseException:
        stop.set()  # given up, or it failed (then its thread is done and this changes nothing)
        raise


def finished_at(func: Callable[..., Any], clock: Callable[[], float]) -> Callable[..., tuple[Any, float]]:
    """``func`` made to return ``(its result, the time on clock when it returned)``: a sync tool's thread
    says when it finished, so a result ready in time is kept even when the event loop that waits for it was
    blocked at the timeout."""

    def run(*args: Any, **kwargs: Any) -> tuple[Any, float]:
        result = func(*args, **kwargs)
        return result, clock()

    return run


def drain(generator: Any, stop: threading.Event) -> list[Any]:
    """The items of a sync generator tool's result (or of any lazy iterator a tool returns), read until it ends
    or ``stop`` is set (its call timed out and nobody will read them: a generator, or an iterator with a
    ``close`` method, is closed, so its ``finally`` blocks run, and the thread ends)."""
    items = []
    for item in generator:
        if stop.is_set():
            close = getattr(generator, "close", None)
            if callable(close):
                close()
            break
        items.append(item)
    return items


def current_task() -> asyncio.Task[Any] | None:
    """The task running the caller, or None outside a running event loop (a coroutine being closed by the
    garbage collector)."""
    try:
        return asyncio.current_task()
    except RuntimeError:
        return None


class TaskInterrupt(BaseException):
    """A ``KeyboardInterrupt`` raised inside a task toolwire runs a tool call in (a tool that raises it itself, or a
    sync tool's thread), carried out of that task in this wrapper.

    asyncio re-raises a ``KeyboardInterrupt`` that leaves a task straight out of the event loop (``Task.__step``),
    past every coroutine awaiting the task: inside ``asyncio.run(agent.ainvoke(...))`` the run never saw it, and
    the conversation so far was lost (review 113 #6). The awaiting side gets the ``KeyboardInterrupt`` back with
    :func:`unwrapped` (or :meth:`~toolwire.execution.ToolExecutor.acall` does), in its own task, where the run
    keeps its work as for a Ctrl-C.

    Attributes:
        interrupt: the ``KeyboardInterrupt``, its traceback kept.
    """

    def __init__(self, interrupt: KeyboardInterrupt) -> None:
        super().__init__(interrupt)
        self.interrupt = interrupt


async def unwrapped(awaitable: Any) -> Any:
    """``await awaitable``, a :class:`TaskInterrupt` raised as the ``KeyboardInterrupt`` it carries.

    Raises:
        KeyboardInterrupt: the one a tool raised in the task awaited; anything else ``awaitable`` raises.
    """
    try:
        return await awaitable
    except TaskInterrupt as wrapped:
        interrupt = wrapped.interrupt
    raise interrupt  # (outside the except block: its context is not the wrapper)


async def guarded(tool: Any, kwargs: dict[str, Any]) -> Any:
    """Await an async :class:`~toolwire.tools.Tool`'s function with validated ``kwargs`` and return its result (an
    async generator's items gathered into a list), turning what must not leave it as is into ordinary exceptions,
    as ``Tool._call`` does for a sync tool.

    SystemExit must be caught inside the coroutine: a timed call runs it as a task, and asyncio lets a
    SystemExit raised in a task end the whole event loop. A ``CancelledError`` propagates only when the
    task running the call is being cancelled (the caller's run, or the timeout); the tool's own (an
    inner task it awaited was cancelled) becomes a ``RuntimeError``.

    Raises:
        RuntimeError: from ``StopIteration`` (the one Python turns into "coroutine raised StopIteration" too, worded
            as a sync tool's), the tool's own ``CancelledError`` or ``GeneratorExit``, or another
            ``BaseException`` subclass (:func:`escaped`).
        ToolExecutionError: the tool called ``sys.exit()``.
        Exception: whatever the tool raises; ``CancelledError`` when the caller is cancelled (or gave the call up).
        TaskInterrupt: the tool raised ``KeyboardInterrupt`` (see :class:`TaskInterrupt`).
    """
    running = current_task()
    try:
        try:  # on the loop's thread, as an async def is (a wrapper may use the loop or set a ContextVar: review 275),
            result = (await untimed_thread(tool._call, kwargs, tool.name, False) if tool._off_loop == BRIDGE
                      else tool._call(kwargs))  # but a bridge (asyncio.run...) once on a worker thread (review 295)
        except RuntimeError as exc:  # a sync wrapper that runs the coroutine itself (asyncio.run, async_to_sync) and
            if not (tool._off_loop is True and loop_refused(exc)):  # refused this running loop: on a worker
                raise  # thread, as LangChain runs it (review 269 #1; the wrapper's work before the bridge is repeated)
            result = await untimed_thread(tool._call, kwargs, tool.name, False)
        if type(result) is types.AsyncGeneratorType:
            return await _gathered(result)
        if type(result) is not types.CoroutineType and not inspect.isawaitable(result):  # a value: never awaited
            return result
        return await result
    except asyncio.CancelledError as exc:
        if not own_cancellation():
            raise
        raise escaped(exc) from exc
    except (StopIteration, StopAsyncIteration) as exc:
        raise escaped(exc) from exc
    except RuntimeError as exc:  # Python's "coroutine raised StopIteration" (PEP 479) said as a sync tool's is, its
        if given_up():  # (the tool's coroutine closed by _grace.give_up: the task ends cancelled, review 203 #1)
            raise asyncio.CancelledError from None
        stop = exc.__cause__  # message kept (review 83)
        if isinstance(stop, StopIteration) and str(exc) == "coroutine raised StopIteration":
            raise escaped(stop) from stop
        raise
    except Exception:
        raise
    except SystemExit as exc:
        raise tool._exit_error(exc) from None
    except GeneratorExit as exc:  # the tool's own while its task runs it; else this coroutine is being closed
        if running is None or current_task() is not running:
            raise
        raise escaped(exc) from exc
    except KeyboardInterrupt as exc:  # (not out of this task as itself: asyncio would end the event loop with it)
        raise TaskInterrupt(exc) from None
    except BaseException as exc:
        raise escaped(exc) from exc


_YIELD_EVERY = 64  # items of an async generator tool gathered between two turns given to the event loop


async def _gathered(generator: Any) -> list[Any]:
    """The items of an async generator tool, gathered into a list. Every :data:`_YIELD_EVERY` items the event loop
    gets a turn, so that a generator that yields without ever awaiting can still be stopped by its timeout or a
    cancelled run (review 83: one never stopped); it is closed when the gathering stops early (its ``finally``
    blocks run)."""
    items: list[Any] = []
    try:
        async for item in generator:
            items.append(item)
            if len(items) % _YIELD_EVERY == 0:
                await asyncio.sleep(0)
    finally:
        if getattr(generator, "ag_running", False):  # its coroutine closed as it ran, having ignored its cancellation
            _STUCK_GENERATORS.append(generator)
            with contextlib.suppress(Exception):  # (nor may the loop's end close it: asyncio's own set, if it has one)
                getattr(asyncio.get_running_loop(), "_asyncgens", set()).discard(generator)
        else:
            with contextlib.suppress(Exception):  # (what its cleanup raises: the call ends the way it was ending)
                await generator.aclose()
    return items


_STUCK_GENERATORS: list[Any] = []
"""Async generator tools given up on while they ran (:func:`_gathered`): one cannot be closed (``aclose()`` raises
"asynchronous generator is already running"), and had it been collected, asyncio's finalizer would close it in a task
that fails and logs "Task exception was never retrieved" (review 137 #5), as would the event loop's end
(``shutdown_asyncgens``), whose set of generators it is taken out of. They are kept for the life of the process, as
a thread a sync tool runs on is when it ignores its timeout."""


async def run_timed(tool: Any, kwargs: dict[str, Any], timeout: float, *, settle: bool = False) -> Any:
    """Run a :class:`~toolwire.tools.Tool` with validated ``kwargs`` for at most ``timeout`` seconds and return
    its result (the async path; the sync one without an event loop is
    :func:`toolwire._concurrency.run_sync_with_timeout`).

    An async tool runs as a task; a sync tool on a thread of its own (one abandoned at its timeout cannot
    starve the shared pool), which says when it finished (:func:`finished_at`) and stops draining a generator
    once given up (:func:`drain`). When the event loop was blocked at the deadline (``time.sleep`` or a sync
    client in an async tool), a sync tool's result that its thread had ready in time is kept; an async tool's
    result that arrives after the deadline is a timeout, whichever tool blocked the loop: toolwire cannot tell
    when its awaited work was ready. With ``settle`` (the executor's calls), a sync tool's thread running when the
    caller is cancelled is waited for as :func:`settled` says, its deadline still applying.

    Raises:
        ToolTimeoutError: at the timeout (an async tool that ignores its cancellation is abandoned, so the
            wait stays bounded), or for a result that came late because the tool itself ran past its deadline
            while the event loop was blocked (any late async result).
        Exception: only ``Exception`` subclasses for anything the tool does (see ``Tool._call`` and
            :func:`guarded`: StopIteration, the tool's own CancelledError and other BaseException subclasses
            arrive as ``RuntimeError``, SystemExit as ToolExecutionError); ``CancelledError`` only when the
            caller is cancelled; ``KeyboardInterrupt``/``GeneratorExit``.
    """
    loop = asyncio.get_running_loop()
    task: asyncio.Future[Any]
    deadline = loop.time() + timeout
    stop, fate = threading.Event(), None  # set when a sync tool's thread is given up; an async call's fate
    if tool.is_async:  # (its work on a toolwire loop's default executor: let go of at the timeout, review 243 #1)
        task, fate = fated_task(loop, guarded(tool, kwargs), tool.name)
    else:  # a thread of its own: one abandoned at its timeout cannot starve the shared pool
        call = finished_at(functools.partial(tool._call, stop=stop), loop.time)
        thread = start_thread(_in_context(carrying(call)), kwargs, tool.name, timeout)  # (see untimed_thread)
        task = asyncio.wrap_future(thread)
    state = "gone"  # the caller was cancelled, or the tool raised
    try:
        state, result = await uncarried(unwrapped(wait_timed(task, timeout, tool.name, tool.is_async)))
    except asyncio.CancelledError:
        if not settle or tool.is_async:
            raise
        state, result = "done", await uncarried(settled(thread, tool.name, deadline - loop.time()))  # (below too)
    finally:
        if state != "done":
            stop.set()
    busy = fate is not None and state in ("stopped", "abandoned") and give_up_work(fate)  # its thread work goes on
    if state == "stopped":  # an async tool cancelled in time (a remote one may go on, review 132 #1; review 243 #4)
        raise timeout_error(tool.name, timeout, "remote" if getattr(tool.func, REMOTE, False) else
                            "running" if busy else "stopped")
    if state == "abandoned":  # a sync tool's thread cannot be stopped; an async tool did not stop in time
        raise timeout_error(tool.name, timeout, "did not stop when cancelled" if tool.is_async else "running")
    if not tool.is_async:
        result, ended = result
        if ended > deadline:  # it ran past its timeout while the event loop was blocked: as if abandoned
            raise timeout_error(tool.name, timeout, "late")
    elif loop.time() > deadline:
        # an async tool that blocked the event loop (time.sleep, a sync client), or waited behind one that did:
        # a late result is a timeout, as for sync tools
        raise timeout_error(tool.name, timeout, "late, blocking")
    return result


REMOTE = "runs_remotely"
"""The attribute (``True``) of a tool's function that sends the call to another program, an MCP server's tool
(:mod:`toolwire.mcp.client`): cancelling the function at the tool's timeout stops the waiting here, not the tool
there, which may still finish and take effect (review 132 #1: an e-mail was sent two seconds after the model was
told the call "was stopped"), so its timeout says so."""

_TIMEOUT_STATES = {
    "stopped": " and was stopped, but what it did before that may have taken effect",
    "remote": " and was given up here, but the server may still be running it, so it may yet take effect",
    "running": " and is still running, so it may yet take effect",
    "did not stop when cancelled": " and did not stop when cancelled, so it may yet take effect",
    "late": " and ended only after it, so it may have taken effect",
    "late, blocking": " and ended only after it (an async tool must not block the event loop), so it may have taken "
                      "effect",
}
"""How a timed-out call that may have done its work ended, for :func:`timeout_error`."""


def timeout_error(name: str, timeout: float, state: str) -> ToolTimeoutError:
    """The error of a call of tool ``name`` that passed its ``timeout`` (seconds) but may have done its work: a sync
    tool's thread left running, an async tool that ignored its cancellation, a result that came late.

    The text tells the model (and the developer) not to assume nothing happened: retrying a payment or an email
    that is still on its way would do it twice (review 101), so it says to check before calling again; so does an
    async tool cancelled at its timeout (``"stopped"``), whose request may have gone out before it was stopped
    (review 102), and one whose work moved to a thread (``asyncio.to_thread``) goes on (``"running"``, review 243 #4).

    Args:
        name: the tool's name.
        timeout: its timeout in seconds.
        state: ``"stopped"``, ``"remote"`` (an MCP tool's call given up: :data:`REMOTE`), ``"running"``, ``"did not
            stop when cancelled"``, ``"late"`` or ``"late, blocking"``.

    Returns:
        A :class:`~toolwire.errors.ToolTimeoutError` (not raised).
    """
    return ToolTimeoutError(
        f"Tool '{name}' did not finish within {timeout:g} second{'' if timeout == 1 else 's'}"
        f"{_TIMEOUT_STATES[state]}; its result will not be used: check what it did before calling it again.", name)


def _call_id(call: Mapping[str, Any]) -> str:
    """The ``tool_call_id`` answering ``call``: its ``id`` as text (``5`` -> ``"5"``, as :class:`ToolMessage`
    and the executor write it, so it matches the AIMessage's call), ``""`` when it has none."""
    found = call.get("id")
    return found if type(found) is str else "" if found is None else str(found)


def check_call_name(tool_name: str, call: Mapping[str, Any]) -> None:
    """Refuse a tool call given to the tool ``tool_name`` that names another tool: running this one for it is not
    what the model asked (review 83: it ran without comment). A call without a text name is left alone, and so is a
    name that differs from ``tool_name`` only in case (``"Get_Weather"`` for ``get_weather``): LangChain's tool
    guide looks tools up by ``tool_call["name"].lower()`` and then gives the call to the tool found (review 86).

    Raises:
        ToolExecutionError: ``call["name"]`` is another tool's name (compared ignoring case); its error result for
            the model is told apart by type (:class:`WrongToolCallError`), not by its text (review 170 #8).
    """
    name = call.get("name")
    if isinstance(name, str) and name and name != tool_name and name.casefold() != tool_name.casefold():
        raise WrongToolCallError(f"The call names the tool {name[:80]!r} but was given to the tool '{tool_name}', "
                                 "which did not run it: give each call to the tool it names.", tool_name,
                                 called=name[:80])


class WrongToolCallError(ToolExecutionError):
    """A tool call given to a tool it does not name (:func:`check_call_name`); nothing ran.

    Private to toolwire: users catch it as :class:`ToolExecutionError`. ``called`` is the name the call gives (cut
    to 80 characters), so the error result can name it without reading the message's text.
    """

    def __init__(self, message: str, tool_name: str | None = None, *, called: str = "") -> None:
        super().__init__(message, tool_name)  # (defaults: pickle and copy rebuild it from its message alone, and
        self.called = called  # then set its attributes: review 181 #2)


def receiver(func: Any) -> str:
    """``"self"`` or ``"cls"`` when ``func`` is a function defined in a class body taking that first, through
    decorators' ``__wrapped__`` (a ``functools.wraps`` retry, ``lru_cache``: review 175 #1), else ``""``. Not through
    a bound method or a ``functools.partial``: their receiver is given already."""
    if type(func) is types.FunctionType and not func.__dict__:  # a plain function (no __wrapped__): itself
        code = func.__code__
        return code.co_varnames[0] if code.co_argcount and code.co_varnames[0] in ("self", "cls") else ""
    if bound_dispatch_method(func):  # (a singledispatchmethod read from an instance: review 212 #2)
        return ""
    target = func
    for _ in range(100):
        if inspect.ismethod(target) or isinstance(target, functools.partial) or not hasattr(target, "__wrapped__"):
            break
        target = target.__wrapped__
    code = getattr(target, "__code__", None)
    return code.co_varnames[0] if (inspect.isfunction(target) and code is not None and code.co_argcount
                                   and code.co_varnames[0] in ("self", "cls")) else ""
