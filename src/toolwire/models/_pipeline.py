"""What ``model | step`` makes: :class:`ModelPipeline`, LangChain's ``RunnableSequence`` for toolwire models (see
:meth:`toolwire.models._runnable.RunnableMethods.__or__`).

The rules follow langchain-core 1.8.3's ``runnables/base.py``: ``Runnable.__or__``/``__ror__`` and
``coerce_to_runnable`` (a step is a runnable, a callable or a dict of them), ``RunnableSequence.invoke`` (each step
gets the one before's result; a call's options go to the first step), ``RunnableParallel`` (a dict's steps run on
the same input), ``Runnable.bind`` (a ``RunnableBinding``: bound options merged under a call's) and
``Runnable.with_retry`` (``runnables/retry.py``'s ``RunnableRetry``: the whole sequence run again). LangChain's
callbacks and ``RunnableConfig`` have no part here: toolwire has neither.
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import inspect
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any, Self

from toolwire._batch import Batching
from toolwire._carried import carrying, uncarried
from toolwire._concurrency import thread_pool
from toolwire._keywords import refuses_unknown_keywords
from toolwire._model_stops import stops_escaped
from toolwire.models._retry import aclose_stream
from toolwire.models._runnable import (
    ONE_ATTEMPT,
    RunnableMethods,
    WholeCallRetry,
    bound_repr,
    check_bound_options,
    refuse_event_stream,
    retry_policy,
)

__all__ = ["ModelPipeline"]


def _step(value: Any) -> Any:
    """A step of a pipeline: ``value`` itself, or a dict's steps (LangChain's ``coerce_to_runnable``).

    Raises:
        TypeError: ``value`` has no ``invoke``, is not callable and is no dict.
    """
    if isinstance(value, ModelPipeline):
        return value
    if isinstance(value, Mapping):
        return _Parallel({str(key): _step(item) for key, item in value.items()})
    if callable(getattr(value, "invoke", None)) or callable(value):
        return value
    raise TypeError(f"Expected a Runnable, callable or dict. Instead got an unsupported type: {type(value)}")


class _Parallel:
    """A dict of steps, each run on the same input; the answer is a dict of their results (LangChain's
    ``RunnableParallel``, what a dict in a ``|`` chain becomes)."""

    __slots__ = ("steps",)

    def __init__(self, steps: dict[str, Any]) -> None:
        self.steps = steps

    def invoke(self, input: Any) -> dict[str, Any]:
        """Run each step on ``input``, in order; return ``{key: result}``."""
        return {key: _run(step, input, {}) for key, step in self.steps.items()}

    async def ainvoke(self, input: Any) -> dict[str, Any]:
        """Run each step on ``input`` at once; return ``{key: result}``."""
        results = await asyncio.gather(*(_arun(step, input, {}) for step in self.steps.values()))
        return dict(zip(self.steps, results, strict=True))


def _for_step(step: Any, value: Any) -> Any:
    """``value`` as ``step`` takes it: a toolwire message given to a LangChain runnable (an output parser, found by
    its module) as LangChain's (:func:`~toolwire.interop.langchain.to_langchain_messages`), since such a step reads
    the reply a LangChain model would have given it; any other value as it is."""
    from toolwire.messages import BaseMessage

    if isinstance(value, BaseMessage) and type(step).__module__.startswith(("langchain", "langgraph")):
        from toolwire.interop.langchain import to_langchain_messages

        return to_langchain_messages([value])[0]
    return value


def _run(step: Any, value: Any, options: dict[str, Any]) -> Any:
    """``step`` called with ``value``: its ``invoke`` when it has one, else the step itself.

    Raises:
        TypeError: ``step`` is an ``async def`` function (LangChain's words: call ``ainvoke``).
    """
    value = _for_step(step, value)
    invoke = getattr(step, "invoke", None)
    if callable(invoke):
        return invoke(value, **options)
    if inspect.iscoroutinefunction(step):
        raise TypeError("Cannot invoke a coroutine function synchronously. Use `ainvoke` instead.")
    return step(value, **options)


async def _arun(step: Any, value: Any, options: dict[str, Any]) -> Any:
    """Async :func:`_run`: the step's ``ainvoke``, an ``async def`` awaited, a sync function on a worker thread (in a
    copy of the caller's context, as LangChain's ``RunnableLambda`` runs one in an executor)."""
    value = _for_step(step, value)
    ainvoke = getattr(step, "ainvoke", None)
    if callable(ainvoke):
        return await ainvoke(value, **options)
    if inspect.iscoroutinefunction(step):
        return await step(value, **options)
    call = getattr(step, "invoke", None) or step
    loop = asyncio.get_running_loop()
    step_call = carrying(stops_escaped(lambda: call(value, **options), "a pipeline step"))  # (asyncio cannot carry
    result = await uncarried(loop.run_in_executor(thread_pool(), contextvars.copy_context().run, step_call))  # them)
    return await result if inspect.isawaitable(result) else result


class ModelPipeline(Batching):
    """Steps run one after the other, each given the result of the one before: what ``model | step`` makes
    (LangChain's ``RunnableSequence``, without its callbacks and config).

    A step is a toolwire model, an object with ``invoke``/``ainvoke`` (a LangChain runnable too), a function, or a
    dict of steps. ``invoke`` calls each step's ``invoke`` (a function is called); ``ainvoke`` awaits its
    ``ainvoke``, an ``async def`` function, or runs a sync function on a worker thread. A call's options go to the
    first step only, as ``RunnableSequence.invoke`` passes its ``**kwargs``. A LangChain runnable step (an output
    parser such as ``StrOutputParser``) is given a toolwire message as LangChain's, the reply it was written for.

    ``stream`` runs all steps but the last and streams the last one when it can stream (``model.stream``, a LangChain
    runnable's ``stream``), else yields its one result, as LangChain does for a function at the end of a chain. A
    step before the last runs whole: in ``model | StrOutputParser()`` the parser gets the whole reply and yields one
    text, where LangChain would pass the model's chunks through the parser's ``transform``.

    ``bind(**options)`` and ``with_retry(...)`` return a new pipeline, as LangChain's ``RunnableSequence`` has them
    (see there); ``|`` with such a pipeline keeps it as one step, so the binding or retry covers its own steps only,
    as LangChain's ``RunnableBinding``/``RunnableRetry`` in a sequence do.

    Attributes:
        steps: the steps, in order.
    """

    batch_options = True
    _bound_options: Mapping[str, Any] = {}
    _whole_retry: WholeCallRetry = ONE_ATTEMPT

    def __init__(self, steps: tuple[Any, ...]) -> None:
        flat: list[Any] = []
        for item in steps:
            step = _step(item)
            flat.extend(step.steps if isinstance(step, ModelPipeline) and not step._wrapped() else (step,))
        self.steps: tuple[Any, ...] = tuple(flat)

    def _wrapped(self) -> bool:
        """Whether ``bind``/``with_retry`` set something, so the pipeline is one step of a longer one."""
        return bool(self._bound_options) or self._whole_retry is not ONE_ATTEMPT

    def __or__(self, other: Any) -> ModelPipeline:
        """``pipeline | step``: a longer pipeline (see :meth:`RunnableMethods.__or__`)."""
        return ModelPipeline((self, other))

    def __ror__(self, other: Any) -> ModelPipeline:
        """``step | pipeline``: a longer pipeline, ``step`` first."""
        return ModelPipeline((other, self))

    def bind(self, **kwargs: Any) -> Self:
        """Return a new pipeline whose every call passes ``kwargs`` to its first step as options (LangChain's
        ``Runnable.bind`` on a ``RunnableSequence``: a ``RunnableBinding`` whose kwargs reach the sequence's first
        step); a call's own options win, and a second ``bind`` adds to the first. This pipeline is unchanged.

        Args:
            **kwargs: option name -> value, as the first step's ``invoke`` takes them.

        Returns:
            A new :class:`ModelPipeline`.

        Raises:
            UserError: the first step is a toolwire model and its ``invoke`` would refuse an option (the error
                :meth:`RunnableMethods.bind` gives); other steps' options are checked when called, as in LangChain.
        """
        merged = {**self._bound_options, **kwargs}
        if isinstance(self.steps[0], RunnableMethods):
            check_bound_options(self.steps[0], merged)
        new = copy.copy(self)
        new._bound_options = merged
        return new

    @refuses_unknown_keywords("with_retry")
    def with_retry(self, *, retry_if_exception_type: tuple[type[BaseException], ...] | Callable[[BaseException], bool]
                   = (Exception,), wait_exponential_jitter: bool = True,
                   exponential_jitter_params: Mapping[str, float] | None = None, stop_after_attempt: int = 3) -> Self:
        """Return a new pipeline whose calls run all its steps again when one raises (LangChain's
        ``RunnableSequence.with_retry``, a ``RunnableRetry`` around the whole sequence); this pipeline is unchanged.

        ``invoke``, ``ainvoke`` and ``batch``/``abatch`` (each input) start again from the first step; ``stream``/
        ``astream`` start again only when they fail before their first chunk (LangChain retries no stream), as a
        model's :meth:`~RunnableMethods.with_retry` does. The arguments, waits and errors are those of
        :meth:`RunnableMethods.with_retry`.

        Returns:
            A new :class:`ModelPipeline` with the retry set (it replaces one set before).

        Raises:
            UserError: as :meth:`RunnableMethods.with_retry`.
        """
        new = copy.copy(self)
        new._whole_retry = retry_policy(retry_if_exception_type, wait_exponential_jitter, exponential_jitter_params,
                                        stop_after_attempt)
        return new

    def with_config(self, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        """Refuse LangChain's ``with_config``, as :meth:`RunnableMethods.with_config` does (toolwire has no
        ``RunnableConfig``).

        Raises:
            UserError: always.
        """
        return RunnableMethods.with_config(self, config, **kwargs)  # type: ignore[arg-type]

    astream_events = refuse_event_stream("astream_events")  # (LangChain's event streams: review 180 #4, 186 #8)
    astream_log = refuse_event_stream("astream_log")

    def invoke(self, input: Any, *config: Any, **options: Any) -> Any:
        """Run the steps in order and return the last one's result (all of them again, under :meth:`with_retry`).

        Args:
            input: what the first step takes (for a model: a question, a conversation).
            **options: options for the first step (a model's ``temperature``...), over those of :meth:`bind`.

        Returns:
            The last step's result.

        Raises:
            Exception: the first step's failure, as it raised it (the last attempt's, under :meth:`with_retry`).
        """
        if config:  # LangChain's invoke(input, config): refused in one sentence (review 143 #6)
            from toolwire.models.base import _refuse_config

            _refuse_config("invoke", config)
        options = {**self._bound_options, **options}
        return self._whole_retry.call(lambda value: self._invoke(value, options), input)

    def _invoke(self, value: Any, options: dict[str, Any]) -> Any:
        for position, step in enumerate(self.steps):
            value = _run(step, value, options if position == 0 else {})
        return value

    async def ainvoke(self, input: Any, *config: Any, **options: Any) -> Any:
        """Async :meth:`invoke` (see the class docstring for how each step runs).

        Returns:
            The last step's result.

        Raises:
            Exception: as :meth:`invoke`.
        """
        if config:  # LangChain's ainvoke(input, config): refused in one sentence (review 143 #6)
            from toolwire.models.base import _refuse_config

            _refuse_config("ainvoke", config)
        options = {**self._bound_options, **options}
        return await self._whole_retry.acall(lambda value: self._ainvoke(value, options), input)

    async def _ainvoke(self, value: Any, options: dict[str, Any]) -> Any:
        for position, step in enumerate(self.steps):
            value = await _arun(step, value, options if position == 0 else {})
        return value

    def stream(self, input: Any, **options: Any) -> Iterator[Any]:
        """Run every step but the last, then yield the last step's stream (its ``stream`` method), or its one result.

        Yields:
            The last step's chunks (a model's :class:`~toolwire.messages.AIMessageChunk`), or its result.
        """
        options = {**self._bound_options, **options}
        yield from self._whole_retry.stream(lambda value: self._stream(value, options), input)

    def _stream(self, input: Any, options: dict[str, Any]) -> Iterator[Any]:
        *head, last = self.steps
        value = ModelPipeline(tuple(head)).invoke(input, **options) if head else input
        rest = {} if head else options
        stream = getattr(last, "stream", None)
        if callable(stream):
            yield from stream(_for_step(last, value), **rest)
        else:
            yield _run(last, value, rest)

    async def astream(self, input: Any, **options: Any) -> AsyncIterator[Any]:
        """Async :meth:`stream` (the last step's ``astream``, or its one result).

        Yields:
            As :meth:`stream`.
        """
        options = {**self._bound_options, **options}
        chunks = self._whole_retry.astream(lambda value: self._astream(value, options), input)
        try:
            async for chunk in chunks:
                yield chunk
        finally:  # closed early (break, aclose): the steps' streams are closed now, not by asyncio's finalizer
            await aclose_stream(chunks)

    async def _astream(self, input: Any, options: dict[str, Any]) -> AsyncIterator[Any]:
        *head, last = self.steps
        value = await ModelPipeline(tuple(head)).ainvoke(input, **options) if head else input
        rest = {} if head else options
        astream = getattr(last, "astream", None)
        if callable(astream):
            chunks = astream(_for_step(last, value), **rest)
            try:
                async for chunk in chunks:
                    yield chunk
            finally:
                await aclose_stream(chunks)
        else:
            yield await _arun(last, value, rest)

    def __repr__(self) -> str:
        """``ScriptedChatModel(model='scripted') | <lambda>``; with :meth:`bind`/:meth:`with_retry`, in brackets with
        what they set as a model's repr shows it: ``(... | <lambda>, retry='3 attempts')``."""
        joined = " | ".join(_step_name(step) for step in self.steps)
        return f"({joined}{bound_repr(self)})" if self._wrapped() else joined


def _step_name(step: Any) -> str:
    """A step as a pipeline's repr shows it: a model's own repr (which hides its key), else a function's name."""
    if isinstance(step, RunnableMethods | _Parallel | ModelPipeline):
        return "{" + ", ".join(step.steps) + "}" if isinstance(step, _Parallel) else repr(step)
    return getattr(step, "__name__", None) or type(step).__name__
