"""Review 25, MCP: a renamed tool never takes the name of a tool that keeps its own (finding 1); what a
served tool prints never reaches the stdio protocol (finding 2); ``connect_timeout`` bounds the whole wait
and an unsplittable command line is a UserError (finding 3); a broken ``jsonschema`` import is said once,
as itself (finding 4). The servers are small processes the tests start; no model is loaded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import toolwire
from toolwire import UserError
from toolwire.mcp import MCPClient, StdioServer, connect, load_tools, server_from

pytestmark = pytest.mark.timeout(120)

SRC = Path(toolwire.__file__).resolve().parents[1]  # the toolwire under test, for the server processes

PRINTING_TOOLS = textwrap.dedent('''
    from toolwire import tool

    print("IMPORTED ON STDOUT")

    @tool
    def shout(word: str) -> str:
        """Say a word loudly."""
        print("HELLO ON STDOUT")
        return word.upper()
''')


def _serve_argv(path: Path) -> list[str]:
    return [sys.executable, "-m", "toolwire.cli", "mcp", "serve", "--tools", str(path)]


def _env(buffered: bool) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    return {**env, "PYTHONPATH": str(SRC)} if buffered else {**env, "PYTHONPATH": str(SRC), "PYTHONUNBUFFERED": "1"}


# -- finding 1: names ----------------------------------------------------------------------------------


def _names(listed: list[str], prefix: str = "") -> list[str]:
    client = MCPClient("python never_started.py", prefix=prefix)  # _build needs no session
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return [t.name for t in client._build([{"name": n, "description": "A tool."} for n in listed])]


def test_a_tool_whose_name_is_valid_keeps_it_and_only_the_renamed_one_gets_a_suffix() -> None:
    assert _names(["a.b", "a_b"]) == ["a_b_2", "a_b"]
    assert _names(["a_b", "a.b"]) == ["a_b", "a_b_2"]
    assert _names(["x.y", "x y", "x_y", "x_y_2"]) == ["x_y_3", "x_y_4", "x_y", "x_y_2"]
    assert _names(["a.b", "a_b"], prefix="s_") == ["s_a_b_2", "s_a_b"]
    long = "t" * 64
    assert _names([long + ".x", long]) == [long[:62] + "_2", long]


def test_a_skipped_tool_that_keeps_its_name_leaves_it_to_the_renamed_one() -> None:
    broken = {"type": "object", "properties": {"a": {"type": 5}}}
    client = MCPClient("python never_started.py")
    with pytest.warns(UserWarning, match="Skipping the MCP tool 'pair_make'"):
        tools = client._build([{"name": "pair.make", "description": "A."},
                               {"name": "pair_make", "description": "B.", "inputSchema": broken}])
    assert [t.name for t in tools] == ["pair_make"]


def test_the_renaming_rule_is_documented() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "interop.md").read_text(encoding="utf-8")
    mcp_part = doc.split("## MCP", 1)[1].split("\n## ", 1)[0]
    assert "`_2`" in mcp_part and "keeps its name" in mcp_part


# -- finding 2: what a served tool prints ----------------------------------------------------------------


def _rpc(id_: int | None, method: str, params: dict[str, Any]) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if id_ is not None:
        message["id"] = id_
    return json.dumps(message) + "\n"


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
def test_what_a_served_tool_prints_goes_to_stderr_never_to_the_protocol(tmp_path: Path, buffered: bool) -> None:
    path = tmp_path / "printing_tools.py"
    path.write_text(PRINTING_TOOLS, encoding="utf-8")
    proc = subprocess.Popen(_serve_argv(path), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=_env(buffered), text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_rpc(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                            "clientInfo": {"name": "test", "version": "1"}}))
    proc.stdin.flush()
    first = json.loads(proc.stdout.readline())  # the answer to initialize, before the call is sent
    assert first["id"] == 1 and "result" in first
    proc.stdin.write(_rpc(None, "notifications/initialized", {}))
    proc.stdin.write(_rpc(2, "tools/call", {"name": "shout", "arguments": {"word": "hi"}}))
    proc.stdin.flush()
    second = json.loads(proc.stdout.readline())
    assert second["id"] == 2 and second["result"]["content"][0]["text"] == "HI"
    out, err = proc.communicate(timeout=60)  # closes stdin: the server stops
    assert out == "", f"the protocol stream got more than JSON-RPC: {out!r}"
    assert "HELLO ON STDOUT" in err and "IMPORTED ON STDOUT" in err


def test_serve_async_puts_stdout_back_after_serving(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio
    import io

    from toolwire.mcp import server as mcp_server

    seen: list[Any] = []

    class Fake:
        async def run(self, *args: Any) -> None:
            seen.append(sys.stdout)
            print("inside")

        def create_initialization_options(self) -> None:
            return None

    class Streams:
        async def __aenter__(self) -> tuple[None, None]:
            return None, None

        async def __aexit__(self, *exc: object) -> None:
            return None

    import mcp.server.stdio

    monkeypatch.setattr(mcp.server.stdio, "stdio_server", lambda **streams: Streams())
    original, fake_err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", original)
    monkeypatch.setattr(sys, "stderr", fake_err)
    asyncio.run(mcp_server._serve_stdio(Fake()))
    assert seen and seen[0] is not original and sys.stdout is original
    assert original.getvalue() == "" and fake_err.getvalue() == "inside\n"


# -- finding 3: connect_timeout and command lines ----------------------------------------------------------


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_connect_timeout_bounds_the_whole_wait_and_the_silent_server_is_still_stopped(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    silent = [sys.executable, "-c",
              "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(120)", str(pid_file)]
    start = time.monotonic()
    with pytest.raises(UserError, match="did not answer within 2 seconds"):
        load_tools(StdioServer(silent[0], tuple(silent[1:])), connect_timeout=2)
    elapsed = time.monotonic() - start
    assert elapsed < 3.5, f"connect_timeout=2 but the failure took {elapsed:.1f} s"
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 20
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _gone(pid), "the server that did not answer was left running"


def test_connect_timeout_bounds_the_async_wait_too(tmp_path: Path) -> None:
    import asyncio

    silent = StdioServer(sys.executable, ("-c", "import time; time.sleep(120)"))

    async def main() -> float:
        start = time.monotonic()
        with pytest.raises(UserError, match=r"did not answer within 1\.5 seconds"):
            async with connect(silent, connect_timeout=1.5):
                pass
        return time.monotonic() - start

    assert asyncio.run(main()) < 2.9


@pytest.mark.parametrize("command", ["python 'unclosed", 'python "a\\'])
def test_an_unsplittable_command_line_is_a_user_error(command: str) -> None:
    with pytest.raises(UserError, match=r"^Cannot split the MCP server command .*: close the quote"):
        server_from(command)
    with pytest.raises(UserError, match="Cannot split"):
        load_tools(command)


# -- finding 4: a broken jsonschema ------------------------------------------------------------------------


class _BrokenJsonschema:
    """A meta-path finder that fails the import of jsonschema as a broken dependency of it would."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name == "jsonschema":
            raise ImportError("cannot import name 'HASH_MAP' from 'rpds' (unknown location)", name="rpds")
        return None


def test_a_broken_jsonschema_import_is_said_once_as_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "tools.py"
    path.write_text(PRINTING_TOOLS, encoding="utf-8")
    server = StdioServer(sys.executable, tuple(_serve_argv(path)[1:]), env={"PYTHONPATH": str(SRC)})
    monkeypatch.delitem(sys.modules, "jsonschema", raising=False)  # not imported yet when run alone
    monkeypatch.setattr(sys, "meta_path", [_BrokenJsonschema(), *sys.meta_path])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(UserError) as info:
            tools = load_tools(server, connect_timeout=60)
            tools.close()
    message = str(info.value)
    assert "cannot import name 'HASH_MAP' from 'rpds'" in message and "jsonschema" in message
    assert "pip install 'jsonschema>=4'" not in message and "reinstall" in message
    assert not [w for w in caught if "jsonschema" in str(w.message)]


def test_a_missing_jsonschema_says_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.mcp.common import _check_jsonschema

    monkeypatch.setitem(sys.modules, "jsonschema", None)  # import jsonschema: ModuleNotFoundError
    with pytest.raises(UserError, match=r"pip install 'jsonschema>=4'"):
        _check_jsonschema()


def test_schema_tools_say_what_failed_when_jsonschema_does_not_import(monkeypatch: pytest.MonkeyPatch) -> None:
    """A broken dependency of jsonschema is not "install jsonschema": the error quotes the import failure."""
    from toolwire.errors import SchemaError
    from toolwire.interop.openai_tools import _jsonschema

    monkeypatch.delitem(sys.modules, "jsonschema", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_BrokenJsonschema(), *sys.meta_path])
    with pytest.raises(SchemaError, match=r"does not import .*force-reinstall"):
        _jsonschema()
