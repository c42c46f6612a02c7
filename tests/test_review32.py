"""Review 32, the MCP server (``toolwire mcp serve`` / ``toolwire.mcp.serve``), tried as a demanding client (each
fault fixed; each test failed before its fix):

1. Image blocks in the forms toolwire itself keeps as images (an Anthropic-style ``source`` dict, a LangChain
   ``url`` holding a data URL) are published as a text block holding their JSON, base64 and all.
2. Toolwire's own MCP ``resource`` blocks, and ``file`` blocks (what the toolwire MCP client makes of an
   embedded binary resource), are published as JSON text instead of MCP embedded resources.
3. A stdio client that goes away in the middle of a call makes the server print an 80-line exception-group
   traceback (local paths included) and exit 1.
4. ``toolwire mcp serve --transport http --host ::1`` is refused ("Address family for hostname not
   supported"), although ``serve(host="::1")`` works and the SDK protects ``::1`` like ``127.0.0.1``.
5. With mcp 1.x (no ``Server.streamable_http_app``), the HTTP server has no DNS-rebinding protection, though
   the module says it is on for localhost.

No model is loaded; the server processes are small and stopped by each test.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import toolwire
from toolwire import tool
from toolwire.mcp.server import _http_app, build_server, message_to_result
from toolwire.messages import ToolMessage
from toolwire.results import result_to_content

pytestmark = pytest.mark.timeout(60)

SRC = Path(toolwire.__file__).resolve().parents[1]
PNG = "iVBORw0KGgo="
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def _published(result: Any) -> list[dict[str, Any]]:
    """The MCP content blocks the server sends for what a tool returned."""
    return message_to_result(ToolMessage(result_to_content(result), "c1"))["content"]


# -- 1. image blocks toolwire keeps as images ---------------------------------------------------------------


def test_every_image_block_form_toolwire_keeps_is_published_as_an_mcp_image() -> None:
    anthropic = [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]
    data_url = [{"type": "image", "url": f"data:image/png;base64,{PNG}"}]
    for result in (anthropic, data_url):
        assert result_to_content(result) == result  # toolwire itself reads them as image blocks
        assert _published(result) == [{"type": "image", "data": PNG, "mimeType": "image/png"}], result


# -- 2. resource and file blocks ------------------------------------------------------------------------------


def test_resource_and_file_blocks_are_published_as_embedded_resources() -> None:
    resource = {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "hello"}
    published = _published([{"type": "resource", "resource": resource}])
    assert published == [{"type": "resource", "resource": resource}]
    published = _published([{"type": "file", "base64": "JVBERi0=", "mime_type": "application/pdf"}])
    assert published[0]["type"] == "resource"
    assert published[0]["resource"]["blob"] == "JVBERi0="
    assert published[0]["resource"]["mimeType"] == "application/pdf"


# -- 3. a stdio client that goes away mid-call ----------------------------------------------------------------

SLOW_TOOLS = textwrap.dedent('''
    import asyncio
    from toolwire import tool

    @tool
    async def slow(seconds: float) -> str:
        """Wait, then answer."""
        await asyncio.sleep(seconds)
        return "done"
''')


def test_a_stdio_client_that_disconnects_mid_call_ends_the_server_quietly(tmp_path: Path) -> None:
    path = tmp_path / "slow_tools.py"
    path.write_text(SLOW_TOOLS)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.Popen([sys.executable, "-m", "toolwire.cli", "mcp", "serve", "--tools", str(path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        proc.stdin.write((json.dumps(INIT) + "\n").encode())
        proc.stdin.flush()
        assert b'"id":1' in proc.stdout.readline()
        for message in ({"jsonrpc": "2.0", "method": "notifications/initialized"},
                        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                         "params": {"name": "slow", "arguments": {"seconds": 0.4}}}):
            proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()
        time.sleep(0.2)
        proc.stdin.close()  # the client dies: both of its pipe ends close while the call runs
        proc.stdout.close()
        code = proc.wait(timeout=15)
        err = proc.stderr.read().decode(errors="replace")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in err, err[-1500:]
    assert code == 0, err[-1500:]


# -- 4. --host ::1 ---------------------------------------------------------------------------------------------


def _ipv6_port() -> int:
    try:
        with socket.socket(socket.AF_INET6) as sock:
            sock.bind(("::1", 0))
            return int(sock.getsockname()[1])
    except OSError:
        pytest.skip("no IPv6 loopback here")


def test_serve_http_on_the_ipv6_loopback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    import toolwire.mcp.server as mcp_server
    from toolwire.cli import app

    port = _ipv6_port()
    path = tmp_path / "one_tool.py"
    path.write_text('from toolwire import tool\n\n@tool\ndef ping() -> str:\n    """Ping."""\n    return "pong"\n')
    seen: dict[str, Any] = {}
    monkeypatch.setattr(mcp_server, "serve", lambda tools, **options: (seen.update(options), options["ready"]()))
    result = CliRunner().invoke(app, ["mcp", "serve", "--tools", str(path), "--transport", "http",
                                      "--host", "::1", "--port", str(port)])
    assert result.exit_code == 0, result.output
    assert seen.get("host") == "::1"
    assert f"http://[::1]:{port}/mcp" in result.output  # a URL a client can use


# -- 5. DNS-rebinding protection with mcp 1.x -----------------------------------------------------------------


@tool
def echo(text: str) -> str:
    """Say the text back."""
    return text


class _OneXServer:
    """A low-level server as mcp 1.x has it: no ``streamable_http_app`` (the 1.x branch of ``_http_app``)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        if name == "streamable_http_app":
            raise AttributeError(name)
        return getattr(self._inner, name)


def test_the_mcp_1x_http_app_refuses_a_foreign_host_on_localhost() -> None:
    from starlette.testclient import TestClient

    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    foreign = {**headers, "Host": "evil.example:8000", "Origin": "http://evil.example:8000"}
    app = _http_app(_OneXServer(build_server([echo])), "127.0.0.1", "/mcp")
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        assert client.post("/mcp", json=INIT, headers=headers).status_code == 200
        assert client.post("/mcp", json=INIT, headers=foreign).status_code in (403, 421)
