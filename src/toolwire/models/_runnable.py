"""LangChain's ``Runnable`` methods that ported code calls on a chat model: ``bind``, ``with_retry``, ``with_config``
and the ``|`` operator (:class:`RunnableMethods`, a base of :class:`~toolwire.models.base.BaseChatModel`).

The rules come from langchain-core's ``runnables/base.py`` (``Runnable.bind``, ``Runnable.with_retry``,
``Runnable.with_config``, ``Runnable.__or__``/``__ror__``, ``RunnableSequence.invoke``) and ``runnables/retry.py``
(``RunnableRetry``, which waits with tenacity's ``wait_exponential_jitter``), read at langchain-core 1.8.3. Where
LangChain wraps a model in another object (a ``RunnableBinding``, a ``RunnableRetry``), toolwire returns a copy of
the model itself, as ``bind_tools`` does: the copy keeps every model method (``bind_tools``,
``with_structured_output``, ``batch``, ``stream``), an :class:`~toolwire.agent.Agent` takes it, and the binding
methods compose in any order, the original model unchanged.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import math
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Self

from toolwire._keywords import refuses_unknown_keywords
from toolwire.errors import UserError

if TYPE_CHECKING:
    from toolwire.models._pipeline import ModelPipeline
    from toolwire.models.base import ChatRequest

__all__ = ["ONE_ATTEMPT", "RunnableMethods", "WholeCallRetry", "bound_repr", "check_bound_options", "retry_policy"]

_sleep: Callable[[float], None] = time.sleep
"""How a sync retry waits (seconds); a module global so tests can replace it."""
_async_sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
"""How an async retry waits (seconds); a module global so tests can replace it."""

_NEVER_RETRIED = (asyncio.CancelledError, KeyboardInterrupt, SystemExit, GeneratorExit)
"""Exceptions that end a call whatever ``retry_if_exception_type`` says: a cancellation or an interrupt is a request
to stop, and retrying it would ignore that request."""

_JITTER_KEYS = ("initial", "max", "exp_base", "jitter")
"""The keys of LangChain's ``ExponentialJitterParams`` (``runnables/retry.py``): tenacity's ``wait_exponential_jitter``
arguments."""

_TOOL_BINDING = ("tools", "tool_choice", "parallel_tool_calls", "strict", "functions", "function_call")
"""Options LangChain's chat models pass through ``bind`` (its ``bind_tools`` is ``self.bind(tools=..., tool_choice=
...)``), which toolwire binds with :meth:`~toolwire.models.base.BaseChatModel.bind_tools`."""

_SHOWN_OPTIONS = frozenset({"temperature", "max_tokens", "top_p", "top_k", "min_p", "stop", "seed",
                            "repeat_penalty", "reasoning_effort"})
"""Bound options whose values a repr shows; any other (``extra_headers``, say, which may hold a token) is shown by
name alone."""


@dataclasses.dataclass(frozen=True)
class WholeCallRetry:
    """LangChain's ``RunnableRetry`` for one model: the whole call (the provider's own retries included) tried again
    on the chosen exceptions.

    Attributes:
        retry_if: the exception classes to retry on, or a function ``f(exception) -> bool`` saying whether to.
        wait_exponential_jitter: wait between attempts (tenacity's ``wait_exponential_jitter``); False: no wait.
        initial: seconds of the first wait, before jitter (tenacity's default 1).
        max: the longest wait in seconds (tenacity's default: no limit to speak of, ``sys.maxsize / 2``).
        exp_base: each wait is ``exp_base`` times the one before (default 2).
        jitter: seconds of random extra wait, drawn from ``[0, jitter]`` (default 1).
        stop_after_attempt: how many attempts in all (1: no retry).
    """

    retry_if: tuple[type[BaseException], ...] | Callable[[BaseException], bool]
    wait_exponential_jitter: bool = True
    initial: float = 1.0
    max: float = float(2**62)
    exp_base: float = 2.0
    jitter: float = 1.0
    stop_after_attempt: int = 3

    def wait(self, exc: BaseException, attempt: int) -> float | None:
        """Seconds to wait before trying again after attempt number ``attempt`` (1-based) raised ``exc``, or None
        to raise ``exc`` now: the one decision both the sync and the async loops use.

        The wait is tenacity's ``wait_exponential_jitter``: ``min(initial * exp_base ** (attempt - 1) +
        random.uniform(0, jitter), max)``, never below 0 (``max`` when the power overflows); 0 when
        ``wait_exponential_jitter`` is False (tenacity's ``wait_none``, LangChain's behaviour then).

        Returns:
            The wait in seconds, or None when ``exc`` is not retried or the attempts are used up (LangChain's
            ``RunnableRetry`` uses ``reraise=True``: the last exception itself is raised, not a ``RetryError``).
        """
        if isinstance(exc, _NEVER_RETRIED) or attempt >= self.stop_after_attempt:
            return None
        retried = self.retry_if(exc) if callable(self.retry_if) else isinstance(exc, self.retry_if)
        if not retried:
            return None
        if not self.wait_exponential_jitter:
            return 0.0
        spread = random.uniform(0, self.jitter)
        try:
            seconds = self.initial * self.exp_base ** (attempt - 1) + spread
        except OverflowError:
            seconds = self.max
        return max(0.0, min(seconds, self.max))

    def call(self, generate: Callable[[ChatRequest], Any], request: ChatRequest) -> Any:
        """``generate(request)``, tried again as :meth:`wait` says (waiting with ``time.sleep``).

        Raises:
            BaseException: the last attempt's exception, or the first one that is not retried, unchanged.
        """
        attempt = 0
        while True:
            attempt += 1
            try:
                return generate(request)
            except BaseException as exc:
                seconds = self.wait(exc, attempt)
                if seconds is None:
                    raise
            if seconds > 0:
                _sleep(seconds)

    async def acall(self, generate: Callable[[ChatRequest], Awaitable[Any]], request: ChatRequest) -> Any:
        """Async :meth:`call`: ``await generate(request)``, waiting with ``asyncio.sleep``.

        Raises:
            BaseException: as :meth:`call`.
        """
        attempt = 0
        while True:
            attempt += 1
            try:
                return await generate(request)
            except BaseException as exc:
                seconds = self.wait(exc, attempt)
                if seconds is None:
                    raise
            if seconds > 0:
                await _async_sleep(seconds)

    def stream(self, open_stream: Callable[[ChatRequest], Iterator[Any]], request: ChatRequest) -> Iterator[Any]:
        """The chunks of ``open_stream(request)``, the stream opened again as :meth:`wait` says when it fails
        before its first chunk; a failure after it is raised as it is (a retry would repeat what the caller has).

        LangChain's ``RunnableRetry`` never retries a stream ("retrying a stream is not very intuitive",
        ``runnables/retry.py``); toolwire retries one only while nothing has reached the caller, the rule its
        providers' own retries follow (:mod:`toolwire.models._retry`).

        Yields:
            The chunks of the attempt that got its first chunk out.

        Raises:
            BaseException: as :meth:`call`, or the failure of a stream after its first chunk.
        """
        attempt = 0
        while True:
            attempt += 1
            chunks = open_stream(request)
            try:
                first = next(chunks)
            except StopIteration:
                return
            except BaseException as exc:
                _close(chunks)
                seconds = self.wait(exc, attempt)
                if seconds is None:
                    raise
                if seconds > 0:
                    _sleep(seconds)
                continue
            try:
                yield first
                yield from chunks
            finally:
                _close(chunks)
            return

    async def astream(self, open_stream: Callable[[ChatRequest], AsyncIterator[Any]],
                      request: ChatRequest) -> AsyncIterator[Any]:
        """Async :meth:`stream`, waiting with ``asyncio.sleep``.

        Yields:
            As :meth:`stream`.

        Raises:
            BaseException: as :meth:`stream`.
        """
        attempt = 0
        while True:
            attempt += 1
            chunks = open_stream(request)
            try:
                first = await anext(chunks)
            except StopAsyncIteration:
                return
            except BaseException as exc:
                await _aclose(chunks)
                seconds = self.wait(exc, attempt)
                if seconds is None:
                    raise
                if seconds > 0:
                    await _async_sleep(seconds)
                continue
            try:
                yield first
                async for chunk in chunks:
                    yield chunk
            finally:
                await _aclose(chunks)
            return

    def describe(self) -> str:
        """A short text of the policy for a repr: ``"3 attempts"``, ``"1 attempt"``."""
        return f"{self.stop_after_attempt} attempt{'' if self.stop_after_attempt == 1 else 's'}"


ONE_ATTEMPT = WholeCallRetry(retry_if=(), stop_after_attempt=1)
"""The policy of a model, pipeline or structured output :meth:`~RunnableMethods.with_retry` was not called on: one
attempt, nothing retried, so every call goes through the same ``call``/``acall``/``stream``/``astream`` path."""


def _close(chunks: Any) -> None:
    close = getattr(chunks, "close", None)
    if close is not None:
        close()


async def _aclose(chunks: Any) -> None:
    close = getattr(chunks, "aclose", None)
    if close is not None:
        await close()


def _retry_types(value: Any) -> tuple[type[BaseException], ...] | Callable[[BaseException], bool]:
    """``retry_if_exception_type`` checked: a tuple of exception classes, one exception class (as a tuple of it:
    LangChain would call the class as a predicate, and retry every exception), or a function.

    Raises:
        UserError: anything else, or a tuple holding something that is no exception class.
    """
    if isinstance(value, type) and issubclass(value, BaseException):
        return (value,)
    if isinstance(value, tuple) and all(isinstance(t, type) and issubclass(t, BaseException) for t in value):
        return value
    if callable(value) and not isinstance(value, type):
        return value  # type: ignore[no-any-return]
    raise UserError(f"with_retry(retry_if_exception_type=...) takes a tuple of exception classes, e.g. "
                    f"(ProviderError,), or a function f(exception) -> bool, not {value!r}.")


def _jitter_params(value: Any) -> dict[str, float]:
    """``exponential_jitter_params`` checked: a dict of ``initial``, ``max``, ``exp_base``, ``jitter`` (seconds, and
    a factor for ``exp_base``), each a finite number of 0 or more.

    Raises:
        UserError: not a dict, another key, or a value that is no such number.
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise UserError(f"with_retry(exponential_jitter_params=...) takes a dict such as {{'initial': 1, 'max': 10}}, "
                        f"not {type(value).__name__}.")
    for key, number in value.items():
        if key not in _JITTER_KEYS:
            raise UserError(f"with_retry(exponential_jitter_params=...) has no key {key!r}: use "
                            f"{', '.join(map(repr, _JITTER_KEYS))}.")
        if isinstance(number, bool) or not isinstance(number, int | float) or not math.isfinite(number) or number < 0:
            raise UserError(f"with_retry(exponential_jitter_params={{{key!r}: ...}}) must be a number of 0 or more "
                            f"(seconds), not {number!r}.")
    return {key: float(number) for key, number in value.items()}


def retry_policy(retry_if_exception_type: Any, wait_exponential_jitter: Any, exponential_jitter_params: Any,
                 stop_after_attempt: Any) -> WholeCallRetry:
    """The :class:`WholeCallRetry` of ``with_retry``'s arguments (see :meth:`RunnableMethods.with_retry`), checked.

    Raises:
        UserError: a value of the wrong kind (``stop_after_attempt=0``, an exception type that is no exception class,
            another key in ``exponential_jitter_params``...).
    """
    if isinstance(stop_after_attempt, bool) or not isinstance(stop_after_attempt, int) or stop_after_attempt < 1:
        raise UserError(f"with_retry(stop_after_attempt=...) is the number of attempts in all, a whole number of "
                        f"1 or more, not {stop_after_attempt!r}.")
    if not isinstance(wait_exponential_jitter, bool):
        raise UserError(f"with_retry(wait_exponential_jitter=...) must be True or False, not "
                        f"{wait_exponential_jitter!r}.")
    return WholeCallRetry(_retry_types(retry_if_exception_type), wait_exponential_jitter,
                          stop_after_attempt=stop_after_attempt, **_jitter_params(exponential_jitter_params))


def check_bound_options(model: Any, options: dict[str, Any]) -> None:
    """Refuse at ``bind`` time what the model's ``invoke`` would refuse among ``options``, with the same error.

    The checks are the ones each model's call runs: its ``_request`` (a hosted model's
    :func:`~toolwire.models._sdk_options.check_call_options`, and ``config=`` for every model), the options its API
    has not (:func:`~toolwire.models._sdk_options.refuse_untaken`: Anthropic's ``seed``, the Responses API's ``stop``),
    the embedded model's :func:`~toolwire.models._options.check_options` and the scripted model's check. A custom
    model whose ``invoke`` takes any option gets them all.

    Raises:
        UserError: an option invoke would refuse (named, with the close match for a typo), or a tool binding
            option (``tools``, ``tool_choice``...), which ``bind_tools`` sets.
    """
    for key in options:
        if key in _TOOL_BINDING:
            raise UserError(f"bind({key}=...) is how LangChain's bind_tools passes tools; in toolwire call "
                            "model.bind_tools(tools, tool_choice=..., parallel_tool_calls=..., strict=...) instead.")
    model._request("check", dict(options))
    untaken = getattr(model, "untaken_options", None)
    if untaken:
        from toolwire.models._sdk_options import refuse_untaken

        refuse_untaken(untaken, options)
    if model.provider == "llamacpp":
        from toolwire.models._options import check_options

        check_options(options)
    elif model.provider == "scripted":
        from toolwire.models._sdk_options import check_call_options

        check_call_options(type(model).__name__, options)


class RunnableMethods:
    """``bind``, ``with_retry``, ``with_config`` and ``|`` on every chat model (see the module docstring).

    Attributes:
        _bound_options: the options :meth:`bind` bound, used by every call (a call's own options win).
        _whole_retry: the policy :meth:`with_retry` set, or :data:`ONE_ATTEMPT`.
    """

    __slots__ = ()
    _bound_options: Mapping[str, Any] = {}
    _whole_retry: WholeCallRetry = ONE_ATTEMPT

    if TYPE_CHECKING:
        provider: str

        def _request(self, input: Any, options: dict[str, Any]) -> ChatRequest: ...

    def bind(self, **kwargs: Any) -> Self:
        """Return a new model whose every call uses ``kwargs`` as options (LangChain's ``Runnable.bind``, as in
        ``model.bind(stop=["\\n"])``); this model is unchanged.

        The options are those ``invoke(input, **options)`` takes (``stop``, ``max_tokens``, ``temperature``,
        ``seed``...), checked now as ``invoke`` checks them. A call's own options win over bound ones, and a second
        ``bind`` adds to the first (later values win), as LangChain's ``RunnableBinding`` merges them
        (``{**bound, **call}``). The copy keeps the tools bound with ``bind_tools`` and the retry of
        ``with_retry``, and those methods keep the bound options: they compose in either order.

        Args:
            **kwargs: option name -> value; the contents of a ``model_kwargs`` dict are bound as options of their
                own, as the constructor's ``model_kwargs`` are (review 244).

        Returns:
            A copy of this model (same class and settings) with the options bound.

        Raises:
            UserError: an option ``invoke`` refuses (an unknown or misspelled name where the model refuses those, a
                wrong value, ``config=``), with the error ``invoke`` gives; or ``tools``, ``tool_choice``,
                ``parallel_tool_calls``, ``strict``, ``functions`` or ``function_call``, which LangChain's own
                ``bind_tools`` passes through ``bind`` (use ``bind_tools``); a ``model_kwargs`` that is not a dict,
                names a field toolwire writes, or gives an option given beside it another value.
        """
        from toolwire.models._sdk_options import merge_model_kwargs

        merged = {**self._bound_options, **merge_model_kwargs(type(self).__name__, kwargs)}
        check_bound_options(self, merged)
        new = copy.copy(self)
        new._bound_options = merged
        return new

    @refuses_unknown_keywords("with_retry")
    def with_retry(
        self,
        *,
        retry_if_exception_type: tuple[type[BaseException], ...] | Callable[[BaseException], bool] = (Exception,),
        wait_exponential_jitter: bool = True,
        exponential_jitter_params: Mapping[str, float] | None = None,
        stop_after_attempt: int = 3,
    ) -> Self:
        """Return a new model whose calls are tried again when they raise (LangChain's ``Runnable.with_retry``); this
        model is unchanged.

        ``invoke``, ``ainvoke`` and ``batch``/``abatch`` (each input) run the whole model call again, the provider's
        own retries (:mod:`toolwire.models._retry`) inside each attempt; ``stream``/``astream`` are opened again only
        when they fail before their first chunk (LangChain retries no stream; see :meth:`WholeCallRetry.stream`).
        Input errors (a conversation that cannot be read) are raised at once, before any attempt. The waits are
        tenacity's ``wait_exponential_jitter``, as LangChain's ``RunnableRetry`` waits: ``min(initial * exp_base **
        (attempt - 1) + uniform(0, jitter), max)`` seconds after attempt ``attempt``, by default 1-2 s, then 2-3 s.
        A cancellation or interrupt (``CancelledError``, ``KeyboardInterrupt``) is never retried. The copy keeps the
        options of ``bind`` and the tools of ``bind_tools``, which keep the retry in turn.

        Args:
            retry_if_exception_type: the exception classes to retry (default ``(Exception,)``, LangChain's: every
                error, a 401 or a ``UserError`` too; ``(ProviderError,)`` retries provider failures alone), one
                class, or a function ``f(exception) -> bool``.
            wait_exponential_jitter: wait between attempts as above; False tries again at once (LangChain's
                behaviour then).
            exponential_jitter_params: ``{"initial", "max", "exp_base", "jitter"}`` (seconds, and the factor),
                tenacity's parameters (defaults 1, no limit, 2, 1).
            stop_after_attempt: the number of attempts in all, 1 or more (1: no retry).

        Returns:
            A copy of this model with the retry set (it replaces one set before).

        Raises:
            UserError: a value of the wrong kind (``stop_after_attempt=0``, which LangChain reads as "retry
                forever"; an exception type that is no exception class; another key in
                ``exponential_jitter_params``), or a keyword none of these (the message names the close match).
        """
        new = copy.copy(self)
        new._whole_retry = retry_policy(retry_if_exception_type, wait_exponential_jitter, exponential_jitter_params,
                                        stop_after_attempt)
        return new

    def with_config(self, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        """Refuse LangChain's ``Runnable.with_config``: toolwire models have no ``RunnableConfig``.

        LangChain's config carries callbacks, tags, metadata, a run name, ``configurable`` fields and
        ``max_concurrency`` for its tracing and configuration machinery, none of which toolwire has; a method that
        took them and did nothing would hide that the tags never reach a tracer. So this raises, saying what to do.

        Raises:
            UserError: always, naming the keys given and toolwire's way: generation options with ``bind(...)``,
                concurrency with ``batch(..., max_concurrency=...)``, other settings when the model is built.
        """
        keys = sorted({*(config or {}), *kwargs})
        given = f" ({', '.join(keys)})" if keys else ""
        raise UserError(f"with_config{given} sets LangChain's RunnableConfig (callbacks, tags, metadata, run_name, "
                        "configurable), which toolwire models do not have: leave it out, and bind generation options "
                        "with model.bind(temperature=...), set concurrency with model.batch(inputs, "
                        "max_concurrency=...) and other settings when the model is built.")

    def astream_events(self, *args: Any, **kwargs: Any) -> Any:
        """Refuse LangChain's ``Runnable.astream_events``: toolwire models have no callback event stream.

        Raises:
            UserError: always, saying to stream the reply's chunks with :meth:`astream` instead (review 180 #4).
        """
        raise UserError(_event_stream_advice("astream_events"))

    def astream_log(self, *args: Any, **kwargs: Any) -> Any:
        """Refuse LangChain's ``Runnable.astream_log``, as :meth:`astream_events`.

        Raises:
            UserError: always, saying to stream the reply's chunks with :meth:`astream` instead.
        """
        raise UserError(_event_stream_advice("astream_log"))

    def __or__(self, other: Any) -> ModelPipeline:
        """``model | step``: a :class:`~toolwire.models._pipeline.ModelPipeline` that passes the model's reply to
        ``step`` (LangChain's ``Runnable.__or__``).

        Args:
            other: a callable (``lambda reply: reply.content``), an object with ``invoke`` (a toolwire model or
                tool, a LangChain runnable such as an output parser), a pipeline, or a dict of those
                (each run on the same input, answering a dict).

        Returns:
            A new :class:`~toolwire.models._pipeline.ModelPipeline`; this model is unchanged.

        Raises:
            TypeError: ``other`` is none of those (LangChain's words: "Expected a Runnable, callable or dict").
        """
        from toolwire.models._pipeline import ModelPipeline

        return ModelPipeline((self, other))

    def __ror__(self, other: Any) -> ModelPipeline:
        """``step | model``: a :class:`~toolwire.models._pipeline.ModelPipeline` that passes ``step``'s result to the
        model (LangChain's ``Runnable.__ror__``); ``other`` as for :meth:`__or__`. A LangChain runnable on the left
        (``prompt | model``) is LangChain's own ``__or__``, which refuses a toolwire model: write
        ``model.invoke(prompt.invoke(values))`` (a prompt value is a conversation toolwire reads).

        Raises:
            TypeError: as :meth:`__or__`.
        """
        from toolwire.models._pipeline import ModelPipeline

        return ModelPipeline((other, self))


def bound_repr(model: Any) -> str:
    """The part of a model's repr for :meth:`~RunnableMethods.bind` and :meth:`~RunnableMethods.with_retry`:
    ``", bound={'stop': ['x']}, retry='3 attempts'"``, or ``""``. Option values are shown for generation options
    only (others by name, as ``'...'``), so a header holding a token never appears."""
    out = ""
    if model._bound_options:
        shown = {key: value if key in _SHOWN_OPTIONS else "..." for key, value in model._bound_options.items()}
        out += f", bound={shown!r}"
    if model._whole_retry is not ONE_ATTEMPT:
        out += f", retry={model._whole_retry.describe()!r}"
    return out


def _event_stream_advice(name: str) -> str:
    """The one sentence a model's ``astream_events``/``astream_log`` raises."""
    return (f"{name} is LangChain's callback event stream, which toolwire models do not have: stream the reply with "
            "'async for chunk in model.astream(messages)' and join the chunks with + (or toolwire.merge_chunks); "
            "an Agent streams its steps with agent.astream(question).")


def refuse_event_stream(name: str) -> Callable[..., Any]:
    """``astream_events``/``astream_log`` (``name``) for a runnable whose stream yields whole values, not reply
    chunks (a ``model | step`` pipeline, ``with_structured_output``): it raises one sentence saying to stream with its
    ``astream`` (review 186 #8: the models' advice to join chunks with ``+`` does not fit their values).

    Returns:
        The method; it always raises :class:`UserError`.
    """

    def refused(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise UserError(f"{name} is LangChain's callback event stream, which toolwire runnables do not have: stream "
                        "the results with 'async for value in runnable.astream(input)'.")

    refused.__name__ = refused.__qualname__ = name
    refused.__doc__ = f"Refuse LangChain's ``Runnable.{name}``: stream with ``astream``. Raises UserError always."
    return refused
