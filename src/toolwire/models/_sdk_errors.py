"""How a hosted-provider chat model's failures become :class:`~toolwire.errors.ProviderError`, with its secrets
masked: the :class:`SDKErrors` mixin of :class:`~toolwire.models._sdk.SDKChatModel`.

* **Not a reply** (:meth:`SDKErrors._read`, :meth:`SDKErrors._fed`, :meth:`SDKErrors._check_empty_stream`): a body
  or stream event the codec cannot read (an HTML page, JSON of another shape: the codec's ``NotAReply``) is one
  ProviderError that says to check ``base_url`` and any proxy. A body that is the provider's error (``{"error":
  {...}}`` sent with HTTP 200: :meth:`SDKErrors._error_body`) is that error instead, whether a stream was asked for or
  not (reviews 146 #1, 151 #4).
* **The translator** (:meth:`SDKErrors._translate_any`), which the retry layer (:mod:`toolwire.models._retry`)
  calls for every failure of an attempt: an SDK's exception becomes a ProviderError (the provider's
  ``_translate``), and every ProviderError leaves the model with the API key and the base URL's secrets masked, in
  its text and in the exceptions it chains, whichever code raised it: the SDK's error translated here, or one a
  codec raised itself from what the reply said (an OpenAI-compatible server's ``{"object": "error"}`` stream
  event, the Responses API's ``response.failed`` and ``error`` events and ``failed`` body; review 136 #6).
"""

from __future__ import annotations

import json
import json.encoder
import math
import os
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, NoReturn

from toolwire._secrets import header_secrets, mask_secret, scrub_exception, sent_forms, url_secrets
from toolwire.errors import ProviderError, UserError
from toolwire.messages import AIMessage, AIMessageChunk
from toolwire.models._keys import Secret
from toolwire.models._proxy_env import proxy_cause, proxy_refused, proxy_secrets
from toolwire.models._retry import hide_cause
from toolwire.models.base import ChatRequest

__all__ = ["SDKErrors", "ahold_json_body", "hold_json_body", "option_headers"]


def _field(owner: Any, name: str) -> Any:
    """``owner[name]`` of a dict, ``owner.name`` of another object (an SDK's config), else None."""
    if isinstance(owner, Mapping):
        return owner.get(name)
    return getattr(owner, name, None) if owner is not None and not isinstance(owner, str | bytes) else None


def option_headers(options: Any) -> list[str]:
    """The secret values (:func:`~toolwire._secrets.header_secrets`) of the headers set in a model's options or a
    request's lowered kwargs: ``extra_headers`` (``model_kwargs``, ``bind``, a call's options), ``headers`` and
    ``default_headers``, and ``http_options.headers`` (Gemini's), in ``options`` or in its ``config``."""
    found: list[str] = []
    for owner in (options, _field(options, "config")):
        for name in ("extra_headers", "headers", "default_headers"):
            found += header_secrets(_field(owner, name))
        found += header_secrets(_field(_field(owner, "http_options"), "headers"))
    return list(dict.fromkeys(found))


def _json_response(stream: Any) -> Any:
    """The HTTP response of an SDK stream object whose content type is JSON (``application/json``, ``...+json``),
    else None (no response, another content type, headers of another shape)."""
    response = getattr(stream, "response", None)
    headers = getattr(response, "headers", None)
    try:
        kind = str(headers.get("content-type") or "").split(";")[0].strip().lower() if headers is not None else ""
    except Exception:
        return None
    return response if kind == "application/json" or kind.endswith("+json") else None


def hold_json_body(stream: Any) -> None:
    """Read now the whole body of a stream answered with a JSON content type (a server's ``{"error": {...}}`` with
    HTTP 200, where a stream was asked for), before the SDK's event reader consumes it without a word: the HTTP
    response keeps it (``response.content``) for :meth:`SDKErrors._check_empty_stream`, and the SDK still reads its
    events from it. Streams of another content type are left as they are.

    Args:
        stream: the SDK's stream object (``response``: the HTTP response), or anything else (left alone).

    Raises:
        Exception: the HTTP client's own error when the body cannot be read (a timeout, a connection reset), which the
            retry layer translates as it does any error of reading a stream.
    """
    response = _json_response(stream)
    if response is not None:
        response.read()


async def ahold_json_body(stream: Any) -> None:
    """Async :func:`hold_json_body`."""
    response = _json_response(stream)
    if response is not None:
        await response.aread()


class SDKErrors:
    """The error side of :class:`~toolwire.models._sdk.SDKChatModel` (mixed into it): what it reads of the model
    is the attributes declared here, and its provider hooks ``_parse`` and ``_translate``."""

    provider: ClassVar[str]
    label: ClassVar[str]
    base_url_env: ClassVar[str]
    base_url: str | None
    _api_key: Secret | None

    def _parse(self, raw: Any, request: ChatRequest) -> AIMessage:  # pragma: no cover - the model's own
        raise NotImplementedError

    def _translate(self, exc: BaseException) -> ProviderError | None:  # pragma: no cover - the model's own
        raise NotImplementedError

    def _error_body(self, raw: Any) -> ProviderError | None:
        """The error a whole body that is not a reply stands for, when it is the provider's own error sent with
        HTTP 200 (a provider overrides this: :meth:`ChatOpenAI._error_body
        <toolwire.models.openai.ChatOpenAI._error_body>`); None here: the body is then not a reply.

        Args:
            raw: the decoded body (a dict) or the SDK's reply object.
        """
        return None

    def _check_empty_stream(self, stream: Any) -> None:
        """Refuse a stream that brought no event at all because its body is not a stream: a proxy's login page
        (``text/html``) or a whole JSON body answered with status 200, which the SDKs' event readers skip without a
        word. A JSON body that is the provider's error (:meth:`_error_body`, the body held by :func:`hold_json_body`)
        raises that error, as it does for a call without a stream: the server's message, its code as the status,
        retryable unless a client error status (review 151 #4). Any other body raises the same
        :class:`ProviderError` as for such a body on a call without a stream (check ``base_url`` and any proxy), not
        retryable: the next try gets the same page. A body of server-sent events that ended before its first event
        is left to the stream state (a retryable stream cut short).

        Args:
            stream: the SDK's stream object (its ``response``, the HTTP response, gives the content type), or None.

        Raises:
            ProviderError: the response's content type is given and is not ``text/event-stream``.
        """
        response = getattr(stream, "response", None)
        headers = getattr(response, "headers", None)
        try:
            kind = str(headers.get("content-type") or "") if headers is not None else ""
        except Exception:  # an object of another shape: nothing to say
            return
        if not kind or "event-stream" in kind.lower():
            return
        try:
            body = json.loads(response.content)  # (held by hold_json_body; any other body was read by the SDK)
        except Exception:
            body = None
        error = self._error_body(body) if isinstance(body, dict) else None
        if error is not None:
            raise error  # (masked and retried as the retry layer does any ProviderError: _translate_any)
        shown = kind.split(";")[0].strip()
        article = "an" if shown[:1].lower() in "aeiou" else "a"
        self._raise_not_a_reply(ValueError(f"{article} {shown} body where a stream of server-sent events was expected"))

    def _not_a_reply(self, exc: BaseException, retryable: bool) -> ProviderError:
        """The error for a body that is not a reply of this provider (a proxy's login page, a cut-off body)."""
        detail = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
        return ProviderError(
            f"The server answered with a body that is not {self.label} reply ({detail}).", provider=self.provider,
            retryable=retryable,
            hint="Check base_url and any proxy between toolwire and the provider; try again if the body was cut off.")

    def _read(self, raw: Any, request: ChatRequest) -> AIMessage:
        """:meth:`_parse`, a reply it cannot read (an HTML page, text, a body of another shape) or JSON that is not
        this provider's reply (``{}``, a gateway's ``{"status": "ok"}``: the codec's ``NotAReply``) becoming a
        :class:`ProviderError` that says to check ``base_url``, rather than a raw TypeError or a silent empty
        reply."""
        try:
            return self._parse(raw, request)
        except (ProviderError, UserError):
            raise
        except Exception as exc:
            failed = exc
        self._raise_not_a_reply(failed)  # (out of the except block: no __context__ either)

    def _fed(self, step: Callable[..., AIMessageChunk | None], *event: Any) -> AIMessageChunk | None:
        """``step(*event)``: a stream state's ``feed(event)``, or its ``finish()``; an event it cannot read, or a
        stream that was not this provider's (the codec's ``NotAReply``), becoming a :class:`ProviderError`."""
        try:
            return step(*event)
        except (ProviderError, UserError):
            raise
        except Exception as exc:
            failed = exc
        self._raise_not_a_reply(failed)

    def _raise_not_a_reply(self, exc: Exception) -> NoReturn:
        """Raise :meth:`_not_a_reply` for ``exc`` (not retryable), the API key masked in it and in ``exc`` as
        :meth:`_translate_any` masks it (``exc`` not chained when its text would still show the key)."""
        clean = self._scrub(exc)
        error = self._without_key(self._not_a_reply(exc, False))
        if clean:
            raise error from exc
        raise error from None

    def _translate_any(self, exc: BaseException) -> ProviderError | None:
        """:meth:`_translate`, a request the SDK could not write as JSON (:func:`_unsendable`: not retryable), and a
        body the SDK could not decode (a ``ValueError`` such as
        ``json.JSONDecodeError`` or Gemini's ``UnknownApiResponseError``) as a :class:`ProviderError`, retryable
        when the JSON broke off after it began (a body or stream line cut in transit).

        The API key never shows: a proxy (or a server less careful than the big providers) may echo the key it
        was given in its error body. It is masked in the ProviderError's text (:meth:`_without_key`) and, in
        place, in ``exc`` and the exceptions it chains (:func:`~toolwire._secrets.scrub_exception`), which
        stays the ProviderError's ``__cause__`` (its class, status, body and request id, for debugging). An
        exception whose text still shows the key after that is not chained at all (raised ``from None``), so
        no formatted traceback or ``logging.exception`` line shows it.

        A :class:`ProviderError` (one a codec raised from what the reply said, or :meth:`_read` let through) is
        masked the same way, in place, and returned itself; when what it chains would still show the key, the chain
        is cut (review 136 #6)."""
        clean = self._scrub(exc)
        if isinstance(exc, ProviderError):
            if not clean:  # (its own args and hint are masked in place: only what it chains can still show it)
                exc.__cause__ = exc.__context__ = None
                exc.__suppress_context__ = True
            return exc
        # a request the SDK could not write as JSON (a float inf in a tool's schema): nothing was sent, and every
        # try would fail alike (review 242 #7: it was "a body that is not an OpenAI reply", retried)
        found = _unsendable(exc, self.provider) if isinstance(exc, ValueError) else None
        if found is None:  # a proxy that timed out or was never reached (review 256 #3), before the SDK's "timed out"
            found = proxy_cause(self.provider, exc, self.base_url, getattr(self, "timeout", None))
        if found is None:
            found = self._translate(exc)
        if found is None and isinstance(exc, ValueError) and not isinstance(exc, UnicodeError):
            # JSON that breaks off after it began was cut in transit (worth another try); a body that is not
            # JSON from its first character (an HTML page) will not change. An SDK's own error for it (Gemini's
            # UnknownApiResponseError, a stream line included) is raised from the JSONDecodeError it met.
            decode = next((e for e in (exc, exc.__cause__, exc.__context__) if isinstance(e, json.JSONDecodeError)),
                          None)
            began = decode is None or (decode.pos > 0 and decode.doc.lstrip()[:1] != "<")
            found = self._not_a_reply(exc, began)
        if found is None:
            return None
        if found.status == 407:  # a proxy's refusal of its credentials (review 253 #2), not the server's
            found = proxy_refused(found, exc, self.base_url)
        found = self._without_key(found)
        return found if clean else hide_cause(found)

    def _translate_call(self, exc: BaseException, kwargs: Any) -> ProviderError | None:
        """:meth:`_translate_any` for a failure of a call sent with ``kwargs`` (its lowered request): the secret
        values of the headers it sets (:func:`option_headers`: ``bind(extra_headers=...)`` or a call's options
        as well as ``model_kwargs``) masked first, in place, as the API key is (review 253 #5)."""
        clean = all([scrub_exception(exc, secret) for secret in option_headers(kwargs)])
        found = self._translate_any(exc)
        if found is None or clean:
            return found
        if found is exc:
            exc.__cause__ = exc.__context__ = None
            exc.__suppress_context__ = True
            return found
        return hide_cause(found)

    def _scrub(self, exc: BaseException) -> bool:
        """Mask in place, in ``exc`` and what it chains, the API key, the secrets of the base URL (given, or the one
        the SDK reads from :attr:`base_url_env`: an SDK error may quote the request URL; review 51) and of the proxy
        variables (review 253 #4), as written and as sent (:func:`~toolwire._secrets.sent_forms`: the user info's
        ``user:password`` decoded, and in Base64, as the HTTP library sends it in ``Authorization: Basic ...`` or
        ``Proxy-Authorization: Basic ...``, which a proxy may echo; review 192 #3), and the secret values of the
        headers set in ``model_kwargs`` (:func:`option_headers`: ``Authorization``, ``X-Api-Key``...; review 253 #5).
        Returns :func:`~toolwire._secrets.scrub_exception`'s verdict for all of them."""
        url = self.base_url or (os.environ.get(self.base_url_env) if self.base_url_env else None)
        secrets = [self._secret_key(), *sent_forms(part for part in url_secrets(url) if len(part) >= 4),
                   *proxy_secrets(), *option_headers(getattr(self, "options", None))]
        return all([scrub_exception(exc, secret) for secret in dict.fromkeys(secrets)])  # (every one is masked)

    def _secret_key(self) -> str:
        """The API key to mask in errors; ``""`` (mask nothing) without one, or for a key of fewer than 8
        characters (a dummy such as ``"x"`` for a local server, which would mask ordinary words)."""
        key = self._api_key.get() if self._api_key is not None else ""
        return key if len(key) >= 8 else ""

    def _without_key(self, error: ProviderError) -> ProviderError:
        """``error`` with this model's API key masked in its message and hint (``error`` itself when neither
        holds it)."""
        key = self._secret_key()
        if not key or all(mask_secret(str(part), key) == str(part) for part in (*error.args, error.hint or "")):
            return error
        return ProviderError(mask_secret(str(error.args[0]), key), provider=error.provider, status=error.status,
                             retryable=error.retryable, hint=mask_secret(error.hint, key) if error.hint else None,
                             api_advice=error.api_advice)


_JSON_FILES = frozenset(module.__file__ for module in (json, json.encoder) if module.__file__)
# (json/__init__.py also holds loads, whose BOM error is a reply's: review 247 #1)
_ENCODER_FILE = json.encoder.__file__
_MOST_STEPS = 64  # how deep a request is searched for the value JSON cannot carry


def _unsendable(exc: ValueError, provider: str) -> ProviderError | None:
    """The error for a request the SDK (or its HTTP client) could not write as JSON, so that nothing was sent: a
    ``ValueError`` raised inside the standard ``json`` encoder (``Out of range float values are not JSON
    compliant`` for a float ``inf``/``nan``, ``Circular reference detected``), found by the frames of its
    traceback (the last one in ``json/encoder.py``); None for any other error, a reply's ``JSONDecodeError`` above
    all (``json.loads`` raises a BOM's from ``json/__init__.py``: review 247 #1). Not retryable: every try would
    fail alike (review 242 #7: it was worded as a body the server sent, and retried). The message names where in
    the request the non-finite number is (``tools[0].function.parameters.properties.factor.maximum``, and the
    tool's name), read from the encoder's frame, when it can be found."""
    frames, tb = [], exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    if isinstance(exc, json.JSONDecodeError) or not frames or frames[-1].f_code.co_filename != _ENCODER_FILE:
        return None
    detail = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
    found = None
    for frame in frames:  # (the outermost json frame holds the whole request: dumps(obj), encode(o))
        if frame.f_code.co_filename in _JSON_FILES and frame.f_code.co_name in ("dumps", "encode"):
            found = _non_finite_at(frame.f_locals.get("obj", frame.f_locals.get("o")), [], set())
            break
    if found is not None:
        path, value = found
        where = "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path).lstrip(".")
        tool = _tool_name(frame.f_locals.get("obj", frame.f_locals.get("o")), path)
        text = (f"The request could not be written as JSON, so nothing was sent: {where or 'a value'}"
                f"{f' (in the schema of tool {tool!r})' if tool else ''} is {value}, which JSON cannot carry; use a "
                "finite number there or leave it out.")
    else:
        text = (f"The request could not be written as JSON, so nothing was sent ({detail}): look in the tool "
                "schemas, messages and options given to the model for a value JSON cannot carry, and change it.")
    return ProviderError(text, provider=provider, status=None, retryable=False)


def _non_finite_at(value: Any, path: list[str | int], seen: set[int]) -> tuple[list[str | int], float] | None:
    """The path to the first float ``inf``/``nan`` in ``value`` (a request's JSON data) and that float, or None."""
    if isinstance(value, float):
        return (path, value) if not math.isfinite(value) else None
    if not isinstance(value, dict | list | tuple) or id(value) in seen or len(path) > _MOST_STEPS:
        return None
    seen.add(id(value))
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        found = _non_finite_at(item, [*path, key if isinstance(key, int) and not isinstance(value, dict) else
                                      str(key)], seen)
        if found is not None:
            return found
    return None


def _tool_name(request: Any, path: list[str | int]) -> str | None:
    """The name of the tool whose definition ``path`` (in ``request``) is in, when it is in ``tools[i]``."""
    if len(path) < 2 or path[0] != "tools" or not isinstance(request, dict):
        return None
    try:
        tool = request["tools"][path[1]]
        name = tool.get("name") or (tool.get("function") or {}).get("name")
    except Exception:
        return None
    return name if isinstance(name, str) else None
