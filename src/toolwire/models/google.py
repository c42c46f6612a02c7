"""``ChatGoogleGenAI``: Google's Gemini API through the official ``google-genai`` SDK.

Thin I/O over the official ``google-genai`` SDK (toolwire's ``google`` extra); the formats live in
:mod:`toolwire.models.lowering.gemini`.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import math
import os
import traceback
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, ClassVar, Self

from toolwire._gemini_tool_checks import check_allowed_names, check_tool_names, gemini_choice
from toolwire.errors import ProviderError, UserError
from toolwire.messages import AIMessage
from toolwire.models._retry import _clip, aclose_stream, api_key_hint, redact_url, status_error, transport_error
from toolwire.models._sdk import SDKChatModel
from toolwire.models.base import ChatRequest
from toolwire.models.lowering import gemini as codec
from toolwire.models.lowering._gemini_declarations import gemini_tools

__all__ = ["ChatGoogleGenAI"]

log = logging.getLogger("toolwire.providers")


class ChatGoogleGenAI(SDKChatModel):
    """A Gemini model (``POST /v1beta/models/{model}:generateContent``, ``:streamGenerateContent``).

    Args:
        model: e.g. ``"gemini-2.5-flash"`` (``model_name=``, LangChain's other name for it, is taken too).
        api_key: the key, as text or a pydantic ``SecretStr`` (default: ``GOOGLE_API_KEY``, else
            ``GEMINI_API_KEY``); never shown in reprs, logs or errors.
        base_url: another endpoint, such as a proxy (default: ``GOOGLE_GEMINI_BASE_URL``, else Google's).
        timeout: seconds one HTTP request may take before it fails and is retried (default 120).
        max_retries: retries after the first attempt, with backoff, on 429, 5xx, 408/409, connection errors and
            timeouts (default 2); then one :class:`~toolwire.errors.ProviderError`.
        retry_backoff: seconds before the first retry, doubled after each, with jitter (default 0.5).
        streaming: make ``invoke``/``ainvoke`` use the streaming API too, merging the chunks (default False).
        temperature: sampling temperature (Gemini takes 0 to 2); None (default): the API's own.
        max_tokens: the most tokens a reply may have (the API's ``max_output_tokens``); None (default): the API's.
        top_p: nucleus sampling, from 0 to 1; None (default): the API's own.
        stop: a string or a list of strings that end the reply (the API's ``stop_sequences``).
        seed: a whole number for repeatable sampling, as far as the API makes it so.
        model_kwargs: other ``GenerateContentConfig`` fields sent with every request, as google-genai names them,
            such as ``{"thinking_config": {"thinking_budget": 0}}`` (a dict). Of ``tool_config`` only the
            ``retrieval_config`` (the user's location, for the ``google_maps`` server tool: ``{"tool_config":
            {"retrieval_config": {"lat_lng": {"latitude": 48.85, "longitude": 2.35}}}}``) may be given (here or as a
            call's option), sent beside the function calling config ``tool_choice`` makes (review 303 #3).

    Per-call options (``invoke(..., temperature=..., max_tokens=...)``) override these.

    The key comes from ``api_key``, ``GOOGLE_API_KEY`` or ``GEMINI_API_KEY``. Thought signatures are kept
    on the reply (``provider_data``) and sent back unchanged. Gemini has no setting to forbid parallel
    calls: with ``parallel_tool_calls=False`` the first call of each reply is kept (the others are logged).

    Vertex AI is not supported: with ``GOOGLE_GENAI_USE_VERTEXAI`` (or ``GOOGLE_GENAI_USE_ENTERPRISE``) set true, which
    makes google-genai's own ``Client()`` talk to Vertex AI, the model is refused rather than sent to the Developer API.

    Raises:
        UserError: the ``google-genai`` package is missing, no key is set, ``GOOGLE_GENAI_USE_VERTEXAI`` asks for Vertex
            AI, or an option is of the wrong kind or out of range, or misspelled (the message names the close match:
            ``max_output_tokens`` is ``max_tokens``).
    """

    provider: ClassVar[str] = "google"
    label: ClassVar[str] = "a Gemini"
    server_tools: ClassVar[tuple[str | None, ...]] = ("google",)  # {"google_search": {}}, {"code_execution": {}}...
    key_env: ClassVar[tuple[str, ...]] = ("GOOGLE_API_KEY", "GEMINI_API_KEY")
    base_url_env: ClassVar[str] = "GOOGLE_GEMINI_BASE_URL"
    sdk_module: ClassVar[str] = "google.genai"
    extra: ClassVar[str] = "google"

    def __init__(self, model: str | None = None, **kwargs: Any) -> None:
        _refuse_vertex(type(self).__name__)
        super().__init__(model, **kwargs)

    def bind_tools(self, tools: Sequence[Any], **options: Any) -> Self:
        """:meth:`~toolwire.models.base.BaseChatModel.bind_tools` (same arguments), refusing a ``tool_choice`` that
        would force a server tool, which Gemini cannot (see :func:`~toolwire.models.lowering.gemini.check_tool_choice`),
        and a tool name Gemini refuses, here rather than at the first request (review 294 #3).

        Tools may also be given in Gemini's own shapes (review 298 #2): a google-genai ``FunctionDeclaration`` or its
        dict (``"parameters"`` in Gemini's ``Schema`` form, upper-case types such as ``"OBJECT"``, read as JSON
        Schema; ``"parameters_json_schema"`` taken as it is), a ``Tool`` or a ``{"function_declarations": [...]}``
        dict (one tool per declaration; its other fields, such as ``google_search``, as a server tool); see
        :mod:`toolwire.models.lowering._gemini_declarations`. So may ``tool_choice`` (review 298 #4): a list of names,
        ``{"mode": "AUTO" | "ANY" | "NONE", "allowed_function_names"?}`` or ``{"function_calling_config": {...}}``,
        read as a mode, one tool's name, or ``"required"`` when the names are every bound function tool
        (:func:`~toolwire._gemini_tool_checks.gemini_choice`); toolwire cannot force a call of only some of them. A
        name in those forms is a name, never a mode: a tool named ``"none"`` (or ``"auto"``, ``"any"``,
        ``"required"``) is forced when it is the one bound function tool, and refused otherwise (review 303 #1).

        Raises:
            SchemaError, UserError: as the base method raises them; SchemaError also for a function tool whose name
                Gemini refuses (a letter or ``_`` first, then at most 64 letters, digits, ``_ . : -``: the sentence
                the request would give); UserError also for a ``tool_choice`` naming a server tool, or
                ``"required"`` with only server tools bound, or Gemini ``allowed_function_names`` that are some of the
                bound function tools (two or more, not all; or one spelled as a mode, among other tools), or another
                Gemini mode than ``AUTO``/``ANY``/``NONE``.
        """
        given = options.get("tool_choice", "auto")
        choice, allowed = gemini_choice(given)
        if choice is not given:  # (names: checked against the bound tools first, in Gemini's words)
            options = {**options, "tool_choice": "auto" if allowed else choice}
        new = super().bind_tools(gemini_tools(tools), **options)
        if allowed:  # (every name bound, so the neutral choice, one of them or "required", is valid)
            check_allowed_names(given, allowed, new.tools)
            new.tool_choice = choice
        check_tool_names(new.tools)
        codec.check_tool_choice(new.tool_choice, new.tools)
        return new

    def _make_client(self, asynchronous: bool) -> Any:
        """The SDK client: the sync one, or the async one (``client.aio``).

        The sync client's HTTP library (httpx) applies ``timeout`` to each read, so a reply or a stream may last
        longer as long as its bytes keep coming. The async one uses aiohttp when it is installed, and google-genai
        gives aiohttp the timeout as ``ClientTimeout(total=...)`` on every request (no ``http_options`` setting
        changes that), which would cut a reply or stream that lasts longer than ``timeout`` in all. So the async
        client gets an aiohttp session of toolwire's (:func:`_read_bounded_session`) that bounds each read by
        ``timeout`` instead, as the sync client does (review 263 #3), and is closed with the client; without aiohttp
        the SDK's async httpx client gets ``timeout`` as the sync one does (httpx applies it to each read).
        :meth:`_endpoint` also bounds each await of a stream's chunks.
        """
        types = self.sdk.types
        # one try per call (the retry policy here is the only one): without retry_options the SDK's async
        # aiohttp client retries a failed connection once by itself, after sleeping 1-10 s
        once = {"retry_options": types.HttpRetryOptions(attempts=1)} if hasattr(types, "HttpRetryOptions") else {}
        session = _read_bounded_session(self.timeout) if asynchronous else None
        if session is not None:  # (its own session: the SDK's would bound the whole request)
            bound = {"headers": {"X-Server-Timeout": str(math.ceil(self.timeout))}, "aiohttp_client": session}
        else:
            bound = {"timeout": int(self.timeout * 1000)}
        options = types.HttpOptions(base_url=self.base_url, **bound, **once)
        assert self._api_key is not None
        client = self.sdk.Client(api_key=self._api_key.get(), vertexai=False, http_options=options)
        if not asynchronous:
            return client
        return client.aio if session is None else _WithSession(client.aio, session)

    def _endpoint(self, client: Any, stream: bool) -> Any:
        method = client.models.generate_content_stream if stream else client.models.generate_content
        if not inspect.iscoroutinefunction(method):  # the sync client: httpx bounds each read
            return method
        return _per_await(method, self.timeout, stream)

    def _lower(self, request: ChatRequest) -> dict[str, Any]:
        """The request's keyword arguments, their ``config`` checked as the SDK checks it before sending.

        Raises:
            UserError: the SDK's ``GenerateContentConfig`` refuses an option (a misspelt name, a value of the
                wrong type): it would refuse it on every try, before any request, so it is named here rather than
                retried as a failed reply. So is a conversation with nothing to send but a system instruction (no
                user or model turn: the SDK's "contents are required."; review 136 #9).
        """
        kwargs = codec.lower_request(request, self.model, self.options)
        if not kwargs.get("contents"):
            raise UserError("Gemini needs at least one user message with text or content, and a system message alone "
                            "(or an empty question) is not one: pass the question as a user message.")
        config_type = getattr(self.sdk.types, "GenerateContentConfig", None)
        if config_type is not None and hasattr(config_type, "model_validate"):
            try:
                config_type.model_validate(kwargs.get("config") or {})
            except ValueError as exc:  # pydantic's ValidationError
                raise UserError(_refused_options(exc)) from None
        return kwargs

    def _parse(self, raw: Any, request: ChatRequest) -> AIMessage:
        return codec.parse_response(raw, single_call=request.parallel_tool_calls is False,
                                    tool_names=request.tool_parameters,
                                    json_text=codec.json_text_plan(request.tools))

    def _stream_state(self, request: ChatRequest) -> Any:
        return codec.StreamState(single_call=request.parallel_tool_calls is False,
                                 tool_names=request.tool_parameters,
                                 json_text=codec.json_text_plan(request.tools))

    def _translate(self, exc: BaseException) -> ProviderError | None:
        """The one place where ``google-genai`` (and its HTTP clients') exceptions become ProviderError.

        The SDK lets its HTTP client's errors through: ``httpx`` for sync calls, and ``aiohttp`` (when it
        is installed) for async ones; both are read the same way, so sync and async calls fail alike.

        Raises:
            UserError: the SDK refused the request before sending it (a ``ValueError`` raised while it turned the
                request into its wire form, see :func:`_refused_before_sending`): not a body the server sent, so
                not read as one, and not retried.
        """
        errors = self.sdk.errors
        if _refused_before_sending(exc, errors):  # not a body that came back: nothing was sent (review 136 #9)
            raise UserError(f"Gemini's SDK refused to send the request ({_first_line(exc)}): check the conversation "
                            "and the options given to the model, since every try would be refused alike.") from None
        if isinstance(exc, errors.APIError):
            message = _clip(str(getattr(exc, "message", None) or exc))  # an HTML error page as one line of its text
            code = getattr(exc, "code", None)
            if not isinstance(code, int):
                return ProviderError(redact_url(message), provider=self.provider)
            # a key Google refuses comes as 400 INVALID_ARGUMENT (not 401), its ErrorInfo saying API_KEY_INVALID
            hint = api_key_hint(_KEY_ENV) if any(r.startswith("API_KEY_") for r in _error_reasons(exc)) else None
            status = getattr(exc, "status", None)  # the google.rpc status name, e.g. "FAILED_PRECONDITION"
            return status_error(self.provider, code, message, key_env=_KEY_ENV, hint=hint,
                                code=status if isinstance(status, str) else None)
        return transport_error(self.provider, exc, timeout=self.timeout, base_url=self.base_url)


_KEY_ENV = " or ".join(ChatGoogleGenAI.key_env)
_ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"


def _error_reasons(exc: BaseException) -> list[str]:
    """The ``reason`` of each ``google.rpc.ErrorInfo`` detail in a Google API error body (``exc.details``, the
    decoded body: ``{"error": {"code": 400, "status": "INVALID_ARGUMENT", "details": [{"@type":
    "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", ...}]}}``), e.g.
    ``["API_KEY_INVALID"]``; ``[]`` when it gives none."""
    body = getattr(exc, "details", None)
    if isinstance(body, list) and len(body) == 1:  # some Google endpoints wrap the error in a list
        body = body[0]
    error = body.get("error") if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    return [str(item["reason"]) for item in (details if isinstance(details, list) else ())
            if isinstance(item, dict) and item.get("@type") == _ERROR_INFO and isinstance(item.get("reason"), str)]


_REQUEST_BUILDERS = ("_to_mldev", "_to_vertex")  # google-genai's functions that write a request in its wire form


def _refused_before_sending(exc: BaseException, errors: Any) -> bool:
    """Whether ``exc`` is google-genai refusing a request before sending it: a ``ValueError`` (not a JSON decoding
    error, not the SDK's ``UnknownApiResponseError`` for a body it could not read, nor raised from either) raised
    in ``google.genai._transformers`` or in one of the SDK's functions that write the request (``..._to_mldev``),
    such as ``ValueError("contents are required.")``."""
    unknown = getattr(errors, "UnknownApiResponseError", ())
    if not isinstance(exc, ValueError) or isinstance(exc, json.JSONDecodeError | unknown):
        return False
    if isinstance(exc.__cause__ or exc.__context__, json.JSONDecodeError):
        return False
    frames = traceback.extract_tb(exc.__traceback__)
    return any(f.filename.replace("\\", "/").endswith("google/genai/_transformers.py")
               or f.name.endswith(_REQUEST_BUILDERS) for f in frames)


def _first_line(exc: BaseException) -> str:
    """``exc``'s first line of text (its class name when it has none), at most 160 characters."""
    text = str(exc).strip()
    return text.splitlines()[0][:160] if text else type(exc).__name__


def _refused_options(exc: ValueError) -> str:
    """One sentence naming the options the SDK's ``GenerateContentConfig`` refused (``exc``: pydantic's
    ValidationError; its ``errors()`` give each field's location and reason)."""
    try:
        problems = [(".".join(str(part) for part in error.get("loc", ())), str(error.get("msg", "")))
                    for error in exc.errors()]  # type: ignore[attr-defined]
    except Exception:  # not pydantic's: its first line is all there is
        problems = [("", str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)]
    shown = "; ".join(f"{where}: {why}" if where else why for where, why in problems[:5])
    return (f"Gemini's SDK refuses the request's options ({shown}): check their names and values in the model's "
            "options or the keywords of invoke().")


def _per_await(method: Callable[..., Awaitable[Any]], timeout: float, stream: bool) -> Callable[..., Awaitable[Any]]:
    """``method`` (an async SDK call), for a stream with the wait for its opening and for each chunk bounded by
    ``timeout`` seconds (:class:`_ChunkBound`); a whole reply's reads are bounded by the HTTP library, each on its
    own (:func:`_read_bounded_session`), so a reply that keeps coming may take longer in all, as with the sync client
    (review 263 #3: the whole call was bounded here). Running out raises :class:`TimeoutError`, which the retry
    policy reads as a timeout (retryable until the stream has handed out content)."""
    if not stream:
        return method

    async def call(**kwargs: Any) -> Any:
        async with asyncio.timeout(timeout):
            result = await method(**kwargs)
        return _ChunkBound(result, timeout)

    return call


_READ_BUFFER = 2**22  # (google-genai's own session's read_bufsize: a stream line may be long)


def _read_bounded_session(timeout: float) -> Any | None:
    """An aiohttp ``ClientSession`` for google-genai's async client (``HttpOptions(aiohttp_client=...)``), set up as
    the SDK sets up its own (proxy variables read, no limit on connections), whose every request is bounded by
    ``timeout`` seconds for each read of its answer (``ClientTimeout(sock_read=...)``) and for connecting and
    waiting for its headers, instead of the SDK's ``ClientTimeout(total=...)`` for the whole; None when aiohttp is
    not installed (the SDK then uses httpx)."""
    try:
        import aiohttp
    except ImportError:
        return None
    bound = aiohttp.ClientTimeout(total=None, sock_connect=timeout, sock_read=timeout)
    return _session_class(aiohttp)(connector=aiohttp.TCPConnector(limit=0), trust_env=True, read_bufsize=_READ_BUFFER,
                                   timeout=bound)


_SESSION_CLASS: list[type] = []


def _session_class(aiohttp: Any) -> type:
    """The ``ClientSession`` subclass of :func:`_read_bounded_session` (made once: aiohttp is imported only when an
    async client is made; its warning that subclassing is discouraged is silenced, as google-genai's own subclass
    has it). Each request gets the session's own ``timeout`` (the bound on each read) in place of the SDK's; the
    session keeps no attribute of toolwire's, which aiohttp's debug mode warns about (review 270 #2)."""
    if _SESSION_CLASS:
        return _SESSION_CLASS[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)

        class ReadBoundSession(aiohttp.ClientSession):  # type: ignore[misc,name-defined]
            async def request(self, method: str, url: Any, **kwargs: Any) -> Any:  # type: ignore[override]
                # (google-genai awaits the request: each read bounded, and the wait for the headers)
                kwargs["timeout"] = bound = self.timeout
                async with asyncio.timeout(bound.sock_read):
                    return await self._request(method, url, **kwargs)

    _SESSION_CLASS.append(ReadBoundSession)
    return ReadBoundSession


class _WithSession:
    """google-genai's async client (``client.aio``) with the aiohttp session toolwire gave it, which the SDK leaves
    open (a session given to it is the caller's to close): closing this closes both. Anything else is the client's
    own."""

    def __init__(self, client: Any, session: Any) -> None:
        self._client = client
        self._session = session

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    async def aclose(self) -> None:
        """Close the SDK client, then the session (each failure logged at DEBUG, not raised)."""
        await aclose_stream(self._client)
        await aclose_stream(self._session)

    def drop_closed(self) -> None:
        """Close the session of a loop that was closed without shutting down (so :meth:`aclose` never ran), here and
        now and without I/O: on a closed loop aiohttp only marks the session and its connector closed, so neither
        reports "Unclosed client session" or "Unclosed connector" when collected (review 270 #1); their sockets close
        as they are collected, as with the SDK's own session. Called by
        :func:`toolwire.models._loop_clients._quiet`; a failure is logged at DEBUG, not raised."""
        from toolwire.models._loop_clients import step_once

        step_once(self._session.close(), "dropping the aiohttp session of a closed loop failed")


class _ChunkBound:
    """An SDK stream whose every chunk must come within ``timeout`` seconds of the one before (the time a read may
    take in the sync client), however long the whole stream lasts. Closing it closes the SDK's stream."""

    def __init__(self, stream: Any, timeout: float) -> None:
        self._stream = stream
        self._chunks: AsyncIterator[Any] = stream.__aiter__()
        self._timeout = timeout

    def __aiter__(self) -> _ChunkBound:
        return self

    async def __anext__(self) -> Any:
        async with asyncio.timeout(self._timeout):
            return await self._chunks.__anext__()

    async def aclose(self) -> None:
        """Close the SDK's stream and its HTTP response, now.

        google-genai's async stream is an async generator over inner ones, the innermost holding the HTTP
        response; closing the outer one leaves the inner ones suspended (an ``async for`` left early does not close
        what it iterates) until they are collected, and the response open while the server goes on sending (review
        142 #4; the sync stream's generators are closed as their last reference goes). So the responses held by the
        suspended generators (:func:`_held_by`) are closed first, then the generators, innermost first, each
        failure logged at DEBUG (:func:`~toolwire.models._retry.aclose_stream`).
        """
        generators, responses = _held_by(self._stream)
        for response in responses:
            await aclose_stream(response)  # (aiohttp's ClientResponse.close(), httpx's Response.aclose())
        for generator in reversed(generators):
            await aclose_stream(generator)
        if not generators:
            await aclose_stream(self._stream if hasattr(self._stream, "aclose") else self._chunks)


def _held_by(stream: Any, limit: int = 32) -> tuple[list[Any], list[Any]]:
    """The suspended async generators of an SDK stream, outermost first (``stream`` itself, then those each one holds
    in its local variables), and the HTTP responses (the ``response_stream`` of google-genai's ``HttpResponse``) they
    hold; at most ``limit`` generators are looked at."""
    generators: list[Any] = []
    responses: list[Any] = []
    todo, seen = [stream], set()
    while todo and len(seen) < limit:
        item = todo.pop(0)
        if id(item) in seen or not inspect.isasyncgen(item) or item.ag_frame is None:
            continue
        seen.add(id(item))
        generators.append(item)
        for value in list(item.ag_frame.f_locals.values()):
            if inspect.isasyncgen(value):
                todo.append(value)
            elif type(value).__name__ == "HttpResponse":
                raw = getattr(value, "response_stream", None)
                if raw is not None and not isinstance(raw, str | bytes | list) and all(raw is not r for r in responses):
                    responses.append(raw)
    return generators, responses


def _refuse_vertex(owner: str) -> None:
    """Refuse the Vertex AI setting google-genai reads (``GOOGLE_GENAI_USE_ENTERPRISE``, else
    ``GOOGLE_GENAI_USE_VERTEXAI``, true when ``"true"`` or ``"1"`` in any case: ``google/genai/_api_client.py``), which
    toolwire does not follow: its requests would go to the Gemini Developer API instead, under other data terms and
    quota, without a word (review 314 #5).

    Raises:
        UserError: one of them is set true; the sentence says Vertex AI is not supported and how to go on.
    """
    for name in ("GOOGLE_GENAI_USE_ENTERPRISE", "GOOGLE_GENAI_USE_VERTEXAI"):
        value = os.environ.get(name)
        if value is None:
            continue
        if value.lower() in ("true", "1"):
            raise UserError(f"Vertex AI is not supported by {owner}, yet {name} is set to {value!r}: unset it (or set "
                            "it to false) to send the requests to the Gemini Developer API with a key from "
                            "GOOGLE_API_KEY or GEMINI_API_KEY.")
        return
