"""The base of the hosted-provider chat models: keys, clients, retries, and the sync/async drivers.

A provider class (:class:`~toolwire.models.openai.ChatOpenAI`, :class:`~toolwire.models.anthropic.ChatAnthropic`,
:class:`~toolwire.models.google.ChatGoogleGenAI`) supplies only what differs: how to build its SDK client,
which SDK method to call, its codec (``lower`` / ``parse`` / stream state, pure functions in
:mod:`toolwire.models.lowering`) and how its SDK's exceptions read (``_translate``, the one boundary).
The drivers below are written once: sync and async differ only in the SDK call itself (the sync client in
``_generate``/``_stream``, the async client in ``_agenerate``/``_astream``).

API keys are held in a :class:`Secret` that never shows in ``repr``, ``str`` or logs; credentials in a
``base_url`` (``http://user:token@host``) are masked wherever the URL is shown, and the key in every error the model
raises (:mod:`toolwire.models._sdk_errors`, which also reads bodies that are not a reply). A model cannot be pickled
(it holds the key); ``copy.deepcopy`` gives an independent model that shares the key and opens its own
connections.
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import inspect
import logging
import math
import os
from collections.abc import AsyncIterator, Callable, Iterator
from numbers import Integral, Real
from types import ModuleType
from typing import Any, ClassVar, NoReturn, Self, SupportsIndex
from urllib.parse import urlsplit

from toolwire._extras import install_hint
from toolwire._secrets import redact_given_url, redact_http_logs
from toolwire._tool_run import bad_timeout
from toolwire.errors import ProviderError, UserError
from toolwire.messages import AIMessage, AIMessageChunk, merge_chunks
from toolwire.models._handed_out import IN_USE as _IN_USE
from toolwire.models._handed_out import Handed, held
from toolwire.models._handed_out import close_sync as _close_sync
from toolwire.models._keys import Secret, resolve_key
from toolwire.models._loop_clients import Clients as _Clients
from toolwire.models._one_call import _stream_filter as stream_filter
from toolwire.models._proxy_env import made_client
from toolwire.models._retry import (
    RetryPolicy,
    aclose_stream,
    aretry_stream,
    awith_retries,
    close_stream,
    redact_url,
    retry_stream,
    with_retries,
)
from toolwire.models._runnable import bound_repr
from toolwire.models._sdk_errors import SDKErrors, ahold_json_body, hold_json_body
from toolwire.models._sdk_options import (
    check_call_options,
    check_generation_options,
    check_model_kwargs,
    model_argument,
    refuse_untaken,
    untaken_names,
)
from toolwire.models._strict_notes import lowered, strict_probe
from toolwire.models.base import BaseChatModel, ChatRequest, _forced
from toolwire.models.lowering._calls import remember_streamed

__all__ = ["SDKChatModel", "Secret", "fit_to_endpoint", "import_sdk"]

log = logging.getLogger("toolwire.providers")


def import_sdk(module: str, extra: str, owner: str) -> ModuleType:
    """Import an optional SDK, or raise UserError with the command that installs it
    (:func:`~toolwire._extras.install_hint`).

    Raises:
        UserError: the SDK is not installed.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UserError(f"{owner} needs the {module!r} package, {install_hint(extra)}.") from None


def fit_to_endpoint(call: Callable[..., Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """Move the request keys an SDK method does not name into its ``extra_body``, so they still reach the API.

    SDK releases drop or rename keyword arguments that the HTTP API still takes (anthropic 2.x's
    ``Messages.create`` has no ``temperature`` or ``top_p`` keyword, for one); the OpenAI and Anthropic
    SDKs send ``extra_body`` keys as JSON fields of the request body. Methods without ``extra_body`` (or
    that take ``**kwargs``) get ``kwargs`` unchanged.

    Args:
        call: the SDK method (a ``functools.partial`` of it is fine).
        kwargs: the lowered request.

    Returns:
        ``kwargs``, or a new dict with the unknown keys merged into ``extra_body``.
    """
    try:
        params = inspect.signature(call).parameters
    except (TypeError, ValueError):
        return kwargs
    if "extra_body" not in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return kwargs
    unknown = [k for k in kwargs if k not in params]
    if not unknown:
        return kwargs
    fitted = {k: v for k, v in kwargs.items() if k in params}
    fitted["extra_body"] = {**{k: kwargs[k] for k in unknown}, **(kwargs.get("extra_body") or {})}
    return fitted


def _check_base_url(base_url: str | None, setting: str = "base_url") -> str | None:
    """Refuse at construction a ``base_url`` that no request could reach (not ``http(s)://host...``).

    Args:
        base_url: the URL, or None (the SDK's default).
        setting: where it came from, as the message names it (``"base_url"``, or an environment variable such as
            ``"OPENAI_BASE_URL"``).

    Returns:
        The URL without the spaces around it, or None.

    Raises:
        UserError: it is not an http(s) URL with a host (the message names ``setting``; credentials in it masked).
    """
    if base_url is None:
        return None
    text = str(base_url).strip()
    try:
        parts = urlsplit(text)
        usable = parts.scheme in ("http", "https") and bool(parts.hostname) and not any(c.isspace() for c in text)
        usable = usable and (parts.port is None or parts.port > 0)  # a port that is no number raises (review 51)
    except ValueError:  # an unclosed IPv6 bracket, a port out of range or not a number
        usable = False
    if not usable:
        shown = redact_given_url(str(base_url))
        if setting != "base_url":
            raise UserError(f"The environment variable {setting} holds {shown!r}, which is not an http(s) URL: set "
                            "it to one like http://localhost:8000/v1, or unset it.")
        raise UserError(f"base_url {shown!r} is not an http(s) URL: pass one like http://localhost:8000/v1.")
    return text


def _check_retry_options(owner: str, timeout: Any, max_retries: Any, retry_backoff: Any) -> tuple[float, int, float]:
    """``(timeout, max_retries, retry_backoff)`` checked at construction, so a bad value fails there in one
    sentence rather than at the first request (httpx's "Timeout value out of range"): ``timeout`` a positive,
    finite number of seconds (the rule of tool timeouts, :func:`toolwire._tool_run.bad_timeout`),
    ``max_retries`` a whole number of 0 or more (not a bool), ``retry_backoff`` a finite number of seconds of 0
    or more.

    Raises:
        UserError: one of them is out of range or of the wrong kind.
    """
    problem = bad_timeout(timeout, optional=False)
    if problem:
        raise UserError(f"{owner}: {problem[:-1]}; pass e.g. timeout=60.")
    if not isinstance(max_retries, Integral) or isinstance(max_retries, bool) or max_retries < 0:
        raise UserError(f"{owner}: max_retries must be a whole number of 0 or more (retries after the first "
                        f"attempt), not {max_retries!r}; pass e.g. max_retries=2.")
    backoff_ok = isinstance(retry_backoff, Real) and not isinstance(retry_backoff, bool)
    if not backoff_ok or not 0 <= float(retry_backoff) < math.inf:
        raise UserError(f"{owner}: retry_backoff must be a number of seconds of 0 or more, not {retry_backoff!r}; "
                        "pass e.g. retry_backoff=0.5.")
    return float(timeout), int(max_retries), float(retry_backoff)


def _shaped(chunk: AIMessageChunk, request: ChatRequest) -> AIMessageChunk:
    """``chunk``, its tool-call pieces' tools remembered (:func:`~toolwire.models.lowering._calls.remember_streamed`)
    so the error of a streamed call's unreadable arguments shows its tool's shape, as ``invoke``'s does."""
    if chunk.tool_call_chunks and request.tools:
        remember_streamed(chunk.tool_call_chunks, request.tool_parameters)
    return chunk


class SDKChatModel(BaseChatModel, SDKErrors):
    """Base of the chat models that call a hosted API through its official SDK.

    Args:
        model: the provider's model name.
        api_key: the key, as text or a pydantic ``SecretStr`` (any object with ``get_secret_value()``), or with
            :class:`~toolwire.models.ChatOpenAI` a function that returns it (the ``openai`` SDK calls it before
            each request); default from the provider's environment variables (``key_env``). Kept in a
            :class:`Secret`.
        base_url: another endpoint (a proxy, a local test server, an OpenAI-compatible server).
        timeout: seconds one HTTP request may take before it fails (and is retried).
        max_retries: retries after the first attempt on 429, 5xx, 408/409, connection errors, timeouts.
        retry_backoff: seconds before the first retry; doubling after each, with jitter.
        streaming: make ``invoke``/``ainvoke`` use the streaming API too (merging the chunks).
        temperature, max_tokens, top_p, stop, seed: default generation options (per-call options win): a
            temperature of 0 or more, ``top_p`` from 0 to 1, ``max_tokens`` a whole number of at least 1, ``stop``
            text or a list of text, ``seed`` a whole number.
        model_kwargs: other provider options sent with every request, as the SDK names them (a dict).
        model_name: LangChain's other name for ``model`` (give one of them, or both alike).

    Raises:
        UserError: the SDK is not installed, no API key was given or found in the environment, ``api_key`` is
            of a type the provider cannot take (a number, a function where the SDK calls none), or
            ``timeout`` (a positive number of seconds), ``max_retries`` (a whole number of 0 or more),
            ``retry_backoff`` (seconds, 0 or more), a generation option, ``streaming`` (a bool) or ``model_kwargs``
            (a dict) is out of range or of the wrong kind, or no model name is given (or two that differ); checked
            here, before any request.
    """

    provider: ClassVar[str] = "sdk"
    label: ClassVar[str] = "an SDK"
    """How messages name the provider's replies, with its article ("an OpenAI", "a Gemini")."""
    key_env: ClassVar[tuple[str, ...]] = ()
    base_url_env: ClassVar[str] = ""  # the environment variable the SDK reads its base URL from
    sdk_module: ClassVar[str] = ""
    extra: ClassVar[str] = ""
    untaken_options: ClassVar[str | None] = None  # the API whose missing options are refused (refuse_untaken)

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: Any = None,
        base_url: str | None = None,
        timeout: float = 120.0,
        max_retries: int = 2,
        retry_backoff: float = 0.5,
        streaming: bool = False,
        temperature: float | None = None,
        max_tokens: int | None = None,
        top_p: float | None = None,
        stop: str | list[str] | None = None,
        seed: int | None = None,
        model_kwargs: dict[str, Any] | None = None,
        model_name: str | None = None,
        **unknown: Any,
    ) -> None:
        if unknown:  # a misspelled option: one sentence with the close match, not a TypeError naming this class
            from toolwire.models._sdk_options import refuse_client_setting
            from toolwire.models.factory import _check_keywords
            refuse_client_setting(type(self).__name__, unknown)  # a client setting another class has (review 292)
            _check_keywords(type(self), unknown, let_through=(),  # the close match, when there is one
                            untaken=untaken_names(self.untaken_options))  # (then a name a subclass passes on here)
            raise UserError(f"Unknown {type(self).__name__} option {next(iter(unknown))!r}: "
                            f"{type(self).__name__} passes it on, but no model class takes it.")
        owner = type(self).__name__
        model = model_argument(owner, model, model_name)
        options = check_generation_options(owner, {"temperature": temperature, "max_tokens": max_tokens,
                                                   "top_p": top_p, "stop": stop, "seed": seed})
        check_generation_options(owner, {"streaming": streaming})
        extra_options = check_model_kwargs(owner, model_kwargs)
        self.sdk = import_sdk(self.sdk_module, self.extra, owner)
        self.model = model
        self.base_url = _check_base_url(base_url)
        if base_url is None and self.base_url_env:  # the URL the SDK reads from its environment, checked as one
            # given (review 227 #3: one without its scheme was retried 3 times and said as a broken connection)
            _check_base_url((os.environ.get(self.base_url_env) or "").strip() or None, self.base_url_env)
        # the HTTP library and the SDK log each request's URL, credentials and all: a base_url given here, or one
        # the SDK reads from its environment (ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL; review 51)
        redact_http_logs()
        self.timeout, retries, backoff = _check_retry_options(type(self).__name__, timeout, max_retries, retry_backoff)
        self.retry_policy = RetryPolicy(max_retries=retries, initial_delay=backoff)
        self.streaming = streaming
        self.options: dict[str, Any] = {**options, **extra_options}
        if self.untaken_options:  # an option the API has not: refused now, not at the first request (review 77)
            refuse_untaken(self.untaken_options, self.options)
        self._api_key = self._resolve_key(api_key)
        self._clients = _Clients()

    # -- configuration ------------------------------------------------------------------------------

    def _resolve_key(self, api_key: Any) -> Secret | None:
        """The API key: ``api_key`` (text, a ``SecretStr`` or, where :meth:`_takes_key_function`, a function that
        returns it), else the first of :attr:`key_env` set, as a :class:`Secret` (:func:`~toolwire.models._keys.
        resolve_key`), without the spaces and line end a key read from a file or a CRLF ``.env`` brings along.

        Raises:
            UserError: no key where one is needed, a key of another type (the accepted ones are named), or a key
                holding other characters than printable ASCII (a pasted quote): HTTP headers cannot carry them. The
                message never shows the key.
        """
        secret = resolve_key(api_key, owner=type(self).__name__, key_env=self.key_env,
                             functions=self._takes_key_function(), sdk=self.sdk_module)
        if secret is not None or self._key_optional():
            return secret
        names = " or ".join(self.key_env)
        advice = ", or pass it as api_key"  # the command line has no api_key: it leaves this clause out
        raise UserError(f"{type(self).__name__} needs an API key: set {names}{advice}.", api_advice=advice)

    def _takes_key_function(self) -> bool:
        """Whether this provider's SDK client takes a function as its key (called before each request)."""
        return False

    def _key_optional(self) -> bool:
        return False

    @property
    def model_name(self) -> str:
        """The provider's model name."""
        return self.model

    def __repr__(self) -> str:
        """``ChatOpenAI(model='gpt-4o', base_url='...', tools=['add'], bound={'stop': ['x']}, retry='3 attempts')``:
        the URL without its credentials, and what ``bind``/``with_retry`` added as :func:`bound_repr` shows it (the
        values of generation options only, so a bound header holding a token never appears); never the key."""
        where = f", base_url={redact_url(self.base_url)!r}" if self.base_url else ""
        bound = f", tools={[t.name for t in self.tools]}" if self.tools else ""
        return f"{type(self).__name__}(model={self.model!r}{where}{bound}{bound_repr(self)})"

    # -- copies ----------------------------------------------------------------------------------------------

    def __copy__(self) -> Self:
        """A shallow copy (what ``bind_tools`` makes): it shares the SDK clients with this model."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        return clone

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        """An independent copy: options and tools are copied, the key is shared (it is never pickled) and
        the copy opens its own SDK clients."""
        clone = object.__new__(type(self))
        memo[id(self)] = clone
        for name, value in self.__dict__.items():
            if name == "_clients":
                value = _Clients()
            elif name not in ("sdk", "_api_key"):  # a module, and the key (shared: a KeyFunction too)
                value = copy.deepcopy(value, memo)
            clone.__dict__[name] = value
        return clone

    def __reduce_ex__(self, protocol: SupportsIndex) -> NoReturn:
        """Refuse pickling in one sentence (before the SDK module or the key's own refusal is reached)."""
        raise TypeError(f"A {type(self).__name__} cannot be pickled, as it holds an API key and open connections: "
                        "build the model again where it is needed.")

    def _request(self, input: Any, options: dict[str, Any]) -> ChatRequest:
        """The request of one call, its options checked as the constructor's are (review 76): a wrong value
        (``max_tokens=0``, ``stop=5``), a misspelled generation option (``temprature``) or a request field toolwire
        writes (``messages``, ``model``...) is a UserError before anything is sent.

        Raises:
            UserError: see :func:`~toolwire.models._sdk_options.check_call_options`, and the base class's checks.
        """
        return super()._request(input, check_call_options(type(self).__name__, options))

    # -- provider hooks ---------------------------------------------------------------------------------

    def _make_client(self, asynchronous: bool) -> Any:  # pragma: no cover - each provider overrides
        raise NotImplementedError

    def _endpoint(self, client: Any, stream: bool) -> Callable[..., Any]:  # pragma: no cover
        """The SDK method to call with the lowered kwargs (sync or async client alike)."""
        raise NotImplementedError

    _strict_probe = strict_probe  # strict-mode warnings at bind time (models/_strict_notes.py; review 98 #9)

    def _lower(self, request: ChatRequest) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    def _parse(self, raw: Any, request: ChatRequest) -> AIMessage:  # pragma: no cover
        raise NotImplementedError

    def _stream_state(self, request: ChatRequest) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _translate(self, exc: BaseException) -> ProviderError | None:  # pragma: no cover
        """Turn one of this SDK's exceptions into a ProviderError (``None``: not an SDK error)."""
        raise NotImplementedError

    # -- clients ---------------------------------------------------------------------------------------------

    def _client(self) -> Any:
        clients = self._clients
        with clients.lock:
            if clients.sync is None:
                clients.sync = made_client(self._make_client, False)
            return clients.sync

    def _aclient(self) -> Any:
        """The async SDK client of the running event loop, made on the loop's first call and reused by the next
        ones there (loops in several threads, or ``asyncio.run`` per request: one client each); it is closed on its
        loop when the loop shuts down (see :mod:`toolwire.models._loop_clients`)."""
        return self._clients.for_loop(asyncio.get_running_loop(), lambda: made_client(self._make_client, True))

    def _taken(self, used: list[Any]) -> Any:
        """The current sync SDK client, noted last in ``used`` and marked in use until :meth:`_given_back`: while
        an attempt's request is on it, :meth:`close` leaves it open (review 203 #2)."""
        clients = self._clients
        with clients.lock:  # (taken under the lock close() swaps the client under: never one it has closed)
            if clients.sync is None:
                clients.sync = made_client(self._make_client, False)
            client = clients.sync
            _IN_USE.take(client)
        used.append(client)
        return client

    @staticmethod
    def _given_back(client: Any) -> None:
        """The end of an attempt's request on ``client``: closed now if :meth:`close` left it to its last one."""
        if _IN_USE.give_back(client):
            _close_sync(client)

    def _used(self, used: list[Any], asynchronous: bool) -> Any:
        """The current SDK client (the sync one, or the running loop's async one), noted last in ``used``: the
        client an attempt of a call sends its request on."""
        client = self._aclient() if asynchronous else self._client()
        used.append(client)
        return client

    def _replaced(self, client: Any, asynchronous: bool) -> bool:
        """Whether ``client`` is no longer the model's current one: :meth:`close` (or :meth:`aclose`) closed it."""
        if not asynchronous:
            return self._clients.sync is not client
        try:
            entry = self._clients.async_by_loop.get(asyncio.get_running_loop())
        except RuntimeError:
            return False
        return entry is None or entry.client is not client

    def _closed_aware(self, used: list[Any], asynchronous: bool,
                      kwargs: Any = None) -> Callable[[BaseException], ProviderError | None]:
        """The call's translator: :meth:`_translate_call` (the headers ``kwargs`` sets masked), but a failure of an
        attempt whose client was closed under it (``aclose()`` from another task; :meth:`close` leaves a sync client
        to its requests, review 203 #2: a broken connection, or the HTTP client's ``RuntimeError`` that it is
        closed) says so, and is retried on the new client (review 196 #2: it was a raw ``RuntimeError``, or "Could
        not connect ... check that the server is running")."""

        def translate(exc: BaseException) -> ProviderError | None:
            found = self._translate_call(exc, kwargs)
            if not used or not self._replaced(used[-1], asynchronous):
                return found
            if isinstance(exc, ProviderError):  # (one a codec raised from the reply: not the connection's)
                return found
            if (found is None and isinstance(exc, RuntimeError)) or (
                    found is not None and found.status is None and found.retryable):
                return ProviderError("The model's connection was closed (close() or aclose()) while this request "
                                     "was in flight.", provider=self.provider, status=None, retryable=True,
                                     hint="Send the request again: the next one opens a new connection.")
            return found

        return translate

    def close(self) -> None:
        """Close the sync SDK client's connections (a new client opens on the next call). A request in flight on
        them (another thread's call) keeps its connection until its reply is read, and the client is closed then:
        its sockets are never closed under a thread still waiting on them, which could leave that thread waiting
        for the whole request timeout (review 203 #2)."""
        with self._clients.lock:
            client, self._clients.sync = self._clients.sync, None
        if client is not None and not _IN_USE.close_later(client):
            _close_sync(client)

    async def aclose(self) -> None:
        """Close the async SDK client of the running event loop now (``asyncio.run`` closes it anyway when the
        loop ends); the clients of other loops stay theirs (each loop closes its own). A call in flight on it is
        sent again on a new client, as a failed request is retried (``max_retries``)."""
        client = self._clients.pop(asyncio.get_running_loop())
        if client is not None:
            await aclose_stream(client)

    def _log_request(self, kwargs: dict[str, Any], stream: bool) -> None:
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%s: %s request to %s (stream=%s, keys=%s)", self.provider, self.model,
                      redact_url(self.base_url or "the default endpoint"), stream, sorted(kwargs))

    # -- drivers ------------------------------------------------------------------------------------------------

    def _generate(self, request: ChatRequest) -> AIMessage:
        if self.streaming:  # the whole stream, retried as a reply is (nothing reaches the caller before its end)
            return merge_chunks(self._stream(request, whole=True), as_chunk=False,  # type: ignore[return-value]
                                tool_names=request.tool_parameters)
        kwargs = lowered(self, request)
        self._log_request(kwargs, False)
        kwargs = fit_to_endpoint(self._endpoint(self._client(), False), kwargs)
        used: list[Any] = []

        def attempt() -> AIMessage:  # each try on the model's current client (a new one after close(): review 196)
            client = self._taken(used)
            try:
                return self._read(self._endpoint(client, False)(**kwargs), request)
            finally:
                self._given_back(client)

        return with_retries(attempt, self.retry_policy, self._closed_aware(used, False, kwargs))

    async def _agenerate(self, request: ChatRequest) -> AIMessage:
        if self.streaming:
            return merge_chunks([c async for c in self._astream(request, whole=True)], as_chunk=False,  # type: ignore[return-value]
                                tool_names=request.tool_parameters)
        kwargs = lowered(self, request)
        self._log_request(kwargs, False)
        kwargs = fit_to_endpoint(self._endpoint(self._aclient(), False), kwargs)
        used: list[Any] = []

        async def attempt() -> AIMessage:  # each try on the loop's current client (a new one after aclose())
            return self._read(await self._endpoint(self._used(used, True), False)(**kwargs), request)

        return await awith_retries(attempt, self.retry_policy, self._closed_aware(used, True, kwargs))

    def _stream(self, request: ChatRequest, *, whole: bool = False) -> Iterator[AIMessageChunk]:
        """The reply's chunks, a failed stream tried again (:func:`~toolwire.models._retry.retry_stream`) until it has
        handed content to the caller: content as the caller gets it, after :meth:`_chunk_reader` (run afresh in each
        try) and the one-call filter of :meth:`~toolwire.models.base.BaseChatModel.stream`, so a try whose content
        they still hold back is tried again (:class:`~toolwire.models._handed_out.Handed`; review 206 #1). With
        ``whole`` (``invoke`` of a ``streaming=True`` model, which hands out nothing before the reply is complete)
        every chunk is held until the stream ends, so a stream that breaks after its first content is retried as a
        reply without a stream is (the same ``max_retries``)."""
        kwargs = lowered(self, request)
        self._log_request(kwargs, True)
        kwargs = fit_to_endpoint(self._endpoint(self._client(), True), kwargs)
        used: list[Any] = []
        judge = self._judge(request)

        def attempt() -> Iterator[AIMessageChunk]:  # one try: a new stream (on the current client), a new state
            judge.new_try()
            client = self._taken(used)
            try:
                stream = self._endpoint(client, True)(**kwargs)
                try:
                    hold_json_body(stream)  # (a JSON body where a stream was asked for: kept to read its error)
                    state = self._stream_state(request)
                    reader = self._chunk_reader(request)
                    events = 0
                    for event in stream:
                        events += 1
                        chunk = self._fed(state.feed, event)
                        if chunk is not None:
                            yield from _read(reader, chunk)
                    if not events:
                        self._check_empty_stream(stream)
                    yield from _read(reader, self._fed(state.finish))  # type: ignore[arg-type]
                    if reader is not None:
                        yield from reader.finish()
                finally:
                    close_stream(stream)
            finally:
                self._given_back(client)

        chunks = retry_stream(attempt, self.retry_policy, self._closed_aware(used, False, kwargs),
                              held if whole else judge)
        for chunk in chunks:
            yield _shaped(chunk, request)

    async def _astream(self, request: ChatRequest, *, whole: bool = False) -> AsyncIterator[AIMessageChunk]:
        """Async :meth:`_stream`."""
        kwargs = lowered(self, request)
        self._log_request(kwargs, True)
        kwargs = fit_to_endpoint(self._endpoint(self._aclient(), True), kwargs)
        used: list[Any] = []
        judge = self._judge(request)

        async def attempt() -> AsyncIterator[AIMessageChunk]:
            judge.new_try()
            stream = await self._endpoint(self._used(used, True), True)(**kwargs)
            try:
                await ahold_json_body(stream)
                state = self._stream_state(request)
                reader = self._chunk_reader(request)
                events = 0
                async for event in stream:
                    events += 1
                    chunk = self._fed(state.feed, event)
                    if chunk is not None:
                        for piece in _read(reader, chunk):
                            yield piece
                if not events:
                    self._check_empty_stream(stream)
                for piece in _read(reader, self._fed(state.finish)):  # type: ignore[arg-type]
                    yield piece
                if reader is not None:
                    for piece in reader.finish():
                        yield piece
            finally:
                await aclose_stream(stream)

        chunks = aretry_stream(attempt, self.retry_policy, self._closed_aware(used, True, kwargs),
                               held if whole else judge)
        try:
            async for chunk in chunks:
                yield _shaped(chunk, request)
        finally:  # closed early (break, aclose): the attempt and its HTTP stream are closed now, before aclose()
            await aclose_stream(chunks)  # returns, not left to asyncio's finalizer (review 146 #3)

    def _chunk_reader(self, request: ChatRequest) -> Any:
        """The reader a try's chunks pass through before the caller gets them (ChatOpenAI's reader of calls written
        as text), with ``feed(chunk)`` and ``finish()`` each giving the chunks to pass on; made again for each try.
        None (the default): the chunks as the codec gives them."""
        return None

    def _judge(self, request: ChatRequest) -> Handed:
        """The retry rule of a stream of ``request``: content as the caller of :meth:`~toolwire.models.base.
        BaseChatModel.stream` gets it, after the one-call filter that applies there (``parallel_tool_calls=False``,
        a structured output's model)."""
        if not self._keeps_one_call(request):
            return Handed()
        forced, output = _forced(request), self._one_call
        return Handed(lambda: stream_filter(forced, output))


def _read(reader: Any, chunk: AIMessageChunk) -> Iterator[AIMessageChunk] | tuple[AIMessageChunk, ...]:
    """``chunk`` through a try's :meth:`SDKChatModel._chunk_reader` (none: as it is)."""
    return reader.feed(chunk) if reader is not None else (chunk,)

