"""``batch`` and ``abatch``: one model (or tool, or Agent) asked many inputs at once, as LangChain's
``Runnable.batch`` does.

Both are written once, as :func:`gather_answers` over a function that asks one input: ``abatch`` awaits the model's
``ainvoke`` on the running event loop; ``batch`` runs ``invoke`` on the shared thread pool
(:func:`~toolwire._concurrency.thread_pool`), from an event loop of its own
(:func:`~toolwire._concurrency.run_coroutine_sync`), as :class:`~toolwire.execution.ToolExecutor` runs sync tools.
The answers come back in input order, whatever order they finished in.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import operator
import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from toolwire._carried import carrying, uncarried
from toolwire._concurrency import run_coroutine_sync, thread_pool
from toolwire._grace import wait_through
from toolwire._printing import type_label
from toolwire._tool_run import whole_number
from toolwire._warn_site import remember_call_site
from toolwire.errors import UserError

__all__ = ["Batching", "gather_answers", "stop_if_batch_stopped"]

_STOP_GRACE = 2.0
"""Seconds the calls still running after a failure (``return_exceptions=False``) or a cancellation get to end once
cancelled, before the batch gives up waiting for them."""


_SKIPPED = object()  # the answer of an input not asked because another failed first (never returned)


class Batching:
    """``batch`` and ``abatch`` for a class with ``invoke(input, **options)`` and ``ainvoke(input, **options)``
    (:class:`~toolwire.models.base.BaseChatModel`, :class:`~toolwire.models.structured.StructuredOutput`,
    :class:`~toolwire.agent.Agent`, and :class:`~toolwire.tools.Tool`, whose inputs are arguments or tool calls and
    whose option is ``timeout=``)."""

    batch_options: ClassVar[bool] = True
    """Whether ``invoke`` takes options that ``batch`` passes on (a model's generation options). False (an Agent,
    whose ``invoke`` takes the input alone): ``batch`` refuses them itself, naming ``Agent.batch()`` (review 77)."""

    batch_option_names: ClassVar[frozenset[str] | None] = None
    """The options ``batch`` passes on, when ``invoke`` takes only some (a tool's ``timeout``); None: any."""

    def _refuse_input(self, input: Any, options: dict[str, Any]) -> None:
        """Raise the ``UserError`` that ``invoke(input, **options)`` would raise for ``input`` without asking anyone,
        before a batch starts (review 113: an image the embedded model cannot read was refused only once its turn
        came, after replies for the inputs before it). The default checks nothing; a class whose ``invoke`` refuses
        some inputs outright overrides it (:class:`~toolwire.models.llamacpp.ChatLlamaCpp`).

        Raises:
            UserError: ``input`` would be refused.
        """

    if TYPE_CHECKING:
        def invoke(self, input: Any, **options: Any) -> Any: ...

        async def ainvoke(self, input: Any, **options: Any) -> Any: ...

    def batch(self, inputs: Sequence[Any], *rest: Any, max_concurrency: int | None = None,
              return_exceptions: bool = False, **options: Any) -> list[Any]:
        """Ask each of ``inputs`` with :meth:`invoke`, several at once on worker threads, and return the answers in
        input order (LangChain's ``batch``).

        Args:
            inputs: a list (or tuple) of inputs, each one that ``invoke`` takes: for a model or an Agent a question,
                a conversation...; for a tool a dict of its arguments, or a tool call.
            rest: nothing: LangChain's ``batch(inputs, config)`` (a ``{"max_concurrency": 2}`` dict as the second
                argument) is refused with a ``UserError`` saying to pass ``max_concurrency=2`` instead.
            max_concurrency: the most inputs being asked at the same time, a whole number of at least 1; None
                (default): all of them at once (up to the thread pool's 64 threads, the others waiting for one).
                LangChain reads it from ``config={"max_concurrency": n}``; here it is a keyword of its own. A
                provider's rate limit counts every request, so keep it under that limit; the embedded model
                answers one request at a time whatever it is (requests take turns on the loaded model).
            return_exceptions: False (default): an input refused outright (an image for a model that reads text
                only) is raised before any input is asked; else the first failure is raised (the first in input
                order among those that failed by then), and the inputs not answered yet are dropped: those not
                started never start, while a call already running on its thread (which Python cannot stop)
                finishes in the background, its answer unused; an Agent's runs still going stop at their next step
                (no further model call or round of tool calls: the step under way ends, as at
                ``AgentStream.close()``); the embedded model's replies
                (:class:`~toolwire.models.llamacpp.ChatLlamaCpp`, also inside an Agent's or structured output's
                call) stop at their next token instead, and those waiting for their turn on the model never start.
                A Ctrl-C stops the batch the same way. True: an input whose call raised an ``Exception`` (or that
                was refused outright) gets that exception in its place in the list, and nothing is raised for it.
            **options: passed on to every call, as ``invoke`` takes them: a model's (and structured output's)
                generation options (temperature, max_tokens...); for a tool, only ``timeout=`` (the seconds each
                call may take); an Agent takes none.

        Returns:
            A new list with one answer per input, in input order: what ``invoke`` returns for it (or, with
            ``return_exceptions``, the exception its call raised).

        Raises:
            UserError: ``inputs`` is not a list or tuple (one question alone: use ``invoke``), ``max_concurrency`` is
                not a whole number of at least 1 or None, ``return_exceptions`` is not a bool, ``config=``
                (LangChain's ``RunnableConfig``) was given, by keyword or as the second argument, an option
                that ``invoke`` does not take: for an Agent's batch any option (its ``invoke`` takes none), for a
                tool's any but ``timeout=`` (a generation option such as ``temperature=``); the message then names
                the class's method (``Agent.batch()``, ``Tool.abatch()``).
            Exception: the first failure of a call, as ``invoke`` raises it (``return_exceptions=False``).
        """
        items = _checked(self, "batch", inputs, max_concurrency, return_exceptions, options, rest)
        refused = _refusals(self, items, options, return_exceptions)
        invoke = self.invoke
        stop = threading.Event()  # set once the batch returns or raises: its calls still running are not wanted

        def ask(index: int) -> Awaitable[Any]:
            if index in refused:
                return _raise(refused[index])
            call = carrying(functools.partial(_unless_stopped, stop, invoke, items[index], options))  # in a copy of
            return uncarried(asyncio.get_running_loop().run_in_executor(  # the caller's context, as a sync tool; a
                thread_pool(), contextvars.copy_context().run, call))  # TimeoutError as raised (review 226 #3)

        try:
            with remember_call_site():  # (its threads' warnings point at this batch line: toolwire._warn_site)
                return run_coroutine_sync(gather_answers(ask, list(range(len(items))), max_concurrency,
                                                         return_exceptions))
        finally:
            stop.set()  # (a Ctrl-C, or a failure with return_exceptions=False: review 113)

    async def abatch(self, inputs: Sequence[Any], *rest: Any, max_concurrency: int | None = None,
                     return_exceptions: bool = False, **options: Any) -> list[Any]:
        """Async :meth:`batch`: each input asked with :meth:`ainvoke`, several at once on the running event loop.

        Args:
            inputs, rest, max_concurrency, return_exceptions, options: as for :meth:`batch`; with
                ``return_exceptions=False`` the calls not finished at the first failure are cancelled.

        Returns:
            As :meth:`batch`: one answer per input, in input order.

        Raises:
            UserError, Exception: as :meth:`batch`. A cancelled ``abatch`` cancels the calls still running.
        """
        items = _checked(self, "abatch", inputs, max_concurrency, return_exceptions, options, rest)
        refused = _refusals(self, items, options, return_exceptions)
        ainvoke = self.ainvoke

        def ask(index: int) -> Awaitable[Any]:
            return _raise(refused[index]) if index in refused else ainvoke(items[index], **options)

        with remember_call_site():
            return await gather_answers(ask, list(range(len(items))), max_concurrency, return_exceptions)


def _refusals(owner: Batching, items: list[Any], options: dict[str, Any],
              return_exceptions: bool) -> dict[int, UserError]:
    """The inputs ``owner`` refuses outright (:meth:`Batching._refuse_input`), by index: with ``return_exceptions``
    each gets its error in its place; without, the first (in input order) is raised now, before any input is asked.

    Raises:
        UserError: the first refused input's error (``return_exceptions`` False).
    """
    refused: dict[int, UserError] = {}
    for index, item in enumerate(items):
        try:
            owner._refuse_input(item, options)
        except UserError as exc:
            if not return_exceptions:
                raise
            refused[index] = exc
    return refused


async def _raise(error: BaseException) -> Any:
    """Raise ``error`` when awaited (the answer of an input refused before the batch started)."""
    raise error


def _unless_stopped(stop: threading.Event, invoke: Callable[..., Any], item: Any, options: dict[str, Any]) -> Any:
    """``invoke(item, **options)`` on a batch's worker thread, unless the batch has stopped (``stop`` is set) before
    the thread took it up; an embedded model's reply on this thread stops at its next token once ``stop`` is set
    (:func:`toolwire.models._cancel.cancel_on`: review 113, a Ctrl-C'd batch's replies were generated whole).

    Raises:
        GenerationCancelled: the batch stopped first (nobody reads this call's outcome any more).
        Exception: what ``invoke`` raised.
    """
    from toolwire.models._cancel import GenerationCancelled, cancel_on  # (standard library only: no numpy)

    if stop.is_set():
        raise GenerationCancelled("The batch stopped before this input was asked.")
    with cancel_on(stop):
        return invoke(item, **options)


def stop_if_batch_stopped() -> None:
    """Raise :class:`~toolwire.models._cancel.GenerationCancelled` when the batch whose worker thread this is has
    stopped (it raised its first failure, or a Ctrl-C stopped it: :func:`_unless_stopped`'s ``cancel_on``). An Agent
    run checks it before each step (a model call, a round of tool calls), so a sync batch's other runs stop there, as
    ``abatch`` cancels its own (review 125 #3: they went on calling the model and running tools after the batch had
    raised). Outside a batch's worker thread it does nothing.

    Raises:
        GenerationCancelled: the batch stopped; nobody reads this run's outcome any more.
    """
    from toolwire.models._cancel import GenerationCancelled, cancelled

    if cancelled():
        raise GenerationCancelled("The batch this run was in stopped (another input failed, or Ctrl-C), so the run "
                                  "stopped before its next step.")


def _checked(owner: Batching, name: str, inputs: Any, max_concurrency: Any, return_exceptions: Any,
             options: dict[str, Any], rest: tuple[Any, ...] = ()) -> list[Any]:
    """``inputs`` as a new list, once the arguments of ``owner``'s ``batch``/``abatch`` (``name``) are checked
    (``rest``: the positional arguments after ``inputs``). A model's messages name ``batch()``; those of an owner
    whose ``invoke`` takes no options (:attr:`Batching.batch_options` False: an Agent) name its class,
    ``Agent.batch()``, and its ``invoke``.

    Raises:
        UserError: see :meth:`Batching.batch`.
    """
    takes_options = type(owner).batch_options
    label = name if takes_options else f"{type(owner).__name__}.{name}"
    invoke = "invoke()" if takes_options else f"{type(owner).__name__}.{name.removesuffix('batch')}invoke()"
    if rest:  # LangChain's batch(inputs, config): a TypeError about positional arguments before (review 76)
        config = rest[0]
        wanted = config.get("max_concurrency") if isinstance(config, dict) else None
        raise UserError(f"{label}() takes the inputs alone as its argument, not LangChain's config after them: pass "
                        f"max_concurrency={wanted if wanted is not None else 'n'} as a keyword, "
                        f"{label}(inputs, max_concurrency={wanted if wanted is not None else 'n'}).")
    if not isinstance(inputs, list | tuple):
        raise UserError(f"{label}() takes a list of inputs, each one that {invoke} takes, not {type_label(inputs)}; "
                        f"for a single input, call {invoke}.")
    if max_concurrency is not None and ((whole := whole_number(max_concurrency)) is None or whole < 1):
        raise UserError(f"max_concurrency must be a whole number of at least 1, or None to ask every input at once "
                        f"(a sync model's calls up to 64 at a time), not {max_concurrency!r}.")
    if not isinstance(return_exceptions, bool):
        raise UserError(f"return_exceptions must be True or False, not {return_exceptions!r}.")
    if not takes_options:
        from toolwire._keywords import keyword_names, refuse_batch_options

        refuse_batch_options(label, options, [n for n in keyword_names(type(owner).__init__)
                                              if n not in ("model", "tools")])
    if "config" in options:
        kind = type(owner)
        who = "toolwire models do" if kind.batch_option_names is None else f"a toolwire {kind.__name__} does"
        raise UserError(f"{name}(config=...) is LangChain's RunnableConfig, which {who} not take: pass "
                        "max_concurrency= as a keyword of its own and leave config out.")
    allowed = type(owner).batch_option_names
    if allowed is not None and (other := [key for key in options if key not in allowed]):
        close = _close_batch_keyword(other[0], allowed)  # (review 244 #4: no close match, and it read as if
        hint = f": did you mean {close}=?" if close else "."  # a misspelled max_concurrency= were not taken)
        if close in ("max_concurrency", "return_exceptions"):
            hint = f": did you mean {close}= (an option of the batch itself)?"
        raise UserError(f"{type(owner).__name__}.{name}() passes on only {', '.join(sorted(allowed))}= to each "
                        f"{invoke.removeprefix(type(owner).__name__ + '.')}, not {other[0]}={hint}")
    for key in options:  # a model's misspelled batch keyword is no request option to send (review 244 #4)
        if (close := _close_batch_keyword(key, allowed)) is not None:
            raise UserError(f"{label}() was given {key}=, which is no option of a batch or a request: did you mean "
                            f"{close}=?")
    return list(inputs)


def _close_batch_keyword(key: str, allowed: frozenset[str] | None) -> str | None:
    """The keyword of ``batch`` (``max_concurrency``, ``return_exceptions``, or one of ``allowed``, the options an
    owner passes on) that ``key`` is a close misspelling of, or None (an error path only)."""
    import difflib

    names = ["max_concurrency", "return_exceptions", *sorted(allowed or ())]
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.8)
    return close[0] if close and close[0] != key else None


async def gather_answers(ask: Callable[[Any], Awaitable[Any]], inputs: list[Any], max_concurrency: int | None,
                         return_exceptions: bool) -> list[Any]:
    """Ask every input with ``ask``, at most ``max_concurrency`` at a time, and return the answers in input order.

    Args:
        ask: ``ask(input)`` gives an awaitable of its answer (a coroutine, or a future of a worker thread).
        inputs: the inputs.
        max_concurrency: the most awaitables pending at once (None: all).
        return_exceptions: put an ``Exception`` raised for an input in its place instead of raising the first.

    Returns:
        A new list of the answers (or exceptions), in input order.

    Raises:
        Exception: the first failure (``return_exceptions=False``; the first in input order among those that
            failed by then), after the other inputs are stopped (see :func:`_stop`). A ``BaseException`` that is not
            an ``Exception`` (``KeyboardInterrupt``) is raised whatever ``return_exceptions`` says, and so is the
            caller's own cancellation (also one that came while the other inputs were being stopped).
    """
    if not inputs:
        return []
    gate = asyncio.Semaphore(operator.index(max_concurrency)) if max_concurrency else None  # (a NumPy integer too)
    failed: list[bool] = []  # set by the first failure (return_exceptions=False): the inputs waiting do not start

    async def asked(item: Any) -> Any:
        try:
            return await ask(item)
        except Exception:
            if not return_exceptions:
                failed.append(True)  # before the gate lets the next input in
            raise

    async def one(item: Any) -> Any:
        if gate is None:
            return await asked(item)
        async with gate:
            return _SKIPPED if failed else await asked(item)

    tasks = [asyncio.ensure_future(one(item)) for item in inputs]
    try:
        await asyncio.wait(tasks, return_when=asyncio.ALL_COMPLETED if return_exceptions else asyncio.FIRST_EXCEPTION)
    except BaseException:  # the caller was cancelled (a Ctrl-C in batch): the calls still running are stopped
        await _stop(tasks)
        raise
    failures = [(task, _failure(task)) for task in tasks if task.done() and _failure(task) is not None]
    fatal = [exc for _, exc in failures if not isinstance(exc, Exception)]
    if fatal or (failures and not return_exceptions):
        cancellation = await _stop(tasks)
        raise cancellation if cancellation is not None and not fatal else (fatal or [failures[0][1]])[0]
    # (an exception whose truth value is False, one with ``__len__`` returning 0, is still the answer: review 76)
    return [task.result() if (failure := _failure(task)) is None else failure for task in tasks]


def _failure(task: asyncio.Future[Any]) -> BaseException | None:
    """The exception a finished ``task`` ended with (its cancellation for a cancelled one), or None."""
    if task.cancelled():
        return asyncio.CancelledError()
    return task.exception()


async def _stop(tasks: list[asyncio.Future[Any]]) -> asyncio.CancelledError | None:
    """Cancel the ``tasks`` still running and wait for them to end, at most :data:`_STOP_GRACE` seconds (a worker
    thread's call cannot be stopped: its task ends at once, and the thread finishes in the background, but for the
    embedded model's reply, which stops at its next token once :meth:`Batching.batch` sets its ``stop``); the
    exceptions of the others are read, so none is reported as never retrieved. The wait goes on when the caller is
    cancelled again meanwhile (an anyio cancel scope cancels at every ``await``: review 196 #1, the batch returned
    with its runs still going); only a new Ctrl-C ends it early (:func:`~toolwire._grace.wait_through`), and the
    caller raises its cancellation after it.

    Returns:
        The caller's cancellation when it came during the wait, else None.
    """
    for task in tasks:
        task.cancel()
    cancellation = None
    if pending := [task for task in tasks if not task.done()]:
        _, cancellation = await wait_through(pending, _STOP_GRACE)
    for task in tasks:
        if task.done() and not task.cancelled():
            task.exception()
    return cancellation
