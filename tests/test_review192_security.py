"""Review 192 (security): findings 1-5, each test failing before its fix.

1. ``--model 'openai-compatible:@http://user:pw@host/v1'`` (no model name) showed the URL's password in the CLI's
   error, and without the ``@`` the suggested fix was cut at the user info's ``@`` (``<model>@host/v1``).
2. ``toolwire models pull`` printed ``HF_ENDPOINT`` with its credentials, and its reachability probe could not
   reach a mirror whose URL holds user info (urllib does not take it), so the hub was skipped.
3. A ``base_url``'s ``user:password`` reaches the server as ``Authorization: Basic base64(user:password)``; a proxy
   that echoed that header had it shown unmasked in the ProviderError.
4. URL passwords holding ``/``, ``?`` or ``#`` (a DSN built with an f-string) were not masked in error text.
5. ``terminal_text``/``terminal_json`` let bidi controls (U+202E and the like) through to the terminal.

No model is loaded; only local servers on 127.0.0.1 are reached.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from _queued_http import QuotingGateway, serve_handler
from toolwire import UserError
from toolwire._cli_model import check_server_url

# -- 1. the CLI's "names no model" error ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["openai-compatible:@http://bob:PWsecret42x@gpu-box:8000/v1",
                                  "openai-compatible:http://bob:PWsecret42x@gpu-box:8000/v1"])
def test_cli_model_error_masks_the_url_password_and_keeps_the_whole_url(name: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(UserError, match="names no model") as refused:
        check_server_url(name)
    said = str(refused.value)
    assert "PWsecret42x" not in said and "bob" not in said
    assert "'openai-compatible:<model>@http://****@gpu-box:8000/v1'" in said


def test_cli_model_error_without_url_masks_credentials_of_the_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(UserError, match="needs the server's URL") as refused:
        check_server_url("openai-compatible:m?api_key=sk-SECRET123@")
    assert "sk-SECRET123" not in str(refused.value)


# -- 2. HF_ENDPOINT in `toolwire models pull` -----------------------------------------------------------------


class _Mirror(BaseHTTPRequestHandler):
    """A private Hub mirror that answers every request (404), recording its Authorization header."""

    seen: ClassVar[list[str | None]] = []

    def do_HEAD(self) -> None:
        self.seen.append(self.headers.get("Authorization"))
        self.send_response(404)
        self.end_headers()

    do_GET = do_HEAD

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def mirror() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Mirror)
    _Mirror.seen = []
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_hub_probe_reaches_a_mirror_with_user_info_and_sends_it_as_basic_auth(mirror: int) -> None:
    from toolwire.models.pull import _hub_reachable

    assert _hub_reachable(f"http://mirror:HF%2Fsecret98@127.0.0.1:{mirror}", 3) is None
    assert _Mirror.seen == ["Basic " + base64.b64encode(b"mirror:HF/secret98").decode()]


@pytest.mark.parametrize("endpoint", ["http://mirror:HFsecret9876543@127.0.0.1:9",
                                      "ftp://mirror:HFsecret9876543@127.0.0.1:9",
                                      "mirror:HFsecret9876543@127.0.0.1:9",
                                      "http://mirror:HFsecret9876543@127.0.0.1:notaport"])
def test_hub_source_never_shows_hf_endpoint_credentials(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    from toolwire.models import pull as pull_mod
    from toolwire.models.pull import SourceError

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    monkeypatch.setitem(sys.modules, "huggingface_hub", types.SimpleNamespace(hf_hub_download=None))
    entry = types.SimpleNamespace(hub_repo="fake/repo", hub_file="f.gguf")
    said = "is not reachable" if endpoint.startswith("http://") and endpoint[-1].isdigit() else \
        r"^HF_ENDPOINT '.*' (is not an http\(s\) URL|has a port that is not a number)"  # (review 202 #1: said first)
    with pytest.raises(SourceError, match=said) as refused:
        pull_mod._fetch_hub(entry, None, None)  # type: ignore[arg-type]
    assert "HFsecret9876543" not in str(refused.value) and "****@127.0.0.1" in str(refused.value)


def test_hub_download_error_masks_hf_endpoint_credentials(mirror: int, tmp_path, monkeypatch) -> None:
    import sys
    import types

    from toolwire.models import pull as pull_mod
    from toolwire.models.pull import SourceError

    endpoint = f"http://mirror:HFsecret9876543@127.0.0.1:{mirror}"

    def hf_hub_download(*args: object, **kwargs: object) -> str:
        raise OSError(f"404 Client Error for url: {endpoint}/fake/repo/resolve/main/f.gguf")

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    monkeypatch.setitem(sys.modules, "huggingface_hub", types.SimpleNamespace(hf_hub_download=hf_hub_download))
    entry = types.SimpleNamespace(hub_repo="fake/repo", hub_file="f.gguf")
    with pytest.raises(SourceError, match="404 Client Error") as refused:
        pull_mod._fetch_hub(entry, tmp_path / "f.gguf", None)  # type: ignore[arg-type]
    assert "HFsecret9876543" not in str(refused.value)


# -- 4. URL passwords holding "/", "?" or "#" -----------------------------------------------------------------


@pytest.mark.parametrize(("text", "shown"), [
    ("postgresql://app:pa/ss@db/prod", "postgresql://****@db/prod"),
    ("mysql://app:x#y@db/prod", "mysql://****@db/prod"),
    ("redis://:p?q@cache:6379/0", "redis://****@cache:6379/0"),
    ("Could not parse URL from string 'postgresql://app:Xk/9#q?Lm2@db.internal:5432/prod'",
     "Could not parse URL from string 'postgresql://****@db.internal:5432/prod'"),
    ("see http://u:p/q@h and \"http://v:r#s@k\".", "see http://****@h and \"http://****@k\"."),
    ("postgresql://app:pass@db/prod", "postgresql://****@db/prod"),
    # not user info: a port then a path holding "@", an "@" in a path or a query
    ("http://localhost:4873/@scope/pkg", "http://localhost:4873/@scope/pkg"),
    ("https://medium.com/@user/post", "https://medium.com/@user/post"),
    ("http://host:8080?to=a@b", "http://host:8080?to=a@b"),
])
def test_redact_url_masks_passwords_holding_slash_question_mark_or_hash(text: str, shown: str) -> None:
    from toolwire._secrets import redact_url

    assert redact_url(text) == shown


def test_url_secrets_names_a_password_holding_slash_once() -> None:
    from toolwire._secrets import url_secrets

    assert url_secrets("postgresql://app:Xk/9#q?Lm2@db/prod") == ["app:Xk/9#q?Lm2"]
    assert url_secrets("http://u:tok@host/v1") == ["u:tok"]


def test_a_tools_error_sent_to_the_model_masks_such_a_password() -> None:
    from toolwire import tool

    @tool
    def query(sql: str) -> str:
        """Run a query."""
        raise RuntimeError(f"Could not parse URL from string 'postgresql://app:Xk/9#q?Lm2@db.internal/{sql}'")

    message = query.invoke({"name": "query", "args": {"sql": "prod"}, "id": "c1", "type": "tool_call"})
    assert "9#q?Lm2" not in message.content and "postgresql://****@db.internal/prod" in message.content


@pytest.mark.parametrize("text", [
    "a" * 300_000 + "://" + "@" * 300_000, "a://" * 75_000, "a://a:" * 50_000, "a://a:b@" * 40_000,
    "x://u:" + ":" * 300_000, "x://u:" + ":/" * 150_000, "x://u:p" + "@" * 300_000, "a://" + "1:" * 150_000,
    "1://:1" * 50_000, "a." * 150_000 + "://u:p/x@h",
])
def test_masking_url_credentials_stays_linear(text: str) -> None:
    import time

    from toolwire._secrets import redact_url, url_secrets

    start = time.perf_counter()
    redact_url(text)
    url_secrets(text)
    assert time.perf_counter() - start < 3  # (about 0.1 s; a quadratic search takes minutes)


# -- 3. a base_url's user info echoed as "Authorization: Basic <Base64>" ------------------------------------------


class _Echo(QuotingGateway):
    """A proxy that answers 401 and quotes the request's Authorization header (as some gateways do)."""

    seen: ClassVar[list[dict[str, str]]] = []
    status = 401
    error: ClassVar[dict[str, str]] = {"type": "invalid_request_error", "code": "bad_key"}

    def said(self) -> str:
        self.seen.append(dict(self.headers))
        return f"Bad credentials: {self.headers.get('authorization')}; headers {dict(self.headers)}"


@pytest.fixture
def echo() -> Iterator[int]:
    _Echo.seen = []
    yield from serve_handler(_Echo)


@pytest.mark.parametrize(("provider", "sdk"), [("ChatOpenAI", "openai"), ("ChatAnthropic", "anthropic"),
                                               ("ChatGoogleGenAI", "google.genai")])
@pytest.mark.parametrize("user_info", ["alice:hunter2PASSWORDvalue", "alice:hunter2%2FPASSWORD", "tokenONLY123456"])
def test_an_echoed_basic_auth_header_of_the_base_urls_user_info_is_masked(provider: str, sdk: str, user_info: str,
                                                                         echo: int) -> None:
    import traceback
    from urllib.parse import unquote

    from toolwire import models
    from toolwire.errors import ProviderError

    pytest.importorskip(sdk)
    plain = unquote(user_info)
    sent = base64.b64encode((plain if ":" in plain else plain + ":").encode()).decode()
    model = getattr(models, provider)(model="m", api_key="sk-proj-SECRETKEY0123456789abcdef",
                                      base_url=f"http://{user_info}@127.0.0.1:{echo}/v1", max_retries=0)
    with pytest.raises(ProviderError) as failed:
        model.invoke("hi")
    assert any(sent in str(headers) for headers in _Echo.seen)  # (what the proxy got, and echoed)
    shown = "".join(traceback.format_exception(failed.value))
    assert sent not in shown and sent[:12] not in shown and plain not in shown and user_info not in shown
    assert "SECRETKEY" not in shown and "Basic **********" in shown


# -- 5. bidi controls on the terminal -----------------------------------------------------------------------------

_BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f",
         "\u061c"]


@pytest.mark.parametrize("char", _BIDI)
def test_terminal_text_escapes_bidi_controls(char: str) -> None:
    from toolwire._printing import terminal_text

    shown = terminal_text(f'delete_files(path="/home/me/{char}txt.sgol/")\x1b')
    assert char not in shown
    assert shown == f'delete_files(path="/home/me/\\u{ord(char):04x}txt.sgol/")\\x1b'


@pytest.mark.parametrize("char", _BIDI)
def test_terminal_json_escapes_bidi_controls_and_reads_back_the_same(char: str) -> None:
    from toolwire._printing import terminal_json

    value = {"path": f"/home/me/{char}txt.sgol/", "pt": "ação"}
    shown = terminal_json(value)
    assert char not in shown and f"\\u{ord(char):04x}" in shown and "ação" in shown
    assert json.loads(shown) == value


def test_ask_prints_a_tool_call_with_bidi_controls_escaped(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from toolwire import cli
    from toolwire.messages import AIMessage
    from toolwire.testing import ScriptedChatModel

    model = ScriptedChatModel([AIMessage(content="", tool_calls=[
        {"name": "echo", "args": {"text": "/home/me/\u202etxt.sgol/"}, "id": "c1"}]),
        AIMessage(content="done \u2066right\u2069")])
    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: model)
    result = CliRunner().invoke(cli.app, ["ask", "hi"])
    assert not any(char in result.output for char in _BIDI), result.output
    assert "\\u202e" in result.output and "\\u2066" in result.output
