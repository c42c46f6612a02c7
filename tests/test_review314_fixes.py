"""Review 314: provider client configuration (blank base URL variables, ``project=``, ``x-should-retry``,
``ANTHROPIC_AUTH_TOKEN``, ``GOOGLE_GENAI_USE_VERTEXAI``, a proxy password with ``@`` and ``/``, TLS certificate
failures)."""

from __future__ import annotations

import contextlib
import datetime
import json
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from toolwire.errors import ProviderError, UserError

_OPENAI = {"id": "c1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
           "choices": [{"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
_ANTHROPIC = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
              "content": [{"type": "text", "text": "hello"}], "stop_reason": "end_turn", "stop_sequence": None,
              "usage": {"input_tokens": 1, "output_tokens": 1}}
_GEMINI = {"candidates": [{"content": {"role": "model", "parts": [{"text": "hello"}]}, "finishReason": "STOP",
                           "index": 0}],
           "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}


class _Server:
    """A fake provider: each POST gets the next scripted ``(status, headers)`` (then 200 with a reply of the API the
    path names); ``seen`` holds each request's lower-case headers and decoded body."""

    def __init__(self, script: list[tuple[int, dict[str, str]]] | None = None) -> None:
        self.script = list(script or [])
        self.seen: list[tuple[dict[str, str], Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                owner.seen.append(({k.lower(): v for k, v in self.headers.items()}, json.loads(raw or b"null")))
                status, headers = owner.script.pop(0) if owner.script else (200, {})
                if status != 200:
                    payload: Any = {"error": {"message": f"fake {status}", "type": "server_error"}}
                elif "/messages" in self.path:
                    payload = _ANTHROPIC
                elif "generateContent" in self.path:
                    payload = _GEMINI
                else:
                    payload = _OPENAI
                data = json.dumps(payload).encode()
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.http.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.http.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()


@contextlib.contextmanager
def _serving(script: list[tuple[int, dict[str, str]]] | None = None, tls: ssl.SSLContext | None = None
             ) -> Iterator[_Server]:
    server = _Server(script)
    if tls is not None:
        server.http.socket = tls.wrap_socket(server.http.socket, server_side=True)
    try:
        yield server
    finally:
        server.http.shutdown()
        server.http.server_close()


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    for name in list(os.environ):
        if name.upper().startswith(("OPENAI_", "ANTHROPIC_", "GOOGLE_", "GEMINI_", "AZURE_")) or \
                name.lower() in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
            monkeypatch.delenv(name)


# -- #1: a blank OPENAI_BASE_URL / ANTHROPIC_BASE_URL is "unset" ------------------------------------------------------


def test_blank_base_url_variables_give_the_default_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import ChatAnthropic, ChatOpenAI
    monkeypatch.setenv("OPENAI_BASE_URL", "")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "  ")
    assert str(ChatOpenAI("gpt-4o", api_key="sk-test")._client().base_url) == "https://api.openai.com/v1/"
    assert str(ChatAnthropic("claude-x", api_key="sk-test")._client().base_url).rstrip("/") == \
        "https://api.anthropic.com"


def test_set_anthropic_base_url_variable_is_still_used(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import ChatAnthropic
    with _serving() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f" {server.url} ")
        assert ChatAnthropic("claude-x", api_key="sk-test").invoke("hi").content == "hello"
        assert len(server.seen) == 1


# -- #2: ChatOpenAI(project=...) ---------------------------------------------------------------------------------------


def test_project_is_sent_as_the_openai_project_header() -> None:
    from toolwire.models import ChatOpenAI
    with _serving() as server:
        model = ChatOpenAI("gpt-4o", base_url=server.url + "/v1", api_key="sk-test", compatible=False,
                           project="proj_abc", organization="org_1")
        assert model.invoke("hi").content == "hello"
    headers, body = server.seen[0]
    assert headers["openai-project"] == "proj_abc"
    assert headers["openai-organization"] == "org_1"
    assert "project" not in body


def test_project_variable_still_read_and_bad_project_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import ChatOpenAI
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj_env")
    with _serving() as server:
        ChatOpenAI("gpt-4o", base_url=server.url + "/v1", api_key="sk-test", compatible=False).invoke("hi")
    assert server.seen[0][0]["openai-project"] == "proj_env"
    with pytest.raises(UserError, match="project must be"):
        ChatOpenAI("gpt-4o", api_key="sk-test", project=5)
    with pytest.raises(UserError, match=r"project.*ChatOpenAI\(\.\.\., project=\.\.\.\)"):
        ChatOpenAI("gpt-4o", api_key="sk-test", model_kwargs={"project": "proj_abc"})


# -- #3: x-should-retry ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_x_should_retry_is_obeyed(provider: str) -> None:
    from toolwire.models import ChatAnthropic, ChatOpenAI

    def model(url: str) -> Any:
        if provider == "openai":
            return ChatOpenAI("gpt-4o", base_url=url + "/v1", api_key="sk-test", compatible=False, max_retries=2,
                              retry_backoff=0)
        return ChatAnthropic("claude-x", base_url=url, api_key="sk-test", max_retries=2, retry_backoff=0)

    with _serving([(500, {"x-should-retry": "false"})] * 3) as server, pytest.raises(ProviderError) as caught:
        model(server.url).invoke("hi")
    assert len(server.seen) == 1
    assert caught.value.status == 500 and not caught.value.retryable
    with _serving([(400, {"x-should-retry": "true"})]) as server:
        assert model(server.url).invoke("hi").content == "hello"
    assert len(server.seen) == 2
    with _serving([(400, {"x-should-retry": "true"})] * 3) as server, \
            pytest.raises(ProviderError, match="gave up after 3 attempts"):  # (tries run out: said so)
        model(server.url).invoke("hi")


# -- #4: ANTHROPIC_AUTH_TOKEN ------------------------------------------------------------------------------------------


def test_anthropic_auth_token_variable_is_sent_as_bearer(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import ChatAnthropic
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "tok-env-123456")
    with _serving() as server:
        assert ChatAnthropic("claude-x", base_url=server.url).invoke("hi").content == "hello"
        assert ChatAnthropic("claude-x", base_url=server.url, auth_token="tok-arg-123456").invoke("hi")
    assert server.seen[0][0]["authorization"] == "Bearer tok-env-123456"
    assert "x-api-key" not in server.seen[0][0]
    assert server.seen[1][0]["authorization"] == "Bearer tok-arg-123456"
    model = ChatAnthropic("claude-x", base_url="http://127.0.0.1:9")
    assert "tok-env" not in repr(model)


def test_anthropic_missing_key_names_both_variables() -> None:
    from toolwire.models import ChatAnthropic
    with pytest.raises(UserError, match="ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN"):
        ChatAnthropic("claude-x")


def test_anthropic_auth_token_is_masked_in_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import ChatAnthropic
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "tok-secret-987654")
    with _serving([(401, {})]) as server, pytest.raises(ProviderError) as caught:
        ChatAnthropic("claude-x", base_url=server.url, max_retries=0).invoke("hi")
    assert "ANTHROPIC_AUTH_TOKEN" in str(caught.value)
    assert "tok-secret-987654" not in str(caught.value)


# -- #5: GOOGLE_GENAI_USE_VERTEXAI ------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["true", "1", "True"])
def test_vertex_ai_variable_is_refused(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    pytest.importorskip("google.genai")
    from toolwire.models import ChatGoogleGenAI
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", value)
    monkeypatch.setenv("GOOGLE_API_KEY", "key-123456789")
    with pytest.raises(UserError, match=r"Vertex AI is not supported.*GOOGLE_GENAI_USE_VERTEXAI"):
        ChatGoogleGenAI("gemini-2.5-flash")
    monkeypatch.delenv("GOOGLE_API_KEY")
    with pytest.raises(UserError, match="Vertex AI is not supported"):
        ChatGoogleGenAI("gemini-2.5-flash")


def test_vertex_ai_variable_false_is_the_developer_api(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("google.genai")
    from toolwire.models import ChatGoogleGenAI
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "false")
    with _serving() as server:
        assert ChatGoogleGenAI("gemini-x", api_key="key-123456789", base_url=server.url).invoke("hi").content == \
            "hello"


# -- #6: a proxy password with "@" and "/" -----------------------------------------------------------------------------


def test_proxy_password_with_at_and_slash_is_masked_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import ChatAnthropic, ChatOpenAI
    monkeypatch.setenv("HTTPS_PROXY", "http://alice:p@ss/w0rdXYZ@127.0.0.1:9")
    for model in (ChatOpenAI("gpt-4o", api_key="sk-test", max_retries=0),
                  ChatAnthropic("claude-x", api_key="sk-test", max_retries=0)):
        with pytest.raises(ProviderError) as caught:
            model.invoke("hi")
        text = f"{caught.value} {caught.value.hint}"
        assert "w0rdXYZ" not in text and "ss/" not in text, text
        assert "%40" in text and "%2F" in text, text


def test_shown_proxy_masks_up_to_the_last_at() -> None:
    from toolwire.models._pull_hub import shown_endpoint
    assert shown_endpoint("http://alice:p@ss/w0rdXYZ@proxy.local:8080", proxy=True) == "http://****@proxy.local:8080"
    assert shown_endpoint("http://user:pw@mirror/repo/@hf") == "http://****@mirror/repo/@hf"  # (HF_ENDPOINT's rule)


# -- #7: TLS certificate failures --------------------------------------------------------------------------------------


def _self_signed(folder: Path) -> tuple[Path, ssl.SSLContext]:
    pytest.importorskip("cryptography")
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    return cert_file, context


@pytest.mark.parametrize("provider", ["openai", "anthropic", "google"])
def test_certificate_failure_is_not_retried_and_names_ssl_cert_file(tmp_path: Path, provider: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import ChatAnthropic, ChatGoogleGenAI, ChatOpenAI
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    _, context = _self_signed(tmp_path)
    with _serving(tls=context) as server:
        url = f"https://127.0.0.1:{server.port}"
        if provider == "openai":
            model: Any = ChatOpenAI("m", base_url=url + "/v1", api_key="sk-test", max_retries=2, retry_backoff=0)
        elif provider == "anthropic":
            model = ChatAnthropic("claude-x", base_url=url, api_key="sk-test", max_retries=2, retry_backoff=0)
        else:
            pytest.importorskip("google.genai")
            model = ChatGoogleGenAI("gemini-x", base_url=url, api_key="key-123456789", max_retries=2,
                                    retry_backoff=0)
        with pytest.raises(ProviderError) as caught:
            model.invoke("hi")
    error = caught.value
    assert not error.retryable
    assert "gave up" not in str(error)
    assert "certificate" in str(error).lower()
    assert "SSL_CERT_FILE" in (error.hint or "") and "SSL_CERT_DIR" in (error.hint or "")
    assert "is running" not in (error.hint or "")


def test_certificate_error_translation_unit() -> None:
    from toolwire.models._retry import transport_error

    class ConnectError(Exception):
        pass

    ConnectError.__module__ = "httpx"
    exc = ConnectError("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate")
    found = transport_error("openai", exc, timeout=5, base_url="https://u:secretpw@host/v1")
    assert found is not None and not found.retryable and "SSL_CERT_FILE" in (found.hint or "")
    assert "secretpw" not in f"{found} {found.hint}"


def test_anthropic_auth_token_precedence_and_type(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import ChatAnthropic
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-env-key-1234")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "tok-env-123456")
    model = ChatAnthropic("claude-x")  # (the SDK's order: the key variable first)
    assert not model._bearer and model._api_key.get() == "sk-env-key-1234"
    model = ChatAnthropic("claude-x", auth_token="tok-arg-123456")  # (given wins over the variables)
    assert model._bearer and model._api_key.get() == "tok-arg-123456"
    model = ChatAnthropic("claude-x", api_key="sk-arg-key-1234", auth_token="tok-arg-123456")
    assert not model._bearer and model._api_key.get() == "sk-arg-key-1234"
    with pytest.raises(UserError, match="auth_token must be the token as text"):
        ChatAnthropic("claude-x", auth_token=5)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_base_url_password_masked_in_the_chained_request_url(provider: str) -> None:
    from toolwire.models import ChatAnthropic, ChatOpenAI
    url = "http://user:secretpw99@127.0.0.1:9"
    model: Any = ChatOpenAI("m", base_url=url + "/v1", api_key="sk-test-12345", max_retries=0) \
        if provider == "openai" else ChatAnthropic("m", base_url=url, api_key="sk-test-12345", max_retries=0)
    with pytest.raises(ProviderError) as caught:
        model.invoke("hi")
    shown = []
    current: BaseException | None = caught.value
    while current is not None and len(shown) < 8:
        request = (getattr(current, "__dict__", None) or {}).get("request") or \
            (getattr(current, "__dict__", None) or {}).get("_request")
        shown.append(str(getattr(request, "url", "")))
        headers = getattr(request, "headers", None) or {}
        shown += [f"{name}: {headers[name]}" for name in ("authorization", "x-api-key") if name in headers]
        current = current.__cause__ or current.__context__
    assert any("127.0.0.1" in text for text in shown)
    assert not any("secretpw99" in text or "sk-test-12345" in text for text in shown), shown
    import base64  # (the URL's user:password also went as a Basic authorization header: review 321 #1)
    basic = base64.b64encode(b"user:secretpw99").decode()
    assert not any(basic in text for text in shown), shown


def test_a_bad_character_in_auth_token_names_auth_token() -> None:
    from toolwire.models import ChatAnthropic
    with pytest.raises(UserError, match="given by auth_token"):  # (it said api_key: review 321 #2)
        ChatAnthropic("claude-x", auth_token="tok\u2019abc123")
