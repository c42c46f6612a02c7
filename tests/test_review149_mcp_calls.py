"""Review 149, MCP calls: a result that breaks the tool's declared ``outputSchema`` is a failed call of that tool,
not a server gone (#2); an argument holding a lone surrogate no longer closes the session (#3). The server is a small
hand-written JSON-RPC process (no SDK, so it runs under mcp 1.x and 2.x alike); no model is loaded."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator

import pytest

pytest.importorskip("mcp")

from toolwire.mcp import MCPToolList, load_tools
from toolwire.mcp.common import _call_error, schema_refusal, server_gone

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


# -- 2: a result against the tool's own output schema ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["no_struct", "bad_struct"])
def test_a_result_that_breaks_the_output_schema_fails_that_call_and_leaves_the_server_up(
        listed: MCPToolList, tools: dict, name: str) -> None:
    message = tools[name].invoke(_call(name, {}))
    assert message.status == "error"
    text = message.content
    assert "answered with a result that breaks the output schema it declares for this tool" in text, text
    assert "tell its maintainers" in text
    assert "stopped" not in text and "cannot be called until" not in text
    assert "Failed validating" not in text  # (jsonschema's dump of the schema is left out)
    assert "server gone" not in repr(listed.client) and ", open," in repr(listed.client)
    after = tools["good_struct"].invoke(_call("good_struct", {}, "c2"))
    assert (after.status, after.content) == ("success", "12")


@pytest.mark.parametrize(("text", "kind"), [
    ("Tool t has an output schema but did not return structured content", "result"),
    ("Invalid structured content returned by tool t: 'warm' is not of type 'number'\n\nFailed validating", "result"),
    ("Invalid schema for tool t: PointerToNowhere: '/$defs/X'", "schema"),
    ("Called before entering the context manager", None),
])
def test_the_sdks_output_schema_refusals_are_answers_not_a_server_gone(text: str, kind: str | None) -> None:
    exc = RuntimeError(text)
    assert schema_refusal(exc) == kind
    assert server_gone(exc) is (kind is None)
    message = _call_error("srv", exc)
    if kind == "schema":
        assert "answered, but the output schema it declares for this tool cannot be used" in message
    elif kind == "result":
        assert "answered with a result that breaks the output schema" in message and "\n" not in message
    else:
        assert "did not answer: it has stopped" in message


# -- 3: a lone surrogate in an argument -----------------------------------------------------------------------------


def test_an_argument_with_a_lone_surrogate_is_repaired_and_the_session_stays_open(listed: MCPToolList,
                                                                                  tools: dict) -> None:
    first = tools["echo"].invoke(_call("echo", {"tag": "smile \ud83d"}))
    assert (first.status, first.content) == ("success", "echo smile \ufffd")
    second = tools["echo"].invoke(_call("echo", {"tag": "plain text"}, "c2"))
    assert (second.status, second.content) == ("success", "echo plain text")
    assert ", open," in repr(listed.client)
