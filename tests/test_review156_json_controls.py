"""Review 154 #3: `toolwire ask --json` writes DEL and the 8-bit C1 controls (CSI U+009B, OSC U+009D) as JSON
escapes, never raw, on a pipe and on a colour terminal, and the JSON still reads back as the same text."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from toolwire import cli
from toolwire.messages import AIMessage, tool_call
from toolwire.testing import ScriptedChatModel

PAGE = "olá \x9b2J\x9b31mRED \x9d0;PWNED\x9c \x7f \x1b[31m"


@pytest.fixture
def page_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    script = tmp_path / "page_tools.py"
    script.write_text("from toolwire import tool\n\n\n@tool\ndef page() -> str:\n    \"\"\"A web page.\"\"\"\n"
                      f"    return {PAGE!r}\n", encoding="utf-8")
    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("page", {}, "p1")]), f"It says: {PAGE}"])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    return script


def test_json_on_a_pipe_escapes_the_c1_controls(page_run: Path) -> None:
    result = CliRunner().invoke(cli.app, ["ask", "Read it", "--tools", str(page_run), "--json"])
    assert result.exit_code == 0, result.output
    assert not any(0x7F <= ord(c) <= 0x9F or c == "\x1b" for c in result.stdout), repr(result.stdout)
    messages = json.loads(result.stdout)
    assert messages[2]["content"] == PAGE and messages[-1]["content"] == f"It says: {PAGE}"
    assert "olá" in result.stdout  # (other text is kept readable, not \u-escaped)


class _Screen(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_json_on_a_colour_terminal_escapes_the_c1_controls(page_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    screen = _Screen()  # (a real terminal: FORCE_COLOR alone no longer colours --json, review 199 #6)
    from toolwire import _cli_run  # (where the console lives: review 227)

    monkeypatch.setattr(_cli_run, "out", Console(file=screen, force_terminal=True, highlight=False, soft_wrap=True))
    result = CliRunner().invoke(cli.app, ["ask", "Read it", "--tools", str(page_run), "--json"])
    assert result.exit_code == 0, result.output
    written = screen.getvalue()
    assert "\\u009b2J" in written and "\x1b[" in written  # (coloured: rich's own sequences)
    assert not any(0x7F <= ord(c) <= 0x9F for c in written), repr(written)
