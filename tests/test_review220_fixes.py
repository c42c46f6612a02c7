"""Review 220 fixes: pip runs isolated from the current folder (#1), the Hub probe never forwards
``HF_ENDPOINT``'s credentials on a redirect (#2), and a bad proxy variable is one clear error (#3)."""

from __future__ import annotations

import asyncio
import base64
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from toolwire.errors import UserError
from toolwire.models._pull_hub import hub_reachable
from toolwire.models.pull import SourceError, pip_download

# ---------------------------------------------------------------------------------------------- #1


@pytest.mark.parametrize("layout", ["pip.py", "pip/__main__.py"])
def test_pip_download_never_runs_a_pip_from_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               layout: str) -> None:
    repo = tmp_path / "repo"
    marker = tmp_path / "PWNED"
    fake = repo / layout
    fake.parent.mkdir(parents=True)
    if layout.startswith("pip/"):
        (repo / "pip" / "__init__.py").write_text("")
    fake.write_text(f"open({str(marker)!r}, 'w').write('ran')\nprint('ERROR: fake pip ran')\nraise SystemExit(1)\n")
    dest = tmp_path / "wheels"
    dest.mkdir()
    monkeypatch.chdir(repo)
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # the real pip fails at once, offline
    with pytest.raises(SourceError) as info:
        pip_download(["toolwire-no-such-wheel==0.0.1"], Path("..") / "wheels", lambda done, total: None)
    assert not marker.exists()
    assert "fake pip ran" not in str(info.value)
    assert "toolwire-no-such-wheel" in str(info.value) or "No matching distribution" in str(info.value)


# ---------------------------------------------------------------------------------------------- #2


class _Recorder(BaseHTTPRequestHandler):
    """Records (Host, Authorization) of each request; answers 302 to ``location`` when set, else 404."""

    seen: ClassVar[list[tuple[str | None, str | None]]] = []
    location: ClassVar[str] = ""
    mirror_port: ClassVar[int] = 0

    def do_HEAD(self) -> None:
        self.seen.append((self.headers.get("Host"), self.headers.get("Authorization")))
        if self.location and self.server.server_address[1] == self.mirror_port:
            self.send_response(302)
            self.send_header("Location", self.location)
        else:
            self.send_response(404)
        self.end_headers()

    do_GET = do_HEAD

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def servers() -> Iterator[tuple[int, int]]:
    started = [ThreadingHTTPServer(("127.0.0.1", 0), _Recorder) for _ in range(2)]
    for server in started:
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    _Recorder.seen = []
    _Recorder.mirror_port = started[0].server_address[1]
    yield started[0].server_address[1], started[1].server_address[1]
    for server in started:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("target", ["http://localhost:{other}/elsewhere", "http://127.0.0.1:{other}/moved",
                                    "/same-origin-path"])
def test_hub_probe_sends_mirror_credentials_to_no_redirect_target(servers: tuple[int, int], target: str) -> None:
    mirror, other = servers
    _Recorder.location = target.format(other=other)
    assert hub_reachable(f"http://alice:MirrorPass123@127.0.0.1:{mirror}", 3) is None  # a redirect is an answer
    auth = "Basic " + base64.b64encode(b"alice:MirrorPass123").decode()
    assert _Recorder.seen == [(f"127.0.0.1:{mirror}", auth)]  # the mirror got them; nothing else was asked


# ---------------------------------------------------------------------------------------------- #3

_PROXY_VARS = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy", "NO_PROXY",
               "no_proxy", "REQUEST_METHOD")
_BAD_PROXIES = [  # (value, the words of the password or the bad part that must never show, what the message says)
    ("http://bob:ProxyPW12345@127.0.0.1:31280x", ("ProxyPW12345",), "port is not a number"),
    ("http://bob:S3cretBeforeSlash/AndAfter@proxy.corp:3128", ("S3cretBeforeSlash", "AndAfter"), "%2F"),
    ("ftp://bob:FtpPass9876@127.0.0.1:3128", ("FtpPass9876",), "scheme is not http, https, socks5 or socks5h"),
    ("http://[::1", (), "host cannot be read"),
    ("bob:Bare5ecret@proxy:12ab", ("Bare5ecret",), "port is not a number"),
]


def _models() -> list[object]:
    from toolwire.models.anthropic import ChatAnthropic
    from toolwire.models.google import ChatGoogleGenAI
    from toolwire.models.openai import ChatOpenAI

    return [ChatOpenAI(model="m", api_key="sk-test-000", base_url="http://127.0.0.1:9/v1", max_retries=0),
            ChatAnthropic(model="m", api_key="sk-test-000", base_url="http://127.0.0.1:9", max_retries=0),
            ChatGoogleGenAI(model="m", api_key="k-test-000", base_url="http://127.0.0.1:9", max_retries=0)]


@pytest.fixture
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in _PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")  # (a half-built SDK client's)
@pytest.mark.parametrize(("value", "hidden", "said"), _BAD_PROXIES)
@pytest.mark.parametrize("name", ["HTTPS_PROXY", "http_proxy", "ALL_PROXY"])
def test_a_bad_proxy_variable_is_one_user_error_naming_it(no_proxies: pytest.MonkeyPatch, name: str, value: str,
                                                          hidden: tuple[str, ...], said: str) -> None:
    no_proxies.setenv(name, value)
    for model in _models():
        for how in ("invoke", "stream", "ainvoke"):
            with pytest.raises(UserError) as info:
                if how == "invoke":
                    model.invoke("hi")  # type: ignore[attr-defined]
                elif how == "stream":
                    list(model.stream("hi"))  # type: ignore[attr-defined]
                else:
                    asyncio.run(model.ainvoke("hi"))  # type: ignore[attr-defined]
            text = str(info.value)
            assert text.startswith(f"The environment variable {name} holds '") and said in text, text
            assert "\n" not in text and text.endswith("or unset it.")
            assert info.value.__cause__ is None and info.value.__context__ is None  # (httpx's text quotes the port)
            for word in hidden:
                assert word not in text


def test_a_readable_proxy_variable_changes_nothing(no_proxies: pytest.MonkeyPatch) -> None:
    from toolwire.errors import ProviderError

    no_proxies.setenv("HTTPS_PROXY", "http://bob:fine@127.0.0.1:3128")
    no_proxies.setenv("NO_PROXY", "127.0.0.1")  # (the server is refused, not the proxy)
    for model in _models():
        with pytest.raises(ProviderError):
            model.invoke("hi")  # type: ignore[attr-defined]


def test_a_socks_proxy_without_socksio_is_said(no_proxies: pytest.MonkeyPatch) -> None:
    import importlib.util

    if importlib.util.find_spec("socksio") is not None:
        pytest.skip("socksio is installed")
    no_proxies.setenv("ALL_PROXY", "socks5://bob:SocksPw77@127.0.0.1:1080")
    for model in _models():
        with pytest.raises(UserError, match=r"^The environment variable ALL_PROXY holds 'socks5://\*\*\*\*@") as info:
            model.invoke("hi")  # type: ignore[attr-defined]
        assert "pip install socksio" in str(info.value) and "SocksPw77" not in str(info.value)


@pytest.mark.parametrize("model", ["openai-compatible:m@http://127.0.0.1:9/v1", "anthropic:m"])
def test_the_cli_says_the_bad_proxy_in_one_line(tmp_path: Path, model: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in _PROXY_VARS}
    env.update(HOME=str(tmp_path), TOOLWIRE_HOME=str(tmp_path / "tw"), NO_COLOR="1", COLUMNS="400",
               HTTPS_PROXY="http://bob:S3cretBeforeSlash/AndAfter@proxy.corp:3128", OPENAI_API_KEY="sk-test-000",
               ANTHROPIC_API_KEY="sk-test-000", ANTHROPIC_BASE_URL="http://127.0.0.1:9")
    done = subprocess.run([sys.executable, "-c", "from toolwire.cli import main; main()", "ask", "-m", model, "hi"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "S3cretBeforeSlash" not in done.stderr + done.stdout
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "HTTPS_PROXY" in errors[0], done.stderr
    assert "Exception ignored" not in done.stderr and len(done.stderr.strip().splitlines()) <= 2, done.stderr
