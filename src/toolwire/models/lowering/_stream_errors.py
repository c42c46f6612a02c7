"""Errors a reply reports, shared by the codecs.

* **A stream cut short**: each API ends a complete stream with a terminal event (the Responses API
  ``response.completed`` / ``response.incomplete`` / ``response.failed``, Gemini a chunk whose candidate has
  a ``finishReason``, or a ``promptFeedback.blockReason``). A stream that ends without one lost its end (a
  dropped connection, a proxy timeout): :func:`cut_short` is the retryable error the stream state raises
  then, rather than handing the partial text out as a complete reply.
* **An error event**: the error *type* or *code* of an error sent inside a stream that opened with HTTP 200
  (OpenAI ``data: {"error": {"type": "server_error"}}``, Anthropic ``event: error``, the Responses API ``error``
  event and ``response.failed``'s ``error.code``) read as the HTTP status it stands for (:func:`error_status`), so
  the usual retry rules (429 and 5xx are retryable) and hints (a context window too small, a key refused) apply to
  it.
* **Not a reply at all**: JSON of another shape (a gateway's ``{"status": "ok"}``, ``{}``, another API's reply,
  Chat Completions ``"choices": []``) where the provider's reply or stream was expected: the codec raises
  :class:`NotAReply` (:func:`not_a_reply`), and the model's driver turns it into the one ProviderError that says to
  check ``base_url`` and any proxy (:meth:`toolwire.models._sdk.SDKChatModel._read`), for invoke and stream alike.
"""

from __future__ import annotations

from typing import Any

from toolwire.errors import ProviderError

__all__ = ["NotAReply", "cut_short", "error_status", "not_a_reply"]

_STATUS = {
    "server_error": 500, "api_error": 500, "internal_error": 500, "internal_server_error": 500,
    "rate_limit_error": 429, "rate_limit_exceeded": 429, "rate_limit": 429, "tokens": 429, "requests": 429,
    "insufficient_quota": 429, "overloaded_error": 529, "overloaded": 529, "service_unavailable": 503,
    "timeout_error": 504, "timeout": 504,
}

_CLIENT_STATUS = {
    # Anthropic's error types ("Errors": one per HTTP status)
    "authentication_error": 401, "billing_error": 402, "permission_error": 403, "not_found_error": 404,
    "request_too_large": 413,
    # OpenAI's error codes ("Error codes"; the Responses API's response.failed codes), and vLLM's error types
    "invalid_api_key": 401, "model_not_found": 404, "context_length_exceeded": 400, "invalid_prompt": 400,
    "badrequesterror": 400, "notfounderror": 404,
}
"""Client-error types and codes, each the HTTP status the API answers it with (review 136 #10)."""

_GENERIC_STATUS = {"invalid_request_error": 400}
"""A type both APIs give many client errors: read only when no more specific type or code is given (OpenAI's refused
key is ``{"type": "invalid_request_error", "code": "invalid_api_key"}``, a 401)."""


def _kind(value: Any) -> str | None:
    return value.strip().lower() if isinstance(value, str) else None


def _http_status(value: Any) -> int | None:
    """``value`` as an HTTP error status (400 to 599): an int, or the same in digits in a string, as LiteLLM's proxy
    writes its errors' ``code`` (``"code": "401"``, review 310 #1); None for anything else."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() and len(value.strip()) == 3:
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 400 <= value < 600:
        return value
    return None


def error_status(*kinds: Any) -> int | None:
    """The HTTP status the error types or codes given stand for (``None`` when none does).

    Read in three passes, each in the order given: a code that is already an HTTP error status (an int from 400 to
    599, or those digits in a string: LiteLLM's proxy sends ``"code": "401"``; review 310 #1) is itself,
    ``server_error``/``api_error`` are 500, rate limits (``rate_limit_exceeded``,
    ``rate_limit_error``, and OpenAI's ``tokens``/``requests`` limit types) 429, ``overloaded_error`` 529; then the
    client errors: Anthropic's ``authentication_error`` 401, ``billing_error`` 402, ``permission_error`` 403,
    ``not_found_error`` 404, ``request_too_large`` 413, OpenAI's ``invalid_api_key`` 401, ``model_not_found`` 404,
    ``context_length_exceeded`` and ``invalid_prompt`` 400; last ``invalid_request_error``, 400.
    """
    for kind in kinds:
        if (status := _http_status(kind)) is not None:
            return status
        if _kind(kind) in _STATUS:
            return _STATUS[_kind(kind)]  # type: ignore[index]
    for table in (_CLIENT_STATUS, _GENERIC_STATUS):
        for kind in kinds:
            if _kind(kind) in table:
                return table[_kind(kind)]  # type: ignore[index]
    return None


def cut_short(provider: str, missing: str) -> ProviderError:
    """The retryable error of a stream that ended before its terminal event (``missing`` names it)."""
    return ProviderError(f"The stream ended before the reply was complete (no {missing} came).", provider=provider,
                         retryable=True, hint="Try the request again.")


class NotAReply(ValueError):
    """JSON that is not the provider's reply (its text says what came instead); the drivers make it the
    ProviderError that says to check ``base_url``, not retryable (the next try gets the same body)."""


def not_a_reply(data: Any, field: str, *, stream: bool = False) -> NotAReply:
    """The :class:`NotAReply` of ``data`` (a reply body, or a stream's last event), which lacks ``field``.

    Args:
        data: what came (a dict; its first keys are named, never its values, which may echo an API key).
        field: the field every reply of the API has (``"choices"``, ``"content"``...), missing or empty in ``data``.
        stream: ``data`` is the last of a stream's events, none of which had ``field``.
    """
    keys = [str(k) for k in data if not str(k).startswith("sdk_")] if isinstance(data, dict) else []
    where = "stream events" if stream else "JSON"
    if field in keys:
        return NotAReply(f"{where} whose {field!r} is empty or not a list")
    if not keys:  # {} (or keys an SDK's reader dropped)
        return NotAReply(f"{where} without {field!r}")
    listed = ", ".join(repr(k) for k in keys[:4]) + (", ..." if len(keys) > 4 else "")
    return NotAReply(f"{where} with {listed} but no {field!r}")
