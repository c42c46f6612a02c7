"""Review 224: the MCP client opens a new session when its HTTP server forgot the old one (#1), takes a server without
the tools capability as one with no tools (#2); the server escapes file names in resource URIs (#3)."""

from __future__ import annotations

import json
import logging
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from toolwire.mcp import load_tools


class _FakeHttpMcp:
    """A streamable-HTTP MCP server answering JSON: ``forget()`` drops every session (a restart), so a request with
    an old session id gets 404; ``refuse_init`` makes ``initialize`` fail with 500."""

    def __init__(self) -> None:
        self.sessions: set[str] = set()
        self.count = 0
        self.ran: list[dict[str, Any]] = []
        self.inits = 0
        self.refuse_init = False
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
                data = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                if body is not None:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send(405)

            def do_DELETE(self) -> None:
                sid = self.headers.get("mcp-session-id")
                self._send(200 if sid in owner.sessions else 404)
                owner.sessions.discard(sid or "")

            def do_POST(self) -> None:
                msg = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                sid = self.headers.get("mcp-session-id")
                if msg.get("method") == "initialize":
                    owner.inits += 1
                    if owner.refuse_init:
                        self._send(500)
                        return
                    owner.count += 1
                    new = f"s{owner.count}"
                    owner.sessions.add(new)
                    result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                              "serverInfo": {"name": "fake", "version": "1"}}
                    self._send(200, {"jsonrpc": "2.0", "id": msg["id"], "result": result}, {"Mcp-Session-Id": new})
                    return
                if sid not in owner.sessions:
                    self._send(404, {"jsonrpc": "2.0", "id": None,
                                     "error": {"code": -32600, "message": "Session not found"}})
                    return
                if "id" not in msg:
                    self._send(202)
                    return
                if msg["method"] == "tools/list":
                    tool = {"name": "add", "inputSchema": {"type": "object", "properties": {
                        "a": {"type": "integer"}, "b": {"type": "integer"}}}}
                    result: dict[str, Any] = {"tools": [tool]}
                elif msg["method"] == "tools/call":
                    owner.ran.append(msg["params"])
                    args = msg["params"]["arguments"]
                    result = {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}
                else:
                    result = {}
                self._send(200, {"jsonrpc": "2.0", "id": msg["id"], "result": result})

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/mcp"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def forget(self) -> None:
        self.sessions.clear()


@pytest.fixture
def fake() -> Iterator[_FakeHttpMcp]:
    server = _FakeHttpMcp()
    yield server
    server.http.shutdown()
    server.http.server_close()


def _call(tool: Any, n: int) -> Any:
    return tool.invoke({"name": "add", "args": {"a": n, "b": 1}, "id": f"c{n}", "type": "tool_call"})


def test_a_forgotten_http_session_is_opened_again_and_the_call_sent_once_more(fake: _FakeHttpMcp) -> None:
    with load_tools(fake.url, connect_timeout=20) as tools:
        add = tools[0]
        assert _call(add, 1).content == "2"
        fake.forget()  # (the server restarted)
        message = _call(add, 2)
        assert (message.status, message.content) == ("success", "3"), message.content
        assert _call(add, 3).content == "4"
        assert [p["arguments"]["a"] for p in fake.ran] == [1, 2, 3]  # each call ran exactly once
        assert fake.inits == 2 and "open" in repr(tools.client)


def test_a_forgotten_session_that_cannot_be_opened_again_ends_and_says_closed(fake: _FakeHttpMcp) -> None:
    with load_tools(fake.url, connect_timeout=20) as tools:
        add = tools[0]
        fake.forget()
        fake.refuse_init = True
        message = _call(add, 1)
        assert message.status == "error"
        assert "no longer knew the session" in message.content and "did not run" in message.content
        assert "closed" in repr(tools.client) and not fake.ran
        again = _call(add, 2)
        assert again.status == "error" and "closed" in again.content


_PROMPTS_ONLY = """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    if msg["method"] == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"prompts": {}},
                  "serverInfo": {"name": "prompts-only", "version": "1"}}
        reply = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
    elif msg["method"] == "ping":
        reply = {"jsonrpc": "2.0", "id": msg["id"], "result": {}}
    else:
        reply = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}}
    print(json.dumps(reply), flush=True)
"""


def test_a_server_without_the_tools_capability_offers_no_tools(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    script = tmp_path / "prompts_only.py"
    script.write_text(_PROMPTS_ONLY)
    with caplog.at_level(logging.INFO, logger="toolwire.mcp"), load_tools([sys.executable, str(script)],
                                                                          connect_timeout=20) as tools:
        assert list(tools) == []
        assert tools.client.refresh() == []
    assert any("declares no tools capability" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("filename", ["report.pdf", "Q1#2 report.pdf", "why?.pdf", "50%25.pdf", "a/b.pdf", "été.pdf"])
def test_a_file_name_is_escaped_in_the_resource_uri_and_read_back_exactly(filename: str) -> None:
    from urllib.parse import urlsplit

    from toolwire.mcp._results import convert_call_result
    from toolwire.mcp.server import _blocks

    blocks = _blocks([{"type": "file", "base64": "JVBERi0=", "mime_type": "application/pdf", "filename": filename}])
    uri = blocks[0]["resource"]["uri"]
    assert not set(uri) & set(" #?é") and urlsplit(uri).path.count("/") == 1
    content, _, _ = convert_call_result({"content": blocks})
    assert content[0]["filename"] == filename


def test_an_mcp_tool_name_gemini_refuses_names_the_prefix_as_the_fix() -> None:
    from toolwire.errors import SchemaError, ToolDefinitionWarning
    from toolwire.mcp import MCPClient
    from toolwire.mcp._listing import build_tools
    from toolwire.models.lowering.gemini import convert_to_gemini_tool

    client = MCPClient("python server.py")
    listed = [{"name": "1password_lookup", "description": "Look up.", "inputSchema": {"type": "object"}}]
    with pytest.warns(ToolDefinitionWarning, match=r"load_tools\(server, prefix='x_'\)"):
        [tool] = build_tools(listed, prefix="", label="x", timeout=None, function=client._tool_function)
    with pytest.raises(SchemaError, match=r"prefix: load_tools\(server, prefix='x_'\)"):
        convert_to_gemini_tool(tool)
    [fixed] = build_tools(listed, prefix="x_", label="x", timeout=None, function=client._tool_function)
    assert convert_to_gemini_tool(fixed)["name"] == "x_1password_lookup"


def test_the_stdio_server_answers_a_line_that_is_not_json_and_a_batch_with_an_error(tmp_path: Path) -> None:
    import subprocess

    tools = tmp_path / "tools.py"
    tools.write_text("from toolwire import tool\n\n@tool\ndef add(a: int, b: int) -> int:\n"
                     "    '''Add two numbers.'''\n    return a + b\n")
    command = [sys.executable, "-c", "from toolwire.cli import app; app()", "mcp", "serve", "--tools", str(tools)]
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        [{"jsonrpc": "2.0", "id": 7, "method": "ping"}], "this is not json",
        {"jsonrpc": "2.0", "id": 9, "method": "ping"}]
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    answers: list[dict[str, Any]] = []

    def read() -> None:  # (until the last ping's answer: at the end of stdin the server may stop before it answers)
        for line in proc.stdout or ():
            answers.append(json.loads(line))
            if answers[-1].get("id") == 9:
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert proc.stdin is not None
    proc.stdin.write(text)
    proc.stdin.flush()
    reader.join(60)
    proc.stdin.close()
    proc.wait(30)
    errors = [a["error"]["code"] for a in answers if "error" in a and a.get("id") is None]
    assert errors == [-32600, -32700], answers
    assert {"jsonrpc": "2.0", "id": 9, "result": {}} in answers
