"""Review 156 #5 and #6: what `ask` and `chat` print back (the question, tool results, answers) is shown as it is:
terminal escapes as \\x1b text, and backslashes at the end neither lost nor doubled."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolwire import cli
from toolwire.messages import AIMessage, tool_call
from toolwire.testing import ScriptedChatModel


def _use(monkeypatch: pytest.MonkeyPatch, model: ScriptedChatModel) -> None:
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)


def test_ask_shows_the_question_escapes_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    _use(monkeypatch, ScriptedChatModel(["ok"]))
    result = CliRunner().invoke(cli.app, ["ask", "summarise: \x1b]0;pwned\x07\x1b[2J text"])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert result.stdout.startswith("? summarise: \\x1b]0;pwned\\x07\\x1b[2J text\n")


def test_backslashes_that_end_a_result_or_an_answer_are_kept(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    script = tmp_path / "paths.py"
    script.write_text("from toolwire import tool\n\n\n@tool\ndef where() -> str:\n    \"\"\"Where it went.\"\"\"\n"
                      "    return 'saved to \\\\\\\\fileserver\\\\share\\\\\\\\'\n", encoding="utf-8")
    _use(monkeypatch, ScriptedChatModel([AIMessage("", tool_calls=[tool_call("where", {}, "w1")]),
                                         "It is in C:\\temp\\\\"]))
    result = CliRunner().invoke(cli.app, ["ask", "Where?", "--tools", str(script)])
    assert result.exit_code == 0, result.output
    assert "← saved to \\\\fileserver\\share\\\\\n" in result.stdout, result.stdout
    assert "\nIt is in C:\\temp\\\\\n" in result.stdout, result.stdout


def test_chat_echoes_a_line_that_ends_with_a_backslash_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    _use(monkeypatch, ScriptedChatModel(["ok"]))
    result = CliRunner().invoke(cli.app, ["chat"], input="ends with one backslash \\\nexit\n")
    assert result.exit_code == 0, result.output
    assert "you> ends with one backslash \\\n" in result.stdout, result.stdout


def test_a_hosted_model_answer_that_ends_with_backslashes_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from rich.console import Console

    from toolwire._agent_stream import AgentEvent, AgentResult

    screen = io.StringIO()
    from toolwire import _cli_run

    monkeypatch.setattr(_cli_run, "out", Console(file=screen, highlight=False, soft_wrap=True))  # (moved: review 227)
    cli._print_event(AgentEvent("final", AgentResult([AIMessage("share\\\\")], "share\\\\", 1, "answer"), 1))
    assert screen.getvalue() == "share\\\\\n"
