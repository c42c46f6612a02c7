"""Retries with exponential backoff and jitter, shared by the hosted providers.

A provider gives one *translator* ``translate(exc) -> ProviderError | None``: the single place where its
SDK's exceptions become :class:`~toolwire.errors.ProviderError` (with ``status`` and ``retryable``);
``None`` means "not an SDK error" and the exception propagates unchanged. A ProviderError that an attempt raised
itself (a codec's, read from the reply) goes through the translator too, which masks the API key in it.
Retried: HTTP 408, 409, 429 and 5xx, connection errors and timeouts, unless the response's ``x-should-retry`` header
says otherwise (``true`` or ``false``, obeyed first, as the OpenAI and Anthropic SDKs do). A ``Retry-After`` header
(seconds or an HTTP-date) is honoured up to ``max_delay``. When the tries run out, one ProviderError says which
provider, the status, the server's message and how many attempts were made.

Streams are retried until they have handed content (text, a tool-call piece) to the caller: the opening
events (``response.created``, ``message_start``, pings) bring none, so an error event or a broken connection
right after them is retried as the same failure of a call without a stream is. After content, a retry would
repeat it; a later failure (such as a connection that drops mid-stream) ends the stream in one ProviderError.

The HTTP clients' own exceptions that an SDK lets through (``httpx``, ``aiohttp``) are read by
:func:`transport_error`, by class name and module, so no HTTP library is imported here. Credentials in a
URL (``http://user:token@host``) are masked (:func:`redact_url`) in every message built here. A translated
error is raised ``from`` the SDK's exception (kept for debugging: its class, status, request id), unless the
translator hid it (:func:`hide_cause`) because its text would show a secret.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import email.utils
import logging
import math
import random
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, TypeVar

from toolwire._printing import safe_text
from toolwire._secrets import redact_url
from toolwire.errors import ProviderError
from toolwire.models._proxy_env import proxy_failure
from toolwire.models._status_hints import (
    _RETRY_ADVICE,
    _TIMEOUT_ADVICE,
    BILLING_CODES,
    NOT_FOUND_HINT,
    SERVER_FAILED_HINT,
    api_key_hint,
    billing_code,
    named_field,
    status_hint,
)
from toolwire.models._tls_errors import certificate_failure

__all__ = ["BILLING_CODES", "NOT_FOUND_HINT", "SERVER_FAILED_HINT", "RetryPolicy", "aclose_stream", "api_key_hint",
           "aretry_stream", "awith_retries", "body_message", "close_stream", "error_code", "error_message",
           "hide_cause", "redact_url", "retry_after", "retry_stream", "status_error", "transport_error", "with_retries"]

log = logging.getLogger("toolwire.providers")
T = TypeVar("T")
Translate = Callable[[BaseException], "ProviderError | None"]

RETRYABLE_STATUS = frozenset({408, 409, 429})

_HTTP_LIBRARIES = frozenset({"httpx", "httpx2", "httpcore", "aiohttp"})


@dataclasses.dataclass(frozen=True)
class RetryPolicy:
    """How to retry a failed provider call.

    Attributes:
        max_retries: retries after the first attempt (0 = try once).
        initial_delay: seconds before the first retry (a model's ``retry_backoff``); each next one waits
            ``multiplier`` times longer, up to the longest wait.
        max_delay: the longest wait in seconds (also caps a server's ``Retry-After``), unless ``initial_delay`` is
            longer: then that is the longest wait, so a ``retry_backoff`` above ``max_delay`` is kept, not lowered
            (``retry_backoff=60``: about 60 s before each retry; review 263 #2).
        multiplier: backoff factor.
        jitter: each wait is scaled by a random factor in ``[1 - jitter, 1 + jitter]``, so many clients
            that failed together do not retry together; the longest wait still holds after it.
    """

    max_retries: int = 2
    initial_delay: float = 0.5
    max_delay: float = 20.0
    multiplier: float = 2.0
    jitter: float = 0.25

    def delay(self, retry: int, server_hint: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (1-based): ``server_hint`` (the server's ``Retry-After``, in
        seconds) when given, else the backoff with jitter; either at most the longest wait (``max_delay``, or
        ``initial_delay`` when that is longer)."""
        longest = max(self.max_delay, self.initial_delay)
        if server_hint is not None and server_hint >= 0:
            return min(server_hint, longest)
        base = min(self._grown(retry - 1, longest), longest)
        return min(max(0.0, base * random.uniform(1 - self.jitter, 1 + self.jitter)), longest)

    def _grown(self, steps: int, longest: float) -> float:
        """``initial_delay`` times ``multiplier`` to the power ``steps``, the power worked out only as far as the wait
        can still grow below ``longest``: a late retry of a large ``max_retries`` waits the longest wait instead of
        overflowing (``2.0 ** 1024``; review 270 #4)."""
        if self.initial_delay <= 0:
            return 0.0
        if self.multiplier > 1:  # (one step past the one that reaches ``longest``, against rounding)
            steps = min(steps, max(0, math.ceil(math.log(longest / self.initial_delay, self.multiplier))) + 1)
        try:
            return float(self.initial_delay * self.multiplier ** steps)
        except OverflowError:  # (a multiplier so large that even one more step overflows)
            return longest


_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)s\s*$")  # a google.protobuf.Duration in JSON: "7s", "0.5s"
_RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"


def _http_date(value: Any) -> datetime.datetime | None:
    """An HTTP-date (``Wed, 21 Oct 2015 07:28:00 GMT``, RFC 9110 section 5.6.7) as an aware datetime, else None."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        found = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return found if found.tzinfo is not None else found.replace(tzinfo=datetime.UTC)  # "-0000": UTC


def _header_wait(exc: BaseException) -> float | None:
    """The wait a response's headers ask for: ``retry-after-ms`` (OpenAI's), else ``Retry-After`` as seconds or
    as an HTTP-date (``Retry-After = HTTP-date / delay-seconds``, RFC 9110 section 10.2.3), counted from the
    response's ``Date`` when it has one (the server's clock, so a skewed local clock does not matter), else from
    now. A date already past gives ``None`` (no wait asked for: the usual backoff applies)."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return float(ms) / 1000
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return float(value)
        except ValueError:
            pass
        when = _http_date(value)
        if when is None:
            return None
        sent = _http_date(headers.get("date")) or datetime.datetime.now(datetime.UTC)
        wait = (when - sent).total_seconds()
        return wait if wait > 0 else None
    except (TypeError, ValueError, AttributeError):
        return None


def _body_wait(exc: BaseException) -> float | None:
    """The ``retryDelay`` of a ``google.rpc.RetryInfo`` detail in the error body (Google's error model: Gemini's
    429 says when to try again there, ``{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "details":
    [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}]}}``; Gemini API reference,
    "Troubleshooting", and ``google/rpc/error_details.proto``), in seconds."""
    body = getattr(exc, "details", None)  # google-genai's APIError: the decoded error body
    if body is None:
        body = getattr(exc, "body", None)  # the OpenAI and Anthropic SDKs' (a proxy may pass Google's through)
    error = body.get("error") if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    for detail in details if isinstance(details, list) else ():
        if isinstance(detail, dict) and detail.get("@type") == _RETRY_INFO:
            delay = detail.get("retryDelay")
            found = _DURATION.match(delay) if isinstance(delay, str) else None
            if found:
                return float(found.group(1))
            if isinstance(delay, dict):  # the Duration as an object ({"seconds", "nanos"}), as some gateways send it
                try:
                    return float(delay.get("seconds") or 0) + float(delay.get("nanos") or 0) / 1e9
                except (TypeError, ValueError):
                    return None
    return None


def retry_after(exc: BaseException) -> float | None:
    """How long the server asked to wait before the next try, in seconds, if it said.

    Read from the HTTP response's ``retry-after-ms`` or ``Retry-After`` header (seconds, or an HTTP-date such as
    ``Wed, 21 Oct 2015 07:28:00 GMT``, counted from the response's ``Date``), else from the error body's
    ``google.rpc.RetryInfo`` ``retryDelay`` (``"7s"``), where Gemini gives it. :meth:`RetryPolicy.delay` caps it
    at the longest wait (``max_delay``, or ``initial_delay`` when that is longer).

    Args:
        exc: an SDK error (its ``response`` headers; its ``details`` or ``body``, the decoded error body).

    Returns:
        The wait in seconds, or ``None`` when the server gave none (or one that cannot be read).
    """
    found = _header_wait(exc)
    return found if found is not None else _body_wait(exc)


_MAX_MESSAGE = 500
_TAG = re.compile(r"<[^<>]*>")  # (not "<[^>]*>": from every "<" with no ">" after it, that scanned to the end)


def _clip(text: str) -> str:
    """One line of at most ``_MAX_MESSAGE`` characters (an HTML error page loses its tags), URL credentials
    masked before it is cut (a cut could leave a password without the ``@`` that marks it)."""
    text = redact_url(text)
    if text.lstrip().startswith("<"):
        text = _TAG.sub(" ", text)
    text = " ".join(text.split())
    return text if len(text) <= _MAX_MESSAGE else text[:_MAX_MESSAGE - 1] + "…"


def _validation_errors(items: list[Any]) -> str:
    """FastAPI / pydantic validation errors ``[{"loc": ["body", "x"], "msg", "type"}]`` as
    ``body.x: msg; ...`` (the first five, then how many more)."""
    shown = []
    for item in items[:5]:
        if isinstance(item, dict) and "msg" in item:
            loc = ".".join(str(p) for p in item.get("loc") or ())
            shown.append(f"{loc}: {item['msg']}" if loc else str(item["msg"]))
        else:
            shown.append(str(item))
    more = f" (and {len(items) - 5} more)" if len(items) > 5 else ""
    return "; ".join(shown) + more


def body_message(body: Any, depth: int = 0) -> str | None:
    """The server's own message in a decoded error body (text, a list of validation errors, or a dict whose
    ``error``, ``message`` or ``detail`` holds one, at most 4 levels deep), cut to 500 characters; None without one.
    A dict's ``param`` (OpenAI's error object: the request field the error is about) is named after its message when
    the message does not name it (``... (field: reasoning.effort)``: :func:`~toolwire.models._status_hints.
    named_field`; review 290 #1). ``depth``: how deep the search already is."""
    if isinstance(body, str):
        return _clip(body) or None
    if isinstance(body, list):
        return _clip(_validation_errors(body)) if body else None
    if isinstance(body, dict) and depth < 4:
        for key in ("error", "message", "detail"):
            found = body_message(body.get(key), depth + 1)
            if found:
                return found if key == "error" else named_field(found, body.get("param"))
    return None


def error_message(exc: BaseException) -> str:
    """The server's own message of an SDK status error, else ``str(exc)``.

    Read from the error body (the SDKs give the decoded JSON, or the text when it is not JSON), in these
    shapes: ``{"error": {"message"}}`` (OpenAI, vLLM, llama.cpp), ``{"error": "<text>"}`` (LM Studio, TGI,
    Ollama), ``{"message": "<text>"}`` and ``{"object": "error", "message": {"detail": [...]}}`` (old vLLM,
    Mistral), ``{"detail": [{"loc", "msg"}]}`` (FastAPI validation, shown as ``body.field: msg``),
    ``{"detail": "<text>"}``, and a plain-text or HTML body (shown as one line, cut at 500 characters).
    """
    found = body_message(getattr(exc, "body", None))
    return found or str(getattr(exc, "message", None) or exc)


def error_code(exc: BaseException) -> str | None:
    """The code (else the type) of an SDK error, as its body gives it: OpenAI's ``{"error": {"code":
    "insufficient_quota", "type": ...}}`` (the ``openai`` SDK also sets them as ``exc.code`` and ``exc.type``);
    ``None`` when it gives neither as text."""
    body = getattr(exc, "body", None)
    error = body.get("error") if isinstance(body, dict) and isinstance(body.get("error"), dict) else body
    found = [error.get("code"), error.get("type")] if isinstance(error, dict) else []
    for value in (*found, getattr(exc, "code", None), getattr(exc, "type", None)):
        if isinstance(value, str) and value:
            return value
    return None


def stream_error_status(exc: BaseException) -> int | None:
    """The HTTP status an error *event* stands for, when an SDK raises it with the 200 of the stream that
    carried it: Anthropic sends ``event: error`` with ``{"error": {"type": "overloaded_error"}}`` after a 200
    (Messages API "Streaming messages", error events), OpenAI a ``data: {"error": {"type": "server_error"}}``
    line; read by :func:`toolwire.models.lowering._stream_errors.error_status` (529, 429, 500...), None when the
    body says nothing of the kind."""
    from toolwire.models.lowering._stream_errors import error_status

    body = getattr(exc, "body", None)
    error = body.get("error") if isinstance(body, dict) else None
    return error_status(error.get("type"), error.get("code")) if isinstance(error, dict) else None


def status_error(provider: str, status: int | None, message: str, *, key_env: str = "",
                 base_url: str | None = None, hint: str | None = None, code: Any = None) -> ProviderError:
    """Build the ProviderError for an HTTP status (``None``: no response, a connection failure or timeout),
    with ``retryable`` set and a hint that says what to do (``hint``, when given, instead of the status's
    own; its ``api_advice`` is the clause that names ``max_retries`` or ``timeout``). Credentials in URLs are
    masked. A 400 (or 413, 422) that says the request is longer than the model's context (``code``
    ``context_length_exceeded``, "prompt is too long"...) gets the hint to shorten the conversation; any other 413
    (a body-size limit: Anthropic's ``request_too_large``, nginx, a proxy) the hint to send less or raise the limit.

    ``code`` is the error body's code or type, when the caller read one (OpenAI's ``code``, Anthropic's type,
    Gemini's ``google.rpc`` status name): a billing code (:data:`BILLING_CODES`: OpenAI's ``insufficient_quota``,
    sent with status 429, Anthropic's ``billing_error``) is not retryable, and its hint says to add credit rather
    than to wait. The hint fits the error, not only its status (:func:`~toolwire.models._status_hints.status_hint`:
    a 402 or Anthropic's "credit balance is too low" says to add credit, a location the provider does not serve
    and Gemini's ``FAILED_PRECONDITION`` say so; review 263 #1)."""
    if billing_code(code):
        return ProviderError(redact_url(message), provider=provider, status=status, retryable=False,
                             hint=hint or status_hint(status or 402, key_env, message, code))
    message = redact_url(message)
    base_url = redact_url(base_url) if base_url else None
    if status is None:
        where = f" {base_url}" if base_url else ""
        if hint is None:
            hint = f"Check the network and that the server{where} is running{_TIMEOUT_ADVICE}."
        return ProviderError(message, provider=provider, status=None, retryable=True, hint=hint,
                             api_advice=_TIMEOUT_ADVICE if _TIMEOUT_ADVICE in hint else None)
    retryable = status in RETRYABLE_STATUS or status >= 500
    hint = hint or status_hint(status, key_env, message, code)
    return ProviderError(message, provider=provider, status=status, retryable=retryable, hint=hint,
                         api_advice=_RETRY_ADVICE if hint and _RETRY_ADVICE + "." in hint else None)


def transport_error(provider: str, exc: BaseException, *, timeout: float,
                    base_url: str | None = None) -> ProviderError | None:
    """The ProviderError for an HTTP client's own exception that an SDK let through, or ``None``.

    Recognised (by class name and module, so neither library is imported): ``httpx`` timeouts, failed connections
    and connections that broke mid-response (``RemoteProtocolError``, ``ReadError``...), ``aiohttp``'s
    ``ClientConnectionError`` family and ``ClientPayloadError`` (a body cut short), and a plain ``TimeoutError``
    (``aiohttp``'s when the request's total time runs out). All are retryable, as connection errors are; a proxy's
    failure is said as the proxy's (:func:`~toolwire.models._proxy_env.proxy_failure`: a 407 is not retried), and a
    server certificate that could not be verified as such (:func:`~toolwire.models._tls_errors.certificate_failure`:
    not retried, the hint names ``SSL_CERT_FILE``)."""
    names = {cls.__name__ for cls in type(exc).__mro__ if cls.__module__.split(".")[0] in _HTTP_LIBRARIES}
    if proxied := proxy_failure(provider, exc, names, base_url, timeout):  # (first: a proxy's timeout, review 256 #3)
        return proxied
    if certificate := certificate_failure(provider, exc, names, base_url):  # (not retried: review 314 #7)
        return certificate
    if isinstance(exc, TimeoutError) or names & {"TimeoutException", "ServerTimeoutError"}:
        return status_error(provider, None, f"The request timed out after {timeout:g} s.", base_url=base_url)
    if names & {"ConnectError", "ClientConnectorError"}:
        reason = getattr(exc, "os_error", None) or exc  # aiohttp's own text shows the SSL context object
        return status_error(provider, None, f"Could not connect: {reason}", base_url=base_url,
                            hint=_unreachable_hint(base_url))
    if names & {"TransportError", "ClientConnectionError", "ClientPayloadError"}:
        where = f" at {redact_url(base_url)}" if base_url else ""
        return status_error(provider, None, f"The connection broke off: {exc}", base_url=base_url,
                            hint=f"Check that the server{where} is still running (its log may say why it "
                                 "stopped), then try again.")
    return None


def _unreachable_hint(base_url: str | None) -> str:
    """The hint of a connection that could not be opened: a longer timeout cannot help (review 90)."""
    where = f" {redact_url(base_url)}" if base_url else ""
    return f"Check the network, the address and that the server{where} is running, then try again."


def hide_cause(error: ProviderError) -> ProviderError:
    """Mark ``error`` (a translator's result) to be raised ``from None``, not ``from`` the SDK exception it
    stands for: for an exception whose text still shows a secret (see
    :func:`toolwire._secrets.scrub_exception`). Returns ``error``."""
    error.__cause__ = None  # (this also sets __suppress_context__, the mark _raise reads)
    return error


def _cause_hidden(error: ProviderError) -> bool:
    return error.__cause__ is None and error.__suppress_context__


def _give_up(error: ProviderError, attempts: int) -> ProviderError:
    """``error`` after ``attempts`` tries, the count said inside its sentence (``The request timed out after 1 s
    (gave up after 3 attempts).``: the full stop a message ends with goes after it, not before); ``error`` itself
    when it was tried once or is not retryable."""
    if attempts <= 1 or not error.retryable:
        return error
    text = str(error.args[0]).rstrip()
    text = text[:-1] if text.endswith(".") and not text.endswith("..") else text
    message = f"{text} (gave up after {attempts} attempts)"
    out = ProviderError(message, provider=error.provider, status=error.status, retryable=True, hint=error.hint,
                        api_advice=error.api_advice)
    return hide_cause(out) if _cause_hidden(error) else out


def _after_content(error: ProviderError) -> ProviderError:
    """``error`` of a stream that failed after it handed out content, which is not tried again: its hint no longer
    advises raising ``max_retries`` (a stall says to raise ``timeout`` only)."""
    if error.api_advice not in (_RETRY_ADVICE, _TIMEOUT_ADVICE) or not error.hint:
        return error
    advice = ", or raise timeout" if error.api_advice == _TIMEOUT_ADVICE else None
    out = ProviderError(str(error.args[0]), provider=error.provider, status=error.status, retryable=error.retryable,
                        hint=error.hint.replace(error.api_advice, advice or "", 1), api_advice=advice)
    return hide_cause(out) if _cause_hidden(error) else out


def _failure(exc: Exception, translate: Translate) -> ProviderError:
    """``exc`` as the ProviderError the caller gets: what ``translate`` makes of it, a ProviderError included (one a
    codec raised from the reply itself: the translator masks the API key in it too, review 136 #6); a ProviderError
    the translator returns ``None`` for is kept as it is.

    Raises:
        Exception: ``exc`` itself, when it is no ProviderError and ``translate`` does not recognise it.
    """
    error = translate(exc)
    if error is None and isinstance(exc, ProviderError):
        return exc
    if error is None:
        raise exc
    said = _server_says_retry(exc)
    if said is not None:
        error.retryable = said
    return error


def _server_says_retry(exc: BaseException) -> bool | None:
    """What the response's ``x-should-retry`` header says (``"true"``: try again, ``"false"``: do not), obeyed before
    the status's own rule, as the ``openai`` and ``anthropic`` SDKs' ``_should_retry`` do ("If the server explicitly
    says whether or not to retry, obey": ``openai/_base_client.py``, the same in ``anthropic/_base_client.py``), whose
    own retries toolwire turns off (review 314 #3); None when the response has no such header (or there is none)."""
    try:  # (an HTTP library's exception may raise on a missing response or request: RuntimeError)
        headers = getattr(getattr(exc, "response", None), "headers", None)
        value = headers.get("x-should-retry") if headers is not None else None
    except (AttributeError, TypeError, RuntimeError):
        return None
    return {"true": True, "false": False}.get(value) if isinstance(value, str) else None


def _raise(error: ProviderError, exc: Exception) -> None:
    """Raise ``error`` (translated from ``exc``) ``from exc``, or ``from None`` when the translator hid the
    cause (:func:`hide_cause`)."""
    if error is exc:
        raise error
    if _cause_hidden(error):
        raise error from None
    raise error from exc


def close_stream(stream: Any) -> None:
    """Close a stream (its ``close()``), a failure logged at DEBUG rather than raised."""
    close = getattr(stream, "close", None)
    if callable(close):
        try:
            close()
        except Exception:  # closing a finished or broken stream must not hide the real outcome
            log.debug("closing a stream failed", exc_info=True)


async def aclose_stream(stream: Any) -> None:
    """Async :func:`close_stream` (its ``aclose()`` or ``close()``, awaited when it is a coroutine); also closes an
    async SDK client (:mod:`toolwire.models._loop_clients`). A failure is logged at DEBUG, not raised."""
    close = getattr(stream, "aclose", None) or getattr(stream, "close", None)
    if callable(close):
        try:
            result = close()
            if asyncio.iscoroutine(result):
                await result
        except Exception:
            log.debug("closing a stream or client failed", exc_info=True)


def _retry_wait(exc: Exception, translate: Translate, policy: RetryPolicy, attempt: int) -> float:
    """Seconds to wait before trying again after attempt number ``attempt`` failed with ``exc``.

    Raises:
        ProviderError: ``exc`` translated, when it may not be retried or the tries have run out.
        Exception: ``exc`` itself when ``translate`` does not recognise it.
    """
    error = _failure(exc, translate)
    if not error.retryable or attempt > policy.max_retries:
        _raise(_give_up(error, attempt), exc)
    wait = policy.delay(attempt, retry_after(exc))
    said = error.args[0] if error.args else error
    reason = f"status {error.status}" if error.status is not None else safe_text(said, str)
    log.info("%s: attempt %d failed (%.200s); retrying in %.2f s", error.provider, attempt, reason, wait)
    return wait


def with_retries(call: Callable[[], T], policy: RetryPolicy, translate: Translate) -> T:
    """Run ``call()`` and retry it on retryable failures.

    Raises:
        ProviderError: the call failed and may not be retried, or every attempt failed.
        Exception: anything ``translate`` does not recognise, unchanged.
    """
    attempt = 0
    while True:
        attempt += 1
        try:
            return call()
        except Exception as exc:
            wait = _retry_wait(exc, translate, policy, attempt)
        time.sleep(wait)


async def awith_retries(call: Callable[[], Awaitable[T]], policy: RetryPolicy, translate: Translate) -> T:
    """Async :func:`with_retries`: ``call()`` returns an awaitable, waits use ``asyncio.sleep``."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return await call()
        except Exception as exc:
            wait = _retry_wait(exc, translate, policy, attempt)
        await asyncio.sleep(wait)


def retry_stream(attempt: Callable[[], Iterator[T]], policy: RetryPolicy, translate: Translate,
                 handed_out: Callable[[T], bool]) -> Iterator[T]:
    """Yield the items of ``attempt()`` (one try: it opens the stream and reads it), trying again on a retryable
    failure until an item that ``handed_out`` says is content has been yielded.

    The items before the first such item (an opening event's bookkeeping: ids, metadata) are held back, so a
    failed try leaves nothing with the caller and the next one starts afresh; a stream that ends without content
    yields them at its end. After content has been handed out, a failure is translated and raised, not retried (a
    retry would repeat what the caller has). The try's iterator is closed when it ends, fails, or the caller stops.

    Raises:
        ProviderError: a failure that may not be retried, every try failed, or a failure after content.
        Exception: anything ``translate`` does not recognise, unchanged.
    """
    tries = 0
    while True:
        tries += 1
        items = attempt()
        held: list[T] = []
        try:
            try:
                for item in items:
                    held.append(item)
                    if handed_out(item):
                        break
                else:  # the stream ended without content: all it brought
                    yield from held
                    return
            except Exception as exc:
                wait = _retry_wait(exc, translate, policy, tries)
            else:
                yield from held
                try:
                    yield from items
                except Exception as exc:
                    _raise(_after_content(_failure(exc, translate)), exc)
                return
        finally:
            close_stream(items)
        time.sleep(wait)


async def aretry_stream(attempt: Callable[[], AsyncIterator[T]], policy: RetryPolicy, translate: Translate,
                        handed_out: Callable[[T], bool]) -> AsyncIterator[T]:
    """Async :func:`retry_stream`: ``attempt()`` returns an async iterator (an async generator); waits use
    ``asyncio.sleep``."""
    tries = 0
    while True:
        tries += 1
        items = attempt()
        held: list[T] = []
        try:
            try:
                async for item in items:
                    held.append(item)
                    if handed_out(item):
                        break
                else:
                    for item in held:
                        yield item
                    return
            except Exception as exc:
                wait = _retry_wait(exc, translate, policy, tries)
            else:
                for item in held:
                    yield item
                try:
                    async for item in items:
                        yield item
                except Exception as exc:
                    _raise(_after_content(_failure(exc, translate)), exc)
                return
        finally:
            await aclose_stream(items)
        await asyncio.sleep(wait)


def connection_error(provider: str, exc: BaseException, *, timeout: float,
                     base_url: str | None = None) -> ProviderError:
    """The ProviderError for an SDK's connection error (``openai.APIConnectionError``, Anthropic's same name).

    The SDKs raise the same class whether the connection could not be opened or broke off while a streamed
    reply was read; the HTTP client's exception it wraps (``__cause__``) tells which, read as
    :func:`transport_error` reads it. Without a recognised cause it is a failed connection. Retryable.
    """
    cause = exc.__cause__
    found = transport_error(provider, cause, timeout=timeout, base_url=base_url) if cause is not None else None
    return found or status_error(provider, None, f"Could not connect: {exc}", base_url=base_url,
                                 hint=_unreachable_hint(base_url))
