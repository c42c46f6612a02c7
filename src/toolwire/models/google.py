"""``ChatGoogleGenAI``: Google's Gemini API through the official ``google-genai`` SDK.

Thin I/O (``pip install 'toolwire[google]'``); the formats live in :mod:`toolwire.models.lowering.gemini`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolwire.errors import ProviderError, UserError
from toolwire.messages import AIMessage
from toolwire.models._retry import redact_url, status_error, transport_error
from toolwire.models._sdk import SDKChatModel
from toolwire.models.base import ChatRequest
from toolwire.models.lowering import gemini as codec

__all__ = ["ChatGoogleGenAI"]


class ChatGoogleGenAI(SDKChatModel):
    """A Gemini model (``POST /v1beta/models/{model}:generateContent``, ``:streamGenerateContent``).

    Args:
        model: e.g. ``"gemini-2.5-flash"``.
        **kwargs: see :class:`~toolwire.models._sdk.SDKChatModel` (``api_key``, ``base_url``, ``timeout``
            in seconds, ``max_retries``, ``retry_backoff``, ``streaming``, ``temperature``, ``max_tokens``,
            ``top_p``, ``stop``, ``seed``, ``model_kwargs`` such as ``{"thinking_config": {...}}``).

    The key comes from ``api_key``, ``GOOGLE_API_KEY`` or ``GEMINI_API_KEY``. Thought signatures are kept
    on the reply (``provider_data``) and sent back unchanged. Gemini has no setting to forbid parallel
    calls: with ``parallel_tool_calls=False`` the first call of each reply is kept (the others are logged).

    Raises:
        UserError: the ``google-genai`` package is missing, or no key is set.
    """

    provider: ClassVar[str] = "google"
    label: ClassVar[str] = "a Gemini"
    server_tools: ClassVar[tuple[str | None, ...]] = ("google",)  # {"google_search": {}}, {"code_execution": {}}...
    key_env: ClassVar[tuple[str, ...]] = ("GOOGLE_API_KEY", "GEMINI_API_KEY")
    base_url_env: ClassVar[str] = "GOOGLE_GEMINI_BASE_URL"
    sdk_module: ClassVar[str] = "google.genai"
    extra: ClassVar[str] = "google"

    def _make_client(self, asynchronous: bool) -> Any:
        types = self.sdk.types
        # one try per call (the retry policy here is the only one): without retry_options the SDK's async
        # aiohttp client retries a failed connection once by itself, after sleeping 1-10 s
        once = {"retry_options": types.HttpRetryOptions(attempts=1)} if hasattr(types, "HttpRetryOptions") else {}
        options = types.HttpOptions(base_url=self.base_url, timeout=int(self.timeout * 1000), **once)
        assert self._api_key is not None
        client = self.sdk.Client(api_key=self._api_key.get(), vertexai=False, http_options=options)
        return client.aio if asynchronous else client

    def _endpoint(self, client: Any, stream: bool) -> Any:
        return client.models.generate_content_stream if stream else client.models.generate_content

    def _lower(self, request: ChatRequest) -> dict[str, Any]:
        """The request's keyword arguments, their ``config`` checked as the SDK checks it before sending.

        Raises:
            UserError: the SDK's ``GenerateContentConfig`` refuses an option (a misspelt name, a value of the
                wrong type): it would refuse it on every try, before any request, so it is named here rather than
                retried as a failed reply.
        """
        kwargs = codec.lower_request(request, self.model, self.options)
        config_type = getattr(self.sdk.types, "GenerateContentConfig", None)
        if config_type is not None and hasattr(config_type, "model_validate"):
            try:
                config_type.model_validate(kwargs.get("config") or {})
            except ValueError as exc:  # pydantic's ValidationError
                raise UserError(_refused_options(exc)) from None
        return kwargs

    def _parse(self, raw: Any, request: ChatRequest) -> AIMessage:
        return codec.parse_response(raw, single_call=request.parallel_tool_calls is False,
                                    tool_names=[t.name for t in request.tools],
                                    json_text=codec.json_text_plan(request.tools))

    def _stream_state(self, request: ChatRequest) -> Any:
        return codec.StreamState(single_call=request.parallel_tool_calls is False,
                                 tool_names=[t.name for t in request.tools],
                                 json_text=codec.json_text_plan(request.tools))

    def _translate(self, exc: BaseException) -> ProviderError | None:
        """The one place where ``google-genai`` (and its HTTP clients') exceptions become ProviderError.

        The SDK lets its HTTP client's errors through: ``httpx`` for sync calls, and ``aiohttp`` (when it
        is installed) for async ones; both are read the same way, so sync and async calls fail alike.
        """
        errors = self.sdk.errors
        if isinstance(exc, errors.APIError):
            message = str(getattr(exc, "message", None) or exc)
            code = getattr(exc, "code", None)
            if not isinstance(code, int):
                return ProviderError(redact_url(message), provider=self.provider)
            return status_error(self.provider, code, message, key_env="GOOGLE_API_KEY or GEMINI_API_KEY")
        return transport_error(self.provider, exc, timeout=self.timeout, base_url=self.base_url)


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
