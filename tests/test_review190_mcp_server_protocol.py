"""Review 190, the MCP server (``toolwire mcp serve``): ``tools/call`` of an unknown tool is a JSON-RPC protocol
error (-32602), not an ``isError`` result (#3); a client that negotiated an older protocol revision gets no content
block that revision lacks: ``audio`` (2025-03-26 on) as an embedded resource, ``resource_link`` (2025-06-18 on) as
text (#4). The server runs as a child process spoken to in raw JSON-RPC over stdio; no model is loaded."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolwire.mcp._protocol import for_version

SRC = Path(__file__).resolve().parents[1] / "src"
TOOLS = '''
from toolwire import tool

@tool
def links() -> list:
    """A resource link and an embedded resource."""
    return [{"type": "resource_link", "uri": "file:///a.csv", "name": "a.csv", "description": "the data"},
            {"type": "resource", "resource": {"uri": "file:///n.txt", "text": "notes"}}]

@tool
def sound() -> list:
    """Audio and text."""
    return [{"type": "audio", "base64": "UklGRg==", "mime_type": "audio/wav"}, {"type": "text", "text": "hi"}]

@tool
def boom() -> str:
    """Raises."""
    raise ValueError("bad")
'''


class _Peer:
    """A ``toolwire mcp serve`` child process spoken to in JSON-RPC lines."""

    def __init__(self, tools_file: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen([sys.executable, "-m", "toolwire.cli", "mcp", "serve", "--tools", str(tools_file)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=env, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def ask(self, ident: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.tell({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        answer: dict[str, Any] = json.loads(self.lines.get(timeout=60))
        assert answer["id"] == ident, answer
        return answer

    def tell(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def start(self, version: str) -> str:
        answer = self.ask(0, "initialize", {"protocolVersion": version, "capabilities": {},
                                            "clientInfo": {"name": "test", "version": "1"}})
        self.tell({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return str(answer["result"]["protocolVersion"])

    def call(self, ident: int, name: str) -> dict[str, Any]:
        return self.ask(ident, "tools/call", {"name": name, "arguments": {}})

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:  # pragma: no cover - the server should end with its stdin
            self.proc.kill()
            self.proc.wait()


@pytest.fixture()
def peer(tmp_path: Path) -> Iterator[_Peer]:
    path = tmp_path / "tools_190.py"
    path.write_text(TOOLS, encoding="utf-8")
    started = _Peer(path)
    try:
        yield started
    finally:
        started.close()


def test_an_unknown_tool_is_a_protocol_error_and_a_failing_tool_is_error(peer: _Peer) -> None:
    assert peer.start("2025-06-18") == "2025-06-18"
    unknown = peer.call(1, "no_such_tool")
    assert "result" not in unknown, unknown
    assert unknown["error"]["code"] == -32602
    assert unknown["error"]["message"].startswith("Unknown tool: no_such_tool.")
    assert "links, sound, boom" in unknown["error"]["message"]
    assert unknown["error"]["data"] == {"tool": "no_such_tool", "available": ["links", "sound", "boom"]}
    failed = peer.call(2, "boom")["result"]  # (a tool that ran and failed: still an isError result)
    assert failed["isError"] is True and "bad" in failed["content"][0]["text"]


def test_a_client_of_2024_11_05_gets_no_audio_or_resource_link_block(peer: _Peer) -> None:
    assert peer.start("2024-11-05") == "2024-11-05"
    links = peer.call(1, "links")["result"]["content"]
    assert links == [{"type": "text", "text": "Resource: a.csv <file:///a.csv> the data"},
                     {"type": "resource", "resource": {"uri": "file:///n.txt", "text": "notes"}}]
    sound = peer.call(2, "sound")["result"]["content"]
    assert sound == [{"type": "resource", "resource": {"uri": "attachment:///audio-1", "blob": "UklGRg==",
                                                       "mimeType": "audio/wav"}},
                     {"type": "text", "text": "hi"}]


def test_a_client_of_2025_06_18_gets_the_blocks_as_they_are(peer: _Peer) -> None:
    assert peer.start("2025-06-18") == "2025-06-18"
    links = peer.call(1, "links")["result"]["content"]
    assert links[0] == {"type": "resource_link", "uri": "file:///a.csv", "name": "a.csv", "description": "the data"}
    sound = peer.call(2, "sound")["result"]["content"]
    assert sound[0] == {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}


def test_for_version_changes_only_what_the_revision_lacks() -> None:
    link = {"type": "resource_link", "uri": "file:///a.csv", "name": "a.csv"}
    audio = {"type": "audio", "data": "AAAA", "mimeType": "audio/mpeg"}
    blocks = [link, audio]
    for newest in (None, "2025-06-18", "2025-11-25", "draft"):
        assert for_version(blocks, newest) is blocks
    middle = for_version(blocks, "2025-03-26")
    assert middle == [{"type": "text", "text": "Resource: a.csv <file:///a.csv>"}, audio]
    oldest = for_version(blocks, "2024-11-05")
    assert oldest[1] == {"type": "resource", "resource": {"uri": "attachment:///audio-1", "blob": "AAAA",
                                                          "mimeType": "audio/mpeg"}}
    assert blocks == [link, audio]  # (the input is not changed)
