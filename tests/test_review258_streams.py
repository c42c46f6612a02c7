"""Review 258, the commands run with standard error closed (``2>&-``): #2 ``ask --json`` wrote its JSON nowhere and
exited 0; #3 ``models pull`` wrote its progress lines on standard output, around the path a script captures. Also
``ask``, ``chat`` (``input()`` needs a standard error) and ``models list``. The commands run in a subprocess started
with file descriptor 2 closed, with a local server as the model."""

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
import os
from toolwire import tool

@tool
def get_weather(city: str) -> str:
    """Get the weather.

    Args:
        city: the city
    """
    print("looking it up")  # (sys.stdout, then file descriptor 1 below Python: neither may reach the JSON)
    os.system("echo from a command")
    return "sunny"
'''


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    yield from weather_serving()


@pytest.fixture
def tools(tmp_path: Path) -> str:
    file = tmp_path / "weather.py"
    file.write_text(TOOLS)
    return str(file)


def _stderr_closed(*args: str, stdin: str | None = None, env: dict[str, str] | None = None,
                   closed: str = "2>&-") -> subprocess.CompletedProcess[str]:
    """Run the ``toolwire`` command with file descriptor 2 closed (``closed``: the shell's redirection)."""
    command = ["sh", "-c", f'exec "$@" {closed}', "sh", sys.executable, "-c", "from toolwire.cli import main; main()",
               *args]
    return subprocess.run(command, stdout=subprocess.PIPE, input=stdin, text=True, timeout=120,
                          env={**os.environ, "OPENAI_API_KEY": "x", **(env or {})})


# --- #2: ask --json ------------------------------------------------------------------------------------------------

def test_ask_json_with_stderr_closed_writes_the_json_alone(server: QueuedServer, tools: str) -> None:
    done = _stderr_closed("ask", "Weather in Paris?", "-m", f"openai-compatible:m@{server.url}", "-t", tools, "--json")
    assert done.returncode == 0
    messages = json.loads(done.stdout)  # (the JSON alone: what the tool printed went nowhere)
    assert messages[-1]["content"] == "It is sunny."
    assert [m["type"] for m in messages] == ["human", "ai", "tool", "ai"]


def test_ask_json_with_stderr_closed_and_no_model_exits_1(tools: str) -> None:
    done = _stderr_closed("ask", "q", "-m", "openai-compatible:m@http://127.0.0.1:9/v1", "-t", tools, "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout) == [{"type": "human", "content": "q"}]  # (the conversation so far, review 59)


def test_with_both_streams_closed_the_command_exits_1(server: QueuedServer, tools: str) -> None:
    done = _stderr_closed("ask", "q", "-m", f"openai-compatible:m@{server.url}", "--json", closed=">&- 2>&-")
    assert done.returncode == 1
    assert server.requests == []


# --- ask, chat and models list -------------------------------------------------------------------------------------

def test_ask_with_stderr_closed_prints_the_answer(server: QueuedServer, tools: str) -> None:
    done = _stderr_closed("ask", "Weather in Paris?", "-m", f"openai-compatible:m@{server.url}", "-t", tools)
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1] == "It is sunny."


def test_chat_with_stderr_closed_answers(server: QueuedServer, tools: str) -> None:
    # (input() raised "lost sys.stderr" at the first prompt: exit 1, nothing asked)
    done = _stderr_closed("chat", "-m", f"openai-compatible:m@{server.url}", "-t", tools,
                          stdin="Weather in Paris?\n")
    assert done.returncode == 0
    assert "It is sunny." in done.stdout.splitlines()


def test_models_list_with_stderr_closed_lists(tmp_path: Path) -> None:
    done = _stderr_closed("models", "list", env={"TOOLWIRE_HOME": str(tmp_path), "COLUMNS": "200"})
    assert done.returncode == 0
    assert "smollm2-135m" in done.stdout


# --- #3: models pull -----------------------------------------------------------------------------------------------

def test_models_pull_with_stderr_closed_writes_no_progress_on_stdout(tmp_path: Path) -> None:
    from toolwire.models.registry import get_entry

    entry = get_entry("smollm2-135m")
    wrong = tmp_path / entry.filename  # the right size (sparse: nothing written), not the right sha256
    with open(wrong, "wb") as file:
        file.truncate(entry.size)
    done = _stderr_closed("models", "pull", "smollm2-135m", "--path", str(wrong),
                          env={"TOOLWIRE_HOME": str(tmp_path / "home")})
    assert done.returncode == 1
    assert done.stdout == ""  # (it held "Verifying ... (98.4 MB)" and the 100% line)


def test_pull_progress_lines_with_no_stderr_go_nowhere(capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models._pull_verify import _Progress

    monkeypatch.setattr(sys, "stderr", None)  # (a process started with descriptor 2 closed)
    bar = _Progress(True, clock=lambda: 0.0)
    bar.start("Verifying model.gguf", 4_000_000)
    bar.advance(4_000_000)
    bar.stop()
    assert capsys.readouterr().out == ""


def test_output_to_stderr_with_no_stderr_keeps_stdout_for_the_json(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from toolwire import _cli_run
    from toolwire._std_streams import output_to_stderr

    shown = io.StringIO()
    monkeypatch.setattr(sys, "stdout", shown)
    monkeypatch.setattr(sys, "stderr", None)
    with output_to_stderr() as stdout:
        print("a tool's line")  # (goes nowhere)
        _cli_run._print_json([{"role": "user", "content": "q"}], stdout)
    assert json.loads(shown.getvalue()) == [{"role": "user", "content": "q"}]
