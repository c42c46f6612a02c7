"""Test helper: a chat session's standard input made from bytes, read by a stand-in for ``input()``.

``toolwire chat`` reads with ``input()``; these tests give it a stdin of chosen bytes, encoding and error
handler (as a terminal, a pipe or a redirected file would) and read lines from whatever ``sys.stdin`` the
session left in place (it may reconfigure it or put a re-decoding wrapper there).
"""

from __future__ import annotations

import io
import sys
from typing import Any

import pytest


def stdin_of(data: bytes, encoding: str, errors: str) -> io.TextIOWrapper:
    """Return a text stream over ``data`` (bytes) decoded with ``encoding`` and ``errors``, as Python's own stdin."""
    return io.TextIOWrapper(io.BufferedReader(io.BytesIO(data)), encoding=encoding, errors=errors)


def typed_input(prompt: str = "") -> str:
    """Stand in for ``input()``: show ``prompt``, read one line of ``sys.stdin`` without its newline.

    Raises EOFError at the end of the input, as ``input()`` does.
    """
    sys.stdout.write(prompt)
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def use_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes, encoding: str, errors: str) -> io.TextIOWrapper:
    """Put a stdin of ``data`` in place and make ``input()`` read it; returns that stream."""
    stdin = stdin_of(data, encoding, errors)
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr("builtins.input", typed_input)
    return stdin


def chat_on(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], data: bytes, encoding: str,
            errors: str) -> tuple[list[str], Any]:
    """Run ``toolwire chat``'s session (3 turns at most) on a stdin of ``data``, with a scripted model.

    Returns the questions the model was asked (the last message's text of each request) and what the session
    wrote (pytest's captured ``out``/``err``).
    """
    from toolwire import Agent, cli
    from toolwire.testing import ScriptedChatModel

    model = ScriptedChatModel(["one", "two", "three"])
    use_stdin(monkeypatch, data, encoding, errors)
    cli._chat(Agent(model), 3)
    return [r.messages[-1].text for r in model.requests], capsys.readouterr()
