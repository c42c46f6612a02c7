"""Session 35: `toolwire chat` says when a question it drops had already run its tools; a stdio MCP server keeps
file descriptors 0 and 1 for the protocol whatever the mcp SDK version."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest


def _call_then_overflow(messages: list) -> Any:
    """A scripted reply: a tool call for the question, then an overflow once its result is in the prompt."""
    from toolwire.errors import ContextOverflowError
    from toolwire.messages import AIMessage, ToolMessage

    if isinstance(messages[-1], ToolMessage):
        raise ContextOverflowError(9000, 8192)
    if "calcul" in messages[-1].text:
        return AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "2 + 2"}, "id": "c1"}])
    return f"seen {sum(m.type == 'human' for m in messages)} questions"


def test_chat_says_the_tools_of_a_dropped_question_had_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # the answer step overflowed after the question's tools ran (side effects done): dropping it silently made a
    # user ask again and run them twice
    from typer.testing import CliRunner

    from toolwire import cli
    from toolwire.testing import ScriptedChatModel

    model = ScriptedChatModel([_call_then_overflow], cycle=True)
    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: model)
    result = CliRunner().invoke(cli.app, ["chat"], input="hello\nplease calculate 2 + 2\nagain\nexit\n")
    assert result.exit_code == 0, result.output
    assert "that question was dropped from the conversation after its 1 tool call had run" in result.output
    assert "seen 1 questions" in result.output and "seen 2 questions" in result.output  # the dropped one is gone
    # a question that overflows before any tool runs says nothing of tools
    model = ScriptedChatModel([lambda messages: (_ for _ in ()).throw(
        __import__("toolwire").ContextOverflowError(9000, 8192))], cycle=True)
    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: model)
    result = CliRunner().invoke(cli.app, ["chat"], input="hello\nexit\n")
    assert "that question was dropped from the conversation:" in result.output


def test_stdio_serving_keeps_descriptors_0_and_1_for_the_protocol(tmp_path: Any) -> None:
    # mcp 1.x wrapped sys.stdin/sys.stdout and left the descriptors alone: a command a tool ran wrote onto the
    # protocol (and could read the client's messages); toolwire now moves them itself, as mcp 2.x does
    from toolwire.mcp.server import _protocol_streams

    files = {fd: tmp_path / f"fd{fd}" for fd in (0, 1, 2)}
    files[0].write_bytes(b'{"jsonrpc": "2.0"}\n')
    saved = {fd: os.dup(fd) for fd in files}
    try:
        for fd, path in files.items():
            handle = os.open(path, os.O_RDONLY if fd == 0 else os.O_WRONLY | os.O_CREAT)
            os.dup2(handle, fd)
            os.close(handle)
        with _protocol_streams() as streams:
            os.write(1, b"a child's output\n")  # as a command a tool runs writes it
            assert os.read(0, 100) == b""  # and reads: nothing of the client's messages
            streams["stdout"].wrapped.write('{"id": 1}\n')
            streams["stdout"].wrapped.flush()
            assert streams["stdin"].wrapped.readline() == '{"jsonrpc": "2.0"}\n'
        os.write(1, b"after\n")
    finally:
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)
    assert files[1].read_bytes() == b'{"id": 1}\nafter\n'
    assert files[2].read_bytes() == b"a child's output\n"


def test_stdio_serving_with_a_closed_descriptor_uses_the_sdk_streams() -> None:
    from toolwire.mcp.server import _protocol_streams

    copy = os.dup(2)
    os.close(2)
    try:
        with _protocol_streams() as streams:
            assert streams == {}
    finally:
        os.dup2(copy, 2)
        os.close(copy)


_NOISY_TOOLS = '''
import subprocess

from toolwire import tool


@tool
def noisy(word: str) -> str:
    """Run commands that write to the process's standard output and read its standard input."""
    subprocess.run(["echo", "stray output from a command"], check=True)
    read = subprocess.run(["cat"], capture_output=True, check=True, timeout=20).stdout  # the null device's nothing
    print("a print", flush=True)
    return f"{word}: read {len(read)} bytes"
'''


def test_a_command_a_stdio_served_tool_runs_cannot_touch_the_protocol(tmp_path: Any) -> None:
    pytest.importorskip("mcp")
    from toolwire import ToolExecutor
    from toolwire.mcp import StdioServer, load_tools

    path = tmp_path / "noisy_tools.py"
    path.write_text(_NOISY_TOOLS)
    paths = [str(Path(__file__).parent.parent / "src"), os.environ.get("PYTHONPATH", "")]
    server = StdioServer(sys.executable, ("-m", "toolwire.cli", "mcp", "serve", "--tools", str(path)),
                         env={"PYTHONPATH": os.pathsep.join(p for p in paths if p)})
    with load_tools(server) as tools:
        call = {"name": "noisy", "args": {"word": "ok"}, "id": "n1", "type": "tool_call"}
        first, second = (ToolExecutor(tools).execute([call])[0] for _ in range(2))  # the session still works after
    assert first.status == second.status == "success"
    assert first.content == second.content == "ok: read 0 bytes"
