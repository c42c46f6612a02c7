"""Review 114 (a user of toolwire's MCP client and server): what changed on the client side: secrets in more forms of
a command line, ``NAME=value`` before the command, HTTP results over 1 MiB, the SDK's own transport errors told from a
server's answers, an ``isError`` result's blocks kept as the artifact, a prefix too long, a cancelled
``aload_tools``, and warnings pointing at the user's line."""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from conftest import DEMO, SRC, free_port, start_http, stop
from toolwire import ToolExecutionError, UserError, tool
from toolwire.mcp import MCPClient, StdioServer, aload_tools, load_tools, server_from
from toolwire.mcp.common import _call_error, _connect_error, _describe, server_gone

pytestmark = pytest.mark.timeout(120)


# -- #1: secrets in a command line ------------------------------------------------------------------------------


@pytest.mark.parametrize(("command", "secret"), [
    ("python s.py '--header=Authorization: Bearer SECRET_TOKEN_123'", "SECRET_TOKEN_123"),
    ("npx -y @smithery/cli run @org/server --config '{\"apiKey\": \"SECRET8\", \"n\": 1}'", "SECRET8"),
    ("npx server '--config={\"auth\": {\"token\": \"SECRET9\"}}'", "SECRET9"),
    ("API_KEY=SECRET_A7 python my_server.py", "SECRET_A7")])
def test_more_forms_of_a_secret_stay_out_of_labels_and_reprs(command: str, secret: str) -> None:
    server = server_from(command)
    assert secret not in server.label and secret not in repr(server) and "***" in server.label + repr(server)


def test_variables_before_the_command_go_into_its_environment_as_a_shell_sets_them() -> None:
    server = server_from("GITHUB_TOKEN=abc DEBUG=1 npx -y server --port=1")
    assert (server.command, server.args, dict(server.env or {})) == (
        "npx", ("-y", "server", "--port=1"), {"GITHUB_TOKEN": "abc", "DEBUG": "1"})
    assert server_from(["A=1", "python", "s.py"]).env == {"A": "1"}
    assert server_from("python s.py A=1").env is None  # (after the command: an argument)


def test_a_connect_error_quoting_a_secret_word_hides_it() -> None:
    server = StdioServer("python", ["s.py", "--api-key=SECRET_B8"])
    error = _connect_error(server, FileNotFoundError(2, "No such file", "--api-key=SECRET_B8"), [])
    assert "SECRET_B8" not in str(error) and "--api-key=****" in str(error)


def test_a_secret_of_an_http_server_that_closes_stays_out_of_the_error_the_model_gets() -> None:
    server = server_from("python s.py '--header=Authorization: Bearer SECRET_C9'")
    assert "SECRET_C9" not in _call_error(server.label, ConnectionResetError("pipe"))


# -- #3, #8, #9, #10: what a failed call or connection says ----------------------------------------------------


def _sdk_error(code: int, message: str) -> Exception:
    """What the SDK raises for a JSON-RPC error (as tests/test_review65.py builds it)."""
    try:
        from mcp.shared.exceptions import MCPError  # mcp 2.x
    except ImportError:  # mcp 1.x
        from mcp.shared.exceptions import McpError
        from mcp.types import ErrorData

        return McpError(ErrorData(code=code, message=message))
    return MCPError(code, message)


def test_the_sdks_own_transport_errors_are_not_the_servers_answer() -> None:
    for text in ("SSE stream ended without a response", "SSE stream failed: ReadError"):
        message = _call_error("http://h/mcp", _sdk_error(-32000, text), gone=False)
        assert "did not answer" in message and "answered the call with an error" not in message
        assert server_gone(_sdk_error(-32000, text))
    too_big = _sdk_error(-32000, "SSE stream failed: Server-sent event exceeded the 1048576 byte limit.")
    message = _call_error("http://h/mcp", too_big)
    assert "larger than the 1,048,576 bytes" in message and "the tool ran" in message
    assert not server_gone(too_big)
    busy = _sdk_error(-32000, "busy, try again")  # (the server's own -32000 answer stays an answer: review 65)
    assert "answered the call with an error" in _call_error("srv", busy, gone=False)


def test_a_gone_server_says_its_tools_wait_for_a_restart() -> None:
    message = _call_error("srv", _sdk_error(-32000, "Connection closed"), gone=True)
    assert "did not answer: it has stopped" in message and "until the program starts it again" in message


def test_a_long_error_text_is_cut_and_non_mcp_json_is_named() -> None:
    long = RuntimeError("Failed to parse JSON response: 11 validation errors " + "x" * 3000)
    assert len(_describe(long)) < 400 and _describe(long).endswith(" ...")
    from toolwire.mcp.common import HttpServer

    error = _connect_error(HttpServer("http://127.0.0.1:1/200/mcp"), _sdk_error(-32700, str(long)), [])
    assert "JSON that is not an MCP message" in str(error) and len(str(error)) < 300


TOOLS_FILE = textwrap.dedent('''
    from toolwire import tool

    @tool
    def big(size: int) -> str:
        """A result of `size` characters."""
        return "x" * size
''')


def test_an_http_result_over_one_mib_arrives_as_over_stdio(tmp_path: Path) -> None:
    path = tmp_path / "big_tools.py"
    path.write_text(TOOLS_FILE)
    port = free_port()
    proc = start_http([sys.executable, "-m", "toolwire.cli", "mcp", "serve", "--tools", str(path), "--transport",
                       "http", "--port", str(port)], port)
    try:
        with load_tools(f"http://127.0.0.1:{port}/mcp") as tools:
            content, _ = tools[0].invoke({"size": 1_300_000})
            assert len(content) == 1_300_000
    finally:
        stop(proc)


# -- #7: an isError result keeps its blocks -----------------------------------------------------------------------


def test_an_is_error_result_keeps_its_blocks_as_the_artifact() -> None:
    with load_tools(DEMO) as tools:
        divide = next(t for t in tools if t.name == "divide")
        message = divide.invoke({"name": "divide", "args": {"a": 1, "b": 0}, "id": "c1", "type": "tool_call"})
    assert message.status == "error" and "division by zero" in message.text
    assert message.artifact["content"][0]["type"] == "text" and "structured_content" in message.artifact

    @tool
    def failing() -> str:
        """Fail with an artifact."""
        raise ToolExecutionError("it failed", artifact={"code": 42})

    assert failing.invoke({"name": "failing", "args": {}, "id": "c2", "type": "tool_call"}).artifact == {"code": 42}


# -- #12: a prefix too long ---------------------------------------------------------------------------------------


def test_a_prefix_that_leaves_no_room_for_the_name_is_refused() -> None:
    with pytest.raises(UserError, match=r"prefix is 70 characters long.*at most 48"):
        MCPClient(DEMO, prefix="x" * 70)
    MCPClient(DEMO, prefix="x" * 48)


# -- #4: a cancelled aload_tools --------------------------------------------------------------------------------


def _processes_with(marker: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if marker.encode() in handle.read():
                    found.append(int(pid))
        except (OSError, ValueError):
            continue
    return found


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_a_cancelled_aload_tools_stops_the_server_it_was_starting(tmp_path: Path) -> None:
    marker = f"toolwire-slow-start-{os.getpid()}"
    script = tmp_path / "slow.py"
    script.write_text(f"import runpy, time\ntime.sleep(2)\nrunpy.run_path({str(DEMO[1])!r}, run_name='__main__')\n")
    server = StdioServer(sys.executable, [str(script), marker], env={"PYTHONPATH": str(SRC)})

    async def main() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(aload_tools(server), 0.5)

    asyncio.run(main())  # (asyncio.run waits for the worker thread, which closes what it opened)
    deadline = time.monotonic() + 60
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _processes_with(marker)


# -- #13: warnings point at the user's line ------------------------------------------------------------------------


def test_a_skipped_tool_warning_points_at_the_load_tools_line() -> None:
    odd = [sys.executable, str(Path(__file__).parents[1] / "mcp_review46" / "odd_server.py"), "conforming", "dup",
           "broken"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with load_tools(odd) as tools:  # the line the warning must name
            names = [t.name for t in tools]
    skipped = [w for w in caught if "Skipping the MCP tool 'broken'" in str(w.message)]
    assert names == ["add", "echo"] and skipped and skipped[0].filename == __file__, [
        (w.filename, str(w.message)) for w in caught]


# -- #11: the prefix --mcp gives a server whose names clash ------------------------------------------------------


def test_the_mcp_prefix_of_the_cli_takes_names_no_tool_has(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire import cli
    from toolwire.testing import ScriptedChatModel

    tools_file = tmp_path / "mine.py"
    tools_file.write_text(textwrap.dedent('''
        from toolwire import tool

        @tool
        def add(a: int, b: int) -> int:
            """Add."""
            return a + b

        @tool
        def mcp1_add(a: int, b: int) -> int:
            """Add again, under the name the prefix would give."""
            return a + b
    '''))
    import toolwire.mcp

    opened: list[Any] = []

    def kept(*args: Any, **kwargs: Any) -> Any:
        opened.append(load_tools(*args, **kwargs))
        return opened[-1]

    monkeypatch.setattr(toolwire.mcp, "load_tools", kept)
    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: ScriptedChatModel(["ok"]))
    odd = f"{sys.executable} {Path(__file__).parents[1] / 'mcp_review46' / 'odd_server.py'} conforming dup"
    try:
        names = sorted(cli._agent(None, [str(tools_file)], 4, None, None, mcp=[odd]).executor.tools)
    finally:
        for tools in opened:  # (not left to the exit: a session's loop still running upsets later tests)
            tools.close()
    assert names == ["add", "mcp1_add", "mcp1b_add", "mcp1b_echo"], names  # was: "Two tools are named 'mcp1_add'"


def test_a_skipped_tool_warning_of_aload_tools_points_at_the_callers_line() -> None:
    odd = [sys.executable, str(Path(__file__).parents[1] / "mcp_review46" / "odd_server.py"), "conforming", "dup",
           "broken"]

    async def main() -> None:
        tools = await aload_tools(odd)  # the line the warning must name (review 115: asyncio/events.py)
        tools.close()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(main())
    skipped = [w for w in caught if "Skipping the MCP tool 'broken'" in str(w.message)]
    assert skipped and skipped[0].filename == __file__, [(w.filename, str(w.message)) for w in caught]
