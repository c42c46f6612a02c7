"""Review 154 #2: `toolwire mcp serve --transport http` refuses DNS-rebinding requests on every address."""

from __future__ import annotations

import asyncio

import pytest

from toolwire.mcp._http_security import OriginCheck, exposure_warning, is_loopback, security_settings

pytest.importorskip("mcp")


@pytest.mark.parametrize(("host", "loopback"), [("127.0.0.1", True), ("127.0.0.2", True), ("LOCALHOST", True),
                                                ("::1", True), ("[::1]", True), ("0.0.0.0", False),
                                                ("192.168.1.5", False), ("example.org", False)])
def test_every_loopback_address_is_local(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
    settings = security_settings(host)
    assert settings.enable_dns_rebinding_protection is loopback
    assert (exposure_warning(host, 8000) is None) is loopback
    if host == "127.0.0.2":
        assert "127.0.0.2:*" in settings.allowed_hosts and "http://127.0.0.2:*" in settings.allowed_origins


def _status(origin: str | None) -> int:
    sent: list[dict] = []
    reached: list[bool] = []

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        reached.append(True)
        await send({"type": "http.response.start", "status": 200, "headers": []})

    async def send(message):  # type: ignore[no-untyped-def]
        sent.append(message)

    headers = [(b"host", b"evil.example:8000")] + ([(b"origin", origin.encode())] if origin else [])
    asyncio.run(OriginCheck(app)({"type": "http", "headers": headers}, None, send))
    assert bool(reached) is (sent[0]["status"] == 200)
    return sent[0]["status"]


def test_a_page_of_another_site_gets_403_and_clients_without_origin_pass() -> None:
    assert _status("http://evil.example:8000") == 403
    assert _status("null") == 403
    assert _status(None) == 200  # (clients that are not browsers send no Origin)
    assert _status("http://localhost:6274") == 200  # (a local inspector page)
    assert _status("http://127.0.0.1:3000") == 200
