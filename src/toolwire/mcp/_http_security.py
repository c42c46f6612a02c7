"""Protection of ``toolwire mcp serve --transport http`` against DNS rebinding.

The MCP transport specification (Streamable HTTP, "Security Warning") says servers MUST validate the ``Origin``
header of every incoming connection and answer a present, invalid one with HTTP 403, SHOULD bind to localhost when
they run locally, and SHOULD authenticate connections. A web page the user visits can otherwise reach a server on
this machine (its address rebound to 127.0.0.1) and call its tools.

* On a loopback address (any of 127.0.0.0/8, ``::1``, ``localhost`` in any letter case) the MCP SDK's own check is on:
  the ``Host`` header must name a loopback host and a present ``Origin`` must be a loopback page's (review 154 #2: it
  was on for the three spellings ``127.0.0.1``, ``localhost`` and ``::1`` only).
* On any other address (``0.0.0.0``, a LAN address) the ``Host`` a client uses cannot be known, so only ``Origin`` is
  checked (:class:`OriginCheck`): a request that carries one must come from a loopback page. Clients that are not
  browsers send none. :func:`exposure_warning` says that such a server has no authentication.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

__all__ = ["OriginCheck", "exposure_warning", "is_loopback", "security_settings"]

_LOOPBACK_HOSTS = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
_LOOPBACK_ORIGINS = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address to listen on, or a URL's host name) is this machine only: ``localhost`` in any
    letter case, or an IPv4/IPv6 loopback address (``127.0.0.2``, ``::1``, ``[::1]``)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def security_settings(host: str) -> Any:
    """The MCP SDK's ``TransportSecuritySettings`` for a server listening on ``host``: Host and Origin checked for a
    loopback address (the address itself allowed too, ``127.0.0.2``), no check of the SDK's otherwise (see
    :class:`OriginCheck`)."""
    from mcp.server.transport_security import TransportSecuritySettings

    if not is_loopback(host):
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    name = host.strip().strip("[]").lower()
    shown = f"[{name}]" if ":" in name else name
    hosts = [*_LOOPBACK_HOSTS, *([f"{shown}:*"] if f"{shown}:*" not in _LOOPBACK_HOSTS else [])]
    origins = [*_LOOPBACK_ORIGINS, *([f"http://{shown}:*"] if f"http://{shown}:*" not in _LOOPBACK_ORIGINS else [])]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                     allowed_origins=origins)


def _loopback_origin(origin: str) -> bool:
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and parts.hostname is not None and is_loopback(parts.hostname)


class OriginCheck:
    """ASGI middleware: a request whose ``Origin`` header is present and not a loopback page's gets HTTP 403, as the
    MCP transport specification says (used on non-loopback addresses, where the SDK's own check is off).

    Args:
        app: the ASGI application it guards.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            origin = next((value.decode("latin-1") for key, value in scope.get("headers") or ()
                           if key.lower() == b"origin"), None)
            if origin and not _loopback_origin(origin):
                await send({"type": "http.response.start", "status": 403,
                            "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
                await send({"type": "http.response.body", "body": b"Invalid Origin header"})
                return
        await self.app(scope, receive, send)


def exposure_warning(host: str, port: int) -> str | None:
    """The warning for serving on ``host`` (None for a loopback address): the tools are open to the network."""
    if is_loopback(host):
        return None
    return (f"Serving MCP on {host}:{port} with no authentication: anyone who can reach this port can call these "
            "tools (web pages cannot: requests from a page that is not on this machine get 403); serve on "
            "127.0.0.1 unless the network is trusted.")
