"""The Hugging Face Hub source's endpoint (``HF_ENDPOINT``) for :mod:`toolwire.models.pull`: how a message shows it
(its credentials masked), whether ``huggingface_hub`` can read it, and the quick reachability probe run before a
download.

``HF_ENDPOINT`` may hold a mirror's user name and password (``http://user:pw@mirror``). No message shows any part
of them: not the URL's user info, and not a word of it that a parser quotes back (``huggingface_hub`` and
``http.client`` quote the "port" of ``http://user:pa/ss@mirror``, which is the start of the password: review 202
#1). An endpoint ``huggingface_hub`` cannot read is said in one sentence before that library is imported, since
its import parses ``HF_ENDPOINT`` and prints the error it raises.
"""

from __future__ import annotations

import re
import threading
import urllib.parse
from typing import Any

from toolwire._secrets import mask_secret, redact_url, url_secrets

__all__ = ["endpoint_problem", "hub_reachable", "masked_for", "shown_endpoint"]

_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_HOST_PORT = re.compile(r"(?:\[[^\]]*\]|[^:\[\]]*)(?::\d*)?")  # a host (IPv6 in brackets) and maybe a port


def _user_info(endpoint: str, proxy: bool = False) -> str:
    """What ``endpoint`` holds between its scheme's ``://`` (or its start) and its last ``@``; empty when no ``@``,
    and when that ``@`` is in the path: the text before the first ``/`` holds no ``@`` and no ``:`` but before a
    port's digits (an IPv6 host in brackets aside; ``http://host/repository/@hf``, ``http://host:8080/@hf``: review
    204 #3), the rule :mod:`toolwire._secrets` masks URLs by; and up to the last ``@`` before the first ``/`` when
    that part holds one (a login, then a path with ``@``: review 210 #3). With ``proxy`` (a proxy variable's URL,
    which has no path) always up to the last ``@``: a password with ``@`` and ``/`` not %-encoded
    (``http://alice:p@ss/word@proxy:8080``) is all user info, as :func:`~toolwire._secrets.redact_url` reads it
    (review 314 #6)."""
    head, sep, _ = endpoint.rpartition("@")
    if not sep:
        return ""
    scheme = _SCHEME.match(head)
    info = head[scheme.end():] if scheme else head
    if proxy:
        return info
    authority = re.split(r"[/?#]", info, maxsplit=1)[0]
    if "@" in authority:  # (RFC 3986: the user info ends at the authority's last "@")
        return authority.rpartition("@")[0]
    if len(authority) < len(info) and _HOST_PORT.fullmatch(authority):
        return ""
    return info


def shown_endpoint(endpoint: str, *, proxy: bool = False) -> str:
    """``endpoint`` as a message shows it: its user info (:func:`_user_info`, up to the last ``@`` for a ``proxy``
    URL) masked (``http://user:pa/ss@mirror`` gives ``http://****@mirror``; ``user:pw@host`` gives ``****@host``), and
    the values of query parameters that name a secret (:func:`~toolwire._secrets.redact_url`)."""
    info = _user_info(endpoint, proxy)
    if info:
        scheme = _SCHEME.match(endpoint)
        start = scheme.end() if scheme else 0  # (the user info follows the scheme: up to its own "@")
        endpoint = endpoint[:start] + "****@" + endpoint[start + len(info) + 1:]
    return redact_url(endpoint)


def masked_for(text: str, endpoint: str) -> str:
    """``text`` (an error's reason) with the credentials of URLs in it masked, and so every part of ``endpoint``'s
    user info and secret query values: the whole, and each piece of 3 or more characters between ``:``, ``/``,
    ``?``, ``#`` and ``@``, as written and percent-decoded (a parser quotes such a piece as a "port")."""
    info = _user_info(endpoint)
    pieces = [info, *re.split(r"[:/?#@]", info), *url_secrets(endpoint)]
    pieces += [urllib.parse.unquote(piece) for piece in pieces]
    text = redact_url(text)
    for piece in sorted({piece for piece in pieces if len(piece) >= 3}, key=len, reverse=True):
        text = mask_secret(text, piece)
    return text


def endpoint_problem(endpoint: str) -> str | None:
    """None when ``huggingface_hub`` can read ``endpoint`` as an http(s) URL with a host (and a number for its port),
    else one sentence saying what is wrong with it and what to write instead, its credentials masked."""
    shown = f"HF_ENDPOINT {shown_endpoint(endpoint)!r}"
    if not re.match(r"https?://[^/?#\s]", endpoint, re.IGNORECASE):
        return f"{shown} is not an http(s) URL: set it to the Hub's or your mirror's, such as https://huggingface.co"
    if re.search(r"[/?#]", _user_info(endpoint)):
        return f"{shown} has '/', '?' or '#' in its user name or password: write them as %2F, %3F and %23"
    try:
        parts = urllib.parse.urlsplit(endpoint.rstrip("/"))
        host = parts.hostname
    except ValueError:  # brackets that hold no IPv6 address
        host = None
    if not host:
        return f"{shown} has no host that can be read: write it as http(s)://host[:port], an IPv6 host in brackets"
    try:
        _ = parts.port
    except ValueError:  # a port that is not a number, or out of range
        return f"{shown} has a port that is not a number from 0 to 65535: write it as http(s)://host:port"
    return None


def hub_reachable(endpoint: str, timeout: float) -> str | None:
    """Return None when ``endpoint`` answers an HTTP(S) request (any status) within ``timeout`` seconds, else the
    reason (what :func:`endpoint_problem` says, or the network's reason with the endpoint's credentials masked).

    The whole probe, name lookup included, is bounded: it runs in a daemon thread. User info in the URL
    (``http://user:pw@mirror``, which urllib cannot send) is sent as HTTP Basic auth, as ``huggingface_hub``'s HTTP
    library sends it (review 192 #2). Redirects are not followed (a redirect is an answer), so those credentials
    reach no other host and no ``http://`` URL the endpoint redirects to (review 220 #2)."""
    import base64
    import urllib.error
    import urllib.request

    class _NoRedirect(urllib.request.HTTPRedirectHandler):
        """Follows no redirect: urllib then raises the 3xx answer as an ``HTTPError``."""

        def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> None:
            return None

    problem = endpoint_problem(endpoint)
    if problem is not None:
        return problem
    headers: dict[str, str] = {}
    url = endpoint
    parts = urllib.parse.urlsplit(endpoint)
    if "@" in parts.netloc:
        user, password = parts.username or "", parts.password or ""
        pair = f"{urllib.parse.unquote(user)}:{urllib.parse.unquote(password)}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
        url = urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
    result: list[str | None] = []

    def probe() -> None:
        try:
            request = urllib.request.Request(url.rstrip("/") + "/api/models", method="HEAD")
            for name, value in headers.items():  # (never copied onto a redirect's request either)
                request.add_unredirected_header(name, value)
            urllib.request.build_opener(_NoRedirect).open(request, timeout=timeout).close()
            result.append(None)
        except urllib.error.HTTPError as exc:
            exc.close()
            result.append(None)  # the server answered (a redirect too)
        except Exception as exc:  # OSError, ValueError, http.client's InvalidURL
            reason = getattr(exc, "reason", None) or exc
            result.append(masked_for(str(reason), endpoint) or type(exc).__name__)

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(timeout + 0.5)
    if not result:
        return f"no answer within {timeout:g} seconds"
    return result[0]
