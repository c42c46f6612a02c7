"""Review 156 #1: a piped line that is not UTF-8, read strictly, is refused alone; the lines read with it are asked."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from toolwire import cli
from toolwire.testing import ScriptedChatModel


def test_a_line_that_is_not_utf8_loses_no_other_line(monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedChatModel(["one", "three"])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    result = CliRunner().invoke(cli.app, ["chat"], input=b"first\ncaf\xe9\nthird\nexit\n")
    assert result.exit_code == 0, result.output
    assert "you> first\n" in result.output and "you> third\n" in result.output
    assert "one" in result.output and "three" in result.output
    assert result.output.count("that line is not UTF-8 text") == 1
