"""Review 256 #1-#4: ordinary ``word:thing@host`` text left readable (a schemeless user info is masked only in a URL
the user gave, #1); which requests went through a proxy judged by httpx's own NO_PROXY rules (#2); a proxy that drops
or stalls the connection, or an ``https://`` proxy URL for a plain-HTTP proxy, named as the proxy's problem (#3);
secret headers told by whole name parts, so ``x-portkey-*`` values stay readable (#4)."""

from __future__ import annotations

import asyncio
import contextlib
import select
import socket
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from _queued_http import QuotingGateway, serve_handler
from toolwire.errors import ProviderError, UserError

_PROXY_VARS = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy", "NO_PROXY",
               "no_proxy", "REQUEST_METHOD", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL")


@pytest.fixture
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in _PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


_serve = serve_handler


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


# -- 4. secret headers told by whole name parts -----------------------------------------------------------------


def test_headers_whose_name_only_contains_key_are_not_secrets() -> None:
    from toolwire._secrets import header_secrets

    assert header_secrets({"x-portkey-provider": "anthropic-vertex", "x-portkey-trace-id": "checkout-flow-42",
                           "X-Author-Name": "Jonathan Smithers", "X-Keyboard-Layout": "dvorak-programmer",
                           "X-Title": "my-app-title-shown"}) == []


@pytest.mark.parametrize("name", ["x-api-key", "api-key", "X-Api-Key", "x-portkey-api-key", "Authorization",
                                  "Proxy-Authorization", "Cookie", "X-Gateway-Token", "x_auth_token", "X-Apikey",
                                  "Ocp-Apim-Subscription-Key", "x-goog-api-key", "X-Client-Secret", "xApiKey"])
def test_headers_whose_name_says_secret_are_masked(name: str) -> None:
    from toolwire._secrets import header_secrets

    assert header_secrets({name: "value-0123456789"}) == ["value-0123456789"]


def test_a_value_with_an_auth_scheme_is_masked_under_any_name() -> None:
    from toolwire._secrets import header_secrets

    assert "tok-0123456789" in header_secrets({"x-portkey-config": "Bearer tok-0123456789"})


class _Gateway(QuotingGateway):
    """A gateway that answers 400 quoting the Portkey headers it got."""

    def said(self) -> str:
        return (f"[trace {self.headers.get('x-portkey-trace-id')}] provider "
                f"'{self.headers.get('x-portkey-provider')}' has no model 'm'")


@pytest.fixture
def gateway() -> Iterator[int]:
    yield from _serve(_Gateway)


def test_portkey_headers_quoted_by_a_gateway_stay_readable(gateway: int, no_proxies: pytest.MonkeyPatch) -> None:
    headers = {"x-portkey-provider": "anthropic-vertex", "x-portkey-trace-id": "checkout-flow-42",
               "x-portkey-api-key": "PORTKEYSECRET-0123456789"}
    model = _model("ChatOpenAI", "openai", base_url=f"http://127.0.0.1:{gateway}/v1", max_retries=0,
                   model_kwargs={"extra_headers": headers})
    with pytest.raises(ProviderError) as failed:
        model.invoke("hi")
    assert "[trace checkout-flow-42] provider 'anthropic-vertex'" in str(failed.value)


# -- 2. NO_PROXY read by httpx's rules ---------------------------------------------------------------------------


def test_no_proxy_with_a_leading_dot_does_not_spare_the_domain_itself(no_proxies: pytest.MonkeyPatch) -> None:
    from toolwire.models._proxy_env import proxy_for

    no_proxies.setenv("HTTP_PROXY", "http://me:SecretPw-12345@127.0.0.1:1")  # (nothing listens on port 1)
    no_proxies.setenv("NO_PROXY", ".internal.test")
    assert proxy_for("http://internal.test/v1") == ("HTTP_PROXY", "http://me:SecretPw-12345@127.0.0.1:1")
    assert proxy_for("http://api.internal.test/v1") is None
    assert proxy_for("http://internal.test/v1", aiohttp=True) is None  # (aiohttp reads it as urllib does)
    with pytest.raises(ProviderError) as failed:
        _model("ChatOpenAI", "openai", base_url="http://internal.test/v1", max_retries=0).invoke("hi")
    assert "HTTP_PROXY" in str(failed.value) and "HTTP_PROXY" in failed.value.hint
    assert "SecretPw" not in str(failed.value)


@pytest.mark.parametrize(("provider", "sdk", "url"), [("ChatOpenAI", "openai", "http://127.0.0.1:1/v1"),
                                                      ("ChatAnthropic", "anthropic", "http://127.0.0.1:1")])
def test_no_proxy_in_url_form_spares_the_host(provider: str, sdk: str, url: str,
                                              no_proxies: pytest.MonkeyPatch) -> None:
    from toolwire.models._proxy_env import proxy_for

    no_proxies.setenv("HTTP_PROXY", "http://me:SecretPw-12345@127.0.0.1:9")
    no_proxies.setenv("NO_PROXY", "http://127.0.0.1")  # (httpx spares http://127.0.0.1 on any port)
    assert proxy_for(url) is None
    with pytest.raises(ProviderError) as failed:
        _model(provider, sdk, base_url=url, max_retries=0).invoke("hi")
    assert "proxy" not in str(failed.value).lower() and "proxy" not in failed.value.hint.lower()


# -- 3. a proxy that drops or stalls the connection, an https:// URL for a plain-HTTP proxy ------------------------


@pytest.fixture
def dropping_port() -> Iterator[int]:
    """A port whose listen queue is full, so the SYNs of a new connection are dropped (a firewalled proxy)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    port = server.getsockname()[1]
    fillers = []
    for _ in range(3):
        filler = socket.socket()
        filler.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            filler.connect(("127.0.0.1", port))
        fillers.append(filler)
    time.sleep(0.1)
    yield port
    for sock in (*fillers, server):
        sock.close()


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that takes connections (the kernel completes them) and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(50)
    yield server.getsockname()[1]
    server.close()


class _Plain(BaseHTTPRequestHandler):
    """A plain-HTTP proxy (it answers everything with 407)."""

    protocol_version = "HTTP/1.1"

    def _answer(self) -> None:
        self.send_response(407)
        self.send_header("content-length", "0")
        self.end_headers()

    do_CONNECT = do_POST = do_GET = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def plain_proxy() -> Iterator[int]:
    yield from _serve(_Plain)


class _Tunnel(BaseHTTPRequestHandler):
    """A working proxy: it opens the tunnel a CONNECT asks for and relays both ways."""

    protocol_version = "HTTP/1.1"

    def do_CONNECT(self) -> None:
        host, _, port = self.path.rpartition(":")
        upstream = socket.create_connection((host, int(port)))
        self.send_response(200)
        self.end_headers()
        self.wfile.flush()
        ends = [self.connection, upstream]
        with contextlib.suppress(OSError):
            while True:
                ready, _, _ = select.select(ends, [], [], 5)
                if not ready:
                    break
                for end in ready:
                    data = end.recv(65536)
                    if not data:
                        return
                    (upstream if end is self.connection else self.connection).sendall(data)
        upstream.close()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def tunnel() -> Iterator[int]:
    yield from _serve(_Tunnel)


@pytest.mark.parametrize(("provider", "sdk"), [("ChatOpenAI", "openai"), ("ChatAnthropic", "anthropic")])
def test_a_proxy_that_drops_the_connection_is_named(provider: str, sdk: str, dropping_port: int,
                                                    no_proxies: pytest.MonkeyPatch) -> None:
    no_proxies.setenv("HTTPS_PROXY", f"http://me:SecretPw-12345@127.0.0.1:{dropping_port}")
    with pytest.raises(ProviderError) as failed:
        _model(provider, sdk, max_retries=0, timeout=0.5).invoke("hi")
    error = failed.value
    assert "proxy in HTTPS_PROXY" in str(error) and "timed out" in str(error)
    assert "HTTPS_PROXY" in error.hint and "server" not in error.hint and error.retryable
    assert "SecretPw" not in str(error) + error.hint


def test_a_proxy_that_never_answers_connect_is_named(silent_port: int, no_proxies: pytest.MonkeyPatch) -> None:
    no_proxies.setenv("HTTPS_PROXY", f"http://me:SecretPw-12345@127.0.0.1:{silent_port}")
    with pytest.raises(ProviderError) as failed:
        _model("ChatOpenAI", "openai", max_retries=0, timeout=0.5).invoke("hi")
    error = failed.value
    assert "proxy in HTTPS_PROXY" in str(error) and "did not answer" in str(error)
    assert "HTTPS_PROXY" in error.hint and "is running" not in error.hint


def test_a_server_that_stalls_behind_a_working_proxy_is_not_the_proxys(tunnel: int, silent_port: int,
                                                                       no_proxies: pytest.MonkeyPatch) -> None:
    no_proxies.setenv("HTTPS_PROXY", f"http://127.0.0.1:{tunnel}")
    with pytest.raises(ProviderError) as failed:
        _model("ChatOpenAI", "openai", base_url=f"https://127.0.0.1:{silent_port}/v1", max_retries=0,
               timeout=0.5).invoke("hi")
    assert "proxy" not in str(failed.value) and "timed out" in str(failed.value)


@pytest.mark.parametrize(("provider", "sdk", "call"), [("ChatOpenAI", "openai", "invoke"),
                                                       ("ChatOpenAI", "openai", "ainvoke"),
                                                       ("ChatAnthropic", "anthropic", "invoke"),
                                                       ("ChatGoogleGenAI", "google.genai", "invoke")])
def test_an_https_url_for_a_plain_http_proxy_says_to_write_http(provider: str, sdk: str, call: str, plain_proxy: int,
                                                                no_proxies: pytest.MonkeyPatch) -> None:
    no_proxies.setenv("HTTPS_PROXY", f"https://me:SecretPw-12345@127.0.0.1:{plain_proxy}")
    model = _model(provider, sdk, max_retries=0)
    with pytest.raises(ProviderError) as failed:
        model.invoke("hi") if call == "invoke" else asyncio.run(model.ainvoke("hi"))
    error = failed.value
    assert "proxy in HTTPS_PROXY" in str(error) and "http://" in error.hint and "HTTPS_PROXY" in error.hint
    assert "server" not in error.hint and "SecretPw" not in str(error) + error.hint


def test_a_connect_timeout_through_a_proxy_is_the_proxys(no_proxies: pytest.MonkeyPatch) -> None:
    from toolwire.models._retry import transport_error

    httpx = pytest.importorskip("httpx")
    no_proxies.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    request = httpx.Request("POST", "https://api.example.test/v1")
    error = transport_error("openai", httpx.ConnectTimeout("timed out", request=request), timeout=5)
    assert error is not None and "proxy in HTTPS_PROXY" in str(error)
    error = transport_error("openai", httpx.ReadTimeout("timed out", request=request), timeout=5)  # (the server's)
    assert error is not None and "proxy" not in str(error) + error.hint
    no_proxies.delenv("HTTPS_PROXY")
    error = transport_error("openai", httpx.ConnectTimeout("timed out", request=request), timeout=5)
    assert error is not None and "proxy" not in str(error) + error.hint
