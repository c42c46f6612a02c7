"""Review 220 fixes: pip runs isolated from the current folder (#1), the Hub probe never forwards
``HF_ENDPOINT``'s credentials on a redirect (#2), and a bad proxy variable is one clear error (#3)."""

from __future__ import annotations

import base64
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

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
