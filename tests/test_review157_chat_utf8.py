"""Review 157 #1: ``toolwire chat`` refuses a line that is not UTF-8 whatever the locale, not only where Python
opened standard input strictly: under C, C.UTF-8, POSIX or ``PYTHONUTF8=1`` it reads with ``surrogateescape``."""

from __future__ import annotations

import sys

import pytest

from toolwire import Agent, cli
from toolwire._std_streams import tolerant_input, utf8_line
from toolwire.testing import ScriptedChatModel
from typed_stdin import stdin_of, use_stdin


@pytest.mark.parametrize(("encoding", "errors"), [("utf-8", "surrogateescape"), ("utf-8", "strict"),
                                                  ("ascii", "surrogateescape"), ("utf-8", "replace")])
def test_chat_refuses_a_line_not_in_utf8_whatever_the_locale(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str], encoding: str,
                                                             errors: str) -> None:
    model = ScriptedChatModel(["one", "two", "three"])
    data = b"first\nCaf\xe9 in Paris?\n" + "café \ufffd on purpose\n".encode() + b"exit\n"
    use_stdin(monkeypatch, data, encoding, errors)
    cli._chat(Agent(model), 3)  # (CliRunner would put its own strict stdin in place of this one)
    shown = capsys.readouterr()
    assert shown.err.count("that line is not UTF-8 text") == 1, shown
    asked = [r.messages[-1].text for r in model.requests]
    assert asked == ["first", "café \ufffd on purpose"]  # (a U+FFFD typed on purpose is kept; UTF-8 from ASCII too)



def test_utf8_line() -> None:
    stdin = stdin_of(b"", "utf-8", "surrogateescape")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdin", stdin)
        assert utf8_line("caf\udce9") is None and utf8_line("\udcff") is None and utf8_line("x\ud800") is None
        assert utf8_line("café \ufffd") == "café \ufffd" and utf8_line("plain") == "plain"
        patch.setattr(sys, "stdin", stdin_of(b"", "ascii", "surrogateescape"))
        assert utf8_line("caf\udcc3\udca9") == "café"  # UTF-8 read by an ASCII C locale without UTF-8 mode
        strict = stdin_of(b"", "utf-8", "strict")
        patch.setattr(sys, "stdin", strict)
        tolerant_input()
        assert strict.errors == "surrogateescape"
