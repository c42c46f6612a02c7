"""Review 282, text beyond ASCII on the command line: #2 ``ask --json`` on a standard output whose encoding is not
UTF-8 (cp1252, the C locale with Python's UTF-8 mode off) wrote ``?`` for every character it could not encode, where
JSON can carry them as ``\\u`` escapes; #5 ``chat < file`` with a file saved with a UTF-8 BOM sent the BOM as part
of the first question, and a first line ``exit`` was asked instead of ending the session."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _queued_http import QueuedServer, serving
from toolwire._cli_run import _print_json
from toolwire._std_streams import output_to_stderr
from typed_stdin import chat_on

QUESTION = "Olá ☕ 東京?"
ANSWER = "Olá! café ☕ naïve 👨‍👩‍👧 مرحبا ✓ fim"
TOOLS = '''
from toolwire import tool

@tool
def eco(texto: str) -> str:
    """Devolve o texto — ecoa ☕."""
    return texto + " ✓ ١٢٣"
'''


def _answer(body: Any, n: int) -> dict[str, Any]:
    """An OpenAI-compatible reply: a call of ``eco`` with the question's text, then an answer in many scripts."""
    if body["messages"][-1]["role"] == "tool":
        message: dict[str, Any] = {"role": "assistant", "content": ANSWER}
    else:
        args = json.dumps({"texto": body["messages"][-1]["content"]})
        message = {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "eco", "arguments": args}}]}
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    with serving("/v1") as found:
        found.answer = _answer
        yield found


def _toolwire(*args: str, env: dict[str, str], stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "PYTHONIOENCODING", "PYTHONUTF8"))}
    return subprocess.run([sys.executable, "-c", "from toolwire.cli import main; main()", *args], input=stdin,
                          capture_output=True, timeout=120, env={**base, **env})


# --- #2: --json keeps every character ------------------------------------------------------------------------------

C_LOCALE = {"LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}


@pytest.mark.parametrize("env", [C_LOCALE, {"PYTHONIOENCODING": "cp1252", "PYTHONUTF8": "0"}],
                         ids=["C-locale", "cp1252"])
def test_ask_json_on_a_stdout_that_is_not_utf8_writes_escapes_not_question_marks(
        server: QueuedServer, tmp_path: Path, env: dict[str, str]) -> None:
    tools = tmp_path / "eco_tools.py"
    tools.write_text(TOOLS, encoding="utf-8")
    done = _toolwire("ask", QUESTION, "-m", f"openai-compatible:m@{server.url}", "--tools", str(tools), "--json",
                     env=env)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert done.stdout.isascii()  # (readable as UTF-8 and as the stream's own encoding alike)
    messages = json.loads(done.stdout)
    assert messages[0]["content"] == QUESTION
    assert messages[1]["tool_calls"][0]["args"] == {"texto": QUESTION}
    assert messages[2]["content"] == QUESTION + " ✓ ١٢٣"
    assert messages[-1]["content"] == ANSWER


def test_ask_json_on_a_utf8_stdout_keeps_the_characters(server: QueuedServer, tmp_path: Path) -> None:
    tools = tmp_path / "eco_tools.py"
    tools.write_text(TOOLS, encoding="utf-8")
    done = _toolwire("ask", QUESTION, "-m", f"openai-compatible:m@{server.url}", "--tools", str(tools), "--json",
                     env={"PYTHONIOENCODING": "utf-8"})
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert QUESTION.encode() in done.stdout  # written as the characters, not as escapes
    assert json.loads(done.stdout.decode())[0]["content"] == QUESTION


@pytest.mark.parametrize(("encoding", "errors"), [("ascii", "replace"), ("cp1252", "replace"),
                                                  ("ascii", "surrogateescape"), ("latin-1", "strict")])
def test_json_written_while_stdout_goes_to_stderr_survives_any_encoding(monkeypatch: pytest.MonkeyPatch,
                                                                        encoding: str, errors: str) -> None:
    raw = io.BytesIO()
    stdout = io.TextIOWrapper(raw, encoding=encoding, errors=errors)
    monkeypatch.setattr(sys, "stdout", stdout)
    value = [{"content": ANSWER + " \ud800 \x9b \u202e é"}, {"args": {"número": "€ 𝄞"}}]
    with output_to_stderr() as real:
        _print_json(value, real)
    written = raw.getvalue()
    assert written.isascii()
    assert json.loads(written) == value


@pytest.mark.parametrize("encoding", ["utf-8", "UTF8", "utf_8", "utf-8-sig", "utf-16"])
def test_json_on_a_utf_stream_keeps_the_characters(monkeypatch: pytest.MonkeyPatch, encoding: str) -> None:
    raw = io.BytesIO()
    stdout = io.TextIOWrapper(raw, encoding=encoding)
    monkeypatch.setattr(sys, "stdout", stdout)
    with output_to_stderr() as real:
        _print_json([{"content": ANSWER}], real)
    stdout.flush()
    text = raw.getvalue().decode(encoding)
    assert ANSWER in text
    assert json.loads(text) == [{"content": ANSWER}]


# --- #5: chat reading a file that starts with a BOM ----------------------------------------------------------------


@pytest.mark.parametrize(("encoding", "errors"), [("utf-8", "surrogateescape"), ("utf-8", "strict"),
                                                  ("ascii", "surrogateescape")])
@pytest.mark.parametrize(("data", "asked"), [
    (b"\xef\xbb\xbfexit\nsecond\n", []),
    ("\ufeffOlá ☕\nexit\n".encode(), ["Olá ☕"]),
    ("\ufeff\nOlá\n".encode(), ["Olá"]),
    ("first\n\ufeffsecond\n".encode(), ["first", "\ufeffsecond"]),  # (a BOM starts the input only)
], ids=["exit", "question", "blank", "later-line"])
def test_chat_reads_a_file_with_a_bom_without_it(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                                 encoding: str, errors: str, data: bytes, asked: list[str]) -> None:
    questions, shown = chat_on(monkeypatch, capsys, data, encoding, errors)
    assert questions == asked, shown
    assert "\ufeff" not in shown.out.split("you> ", 2)[1]  # (the first line is echoed without it)


def test_chat_command_with_a_bom_and_exit_first_ends_at_once(server: QueuedServer) -> None:
    done = _toolwire("chat", "-m", f"openai-compatible:m@{server.url}", stdin=b"\xef\xbb\xbfexit\nsecond\n",
                     env={"PYTHONIOENCODING": "utf-8"})
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert server.requests == []
    assert "second" not in done.stdout.decode()
