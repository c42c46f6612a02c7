"""Review 251, the command line as a scripter uses it: #2 ``ask --json`` let a tool's thread that printed after the
run put its text on standard output, after the JSON; #4 standard output closed (``>&-``) gave tracebacks, or exit 0
with the output lost; #5 a tools file whose import raised an exception whose ``__str__`` raises gave a traceback;
#3 ``mcp serve --transport http`` said it was serving before it listened; #6 ``models pull`` drew its progress bar into
a stderr that is not a terminal. The commands run in a subprocess, with a local server as the model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from _queued_http import QueuedServer, weather_serving

TOOLS = '''
import threading
from toolwire import tool

@tool
def get_weather(city: str) -> str:
    """Get the weather.

    Args:
        city: the city
    """
    def upload_log():  # prints once the command's main code has ended (the JSON written)
        threading.main_thread().join()
        print("log uploaded", flush=True)
    threading.Thread(target=upload_log).start()
    return "sunny"
'''


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    yield from weather_serving()


def _toolwire(*args: str, closed_stdout: bool = False, stdin: str | None = None,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the ``toolwire`` command (``closed_stdout``: with file descriptor 1 closed, as ``>&-`` starts it)."""
    command = [sys.executable, "-c", "from toolwire.cli import main; main()", *args]
    if closed_stdout:
        command = ["sh", "-c", 'exec "$@" >&-', "sh", *command]
    return subprocess.run(command, capture_output=not closed_stdout, stderr=subprocess.PIPE if closed_stdout else None,
                          input=stdin, text=True, timeout=120, env={**os.environ, **(env or {})})


# --- #2: ask --json, standard output holds the JSON alone ----------------------------------------------------------

def test_ask_json_keeps_what_a_tools_thread_prints_late_off_stdout(server: QueuedServer, tmp_path: Path) -> None:
    tools = tmp_path / "late.py"
    tools.write_text(TOOLS)
    done = _toolwire("ask", "Weather in Paris?", "-m", f"openai-compatible:m@{server.url}", "--tools", str(tools),
                     "--json")
    assert done.returncode == 0, done.stderr
    messages = json.loads(done.stdout)  # (the JSON alone)
    assert messages[-1]["content"] == "It is sunny."
    assert "log uploaded" in done.stderr


# --- #4: standard output closed ------------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [["ask", "q"], ["ask", "q", "--json"], ["chat"]])
def test_a_command_run_with_stdout_closed_says_so_in_one_line(server: QueuedServer, args: list[str]) -> None:
    done = _toolwire(*args, "-m", f"openai-compatible:m@{server.url}", closed_stdout=True,
                     stdin="q\n" if args == ["chat"] else None)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "error: cannot write the output (standard output is closed): write it elsewhere."], done.stderr
    assert server.requests == []  # (nothing run whose output would be lost)


def test_models_list_with_stdout_closed_fails(tmp_path: Path) -> None:
    done = _toolwire("models", "list", closed_stdout=True, env={"TOOLWIRE_HOME": str(tmp_path)})
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "error: cannot write the output (standard output is closed): write it elsewhere."), done.stderr
    assert "Traceback" not in done.stderr


# --- #5: an import error whose __str__ raises ----------------------------------------------------------------------

BAD_STR = '''
class ConfigError(Exception):
    def __str__(self):
        return f"bad config key {self.key!r}"  # (.key never set)

raise ConfigError()
'''


def test_a_tools_file_raising_an_error_whose_str_fails_gives_one_line(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.cli_tools import load_tools
    from toolwire.errors import UserError

    monkeypatch.chdir(tmp_path)
    (tmp_path / "weird.py").write_text(BAD_STR)
    with pytest.raises(UserError) as raised:
        load_tools("weird.py")
    assert str(raised.value) == ("Loading tools from 'weird.py' failed at weird.py:6 with ConfigError: fix the code "
                                 "there, then try again.")


def test_a_relative_import_error_whose_str_fails_gives_one_line(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.cli_tools import load_tools
    from toolwire.errors import UserError

    monkeypatch.chdir(tmp_path)
    (tmp_path / "weird.py").write_text(BAD_STR.replace("(Exception)", "(ImportError)"))
    with pytest.raises(UserError, match=r"failed at weird.py:6 with ConfigError: fix the code there"):
        load_tools("weird.py")


def test_the_command_says_it_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "weird.py").write_text(BAD_STR)
    done = _toolwire("ask", "q", "--tools", str(tmp_path / "weird.py"), "-m", "openai-compatible:m@http://127.0.0.1:9/v1")
    assert done.returncode == 1
    assert len(done.stderr.splitlines()) == 1 and "with ConfigError:" in done.stderr, done.stderr


# --- #3: mcp serve --transport http says "serving" once it listens; Ctrl-C while it starts ends in one line ---------

WEATHER = '''
from toolwire import tool

@tool
def get_weather(city: str) -> str:
    """Get the weather.

    Args:
        city: the city
    """
    return "sunny"
'''


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_mcp_serve_http_says_serving_once_the_port_takes_connections(tmp_path: Path) -> None:
    import signal
    import socket

    tools = tmp_path / "weather.py"
    tools.write_text(WEATHER)
    port = _free_port()
    command = [sys.executable, "-c", "from toolwire.cli import main; main()", "mcp", "serve", "--tools", str(tools),
               "--transport", "http", "--port", str(port)]
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        line = server.stderr.readline().strip()
        assert line == f"serving 1 tool at http://127.0.0.1:{port}/mcp"
        socket.create_connection(("127.0.0.1", port), timeout=5).close()  # (at once: it listens)
    finally:
        server.send_signal(signal.SIGINT)
        rest = server.communicate(timeout=30)[1]
    assert server.returncode == 130 and "Traceback" not in rest, rest


CTRL_C_AT_START = '''
import asyncio, contextlib, os, signal, sys
import toolwire.mcp.server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

@contextlib.asynccontextmanager
async def run(self):  # Ctrl-C as the server starts (the app's lifespan startup)
    os.kill(os.getpid(), signal.SIGINT)  # (uvicorn's handler: the server is to end once started)
    await asyncio.sleep(0.2)
    yield

building = toolwire.mcp.server._http_app

def build(*args):  # Ctrl-C as the app is built (the SDK imported), before uvicorn runs
    os.kill(os.getpid(), signal.SIGINT)
    return building(*args)

if sys.argv[3] == "lifespan":
    StreamableHTTPSessionManager.run = run
else:
    toolwire.mcp.server._http_app = build
sys.argv = ["toolwire", "mcp", "serve", "--tools", sys.argv[1], "--transport", "http", "--port", sys.argv[2]]
from toolwire.cli import main
main()
'''


@pytest.mark.parametrize("when", ["build", "lifespan"])
def test_mcp_serve_http_ctrl_c_as_it_starts_prints_no_traceback(tmp_path: Path, when: str) -> None:
    tools = tmp_path / "weather.py"
    tools.write_text(WEATHER)
    done = subprocess.run([sys.executable, "-c", CTRL_C_AT_START, str(tools), str(_free_port()), when],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 130
    assert "Traceback" not in done.stderr and "serving" not in done.stderr, done.stderr
    assert len(done.stderr.splitlines()) <= 1, done.stderr


# --- #6: models pull draws no progress bar into a stderr that is not a terminal ------------------------------------

def test_pull_progress_on_a_stderr_that_is_no_terminal_is_plain_lines(capsys: pytest.CaptureFixture[str]) -> None:
    from toolwire.models._pull_verify import _Progress

    ticks = iter([0.0, 0.0, 40.0, 41.0, 41.0])  # (start, then each advance)
    bar = _Progress(True, clock=lambda: next(ticks))
    bar.start("Verifying model.gguf", 4_000_000)
    for _ in range(4):
        bar.advance(1_000_000)
    bar.stop()
    written = capsys.readouterr().err
    assert written.splitlines() == ["Verifying model.gguf (4.0 MB)", "Verifying model.gguf: 50% (2.0 of 4.0 MB)",
                                    "Verifying model.gguf: 100% (4.0 of 4.0 MB)"]


def test_pull_progress_on_a_terminal_is_a_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import _pull_verify

    monkeypatch.setattr(_pull_verify, "_stderr_is_terminal", lambda: True)
    assert _pull_verify._Progress(True)._bar is not None
    assert _pull_verify._Progress(False)._bar is None
