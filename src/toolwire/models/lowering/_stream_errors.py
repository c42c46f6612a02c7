"""Errors a streamed reply reports, shared by the OpenAI and Gemini codecs.

* **A stream cut short**: each API ends a complete stream with a terminal event (the Responses API
  ``response.completed`` / ``response.incomplete`` / ``response.failed``, Gemini a chunk whose candidate has
  a ``finishReason``, or a ``promptFeedback.blockReason``). A stream that ends without one lost its end (a
  dropped connection, a proxy timeout): :func:`cut_short` is the retryable error the stream state raises
  then, rather than handing the partial text out as a complete reply.
* **An error event**: the error *type* or *code* of an error sent inside a stream that opened with HTTP 200
  (OpenAI ``data: {"error": {"type": "server_error"}}``, the Responses API ``error`` event and
  ``response.failed``'s ``error.code``) read as the HTTP status it stands for (:func:`error_status`), so the
  usual retry rules (429 and 5xx are retryable) apply to it.
"""

from __future__ import annotations

from typing import Any

from toolwire.errors import ProviderError

__all__ = ["cut_short", "error_status"]

_STATUS = {
    "server_error": 500, "api_error": 500, "internal_error": 500, "internal_server_error": 500,
    "rate_limit_error": 429, "rate_limit_exceeded": 429, "rate_limit": 429, "tokens": 429, "requests": 429,
    "insufficient_quota": 429, "overloaded_error": 529, "overloaded": 529, "service_unavailable": 503,
    "timeout_error": 504, "timeout": 504,
}


def error_status(*kinds: Any) -> int | None:
    """The HTTP status of the first error type or code given that names one (``None`` when none does).

    ``server_error``/``api_error`` are 500, rate limits (``rate_limit_exceeded``, ``rate_limit_error``, and
    OpenAI's ``tokens``/``requests`` limit types) 429, ``overloaded_error`` 529; a code that is already an
    HTTP error status (an int from 400 to 599) is itself.
    """
    for kind in kinds:
        if isinstance(kind, int) and not isinstance(kind, bool) and 400 <= kind < 600:
            return kind
        if isinstance(kind, str) and kind.strip().lower() in _STATUS:
            return _STATUS[kind.strip().lower()]
    return None


def cut_short(provider: str, missing: str) -> ProviderError:
    """The retryable error of a stream that ended before its terminal event (``missing`` names it)."""
    return ProviderError(f"The stream ended before the reply was complete (no {missing} came).", provider=provider,
                         retryable=True, hint="Try the request again.")
