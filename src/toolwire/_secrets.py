"""Masking secrets in what is shown to people (reprs, logs, error messages, tracebacks): the credentials of
URLs (:func:`redact_url`), and a known secret such as an API key, in text (:func:`mask_secret`) and in an
exception with everything it chains (:func:`scrub_exception`).

Used by the cloud models (:mod:`toolwire.models._retry`, :mod:`toolwire.models._sdk`) and the MCP client,
whose server URLs may carry a token.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import difflib
import logging
import re
import traceback
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import unquote

__all__ = ["MASK", "header_secrets", "mask_secret", "redact_given_url", "redact_http_logs", "redact_url",
           "remember_secrets", "scrub_exception", "sent_forms", "url_secrets"]

# the user name and password of a URL: "scheme://" then anything up to the last "@" before the path. The scheme
# is matched only from the start of a run of scheme characters, and possessively, so each "://" is tried from one
# place only and the search stays linear in the text's length (from every word boundary of a run such as
# "a.a.a..." it took time quadratic in the run's length: review 154). It masks whatever the old
# r"\b[a-z][a-z0-9+.-]*://" form masked, and also a "scheme" that starts with a digit or follows "_".
_USERINFO = re.compile(r"(?i)(?<![a-z0-9+.-])([a-z0-9+.-]++://)[^/?#\s]*@")
# a "user:password@" whose password holds "/", "?" or "#" (not valid in a URL, but a DSN built with an f-string
# holds it as it is, and a driver's URL-parse error quotes it: review 192 #4): a user name, ":", then anything up
# to the last "@" before white space or a quote. A ":" followed by digits then "/", "?" or "#" is a port, not a
# password ("http://host:4873/@scope/pkg" keeps its host), and the user name holds no "[", which starts an IPv6
# host ("http://[::1]:4873/@scope/pkg" keeps its host too: review 202 #4). The password stops before a "://", and
# each part is possessive, so each "://" is tried once and scans at most to the next one: the search stays linear.
_LOOSE_USERINFO = re.compile(r"(?i)(?<![a-z0-9+.-])([a-z0-9+.-]++://)[^:/?#@\s'\"\[]*+:(?!\d*+[/?#])"
                             r"(?:(?:[^\s'\"@:]|:(?!//))*+@)++")
# a user info written without its scheme: "user:password@host" or "//user:password@host", a base URL whose
# "http://" was left out (review 253 #3). It starts the text, or follows white space or a quote: a user name (no
# ":", "/", "@", "[", and not "mailto"), ":", a password up to an "@", then a host. Both parts stop at white space
# and quotes, where the next start is, so each character is scanned from one start only: the search stays linear.
# Used only on a text known to be a URL (redact_given_url, url_secrets): in free text "acct:alice@host",
# "recipient:bob@corp.com", "10:30@room4" have this shape and are no credentials (review 256 #1).
_BARE_USERINFO = re.compile(r"(?i)(?<![^\s'\"])(//)?+(?!mailto:)([^\s'\":/?#@\[\]]++:[^\s'\"/?#@]*+)@(?=[\w\[])")
# a query parameter (a name of at most 64 characters, so the search stays linear in the text's length) and the
# words that say its value is a secret
_QUERY_PARAM = re.compile(r"([?&;#][^=&#;?\s]{1,64}=)([^&#;\s'\"]+)")  # (# too: OAuth's #access_token=)
_SECRET_NAME = re.compile(r"key|token|secret|passw|pwd|sig|auth|credential|session|jwt|bearer"
                          r"|[?&;#_.-]pass=|[?&;#](?:code|sas)=",  # (?pass=, OAuth's ?code=, Azure's ?sas=: review 103)
                          re.IGNORECASE)


def redact_url(text: str) -> str:
    """``text`` with the credentials of every URL in it masked (for reprs, logs and error messages): the user
    info (``http://user:token@host`` gives ``http://****@host``; a password holding ``/``, ``?`` or ``#``, as a
    DSN built with an f-string holds it, is masked up to the last ``@`` before white space or a quote:
    ``postgres://app:pa/ss@db`` gives ``postgres://****@db``) and the values of query parameters whose name
    says they hold a secret (``?api_key=sk-1`` gives ``?api_key=****``: names with key, token, secret,
    password, signature, auth, credential, session, jwt or bearer in them, and the names pass, code (OAuth's
    authorization code) and sas, any letter case; in a fragment too, as OAuth's implicit flow
    sends ``#access_token=...``). The names are matched as parts of words, so ``?author=`` or ``?keyword=`` is
    masked as well: in an error message or a log, a value hidden for nothing costs less than a token shown.

    A ``word:thing@host`` without a scheme is left as it is (``acct:alice@mastodon.social``, ``SMTP:bob@corp.com``,
    ``10:30@room4``: review 256 #1); :func:`redact_given_url` masks it in a text known to be a URL."""
    text = _USERINFO.sub(r"\1****@", _LOOSE_USERINFO.sub(r"\1****@", text))
    return _QUERY_PARAM.sub(_mask_value, text)


def redact_given_url(url: str) -> str:
    """``url``, a text known to be a URL the user gave (a ``base_url``, an ``OPENAI_BASE_URL`` value), as a message
    shows it: :func:`redact_url`'s masking, and a user info written without the scheme masked too (``user:token@host``
    and ``//user:token@host``, a base URL whose ``http://`` was left out, give ``****@host`` and ``//****@host``:
    review 253 #3). Not for free text, where ``acct:alice@host`` is no credential (review 256 #1).

    Args:
        url: the URL as given.

    Returns:
        The text with the credentials masked."""
    return _BARE_USERINFO.sub(r"\1****@", redact_url(url))


def url_secrets(url: str | None) -> list[str]:
    """The parts of ``url`` that :func:`redact_url` masks, as they are written: its user info (``user:token``)
    and the values of its query parameters whose name says they hold a secret; empty for no URL."""
    if not url:
        return []
    found = [match.group(0)[len(match.group(1)):-1] for pattern in (_LOOSE_USERINFO, _USERINFO)
             for match in pattern.finditer(url)]
    found += [match.group(2) for match in _BARE_USERINFO.finditer(url)]
    found = list(dict.fromkeys(found))  # (a user info both patterns find, once)
    found += [match.group(2) for match in _QUERY_PARAM.finditer(url) if _SECRET_NAME.search(match.group(1))]
    return [part for part in found if part]


def sent_forms(parts: Iterable[str]) -> list[str]:
    """``parts`` (user infos and query values, :func:`url_secrets`), each followed by the forms it is sent in:
    percent-decoded, the password of a ``user:password`` alone (of 8 or more characters), and the Base64 of the
    decoded ``user:password`` (a ``:`` added to a user info without one) that httpx sends as ``Authorization: Basic
    <Base64>`` for a URL's user info, and as ``Proxy-Authorization: Basic <Base64>`` for a proxy's, which a proxy
    may echo in its error body (reviews 192 #3, 253 #4). The Base64 of a query value is added too: masking it costs
    nothing."""
    found: list[str] = []
    for part in parts:
        plain = unquote(part)
        pair = plain if ":" in plain else plain + ":"
        password = plain.partition(":")[2]
        found += [part, plain, *([password] if len(password) >= 8 else []),
                  base64.b64encode(pair.encode("utf-8")).decode("ascii")]
    return list(dict.fromkeys(found))


# the names of headers whose values are secrets (Authorization, Proxy-Authorization, X-Api-Key, api-key,
# Ocp-Apim-Subscription-Key, X-Gateway-Token, Cookie...), told by the whole parts of the name (split at "-", "_", "."
# and lower-to-upper case), not by a substring: "x-portkey-provider" or "X-Author-Name" holds none (review 256 #4). A
# part that ends with token, apikey, secret or password (accesstoken, xapikey, clientsecret) is one too. And a value
# sent with an authentication scheme under any name.
_NAME_PART = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_SECRET_PARTS = frozenset({"auth", "authorization", "authentication", "token", "key", "apikey", "secret", "cookie",
                           "password", "passwd", "pwd", "session", "signature", "credential", "credentials", "jwt",
                           "bearer"})
_SECRET_WORDS = re.compile(r"auth|token|key|secret|cookie|passw|pwd|session|signature|credential|jwt|bearer")
"""Found anywhere in a header name's last part (``x-secretkey``, ``accesskey``, ``x-sessionid``, ``X-Api-Keys``), a
sign of a secret: HTTP header names put what they hold last (review 260 #3)."""
_AUTH_VALUE = re.compile(r"(?i)\s*(bearer|basic|token|digest|apikey|api-key|key)\s+(\S+)\s*")
_SHORTEST = 8  # (a value this short, a dummy such as "x", would mask ordinary words)


def header_secrets(headers: Any) -> list[str]:
    """The values of ``headers`` (a mapping of header names to values, as ``extra_headers`` gives them) that are
    masked in errors and logs: those of a header whose name says it holds a secret in one of its parts (auth,
    authorization, token, key, apikey, secret, cookie, password, session, signature, credential, jwt or bearer, any
    letter case, or a last part holding one of these words: ``Authorization``, ``X-Api-Key``, ``x-secretkey``,
    ``x-portkey-api-key``, ``X-Gateway-Token``, ``Cookie``; not ``x-portkey-provider`` or ``X-Author-Name``), and
    any value sent with an authentication scheme (``Bearer <token>``, ``Basic <Base64>``), each whole and its
    credential alone (a Basic one also decoded). Other headers (``anthropic-beta``, ``X-Title``, ``User-Agent``)
    are left shown: a server that quotes them back says what it refused. Values of fewer than 8 characters are
    left out; an object that is no mapping gives none.

    Args:
        headers: the headers, or anything else.

    Returns:
        The texts to mask, each once (empty for none)."""
    if not isinstance(headers, Mapping):
        return []
    found: list[str] = []
    for name, value in headers.items():
        if not isinstance(value, str):
            continue
        scheme = _AUTH_VALUE.fullmatch(value)
        if not scheme and not _secret_name(str(name)):
            continue
        found.append(value.strip())
        if scheme:
            found.append(scheme.group(2))
            if scheme.group(1).lower() == "basic":
                with contextlib.suppress(binascii.Error, UnicodeDecodeError, ValueError):
                    found.append(base64.b64decode(scheme.group(2), validate=True).decode("utf-8"))
    return [part for part in dict.fromkeys(found) if len(part) >= _SHORTEST]


def _secret_name(name: str) -> bool:
    """Whether the header ``name`` says that its value is a secret: one of its parts is one of :data:`_SECRET_PARTS`
    (``x-session-id``), or its last part holds one of :data:`_SECRET_WORDS` (``x-secretkey``, ``X-Api-Keys``), so a
    word that only holds one in a part before the last (``x-portkey-provider``, ``x-portkey-trace-id``) is no sign."""
    parts = [part.lower() for part in _NAME_PART.findall(name)]
    return bool(parts) and (any(part in _SECRET_PARTS for part in parts) or bool(_SECRET_WORDS.search(parts[-1])))


_REMEMBERED: dict[str, None] = {}  # secrets the log filter masks as they are written (the newest kept)
_MOST_REMEMBERED = 256


def remember_secrets(secrets: Iterable[str]) -> None:
    """Have the SDKs' log filter (:func:`redact_http_logs`) mask ``secrets`` too, wherever a record shows them: a
    proxy's credentials (:func:`sent_forms`) and the values of headers the user set (:func:`header_secrets`). The
    latest 256 are kept; texts of fewer than 8 characters are left out."""
    for secret in secrets:
        if len(secret) >= _SHORTEST and secret not in _REMEMBERED:
            _REMEMBERED[secret] = None
            while len(_REMEMBERED) > _MOST_REMEMBERED:
                del _REMEMBERED[next(iter(_REMEMBERED))]


def _headers_masked(options: Any) -> Any:
    """``options`` (a record's argument: the anthropic SDK's "Request options" dict), a copy with the secret values
    of its ``headers`` masked (:func:`header_secrets`); ``options`` itself when it holds none."""
    if not isinstance(options, Mapping) or not isinstance(options.get("headers"), Mapping):
        return options
    headers = options["headers"]
    secrets = header_secrets({name: value for name, value in headers.items() if isinstance(value, str)})
    if not secrets:
        return options
    masked = {name: MASK if isinstance(value, str) and value.strip() in secrets else value
              for name, value in headers.items()}
    return {**options, "headers": masked}


class _RedactURLs(logging.Filter):
    """A logging filter that masks, in the records of the logger it is on, URL credentials (:func:`redact_url`), the
    secret values of a "Request options" record's headers (:func:`header_secrets`: the anthropic SDK logs them at
    DEBUG; review 253 #5) and the secrets :func:`remember_secrets` was given."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, Mapping):
            record.args = _headers_masked(args)
        elif isinstance(args, tuple) and any(isinstance(arg, Mapping) for arg in args):
            masked = tuple(_headers_masked(arg) for arg in args)
            if any(new is not old for new, old in zip(masked, args, strict=True)):
                record.args = masked
        try:
            text = record.getMessage()
        except Exception:  # a record that cannot be formatted: left for logging to report
            return True
        clean = redact_url(text)
        for secret in list(_REMEMBERED):
            if secret in clean:
                clean = clean.replace(secret, MASK)
        if clean != text or record.args is not args:
            record.msg, record.args = clean, None
        return True


# the loggers that write a request's full URL: the HTTP libraries under the providers' SDKs, httpx (anthropic,
# google-genai) and the openai SDK's httpx2, at INFO ("HTTP Request: POST http://user:token@host/v1/..."), and
# the SDKs' own clients at DEBUG ("Sending HTTP Request: POST http://..."; review 51). A filter acts on the
# records of the logger it is on only, not on those of its children, so each is named.
_HTTP_LOGGERS = ("httpx", "httpx2", "openai._base_client", "anthropic._base_client", "google_genai._api_client")
_http_filter = _RedactURLs()


def redact_http_logs() -> None:
    """Mask URL credentials in what the SDKs and their HTTP libraries log (request lines), so a base URL holding
    a token (``http://user:token@host/v1``, ``?api_key=...``), given or read by an SDK from its environment
    variable, never reaches a log (reviews 26 and 51); and the secret values of the headers the anthropic SDK logs
    with a request's options at DEBUG, and the secrets given to :func:`remember_secrets` (review 253 #5). Installs
    one filter on each of those loggers; calling it again changes nothing."""
    for name in _HTTP_LOGGERS:
        logger = logging.getLogger(name)
        if _http_filter not in logger.filters:
            logger.addFilter(_http_filter)


def _mask_value(match: re.Match[str]) -> str:
    name = match.group(1)
    return name + "****" if _SECRET_NAME.search(name) else match.group(0)


MASK = "**********"
"""What a secret is replaced by wherever it would be shown."""

_MAX_WALK = 64  # exceptions in one chain, and levels of nested containers, looked at (a chain can loop)


_PART = 10
"""The fewest characters of a secret that are masked where a text holds only part of it."""


def mask_secret(text: str, secret: str) -> str:
    """``text`` with every occurrence of ``secret`` replaced by :data:`MASK`, and so every run of :data:`_PART` or
    more of its characters in a row (a server that echoes the first 30 characters of a 33-character token: review
    84); ``text`` itself when ``secret`` is empty."""
    if not secret:
        return text
    text = text.replace(secret, MASK)
    if len(secret) < _PART or len(text) < _PART:
        return text
    blocks = difflib.SequenceMatcher(None, text, secret, autojunk=False).get_matching_blocks()
    for start, _, size in sorted((b for b in blocks if b.size >= _PART), reverse=True):  # (from the end: spans hold)
        text = text[:start] + MASK + text[start + size:]
    return text


def _masked(value: Any, secret: str, depth: int = 0) -> Any:
    """A copy of ``value`` with ``secret`` masked in every string of it (through dicts, lists and tuples), or
    ``value`` itself when it holds no such string; other objects are returned unchanged."""
    if isinstance(value, str):
        masked = mask_secret(value, secret)
        return masked if masked != value else value
    if depth >= _MAX_WALK:
        return value
    if isinstance(value, dict):
        items = {k: _masked(v, secret, depth + 1) for k, v in value.items()}
        return items if any(items[k] is not v for k, v in value.items()) else value
    if isinstance(value, list | tuple):
        parts = [_masked(v, secret, depth + 1) for v in value]
        if all(a is b for a, b in zip(parts, value, strict=True)):
            return value
        return parts if isinstance(value, list) else tuple(parts)
    return value


def _chained(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it chains: cause, context (suppressed or not) and an exception group's
    members, each once, at most ``_MAX_WALK``."""
    found: list[BaseException] = []
    stack: list[BaseException | None] = [exc]
    while stack and len(found) < _MAX_WALK:
        current = stack.pop()
        if current is None or any(current is seen for seen in found):
            continue
        found.append(current)
        stack += [current.__cause__, current.__context__, *getattr(current, "exceptions", ())]
    return found


_CREDENTIAL_HEADERS = ("authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key")
"""Request headers that carry a credential (OpenAI/Azure, Anthropic, Gemini; a URL's ``user:password@`` becomes a
``Basic`` authorization header)."""


def _mask_request_url(exc: BaseException, secret: str) -> None:
    """Mask ``secret`` in place in the URL of the HTTP request ``exc`` holds (its ``request``, or its response's:
    httpx's and the SDKs' errors), the URL's user info masked whole (:func:`redact_url`), and that request's
    credential headers (:data:`_CREDENTIAL_HEADERS`) as ``****``; a URL or headers that cannot be written back
    (another library's, read-only) are left as they are."""
    response = (getattr(exc, "__dict__", None) or {}).get("response")
    for owner in (exc, response):
        fields = getattr(owner, "__dict__", None) or {}
        request = fields.get("request") or fields.get("_request")  # (httpx's property raises without one)
        headers = getattr(request, "headers", None)
        for name in _CREDENTIAL_HEADERS:  # (a key, or Basic base64(user:password) from the URL: review 321 #1)
            with contextlib.suppress(Exception):  # (headers of another type, read-only)
                if headers is not None and name in headers:
                    headers[name] = "****"
        url = getattr(request, "url", None)
        if url is None or mask_secret(str(url), secret) == str(url):
            continue
        text = redact_url(str(url))
        text = text if text != str(url) else mask_secret(text, secret)
        with contextlib.suppress(Exception):  # (a URL type that refuses the text, or a read-only url)
            request.url = type(url)(text)


def scrub_exception(exc: BaseException, secret: str) -> bool:
    """Mask ``secret`` (and runs of its characters, :func:`mask_secret`) in place in ``exc`` and every exception it
    chains (``__cause__``, ``__context__``, exception-group members): in their ``args``, their notes and their
    attributes that are strings or
    dicts/lists/tuples of them (an SDK error's ``message`` and decoded ``body``, Gemini's ``details``), and the URL of
    the HTTP request an exception holds (``exc.request.url``, ``exc.response.request.url``: a ``base_url``'s
    ``user:password@``, readable there though no traceback shows it; review 314). Other objects held in attributes
    are left as they are: they are not shown in a traceback.

    Used where a provider's SDK error becomes a :class:`~toolwire.errors.ProviderError`, and on a ProviderError a
    codec raised itself from the reply (:meth:`toolwire.models._sdk_errors.SDKErrors._translate_any`): a server, or a
    proxy, may echo the API key it was sent in its error body, and the SDK's error is the ProviderError's
    ``__cause__``.

    Args:
        exc: the exception to clean; changed in place.
        secret: the text to hide; an empty string masks nothing.

    Returns:
        True when no formatted traceback of ``exc`` (:func:`traceback.format_exception`, which shows the
        chain) shows ``secret`` any more; False when an exception still shows it (one whose ``__str__`` is
        not built from what was masked): the caller must then not chain ``exc``.
    """
    if not secret:
        return True
    for current in _chained(exc):
        args = _masked(current.args, secret)
        if args is not current.args:
            current.args = args
        for name, value in list(getattr(current, "__dict__", {}).items()):
            clean = _masked(value, secret)
            if clean is not value:
                with contextlib.suppress(AttributeError, TypeError):  # read-only: the check below tells
                    setattr(current, name, clean)
        _mask_request_url(current, secret)
    try:
        shown = "".join(traceback.format_exception(exc))
        return mask_secret(shown, secret) == shown
    except Exception:  # an exception whose text cannot even be made: do not chain it
        return False
