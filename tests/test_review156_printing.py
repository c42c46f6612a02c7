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
