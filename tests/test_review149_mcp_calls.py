"""Review 149, MCP calls: an argument holding a lone surrogate no longer closes the session (#3). The server is a small
hand-written JSON-RPC process (no SDK, so it runs under mcp 1.x and 2.x alike); no model is loaded."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator

import pytest

pytest.importorskip("mcp")

from toolwire.mcp import MCPToolList, load_tools

pytestmark = pytest.mark.timeout(120)

SERVER = textwrap.dedent('''
    import json, sys

    OUT = {"type": "object", "properties": {"temp": {"type": "number"}}, "required": ["temp"]}
    OBJ = {"type": "object", "properties": {"tag": {"type": "string"}}}
    TOOLS = [{"name": "no_struct", "description": "Text only.", "inputSchema": OBJ, "outputSchema": OUT},
             {"name": "bad_struct", "description": "Off schema.", "inputSchema": OBJ, "outputSchema": OUT},
             {"name": "good_struct", "description": "On schema.", "inputSchema": OBJ, "outputSchema": OUT},
             {"name": "echo", "description": "Echo the tag.", "inputSchema": OBJ}]

    def call(name, args):
        if name == "no_struct":
            return {"content": [{"type": "text", "text": "It is 12 degrees"}]}
        if name == "bad_struct":
            return {"content": [{"type": "text", "text": "warm"}], "structuredContent": {"temp": "warm"}}
        if name == "good_struct":
            return {"content": [{"type": "text", "text": "12"}], "structuredContent": {"temp": 12}}
        return {"content": [{"type": "text", "text": "echo " + args.get("tag", "")}]}

    for line in sys.stdin:
        message = json.loads(line)
        method, mid = message.get("method"), message.get("id")
        if mid is None:
            continue
        if method == "initialize":
            result = {"protocolVersion": message["params"].get("protocolVersion", "2025-06-18"),
                      "capabilities": {"tools": {}}, "serverInfo": {"name": "schema", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call":
            result = call(message["params"]["name"], message["params"].get("arguments") or {})
        elif method == "ping":
            result = {}
        else:
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid,
                                         "error": {"code": -32601, "message": "method not found"}}) + "\\n")
            sys.stdout.flush()
            continue
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}) + "\\n")
        sys.stdout.flush()
''')


@pytest.fixture(scope="module")
def listed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MCPToolList]:
    path = tmp_path_factory.mktemp("mcp149") / "schema_server.py"
    path.write_text(SERVER)
    with load_tools([sys.executable, str(path)], timeout=10, connect_timeout=30) as tools:
        yield tools


@pytest.fixture
def tools(listed: MCPToolList) -> dict:
    return {t.name: t for t in listed}


def _call(name: str, args: dict, call_id: str = "c1") -> dict:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


# -- 3: a lone surrogate in an argument -----------------------------------------------------------------------------


def test_an_argument_with_a_lone_surrogate_is_repaired_and_the_session_stays_open(listed: MCPToolList,
                                                                                  tools: dict) -> None:
    first = tools["echo"].invoke(_call("echo", {"tag": "smile \ud83d"}))
    assert (first.status, first.content) == ("success", "echo smile \ufffd")
    second = tools["echo"].invoke(_call("echo", {"tag": "plain text"}, "c2"))
    assert (second.status, second.content) == ("success", "echo plain text")
    assert ", open," in repr(listed.client)
