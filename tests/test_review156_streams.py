"""Review 156 #4: in an ASCII C locale without Python's UTF-8 mode, stdout encodes with surrogateescape; text it
cannot show prints as '?' rather than ending the command with a traceback."""

from __future__ import annotations

import io
import sys

import pytest

from toolwire._std_streams import tolerant_output


def _stream(encoding: str, errors: str) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors=errors)


def test_an_ascii_surrogateescape_stream_prints_question_marks(monkeypatch: pytest.MonkeyPatch) -> None:
    stdout, stderr = _stream("ascii", "surrogateescape"), _stream("ANSI_X3.4-1968", "backslashreplace")
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", stderr)
    tolerant_output()
    assert stdout.errors == "replace" and stderr.errors == "backslashreplace"  # (stderr's own is kept)
    stdout.write("Como está o clima?")
    stdout.flush()
    assert stdout.buffer.getvalue() == b"Como est? o clima?"  # type: ignore[attr-defined]


def test_a_utf8_surrogateescape_stream_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    stdout = _stream("utf-8", "surrogateescape")
    monkeypatch.setattr(sys, "stdout", stdout)
    tolerant_output()
    assert stdout.errors == "surrogateescape"
