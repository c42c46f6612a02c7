"""Errors a reply reports, shared by the codecs.

* **A stream cut short**: each API ends a complete stream with a terminal event (the Responses API
  ``response.completed`` / ``response.incomplete`` / ``response.failed``, Gemini a chunk whose candidate has
  a ``finishReason``, or a ``promptFeedback.blockReason``). A stream that ends without one lost its end (a
  dropped connection, a proxy timeout): :func:`cut_short` is the retryable error the stream state raises
  then, rather than handing the partial text out as a complete reply.
* **An error event**: the error *type* or *code* of an error sent inside a stream that opened with HTTP 200
  (OpenAI ``data: {"error": {"type": "server_error"}}``, the Responses API ``error`` event and
  ``response.failed``'s ``error.code``) read as the HTTP status it stands for (:func:`error_status`), so the
  usual retry rules (429 and 5xx are retryable) apply to it.
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
