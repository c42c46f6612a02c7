"""Review 253 #2-#6: a proxy's 407 or a proxy that is down named as the proxy's fault (#2), a base URL without its
scheme masked (#3), the proxy's credentials (#4) and the values of headers the user set (#5) masked in errors and in
the SDKs' DEBUG log, and a socks4 proxy given advice that fits (#6)."""

from __future__ import annotations

import base64
import json
import logging
import traceback
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar

import pytest

from _queued_http import QuotingGateway, serve_handler
from toolwire.errors import ProviderError, UserError

_PROXY_VARS = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy", "NO_PROXY",
               "no_proxy", "REQUEST_METHOD", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL")
_PROVIDERS = [("ChatOpenAI", "openai"), ("ChatAnthropic", "anthropic"), ("ChatGoogleGenAI", "google.genai")]


@pytest.fixture
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in _PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


class _Proxy(BaseHTTPRequestHandler):
    """A proxy that refuses every request (CONNECT or a plain one) with 407, quoting the credentials it got."""

    protocol_version = "HTTP/1.1"
    seen: ClassVar[list[str]] = []

    def _refuse(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.seen.append(self.command)
        sent = self.headers.get("proxy-authorization") or ""
        plain = base64.b64decode(sent.split()[-1]).decode() if sent.lower().startswith("basic ") else ""
        body = json.dumps({"error": {"message": f"proxy auth refused for {plain} (header {sent})"}}).encode()
        self.send_response(407)
        self.send_header("Proxy-Authenticate", 'Basic realm="corp"')
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_CONNECT = do_POST = do_GET = _refuse

    def log_message(self, *args: object) -> None:
        pass


class _Echo(QuotingGateway):
    """A server that answers 400 and quotes the request's headers (as some gateways do)."""

    def said(self) -> str:
        return f"Rejected: auth {self.headers.get('authorization')} token {self.headers.get('x-gateway-token')}"


_serve = serve_handler


@pytest.fixture
def proxy() -> Iterator[int]:
    _Proxy.seen = []
    yield from _serve(_Proxy)


@pytest.fixture
def echo() -> Iterator[int]:
    yield from _serve(_Echo)


def _model(provider: str, sdk: str, **options: Any) -> Any:
    from toolwire import models

    pytest.importorskip(sdk)
    return getattr(models, provider)(model="m", api_key="sk-KEY-0123456789abcdef", retry_backoff=0, **options)


def _shown(error: BaseException) -> str:
    return "".join(traceback.format_exception(error)) + f" {getattr(error, 'hint', '')}"


# -- 2. a proxy's 407, and a proxy that is down -------------------------------------------------------------------


@pytest.mark.parametrize(("provider", "sdk"), _PROVIDERS)
def test_a_proxys_407_on_connect_names_the_proxy_and_is_tried_once(provider: str, sdk: str, proxy: int,
                                                                   no_proxies: pytest.MonkeyPatch) -> None:
    no_proxies.setenv("HTTPS_PROXY", f"http://me:wrongpass-0123@127.0.0.1:{proxy}")
    with pytest.raises(ProviderError) as failed:
        _model(provider, sdk, max_retries=2).invoke("hi")  # (the default https endpoint: through the proxy)
    error = failed.value
    assert _Proxy.seen == ["CONNECT"]  # (not retried: the next try sends the same credentials)
    assert not error.retryable and "attempts" not in str(error) and str(error).count("refused its credentials") == 1
    assert "HTTPS_PROXY" in str(error) and "407" in str(error) and f"127.0.0.1:{proxy}" in str(error)
    assert "HTTPS_PROXY" in error.hint and "password" in error.hint and "server" not in error.hint
    assert "wrongpass" not in _shown(error)


def test_a_proxys_407_to_a_plain_request_names_the_proxy(proxy: int, no_proxies: pytest.MonkeyPatch) -> None:
    no_proxies.setenv("HTTP_PROXY", f"http://me:wrongpass-0123@127.0.0.1:{proxy}")
    with pytest.raises(ProviderError) as failed:
        _model("ChatOpenAI", "openai", base_url="http://api.example.test/v1", max_retries=2).invoke("hi")
    error = failed.value
    assert _Proxy.seen == ["POST"] and not error.retryable and error.status == 407
    assert "HTTP_PROXY" in error.hint and "password" in error.hint and "wrongpass" not in _shown(error)


@pytest.mark.parametrize(("provider", "sdk"), _PROVIDERS)
def test_a_proxy_that_is_down_is_named(provider: str, sdk: str, no_proxies: pytest.MonkeyPatch) -> None:
    no_proxies.setenv("HTTPS_PROXY", "http://me:pw-secret-99@127.0.0.1:1")  # (nothing listens on port 1)
    with pytest.raises(ProviderError) as failed:
        _model(provider, sdk, max_retries=0).invoke("hi")
    error = failed.value
    assert "proxy" in str(error) and "HTTPS_PROXY" in str(error) and "127.0.0.1:1" in str(error)
    assert "HTTPS_PROXY" in error.hint and "proxy" in error.hint and "server" not in error.hint
    assert "pw-secret-99" not in _shown(error)


def test_transport_error_without_a_proxy_is_unchanged(no_proxies: pytest.MonkeyPatch) -> None:
    from toolwire.models._retry import transport_error

    httpx = pytest.importorskip("httpx")
    error = transport_error("openai", httpx.ConnectError("refused"), timeout=5, base_url="http://127.0.0.1:9/v1")
    assert error is not None and "proxy" not in str(error) + error.hint and error.retryable


def test_a_host_no_proxy_spares_is_not_blamed_on_the_proxy(no_proxies: pytest.MonkeyPatch) -> None:
    from toolwire.models._retry import transport_error

    httpx = pytest.importorskip("httpx")
    no_proxies.setenv("HTTPS_PROXY", "http://127.0.0.1:1")
    no_proxies.setenv("NO_PROXY", "api.example.test")
    exc = httpx.ConnectError("refused", request=httpx.Request("POST", "https://api.example.test/v1"))
    error = transport_error("openai", exc, timeout=5)
    assert error is not None and "proxy" not in str(error) + error.hint


# -- 3. a base URL without its scheme ---------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "shown"), [
    ("gwuser:S3cretGatewayPass@gateway.corp:8443/v1", "****@gateway.corp:8443/v1"),
    ("'gwuser:S3cretGatewayPass@gateway.corp'", "'****@gateway.corp'"),
    ("//gwuser:S3cretGatewayPass@gateway.corp", "//****@gateway.corp"),
    ("holds gwuser:S3cretGatewayPass@gateway.corp/v1, which", "holds ****@gateway.corp/v1, which"),
    ("http://user:pw@host/v1", "http://****@host/v1"),
    ("http://[::1]:4873/@scope/pkg", "http://[::1]:4873/@scope/pkg"),
    ("Contact: admin@example.com", "Contact: admin@example.com"),
    ("at 12:30 today", "at 12:30 today"),
])
def test_redact_url_masks_user_info_without_a_scheme(text: str, shown: str) -> None:
    from toolwire._secrets import redact_given_url, url_secrets

    assert redact_given_url(text) == shown  # (a URL the user gave; free text keeps "acct:a@host": review 256 #1)
    if "S3cret" in text:
        assert "gwuser:S3cretGatewayPass" in url_secrets(text)


@pytest.mark.parametrize(("provider", "sdk", "env"), [("ChatOpenAI", "openai", "OPENAI_BASE_URL"),
                                                      ("ChatAnthropic", "anthropic", "ANTHROPIC_BASE_URL")])
@pytest.mark.parametrize("url", ["gwuser:S3cretGatewayPass@gateway.corp/v1", "//gwuser:S3cretGatewayPass@gateway.corp"])
def test_a_schemeless_base_url_is_refused_with_its_password_masked(provider: str, sdk: str, env: str, url: str,
                                                                  no_proxies: pytest.MonkeyPatch) -> None:
    with pytest.raises(UserError) as given:
        _model(provider, sdk, base_url=url)
    no_proxies.setenv(env, url)
    with pytest.raises(UserError) as read:
        _model(provider, sdk)
    for error in (given.value, read.value):
        assert "S3cret" not in str(error) and "****@gateway.corp" in str(error)


def test_masking_user_info_without_a_scheme_stays_linear() -> None:
    import time

    from toolwire._secrets import redact_given_url, url_secrets

    for text in ("a:" * 50_000, " a:b" * 30_000, "'a:" * 40_000, "a:=a:," * 30_000, "//a:" * 30_000):
        start = time.perf_counter()
        redact_given_url(text)
        url_secrets(text)
        assert time.perf_counter() - start < 2


# -- 4. the proxy's credentials echoed -------------------------------------------------------------------------


@pytest.mark.parametrize(("provider", "sdk"), _PROVIDERS)
def test_proxy_credentials_echoed_by_the_proxy_are_masked(provider: str, sdk: str, proxy: int,
                                                          no_proxies: pytest.MonkeyPatch) -> None:
    password = "PROXYPASS-abcdefghij"
    no_proxies.setenv("HTTP_PROXY", f"http://puser:{password}@127.0.0.1:{proxy}")
    with pytest.raises(ProviderError) as failed:
        _model(provider, sdk, base_url="http://api.example.test/v1", max_retries=0).invoke("hi")
    shown = _shown(failed.value)
    sent = base64.b64encode(f"puser:{password}".encode()).decode()
    assert _Proxy.seen  # (the proxy got them, and echoed them)
    assert password not in shown and sent not in shown and sent[:12] not in shown
    assert "HTTP_PROXY" in failed.value.hint


# -- 5. the values of headers the user set ------------------------------------------------------------------------


@pytest.mark.parametrize(("provider", "sdk"), _PROVIDERS[:2])
@pytest.mark.parametrize("where", ["model_kwargs", "bind"])
def test_header_tokens_echoed_by_a_server_are_masked(provider: str, sdk: str, where: str, echo: int,
                                                     no_proxies: pytest.MonkeyPatch) -> None:
    token = "GATEWAYTOKEN-0123456789"
    headers = {"Authorization": f"Bearer {token}", "X-Gateway-Token": "HDRTOKEN-9876543210zyxwvu",
               "X-Title": "my-app-title-shown"}
    url = f"http://127.0.0.1:{echo}" + ("/v1" if provider == "ChatOpenAI" else "")
    if where == "bind":
        model = _model(provider, sdk, base_url=url, max_retries=0).bind(extra_headers=headers)
    else:
        model = _model(provider, sdk, base_url=url, max_retries=0, model_kwargs={"extra_headers": headers})
    with pytest.raises(ProviderError) as failed:
        model.invoke("hi")
    shown = _shown(failed.value)
    assert "Rejected" in shown and token not in shown and "HDRTOKEN" not in shown


@pytest.mark.parametrize(("name", "value", "masked"), [
    ("Authorization", "Bearer GATEWAYTOKEN-0123456789", True), ("X-Api-Token", "HDRTOKEN-9876543210", True),
    ("Cookie", "session=abcdef0123456789", True), ("Ocp-Apim-Subscription-Key", "0123456789abcdef", True),
    ("X-Custom", "Bearer SOMETOKEN-0123456789", True), ("anthropic-beta", "files-api-2025-04-14", False),
    ("X-Title", "my-app-title-shown", False)])
def test_header_secrets_are_the_values_of_secret_headers(name: str, value: str, masked: bool) -> None:
    from toolwire._secrets import header_secrets

    found = header_secrets({name: value})
    assert (value in found) is masked
    if value.startswith("Bearer "):
        assert value.split()[1] in found


def test_the_sdks_debug_log_masks_header_values(caplog: pytest.LogCaptureFixture) -> None:
    from toolwire._secrets import redact_http_logs

    redact_http_logs()
    logger = logging.getLogger("anthropic._base_client")
    options = {"method": "post", "url": "/v1/messages", "headers": {
        "X-Api-Token": "HDRTOKEN-9876543210zyxwvu", "Authorization": "Bearer HDRTOKEN-9876543210zyxwvu",
        "anthropic-beta": "files-api-2025-04-14"}, "json_data": {"max_tokens": 10}}
    with caplog.at_level(logging.DEBUG, logger="anthropic._base_client"):
        logger.debug("Request options: %s", options)
    text = caplog.text
    assert "Request options" in text and "HDRTOKEN" not in text
    assert "files-api-2025-04-14" in text and "'max_tokens': 10" in text


def test_anthropics_debug_log_of_a_request_masks_header_values(echo: int, no_proxies: pytest.MonkeyPatch,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    token = "HDRTOKEN-9876543210zyxwvu"
    model = _model("ChatAnthropic", "anthropic", base_url=f"http://127.0.0.1:{echo}", max_retries=0,
                   model_kwargs={"extra_headers": {"X-Api-Token": token, "Authorization": f"Bearer {token}"}})
    with caplog.at_level(logging.DEBUG), pytest.raises(ProviderError):
        model.invoke("hi")
    assert "Request options" in caplog.text and token not in caplog.text


def test_the_log_filter_masks_proxy_credentials(proxy: int, no_proxies: pytest.MonkeyPatch,
                                                caplog: pytest.LogCaptureFixture) -> None:
    password = "PROXYPASS-logged-0123"
    no_proxies.setenv("HTTP_PROXY", f"http://puser:{password}@127.0.0.1:{proxy}")
    with pytest.raises(ProviderError):
        _model("ChatOpenAI", "openai", base_url="http://api.example.test/v1", max_retries=0).invoke("hi")
    sent = base64.b64encode(f"puser:{password}".encode()).decode()
    with caplog.at_level(logging.DEBUG, logger="httpx2"):
        logging.getLogger("httpx2").debug("proxy said %s / %s", f"puser:{password}", f"Basic {sent}")
    assert "proxy said" in caplog.text and password not in caplog.text and sent not in caplog.text


# -- 6. a socks4 proxy ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("socksio", [False, True])
def test_a_socks4_proxy_is_told_to_use_socks5_or_http(socksio: bool, no_proxies: pytest.MonkeyPatch) -> None:
    import importlib.util

    from toolwire.models import _proxy_env

    real = importlib.util.find_spec
    no_proxies.setattr(_proxy_env.importlib.util, "find_spec",
                       lambda name, *a: object() if name == "socksio" and socksio else real(name, *a))
    no_proxies.setenv("HTTPS_PROXY", "socks4://proxy.corp:1080")
    problem = _proxy_env.proxy_problem()
    assert problem is not None and "socksio" not in problem
    assert "socks5" in problem and "HTTPS_PROXY" in problem


def test_a_socks5_proxy_without_socksio_is_still_told_to_install_it(no_proxies: pytest.MonkeyPatch) -> None:
    import importlib.util

    from toolwire.models import _proxy_env

    real = importlib.util.find_spec
    no_proxies.setattr(_proxy_env.importlib.util, "find_spec",
                       lambda name, *a: None if name == "socksio" else real(name, *a))
    no_proxies.setenv("HTTPS_PROXY", "socks5://proxy.corp:1080")
    assert "pip install socksio" in (_proxy_env.proxy_problem() or "")
