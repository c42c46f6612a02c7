"""The command line as review 227 found it: every chat question's reused calls said, output that cannot be written,
an empty reply, help texts, a mistyped TOOLWIRE_MODEL_PATH, --mcp with no tools, a closed standard input."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolwire import AIMessage, cli
from toolwire.errors import RepeatedCallWarning
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel


def _twice(n: int) -> list[AIMessage | str]:
    calls = [tool_call("count", {"by": n}, f"c{n}{i}") for i in (1, 2)]
    return [AIMessage("", tool_calls=calls), f"{n}, twice."]


def test_chat_warns_about_reused_calls_for_every_question(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """(#1) the default filter showed the warning once per line, and every question starts from the same line."""
    (tmp_path / "counter.py").write_text(
        "TOTAL = [0]\n\n\ndef count(by: int) -> int:\n    \"\"\"Add by to the total.\"\"\"\n"
        "    TOTAL[0] += by\n    return TOTAL[0]\n")
    model = ScriptedChatModel([*_twice(3), *_twice(4)])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        result = CliRunner().invoke(cli.app, ["chat", "--tools", str(tmp_path / "counter.py")],
                                    input="first\nsecond\nexit\n")
    assert result.exit_code == 0, result.output
    assert len([w for w in caught if issubclass(w.category, RepeatedCallWarning)]) == 2
