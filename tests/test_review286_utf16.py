"""Review 286 #8: ``toolwire chat < file`` with a file saved as UTF-16 with its BOM (Notepad's "Unicode",
PowerShell 5's ``>``) refused the first line and sent the next ones to the model as NUL-filled questions, its
``exit`` not honoured; now the BOM (little- or big-endian) makes the input read as UTF-16."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from _queued_http import QueuedServer, serving
from toolwire import Agent, cli
from toolwire.testing import ScriptedChatModel
from typed_stdin import chat_on, use_stdin


@pytest.mark.parametrize(("encoding", "errors"), [("utf-8", "surrogateescape"), ("utf-8", "strict"),
                                                  ("ascii", "surrogateescape"), ("cp1252", "strict")])
@pytest.mark.parametrize(("data", "asked"), [
    ("\ufeffOlá ☕\nexit\nnot sent\n".encode("utf-16-le"), ["Olá ☕"]),
    ("\ufeffOlá ☕\r\nexit\r\nnot sent\r\n".encode("utf-16-be"), ["Olá ☕"]),
    ("\ufeffexit\nnot sent\n".encode("utf-16-le"), []),
    ("\ufeff東京 👨‍👩‍👧\nsecond\n".encode("utf-16-le"), ["東京 👨‍👩‍👧", "second"]),
    ("\ufeffOlá\nexit\n".encode("utf-32-le"), ["Olá"]),
    ("\ufeffOlá\nexit\n".encode("utf-32-be"), ["Olá"]),
], ids=["le", "be-crlf", "exit-first", "beyond-bmp", "utf-32-le", "utf-32-be"])
def test_chat_reads_a_utf16_file_as_utf16(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                          encoding: str, errors: str, data: bytes, asked: list[str]) -> None:
    questions, shown = chat_on(monkeypatch, capsys, data, encoding, errors)
    assert questions == asked, shown
    assert "not UTF-8" not in shown.err and "\x00" not in shown.out + shown.err



def test_utf8_input_is_read_as_before(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    model = ScriptedChatModel(["one"])
    use_stdin(monkeypatch, "Olá\nexit\n".encode(), "utf-8", "strict")
    cli._chat(Agent(model), 3)
    assert [r.messages[-1].text for r in model.requests] == ["Olá"]
    assert sys.stdin.encoding == "utf-8"


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    def answer(body: object, n: int) -> dict[str, object]:
        return {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}

    with serving("/v1") as found:
        found.answer = answer
        yield found


@pytest.mark.parametrize("env", [{"PYTHONIOENCODING": "utf-8"},
                                 {"LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}],
                         ids=["utf-8", "C-locale"])
def test_chat_command_with_a_utf16_file(server: QueuedServer, env: dict[str, str]) -> None:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "PYTHONIOENCODING", "PYTHONUTF8"))}
    done = subprocess.run([sys.executable, "-c", "from toolwire.cli import main; main()", "chat", "-m",
                           f"openai-compatible:m@{server.url}"], input="Olá\nexit\nnot sent\n".encode("utf-16"),
                          capture_output=True, timeout=120, env={**base, **env})
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    asked = [r["messages"][-1]["content"] for r in server.requests]
    assert asked == ["Olá"], done.stderr.decode(errors="replace")


def test_a_line_with_nul_characters_is_refused_not_sent(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """UTF-16 without a BOM: its lines hold NUL characters, refused one by one with what to do, never asked."""
    model = ScriptedChatModel(["one"])
    use_stdin(monkeypatch, "Olá\nexit\n".encode("utf-16-le") + b"\n", "utf-8", "strict")
    cli._chat(Agent(model), 3)
    shown = capsys.readouterr()
    assert model.requests == []
    assert "save the file as UTF-8" in shown.err
