"""Review 256 #1-#4: ordinary ``word:thing@host`` text left readable (a schemeless user info is masked only in a URL
the user gave, #1); which requests went through a proxy judged by httpx's own NO_PROXY rules (#2); a proxy that drops
or stalls the connection, or an ``https://`` proxy URL for a plain-HTTP proxy, named as the proxy's problem (#3);
secret headers told by whole name parts, so ``x-portkey-*`` values stay readable (#4)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from toolwire.errors import UserError

_PROXY_VARS = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy", "NO_PROXY",
               "no_proxy", "REQUEST_METHOD", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL")


@pytest.fixture
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in _PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def _serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def _model(provider: str, sdk: str, **options: Any) -> Any:
    from toolwire import models

    pytest.importorskip(sdk)
    return getattr(models, provider)(model="m", api_key="sk-KEY-0123456789abcdef", retry_backoff=0, **options)


# -- 1. ordinary word:thing@host text --------------------------------------------------------------------------

_ORDINARY = ["unknown user:alice@example.com", "acct:alice@mastodon.social not found",
             "SMTP:alice@corp.com is not a primary address", "sip:alice@example.com busy", "From:alice@example.com",
             "Address 'email:bob@corp.com' rejected", "meeting at 10:30@room4", "C:\\Users\\bob@corp\\file.txt missing",
             "no mailbox for recipient:alise@corp.com; known: sales@corp.com"]


@pytest.mark.parametrize("text", _ORDINARY)
def test_redact_url_leaves_ordinary_text_alone(text: str) -> None:
    from toolwire._secrets import redact_url

    assert redact_url(text) == text


def test_redact_url_still_masks_urls() -> None:
    from toolwire._secrets import redact_url

    assert redact_url("see http://user:pw@host/v1 and postgres://admin:pa/ss@db") == \
        "see http://****@host/v1 and postgres://****@db"


@pytest.mark.parametrize(("url", "shown"), [
    ("gwuser:S3cretGatewayPass@gateway.corp:8443/v1", "****@gateway.corp:8443/v1"),
    ("//gwuser:S3cretGatewayPass@gateway.corp", "//****@gateway.corp"),
    ("http://gwuser:S3cretGatewayPass@gateway.corp", "http://****@gateway.corp")])
def test_a_given_url_has_its_schemeless_user_info_masked(url: str, shown: str) -> None:
    from toolwire._secrets import redact_given_url, url_secrets

    assert redact_given_url(url) == shown
    assert "gwuser:S3cretGatewayPass" in url_secrets(url)


def test_a_tool_error_keeps_the_address_the_model_sent() -> None:
    from toolwire import ToolExecutor, tool

    @tool
    def send_mail(to: str) -> str:
        """Send a mail."""
        raise ValueError(f"no mailbox for recipient:{to}; known: sales@corp.com")

    @tool
    def lookup(account: str) -> str:
        """Look up a fediverse account."""
        raise LookupError(f"'{account}' not found")

    sent, found = ToolExecutor([send_mail, lookup]).execute([
        {"name": "send_mail", "args": {"to": "alise@corp.com"}, "id": "c1"},
        {"name": "lookup", "args": {"account": "acct:alice@mastodon.social"}, "id": "c2"}])
    assert "recipient:alise@corp.com" in str(sent.content)
    assert "'acct:alice@mastodon.social' not found" in str(found.content)


@pytest.mark.parametrize(("provider", "sdk", "env"), [("ChatOpenAI", "openai", "OPENAI_BASE_URL"),
                                                      ("ChatAnthropic", "anthropic", "ANTHROPIC_BASE_URL"),
                                                      ("ChatGoogleGenAI", "google.genai", None)])
@pytest.mark.parametrize("url", ["gwuser:S3cretGatewayPass@gateway.corp/v1", "//gwuser:S3cretGatewayPass@gateway.corp"])
def test_a_schemeless_base_url_is_still_masked(provider: str, sdk: str, env: str | None, url: str,
                                               no_proxies: pytest.MonkeyPatch) -> None:
    errors = []
    with pytest.raises(UserError) as given:
        _model(provider, sdk, base_url=url)
    errors.append(given.value)
    if env:
        no_proxies.setenv(env, url)
        with pytest.raises(UserError) as read:
            _model(provider, sdk)
        errors.append(read.value)
    for error in errors:
        assert "S3cret" not in str(error) and "****@gateway.corp" in str(error)
