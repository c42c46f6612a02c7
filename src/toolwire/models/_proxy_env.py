"""A proxy setting the SDKs' HTTP library cannot read, said in one sentence (review 220 #3).

The OpenAI, Anthropic and Gemini SDKs build their HTTP client (httpx) when a model sends its first request, and
httpx reads ``HTTPS_PROXY``, ``HTTP_PROXY`` and ``ALL_PROXY`` (in either case) there. A value it cannot parse (a port
that is no number, a scheme it has not, a password with an un-encoded ``/`` that makes part of it read as the
"port") raised httpx's own ``InvalidURL`` or ``ValueError``: no toolwire error, no word of which setting was wrong,
and the "port" quoted was the start of the password. :func:`made_client` turns such a failure into a
:class:`~toolwire.errors.UserError` that names the variable and shows its URL with the user name and password
masked; any other failure passes through unchanged.

The variables are judged by httpx's own rules (its ``get_environment_proxies``): ``NO_PROXY=*`` switches them all off,
so nothing is refused then; a SOCKS proxy without ``socksio`` is refused only when httpx would use it. toolwire
builds each SDK client itself with the SDK's default HTTP client (which reads the environment); it takes no
``http_client`` of the user's, so there is no client with ``trust_env=False`` to leave unchecked.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import re
import sys
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

from toolwire._secrets import redact_url, remember_secrets, scrub_exception, sent_forms
from toolwire.errors import ProviderError, UserError
from toolwire.models._pull_hub import _user_info, shown_endpoint

__all__ = ["made_client", "proxy_cause", "proxy_failure", "proxy_for", "proxy_problem", "proxy_refused",
           "proxy_secrets"]

_SCHEMES = ("http", "https", "socks5", "socks5h")  # the proxy schemes httpx takes
_ADVICE = "write it as http://[user:password@]host:port, or unset it"


def _settings() -> list[tuple[str, str]]:
    """The proxy variables httpx reads, as ``(name, value)``: the ``http``, ``https`` and ``all`` entries of
    :func:`urllib.request.getproxies` (what httpx asks), each named by the variable that holds its value (the
    lower-case spelling first, as urllib prefers it).

    None at all when ``NO_PROXY`` (or ``no_proxy``, the one urllib reads) lists ``*``: httpx then ignores every proxy
    variable, unread (review 225 #1). A ``NO_PROXY`` that lists hosts does not: httpx still reads and builds each
    proxy when the client is made, and refuses one it cannot use there, whatever host the client is for.
    """
    return list(_by_scheme().values())


def _by_scheme() -> dict[str, tuple[str, str]]:
    """:func:`_settings` by the scheme each is for (``"https"``, ``"http"``, ``"all"``)."""
    found = urllib.request.getproxies()
    if any(host.strip() == "*" for host in found.get("no", "").split(",")):
        return {}
    settings = {}
    for scheme in ("https", "http", "all"):
        value = found.get(scheme)
        if not value:
            continue
        names = [name for name, held in os.environ.items() if name.lower() == f"{scheme}_proxy" and held == value]
        names.sort(key=lambda name: name != name.lower())
        settings[scheme] = (names[0] if names else f"{scheme.upper()}_PROXY", value)
    return settings


def _reason(value: str) -> str | None:
    """Why httpx cannot read ``value`` as a proxy URL (a clause that quotes none of it), or None when it looks fine."""
    url = value if "://" in value else f"http://{value}"  # (httpx reads a bare host:port as http://)
    if any(char.isspace() for char in url):
        return "it holds a space or a line break"
    if url.partition("://")[0].lower() not in _SCHEMES:
        return "its scheme is not http, https, socks5 or socks5h"
    if re.search(r"[/?#@]", _user_info(url, True)):
        return "its user name or password holds '@', '/', '?' or '#', which must be written as %40, %2F, %3F and %23"
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname
    except ValueError:  # brackets that hold no IPv6 address
        return "its host cannot be read (an IPv6 address is written in brackets, as [::1])"
    try:
        _ = parts.port
    except ValueError:  # a port that is no number, or out of range
        return "its port is not a number from 0 to 65535"
    if not host:
        return "it has no host"
    return None


def _libraries(exc: BaseException | None) -> list[Any]:
    """The httpx packages loaded (``httpx``, ``httpx2``: the SDKs import theirs), the one ``exc`` came from first
    (review 260 #2: their ``NO_PROXY`` rules differ): the package of its class or of a class it chains, the one its
    traceback was raised in, or the one the SDK that raised it sends with (its ``_base_client``'s import)."""
    order: list[str] = []
    for current in _chain(exc) if exc is not None else []:
        root = type(current).__module__.split(".")[0]
        order.append(root)
        traceback = current.__traceback__
        while traceback is not None:
            order.append(str(traceback.tb_frame.f_globals.get("__name__", "")).split(".")[0])
            traceback = traceback.tb_next
        client = sys.modules.get(f"{root}._base_client")
        order += [name for name in ("httpx2", "httpx") if client is not None and name in vars(client)]
    order += ["httpx", "httpx2"]
    names = [name for name in dict.fromkeys(order) if name in ("httpx", "httpx2") and name in sys.modules]
    return [sys.modules[name] for name in names]


def _refused(value: str, exc: BaseException | None) -> bool:
    """Whether an httpx package (:func:`_libraries`) refuses ``value`` as a proxy URL, read as it reads it."""
    url = value if "://" in value else f"http://{value}"
    for library in _libraries(exc):
        proxy = getattr(library, "Proxy", None)
        if proxy is None:
            continue
        try:
            proxy(url=url)
        except Exception:
            return True
    return False


def proxy_problem(exc: BaseException | None = None) -> str | None:
    """One sentence for a proxy variable the SDKs' HTTP library cannot use, or None when there is none.

    Only what the library itself refuses is reported (its ``Proxy`` is asked), a SOCKS proxy of a version it has
    not (``socks4://``: socks5 or an http proxy is the way), and a SOCKS5 proxy without the ``socksio`` package it
    needs; the reason is said where toolwire can tell it (:func:`_reason`).

    Args:
        exc: what building an SDK client raised (the httpx package it came from is asked too), or None to check
            before building one.

    Returns:
        The sentence: the variable, its URL with the user name and password masked, what is wrong and what to do.
        None when no proxy variable is set, ``NO_PROXY`` lists ``*`` (httpx reads none then), or all the set ones
        can be used (``exc`` has another cause).
    """
    for name, value in _settings():
        shown = f"The environment variable {name} holds {shown_endpoint(value, proxy=True)!r}"
        scheme = (value.partition("://")[0] if "://" in value else "http").lower()
        if scheme.startswith("socks") and scheme not in _SCHEMES:  # (socks4, socks4a: httpx has none, socksio or not)
            return (f"{shown}, a {scheme} proxy, which the HTTP library cannot use (it takes SOCKS5 only): give a "
                    f"socks5:// or http:// proxy there, or unset {name}.")
        if scheme.startswith("socks") and importlib.util.find_spec("socksio") is None:
            return (f"{shown}, a SOCKS proxy, which needs the socksio package: pip install socksio, or unset "
                    f"{name}.")
        if _refused(value, exc):
            reason = _reason(value)
            if reason is None:
                return f"{shown}, which the HTTP library cannot read as a proxy URL: {_ADVICE}."
            return f"{shown}, which is not a proxy URL that can be read ({reason}): {_ADVICE}."
    return None


def made_client(make: Callable[[bool], Any], asynchronous: bool) -> Any:
    """``make(asynchronous)``: a provider's new SDK client, its proxy variables checked first.

    Args:
        make: the provider's ``_make_client``.
        asynchronous: whether the async client is wanted.

    Returns:
        What ``make`` returns.

    Raises:
        UserError: a proxy variable (``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY``, in either case) the HTTP library
            cannot use (:func:`proxy_problem`); the library's own error, which may quote part of the proxy's
            password, is left out.
        Exception: any other failure of ``make``, unchanged.
    """
    remember_secrets(proxy_secrets())  # (masked in the SDKs' logs too: review 253 #4)
    problem = proxy_problem()  # first: a client the SDK half built can print an error of its own when freed
    if problem is None:
        try:
            return make(asynchronous)
        except Exception as exc:
            problem = proxy_problem(exc) or _no_proxy_problem(exc)
            if problem is None:
                raise
    raise UserError(problem)


def _no_proxy_problem(exc: BaseException) -> str | None:
    """One sentence for a ``NO_PROXY`` entry the SDK's HTTP library refused while building its client (its
    ``InvalidURL``: the Anthropic SDK reads ``[::1]`` as a host with the port ``:1]``; review 260 #5), else None."""
    if type(exc).__name__ != "InvalidURL" or type(exc).__module__.split(".")[0] not in ("httpx", "httpx2"):
        return None
    name = next((name for name in ("no_proxy", "NO_PROXY") if os.environ.get(name, "").strip()), None)
    if name is None:
        return None
    entries = [entry.strip() for entry in os.environ[name].split(",") if entry.strip()]
    said = str(exc).rpartition(": ")[2].strip("'\" ")
    bad = [entry for entry in entries if "[" in entry or (said and said in entry)] or entries
    shown = ", ".join(repr(entry) for entry in bad)
    return (f"The environment variable {name} holds {shown}, which the HTTP library cannot read as a host to reach "
            f"without the proxy: write an IPv6 address without brackets (::1), a host as example.com or "
            f".example.com, or remove the entry from {name}.")


# -- a proxy's failures (review 253 #2) ----------------------------------------------------------------------------


def proxy_secrets() -> list[str]:
    """The credentials of the proxy variables httpx reads (:func:`_settings`), in every form they are sent and
    may be echoed (:func:`~toolwire._secrets.sent_forms`: as written, decoded, the password alone, and the Base64 of
    ``Proxy-Authorization: Basic``); empty when no proxy variable holds a user info of 4 or more characters."""
    infos = (info for _, value in _settings() for info in {_user_info(value), _user_info(value, True)})
    return sent_forms(info for info in infos if len(info) >= 4)


def proxy_for(url: str | None, exc: BaseException | None = None, *, aiohttp: bool = False) -> tuple[str, str] | None:
    """The proxy variable a request for ``url`` is sent through, as ``(name, value)``: the one for its scheme
    (``HTTPS_PROXY`` for ``https``, ``HTTP_PROXY`` for ``http``), else ``ALL_PROXY``; None when none is set, or
    ``NO_PROXY`` spares the URL. ``NO_PROXY`` is read as the HTTP library reads it: httpx's own rules (its
    ``get_environment_proxies`` and ``URLPattern``: ``.example.com`` spares the subdomains but not ``example.com``,
    ``http://127.0.0.1`` spares that host; review 256 #2), or urllib's for aiohttp (``aiohttp=True``: Gemini's async
    client). ``url`` None (or one that cannot be read): the providers' default endpoints, which are ``https``.

    Args:
        url: the request's URL, or None.
        exc: the HTTP client's exception, when there is one (the httpx package it came from is asked).
        aiohttp: read ``NO_PROXY`` as aiohttp does (urllib's rules).
    """
    settings = _by_scheme()
    if not aiohttp:
        route = _httpx_route(url or "https://", exc)
        if route is not None:
            return settings.get(route) if route else None
    try:
        parts = urllib.parse.urlsplit(url or "https://")
        host = parts.hostname or ""
    except ValueError:
        parts, host = urllib.parse.urlsplit("https://"), ""
    found = settings.get(parts.scheme.lower() or "https") or settings.get("all")
    if found is None or (host and urllib.request.proxy_bypass_environment(host, urllib.request.getproxies())):
        return None
    return found


def _httpx_route(url: str, exc: BaseException | None) -> str | None:
    """Which proxy variable httpx sends a request for ``url`` through, as its scheme key (``"https"``, ``"http"``,
    ``"all"``), ``""`` for none; None when no httpx package can tell (none installed, or ``url`` unreadable)."""
    libraries = _libraries(exc)
    if not libraries:
        with contextlib.suppress(ImportError):
            libraries = [importlib.import_module("httpx")]
    for library in libraries:
        utils = sys.modules.get(f"{library.__name__}._utils")
        pattern, read = getattr(utils, "URLPattern", None), getattr(utils, "get_environment_proxies", None)
        if pattern is None or read is None:
            continue
        try:
            target = library.URL(url)
            mounts = sorted(((pattern(key), proxy) for key, proxy in read().items()), key=lambda item: item[0])
            return next((key.pattern[:-3] if proxy else "" for key, proxy in mounts if key.matches(target)), "")
        except Exception:  # (a URL or a NO_PROXY entry it cannot read: the client would have refused it)
            continue
    return None


def _request_url(exc: BaseException) -> str | None:
    """The URL of the request an HTTP client's exception (or an SDK's status error) was raised for, else None."""
    for owner in (exc, getattr(exc, "response", None)):
        try:
            request = getattr(owner, "request", None)  # (httpx's exceptions raise RuntimeError without one)
        except RuntimeError:
            request = None
        url = getattr(request, "url", None)
        if url is not None:
            return str(url)
    return None


def _named(found: tuple[str, str] | None) -> tuple[str, str]:
    """``(where, name)``: "the proxy in HTTPS_PROXY (http://****@host:port)" and the variable's name."""
    if found is None:
        return "the proxy between toolwire and the server", "the proxy settings"
    name, value = found
    return f"the proxy in {name} ({shown_endpoint(value, proxy=True)})", name


def _credentials_hint(found: tuple[str, str] | None) -> str:
    """What to do about a proxy that refused its credentials (407)."""
    name = _named(found)[1]
    if found is not None and not _user_info(found[1]):
        return (f"The proxy asks for a user name and password: write them in {name} as "
                f"http://user:password@host:port (with '@', ':', '/' in them as %40, %3A, %2F), or unset {name}.")
    return (f"Check the proxy's user name and password in {name} (written as http://user:password@host:port, with "
            f"'@', ':', '/' in them as %40, %3A, %2F), or unset {name}; trying again sends the same ones.")


def proxy_refused(error: ProviderError, exc: BaseException, base_url: str | None) -> ProviderError:
    """``error`` (a translated HTTP 407, which a proxy answers a plain ``http://`` request with when it refuses its
    credentials) as the proxy's failure: not retryable (each try sends the same credentials), its hint naming the
    proxy variable (its URL masked) and what to check.

    Args:
        error: the ProviderError the status was translated to (status 407).
        exc: the SDK's error (its request's URL says which proxy variable applies).
        base_url: the model's base URL, when ``exc`` carries no request.
    """
    found = proxy_for(_request_url(exc) or base_url, exc)
    where = _named(found)[0]
    if where.lower() in str(error.args[0] if error.args else "").lower():  # (said already: proxy_failure's own)
        return error
    return ProviderError(str(error.args[0]) if error.args else "Proxy authentication required.",
                         provider=error.provider, status=error.status, retryable=False,
                         hint=f"{_capital(where)} refused its credentials (407). {_credentials_hint(found)}")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


_STATUS = re.compile(r"\s*(\d{3})\b")
_AIOHTTP = frozenset({"ClientHttpProxyError", "ClientProxyConnectionError"})  # (aiohttp's: urllib's NO_PROXY rules)


def proxy_failure(provider: str, exc: BaseException, names: set[str], base_url: str | None,
                  timeout: float | None = None) -> ProviderError | None:
    """The ProviderError for an HTTP client's exception that is the proxy's failure, else None.

    Recognised (by class name: ``names``, the exception's classes of the HTTP libraries): httpx's ``ProxyError``
    (the proxy answered ``CONNECT`` with an error: a 407 refuses its credentials, not retryable; another status is
    retryable when a 5xx, 408 or 429) and aiohttp's ``ClientHttpProxyError``; and, when a proxy variable applies to
    the request's URL (:func:`proxy_for`), a failure while toolwire talked to the proxy itself (:func:`_proxy_phase`;
    review 256 #3): a failed or timed-out connection (httpx's ``ConnectError`` and ``ConnectTimeout``, aiohttp's
    ``ClientProxyConnectionError``: the proxy cannot be reached, retryable), a TLS handshake with a proxy written
    ``https://`` (one that speaks plain HTTP is told to write ``http://``; not retryable), and a proxy that stalls
    or closes the connection while asked to ``CONNECT`` (httpx's ``ReadTimeout``, ``RemoteProtocolError``...;
    retryable). A failure once the tunnel to the server is open is the server's (None here). The message and hint
    name the proxy variable, its URL with the user name and password masked.

    Args:
        provider: the provider's name, for the error.
        exc: the HTTP client's exception.
        names: the names of ``exc``'s classes that are the HTTP libraries'.
        base_url: the model's base URL, when ``exc`` carries no request.
        timeout: the request's timeout in seconds, said in a timed-out connection's message (None: not said).
    """
    if (unread := _unread_proxy(provider, exc, names)) is not None:
        return unread
    if (stalled := _aiohttp_stalled(provider, exc, names, base_url, timeout)) is not None:
        return stalled
    refused = bool(names & {"ProxyError", "ClientHttpProxyError"})
    if not refused and not names & {"ConnectError", "ClientProxyConnectionError", "ConnectTimeout", "TransportError"}:
        return None
    detail = " ".join(str(getattr(exc, "os_error", None) or exc).split())[:300] or type(exc).__name__
    found = proxy_for(_request_url(exc) or base_url, exc, aiohttp=bool(names & _AIOHTTP))
    if not refused:
        return None if found is None else _unreachable(provider, exc, names, found, redact_url(detail), timeout)
    where, name = _named(found)
    detail = redact_url(detail)
    status = getattr(exc, "status", None)
    code = _STATUS.match(detail)
    status = status if isinstance(status, int) else int(code.group(1)) if code else None
    if status == 407:
        return ProviderError(f"{_capital(where)} refused its credentials ({detail}).", provider=provider, status=407,
                             retryable=False, hint=_credentials_hint(found))
    return ProviderError(f"{_capital(where)} did not open the connection to the server ({detail}).",
                         provider=provider, status=status,
                         retryable=status is None or status >= 500 or status in (408, 429),
                         hint=f"Check the proxy (its log may say why) and that it lets toolwire reach the "
                              f"provider, or unset {name}; then try again.")


def _unreachable(provider: str, exc: BaseException, names: set[str], found: tuple[str, str], detail: str,
                 timeout: float | None) -> ProviderError | None:
    """:func:`proxy_failure`'s error for a connection that failed while toolwire talked to the proxy ``found``
    (``(name, value)``), else None (the failure is the server's, or not one of a connection)."""
    phase = _proxy_phase(exc)
    where, name = _named(found)
    unencoded = _unencoded_hint(found)
    within = f" after {timeout:g} s" if isinstance(timeout, int | float) else ""
    tls = re.search(r"ssl|certificate|tls", detail, re.IGNORECASE)
    if phase == "tunnel" or (tls and not found[1].strip().lower().startswith("https://")):
        return None  # (the tunnel to the server is open, or TLS with the server through it: the server's)
    if tls:  # (the TLS handshake with a proxy written https://)
        plain = shown_endpoint("http://" + found[1].strip().partition("://")[2], proxy=True)
        if re.search(r"wrong.version.number|packet.length.too.long|record.layer.failure", detail, re.IGNORECASE):
            hint = (f"The proxy speaks plain HTTP, not TLS: write its URL with http:// in {name} ({plain}), or unset "
                    f"{name}.")
        else:
            hint = (f"Check the proxy's certificate, or write its URL with http:// in {name} ({plain}) if the proxy "
                    f"takes plain HTTP, or unset {name}; then try again.")
        return ProviderError(f"Could not open a TLS connection to {where}: {detail}.", provider=provider, status=None,
                             retryable=False, hint=hint)
    if names & {"ConnectTimeout"}:
        return ProviderError(f"Could not connect to {where}: the connection timed out{within}.", provider=provider,
                             status=None, retryable=True,
                             hint=unencoded or f"Check that the proxy is running, that the host and port in {name} are "
                                  f"right and that no firewall drops the connection to it, or unset {name}; then try "
                                  "again.")
    if names & {"ConnectError", "ClientProxyConnectionError"}:
        return ProviderError(f"Could not connect to {where}: {detail}.", provider=provider, status=None, retryable=True,
                             hint=unencoded or f"Check that the proxy is running and that the host and port in {name} "
                                  f"are right, or unset {name}; then try again.")
    if phase != "connect":  # (a read or write failure after the request went on: it cannot be told from the server's)
        return None
    said = (f"did not answer the request to open a connection to the server{within.replace(' after', ' within')}"
            if names & {"TimeoutException"} else f"closed the connection before opening one to the server ({detail})")
    return ProviderError(f"{_capital(where)} {said}.", provider=provider, status=None, retryable=True,
                         hint=f"Check that {name} names a working proxy (its log may say why), or unset {name}; then "
                              f"try again.")


def _unencoded_hint(found: tuple[str, str]) -> str | None:
    """The hint for a proxy URL (``(name, value)``) whose user name or password holds ``@``, ``/``, ``?`` or ``#`` not
    %-encoded, which the HTTP library reads as the end of the user info (``http://alice:p@ss/word@proxy:8080``
    connects to the host ``ss``: review 314 #6); None when it holds none."""
    name, value = found
    if not re.search(r"[/?#@]", _user_info(value, True)):
        return None
    return (f"Write '@', '/', '?' and '#' in the proxy's user name and password in {name} as %40, %2F, %3F and %23 "
            "(as written, the HTTP library reads the host from the middle of the password), then try again.")


def _unread_proxy(provider: str, exc: BaseException, names: set[str]) -> ProviderError | None:
    """The error for an HTTP client's ``InvalidURL`` (aiohttp's: Gemini's async client) that quotes a proxy
    variable's value, which that client cannot read (one written without ``http://``: review 260 #4), else None.
    Not retryable; the message names the variable, its URL masked; the user info is masked in ``exc`` in place."""
    if "InvalidURL" not in names:
        return None
    quoted = str(getattr(exc, "url", None) or (exc.args[0] if exc.args else "")).strip()
    for name, value in _settings():
        if quoted and quoted in (value.strip(), value.strip().partition("://")[2]):
            with contextlib.suppress(AttributeError, TypeError):  # (its args hold a yarl URL, not text)
                exc.args = (shown_endpoint(value, proxy=True), *exc.args[1:])
                exc._url = shown_endpoint(value, proxy=True)  # type: ignore[attr-defined]  # (what its url property shows)
            infos = {_user_info(value), _user_info(value, True)}
            for secret in sent_forms(info for info in infos if len(info) >= 4):
                scrub_exception(exc, secret)
            return ProviderError(
                f"The environment variable {name} holds {shown_endpoint(value, proxy=True)!r}, which the HTTP client "
                f"of {provider}'s async calls (aiohttp) cannot read as a proxy URL.", provider=provider, status=None,
                retryable=False, hint=f"Write {name} as http://[user:password@]host:port, or unset it.")
    return None


def _aiohttp_stalled(provider: str, exc: BaseException, names: set[str], base_url: str | None,
                     timeout: float | None) -> ProviderError | None:
    """The error for a timeout (a bare ``TimeoutError``, aiohttp's ``ServerTimeoutError``) raised while aiohttp was
    still connecting to a proxy or waiting for its answer to ``CONNECT`` (:func:`_aiohttp_phase`; review 260 #1),
    else None (no proxy applies, or the tunnel to the server was already open: the server's part)."""
    if not (isinstance(exc, TimeoutError) or names & {"ServerTimeoutError"}):
        return None
    phase = _aiohttp_phase(exc)
    found = proxy_for(_request_url(exc) or base_url, exc, aiohttp=True) if phase else None
    if found is None:
        return None
    where, name = _named(found)
    within = f" after {timeout:g} s" if isinstance(timeout, int | float) else ""
    if phase == "connect":
        return ProviderError(f"Could not connect to {where}: the connection timed out{within}.", provider=provider,
                             status=None, retryable=True,
                             hint=f"Check that the proxy is running, that the host and port in {name} are right and "
                                  f"that no firewall drops the connection to it, or unset {name}; then try again.")
    return ProviderError(f"{_capital(where)} did not answer the request to open a connection to the server"
                         f"{within.replace(' after', ' within')}.", provider=provider, status=None, retryable=True,
                         hint=f"Check that {name} names a working proxy (its log may say why), or unset {name}; then "
                              f"try again.")


def _aiohttp_phase(exc: BaseException) -> str | None:
    """Where aiohttp was with a proxy when ``exc`` (or what it chains: the ``CancelledError`` a timeout is raised
    from) was raised, read from its traceback: ``"connect"`` (connecting to the proxy), ``"answer"`` (the proxy's
    answer to ``CONNECT`` awaited); None when no frame of aiohttp's ``_create_proxy_connection`` is on it, or the
    TLS handshake with the server through the tunnel had begun (the server's part)."""
    for current in _chain(exc):
        frames, trace = [], current.__traceback__
        while trace is not None:
            if str(trace.tb_frame.f_globals.get("__name__", "")).startswith("aiohttp."):
                frames.append(trace.tb_frame.f_code.co_name)
            trace = trace.tb_next
        if "_create_proxy_connection" not in frames:
            continue
        after = [*frames[frames.index("_create_proxy_connection") + 1:], ""][0]  # (what it was awaiting)
        if after in ("_start_tls_connection", "_wrap_create_connection", "_wrap_existing_connection"):
            return None  # (TLS with the server through the open tunnel)
        return "connect" if after == "_create_direct_connection" else "answer"
    return None


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it chains (cause, context), each once, at most 16."""
    found: list[BaseException] = []
    stack: list[BaseException | None] = [exc]
    while stack and len(found) < 16:
        current = stack.pop()
        if current is not None and not any(current is seen for seen in found):
            found.append(current)
            stack += [current.__cause__, current.__context__]
    return found


def _proxy_phase(exc: BaseException) -> str | None:
    """Where httpcore was with a proxy when ``exc`` (or what it chains) was raised, read from its traceback:
    ``"connect"`` (connecting to the proxy, or its answer to ``CONNECT`` awaited), ``"forward"`` (a plain ``http://``
    request sent to the proxy), ``"tunnel"`` (the tunnel to the server open: the server's part); None when no frame
    of httpcore's proxy connections says (no proxy used, or an exception made without a traceback)."""
    stack: list[BaseException | None] = [exc]
    seen = 0
    while stack and seen < 16:
        current = stack.pop()
        if current is None:
            continue
        seen += 1
        trace = current.__traceback__
        while trace is not None:
            frame = trace.tb_frame
            module = str(frame.f_globals.get("__name__", ""))
            if module.startswith("httpcore") and module.endswith(".http_proxy") and \
                    frame.f_code.co_name in ("handle_request", "handle_async_request"):
                kind, local = type(frame.f_locals.get("self")).__name__, frame.f_locals
                if kind.endswith("TunnelHTTPConnection"):
                    return "connect" if "connect_request" in local and "connect_response" not in local else "tunnel"
                if kind.endswith("ForwardHTTPConnection"):
                    return "forward"
            trace = trace.tb_next
        stack += [current.__cause__, current.__context__]
    return None


_LIBRARY_MODULES = ("httpx", "httpx2", "httpcore", "httpcore2", "aiohttp")


def proxy_cause(provider: str, exc: BaseException, base_url: str | None, timeout: float | None) -> ProviderError | None:
    """:func:`proxy_failure` for ``exc``, or for the HTTP client's exception an SDK's error wraps (its ``__cause__``:
    the openai and anthropic SDKs' ``APITimeoutError`` is raised from httpx's ``ConnectTimeout``); None when neither
    is the proxy's failure.

    Args:
        provider: the provider's name, for the error.
        exc: what a request raised.
        base_url: the model's base URL, when the exception carries no request.
        timeout: the request's timeout in seconds.
    """
    for current in (exc, exc.__cause__):
        names = {cls.__name__ for cls in type(current).__mro__ if cls.__module__.split(".")[0] in _LIBRARY_MODULES}
        if current is not None and (names or isinstance(current, TimeoutError)):
            return proxy_failure(provider, current, names, base_url, timeout)
    return None
