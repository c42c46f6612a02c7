"""The ``toolwire ask`` / ``chat`` commands on a scripted model (issue [2]): the cycle, and bad input."""

from __future__ import annotations

import json
import threading

import pytest
from typer.testing import CliRunner

from toolwire import AIMessage, cli
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> ScriptedChatModel:
    model = ScriptedChatModel([
        AIMessage("", tool_calls=[tool_call("calculate", {"expression": "123 * 456"}, "c1")]),
        "123 * 456 = 56088.",
    ])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    return model


def test_ask_runs_the_tool_cycle(scripted: ScriptedChatModel) -> None:
    result = CliRunner().invoke(cli.app, ["ask", "Quanto é 123 multiplicado por 456?"])
    assert result.exit_code == 0, result.output
    assert 'calculate(expression="123 * 456")' in result.output
    assert "← 56088" in result.output and "123 * 456 = 56088." in result.output
    assert len(scripted.requests) == 2


def test_ask_json_prints_the_conversation(scripted: ScriptedChatModel) -> None:
    result = CliRunner().invoke(cli.app, ["ask", "Quanto é 123 * 456?", "--json"])
    assert result.exit_code == 0, result.output
    roles = [m["type"] for m in json.loads(result.output)]
    assert roles == ["human", "ai", "tool", "ai"]


def test_ask_json_that_reaches_max_steps_still_prints_the_conversation_so_far(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Review 59: with --json, a run that hit --max-steps printed nothing, so a script reading stdout got no JSON."""
    looping = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("calculate", {"expression": f"{n} * 2"}, f"c{n}")])
                                 for n in range(3)])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: looping)
    result = CliRunner().invoke(cli.app, ["ask", "q", "--json", "--max-steps", "2"])
    assert result.exit_code == 1 and "raise --max-steps" in result.stderr
    assert [m["type"] for m in json.loads(result.stdout)] == ["human", "ai", "tool", "ai", "tool"]


@pytest.mark.parametrize("question", ["", "   ", "\n\t"])
def test_blank_question_is_refused_before_any_model_call(scripted: ScriptedChatModel, question: str) -> None:
    result = CliRunner().invoke(cli.app, ["ask", question])
    assert result.exit_code == 1
    assert "The question is empty" in result.output and result.output.count("\n") == 1
    assert scripted.requests == []


def test_chat_skips_blank_lines_and_keeps_the_conversation(scripted: ScriptedChatModel) -> None:
    result = CliRunner().invoke(cli.app, ["chat"], input="\n   \nQuanto é 123 * 456?\nexit\n")
    assert result.exit_code == 0, result.output
    assert "123 * 456 = 56088." in result.output
    assert len(scripted.requests) == 2


def test_a_tools_file_that_exits_at_import_is_a_clear_error(tmp_path) -> None:
    from toolwire.errors import UserError

    script = tmp_path / "exits.py"
    script.write_text("import sys\n\ndef f(x: int) -> int:\n    'Double.'\n    return 2 * x\n\nsys.exit(0)\n")
    with pytest.raises(UserError, match=r"ran sys.exit\(0\); put the file's script part under"):
        cli.load_tools(str(script))


def test_a_tools_file_with_an_alias_of_a_tool_loads_it_once(tmp_path) -> None:
    script = tmp_path / "alias.py"
    script.write_text("from toolwire import tool\n\n@tool\ndef get_weather(city: str) -> str:\n"
                      "    'Weather.'\n    return city\n\nweather = get_weather\n")
    assert [t.name for t in cli.load_tools(str(script))] == ["get_weather"]


def test_a_folder_given_as_the_model_says_it_is_a_folder(tmp_path) -> None:
    folder = tmp_path / "model.gguf"  # a folder, whatever its name
    folder.mkdir()
    result = CliRunner().invoke(cli.app, ["ask", "Como está o clima em Paris?", "--model", str(folder)])
    assert result.exit_code == 1
    assert "is a folder with no .gguf file in it" in result.output and "does not exist" not in result.output
    (folder / "q.gguf").write_bytes(b"GGUF")
    result = CliRunner().invoke(cli.app, ["ask", "Como está o clima em Paris?", "--model", str(folder)])
    assert result.exit_code == 1 and "is a folder, not a .gguf file" in result.output


# -- review 6, finding 13a: a documented helper that cannot be a tool -------------------------------------

HELPERS_FILE = '''import socket


def get_time(tz: str) -> str:
    """Get the current time in a timezone."""
    return "12:00"


def open_conn(sock: socket.socket) -> None:
    """Internal helper: open a connection on a socket."""
'''


def test_a_documented_helper_that_cannot_be_a_tool_is_one_clear_line(tmp_path) -> None:
    from toolwire.errors import UserError

    path = tmp_path / "helpers.py"
    path.write_text(HELPERS_FILE)
    with pytest.raises(UserError) as info:
        cli.load_tools(str(path))
    text = str(info.value)
    assert "\n" not in text
    assert text.startswith(f"The function 'open_conn' in {str(path)!r} cannot be a tool (")
    assert "socket.socket" in text and "rename a helper to _open_conn" in text and "@tool" in text
    assert "arbitrary_types_allowed" not in text and "errors.pydantic.dev" not in text
    # renamed private, as the message says: the file's other function is its tool
    path.write_text(HELPERS_FILE.replace("def open_conn", "def _open_conn"))
    assert [t.name for t in cli.load_tools(str(path))] == ["get_time"]


def test_mcp_serve_with_such_a_helper_fails_with_one_line(tmp_path) -> None:
    path = tmp_path / "helpers.py"
    path.write_text(HELPERS_FILE)
    result = CliRunner().invoke(cli.app, ["mcp", "serve", "--tools", str(path)])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: The function 'open_conn' in ")
    assert "helpers.py" in lines[0]


def test_a_tools_entry_that_cannot_be_a_tool_is_one_clear_line(tmp_path) -> None:
    from toolwire.errors import UserError

    path = tmp_path / "listed.py"
    path.write_text(HELPERS_FILE + "\nTOOLS = [get_time, open_conn]\n")
    with pytest.raises(UserError) as info:
        cli.load_tools(str(path))
    text = str(info.value)
    assert "\n" not in text and text.startswith(f"The TOOLS entry 'open_conn' in {str(path)!r} cannot be a tool (")


def test_tool_timeout_answers_a_slow_tool_with_an_error(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--tool-timeout (seconds): a tool that takes longer is answered to the model as an error, and the
    command goes on (a hung MCP server or tool no longer holds the command until Ctrl-C)."""
    script = tmp_path / "slow.py"
    script.write_text('import time\n\n\ndef nap(seconds: float) -> str:\n    """Sleep.\n\n    Args:\n'
                      '        seconds: how long.\n    """\n    time.sleep(seconds)\n    return "rested"\n')
    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("nap", {"seconds": 1}, "n1")]), "Too slow."])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    result = CliRunner().invoke(cli.app, ["ask", "Nap?", "--tools", str(script), "--tool-timeout", "0.2", "--json"])
    assert result.exit_code == 0, result.output
    messages = json.loads(result.stdout)
    # the nap still runs on its thread as the command ends: said, since exiting stops it part-way (review 104)
    assert result.stderr.endswith("warning: the call of 'nap' still running past its timeout is stopped part-way now "
                                  "that the command ends: check what it did.\n")
    answer = next(m for m in messages if m["type"] == "tool")
    assert answer["tool_call_id"] == "n1" and answer["status"] == "error" and "0.2" in str(answer["content"])
    assert messages[-1]["content"] == "Too slow."
    for thread in threading.enumerate():  # (the nap's thread ends before the next test's command, which would name it)
        if thread.name == "toolwire-timed:nap":
            thread.join(5)
    refused = CliRunner().invoke(cli.app, ["ask", "Nap?", "--tool-timeout", "0"])
    assert refused.exit_code == 2 and "--tool-timeout" in refused.output
