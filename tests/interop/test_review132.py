"""Review 132 (MCP, interop and the CLI on bad input): an MCP call given up at its timeout says the server may still
run it; a stdio server's non-protocol stdout is one warning sentence, not a traceback; an error result's artifact
survives the LangChain round trip; a server listing two tools under one name offers only the first; a LangChain
tool named ``math.add`` is refused saying what to set its name to. Each test failed on the code before its fix."""

from __future__ import annotations

import logging
import sys
import textwrap
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
pytest.importorskip("langchain_core")

from toolwire import Agent, AIMessage, SchemaError, tool
from toolwire.interop.langchain import from_langchain_tool, to_langchain_tool
from toolwire.mcp import load_tools
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel

pytestmark = pytest.mark.timeout(120)

SERVER = textwrap.dedent('''
    """A raw JSON-RPC MCP server over stdio; argv[1] is the mode, argv[2] a file the slow tool writes."""
    import json, sys, time
    mode, done = sys.argv[1], sys.argv[2]
    S = {"type": "object", "properties": {"x": {"type": "string"}}}
    TOOLS = [{"name": "echo", "description": "first echo", "inputSchema": S},
             {"name": "slow", "description": "slow", "inputSchema": S},
             {"name": "fails", "description": "fails", "inputSchema": S}]
    if mode == "dup":
        TOOLS.append({"name": "echo", "description": "second echo", "inputSchema": S})
    if mode == "junk":
        print("Starting server v1.2 ...", flush=True)
    def send(obj):
        sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
    for line in sys.stdin:
        msg = json.loads(line)
        mid, method = msg.get("id"), msg.get("method")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": msg["params"]["protocolVersion"],
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "raw", "version": "0"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": mid, "result": {"tools": TOOLS}})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": mid, "result": {}})
        elif method == "tools/call":
            name = msg["params"]["name"]
            if name == "slow":
                time.sleep(1.5)
                open(done, "w").write("done")
            if mode == "junk":
                print("DEBUG: called", name, flush=True)
            text = {"echo": "first echo", "slow": "slow done", "fails": "bad thing"}[name]
            send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": text}],
                  "isError": name == "fails"}})
''')


def _server(tmp_path: Path, mode: str) -> str:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    return f"{sys.executable} {script} {mode} {tmp_path / 'done.txt'}"


def _call(name: str, call_id: str = "c1") -> dict[str, Any]:
    return {"name": name, "args": {}, "id": call_id, "type": "tool_call"}


def test_1_an_mcp_call_given_up_at_its_timeout_says_the_server_may_still_run_it(tmp_path: Path) -> None:
    with load_tools(_server(tmp_path, "normal"), timeout=0.3) as tools:
        slow = next(t for t in tools if t.name == "slow")
        message = slow.invoke(_call("slow"))
        assert message.status == "error"
        assert "the server may still be running it, so it may yet take effect" in message.content, message.content
        assert "was stopped" not in message.content
        deadline = time.monotonic() + 10
        while not (tmp_path / "done.txt").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (tmp_path / "done.txt").exists()  # what the words warn of: the server went on


def test_1_a_local_async_tool_stopped_at_its_timeout_keeps_its_words() -> None:
    import asyncio

    @tool(timeout=0.1)
    async def nap() -> str:
        """Nap."""
        await asyncio.sleep(5)
        return "up"

    assert "and was stopped" in nap.invoke(_call("nap")).content


def test_2_non_protocol_stdout_is_one_warning_line_each_not_a_traceback(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Each line is still reported (review 133 #1: reporting only the first one in the process hid a later server's
    broken answer, which left its call waiting), as one line that quotes it."""
    with caplog.at_level(logging.WARNING, logger="mcp.client.stdio"), load_tools(_server(tmp_path, "junk")) as tools:
        echo = next(t for t in tools if t.name == "echo")
        assert echo.invoke(_call("echo")).content == "first echo"  # the session goes on
        assert echo.invoke(_call("echo", "c2")).content == "first echo"
    records = [r for r in caplog.records if r.name == "mcp.client.stdio"]
    assert [r.getMessage().rsplit(" (", 1)[1] for r in records] == [
        "'Starting server v1.2 ...').", "'DEBUG: called echo').", "'DEBUG: called echo')."]
    for record in records:
        assert record.levelno == logging.WARNING and record.exc_info is None and record.exc_text is None
        assert "is not JSON; it was skipped: a stdio server must write its logs to stderr" in record.getMessage()


def test_2_a_message_that_is_json_but_not_json_rpc_is_named_a_protocol_fault(
        caplog: pytest.LogCaptureFixture) -> None:
    from mcp.client.stdio import _parse_line

    with caplog.at_level(logging.WARNING, logger="mcp.client.stdio"):
        assert isinstance(_parse_line('{"jsonrpc": "2.0", "id": 3, "result": 5}'), Exception)
    (record,) = [r for r in caplog.records if r.name == "mcp.client.stdio"]
    assert "not valid JSON-RPC; it was skipped, so a call it answered waits until its timeout" in record.getMessage()
    assert '"result": 5' in record.getMessage() and record.exc_info is None


def test_3_an_error_result_s_artifact_survives_the_langchain_round_trip(tmp_path: Path) -> None:
    with load_tools(_server(tmp_path, "normal")) as tools:
        fails = next(t for t in tools if t.name == "fails")
        ours = fails.invoke(_call("fails"))
        assert ours.status == "error" and ours.artifact is not None
        lc = to_langchain_tool(fails)
        theirs = lc.invoke(_call("fails"))
        assert (theirs.status, theirs.tool_call_id, theirs.artifact) == ("error", "c1", ours.artifact)
        assert theirs.content == ours.content
        back = from_langchain_tool(lc).invoke(_call("fails"))
        assert (back.status, back.artifact) == ("error", ours.artifact)


def test_3_bytes_a_tool_could_not_send_survive_too() -> None:
    @tool
    def raw() -> bytes:
        """Raw bytes."""
        return b"\xff\xfe\x00binary"

    lc = to_langchain_tool(raw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        message = lc.invoke(_call("raw"))
    assert message.status == "error" and message.artifact == b"\xff\xfe\x00binary"
    # bare arguments: the value, as tool.invoke(args) gives it (review 163 #2)
    assert lc.invoke({}) == raw.invoke({}) == b"\xff\xfe\x00binary"


def test_4_a_second_tool_under_one_name_is_skipped_with_a_warning(tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match="Skipping the second MCP tool named 'echo'"), \
            load_tools(_server(tmp_path, "dup")) as tools:
        assert [t.name for t in tools] == ["echo", "slow", "fails"]
        assert tools[0].description == "first echo"


def test_5_a_langchain_tool_with_a_dotted_name_is_refused_saying_what_to_set() -> None:
    """Review 132 #5 wanted the fix named; review 133 #2: renaming it quietly broke LangGraph's ToolNode, which
    knows only its own name, so it is refused at binding, saying what to set."""
    from langchain_core.tools import StructuredTool

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    lc = StructuredTool.from_function(add, name="math.add")
    for make in (lambda: from_langchain_tool(lc), lambda: Agent(ScriptedChatModel(["x"]), [lc])):
        with pytest.raises(SchemaError, match=r"set its name before passing it, for example lc_tool.name = 'math_add'"):
            make()
    lc.name = "math_add"
    agent = Agent(ScriptedChatModel([AIMessage("", tool_calls=[tool_call("math_add", {"a": 2, "b": 3}, "c1")]),
                                     "5"]), [lc])
    answer = agent.invoke("add")
    assert answer.messages[2].content == "5" and answer.output == "5"
