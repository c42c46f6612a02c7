"""Review 274: the interactive ``toolwire chat`` in a terminal (pty), and Ctrl-C while the embedded model loads."""

from __future__ import annotations

import ctypes
import os
import select
import signal
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

from toolwire.messages import HumanMessage
from toolwire.testing import ScriptedChatModel

pty_only = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")

# a chat on a fake model that answers with the length and the lines of the latest question
_CHAT = r'''
import sys
from toolwire import cli
from toolwire.messages import HumanMessage
from toolwire.testing import ScriptedChatModel

def answer(messages):
    last = [m.text for m in messages if isinstance(m, HumanMessage)][-1]
    return f"LEN {len(last)} LINES {last.count(chr(10)) + 1} ASKED {len(messages)}"

model = ScriptedChatModel([answer], cycle=True)
cli._model = lambda *args, **kwargs: model
sys.argv = ["toolwire", "chat"]
cli.main()
'''


class _Pty:
    """``_CHAT`` run with its standard input (and, unless ``piped_out``, output) on a pseudo-terminal."""

    def __init__(self, piped_out: bool = False) -> None:
        import fcntl
        import termios

        self.master, slave = os.openpty()

        def own_terminal() -> None:
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

        env = {**os.environ, "TERM": "dumb", "NO_COLOR": "1", "COLUMNS": "200"}
        self.proc = subprocess.Popen([sys.executable, "-c", _CHAT], stdin=slave, stderr=slave, env=env,
                                     stdout=subprocess.PIPE if piped_out else slave, preexec_fn=own_terminal)
        os.close(slave)
        self.seen, self.at = b"", 0

    def expect(self, text: str, timeout: float = 20) -> str:
        """Wait for ``text`` after what the last call saw; return all the output so far."""
        end = time.monotonic() + timeout
        while text.encode() not in self.seen[self.at:]:
            ready = select.select([self.master], [], [], max(0.0, end - time.monotonic()))[0]
            if not ready:
                raise AssertionError(f"{text!r} not seen in {self.seen.decode(errors='replace')!r}")
            try:
                self.seen += os.read(self.master, 65536)
            except OSError:
                raise AssertionError(f"{text!r} not seen in {self.seen.decode(errors='replace')!r}") from None
        self.at = self.seen.index(text.encode(), self.at) + len(text.encode())
        return self.seen.decode(errors="replace")

    def send(self, data: str) -> None:
        os.write(self.master, data.encode())

    def end(self) -> tuple[int, str]:
        out = self.proc.stdout.read().decode() if self.proc.stdout else ""
        code = self.proc.wait(20)
        os.close(self.master)
        return code, out


@pytest.fixture
def chat_pty() -> Any:
    session = _Pty()
    session.expect("you> ")
    yield session
    if session.proc.poll() is None:
        session.proc.kill()
        session.proc.wait()


@pty_only
def test_a_long_pasted_question_is_read_whole(chat_pty: _Pty) -> None:
    """#2: the terminal's line buffer cut a pasted line to 4095 characters without a word."""
    chat_pty.send("abcdefghij" * 1000)
    chat_pty.send("\r")
    chat_pty.expect("LEN 10000 ")
    chat_pty.send("exit\r")
    assert chat_pty.end()[0] == 0


@pty_only
def test_ctrl_c_at_the_prompt_clears_the_line_and_the_session_goes_on(chat_pty: _Pty) -> None:
    """#4: Ctrl-C at the prompt ended the session (exit 0) and the conversation was lost."""
    chat_pty.send("remember 42\r")
    chat_pty.expect("ASKED 1")
    chat_pty.expect("you> ")
    for _ in range(20):  # (readline may drop what comes before it has set the terminal up: send until it echoes)
        chat_pty.send("x")
        try:
            chat_pty.expect("x", timeout=0.5)
            break
        except AssertionError:
            continue
    for attempt in range(5):  # (a Ctrl-C the terminal gets while readline sets it up may be lost on a busy machine)
        chat_pty.send("\x03")
        try:
            chat_pty.expect("(press Ctrl-D or type exit to leave)", timeout=4)
            break
        except AssertionError:
            if attempt == 4:
                raise
    chat_pty.send("and now?\r")
    chat_pty.expect("LEN 8 LINES 1 ASKED 3")  # the conversation went on, without the half-typed line
    chat_pty.expect("you> ")
    chat_pty.send("\x04")
    assert chat_pty.end()[0] == 0


@pty_only
def test_lines_typed_ahead_are_questions_of_their_own(chat_pty: _Pty) -> None:
    """Review 276 #1: lines typed while an answer printed were joined into one question with the next, so a typed
    'exit' was sent to the model; each line is its own question (a multi-line paste too, as documented)."""
    chat_pty.send("what is 2+2\rsecond question\r")
    chat_pty.expect("LINES 1 ASKED 1")
    chat_pty.expect("LINES 1 ASKED 3")
    chat_pty.expect("you> ")
    chat_pty.send("exit\r")
    assert chat_pty.end()[0] == 0


@pty_only
def test_questions_are_in_the_transcript_when_the_output_is_piped() -> None:
    """#8: `toolwire chat | tee log` kept the answers without the questions."""
    session = _Pty(piped_out=True)
    session.send("hello piped\r")
    session.send("exit\r")
    code, out = session.end()
    assert code == 0
    assert "you> hello piped\n" in out and "LEN 11 LINES 1" in out


def test_a_question_kept_after_a_retryable_error_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    """#5: the question stayed in the conversation silently, so the user typed it again and it was sent twice."""
    from toolwire import cli
    from toolwire.errors import ProviderError

    def busy_once(messages: list) -> str:
        if not getattr(busy_once, "done", False):
            busy_once.done = True  # type: ignore[attr-defined]
            raise ProviderError("Overloaded.", provider="openai", status=503, retryable=True)
        return "answers " + " + ".join(m.text for m in messages if isinstance(m, HumanMessage))

    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: ScriptedChatModel([busy_once], cycle=True))
    result = CliRunner().invoke(cli.app, ["chat"], input="one\ngo on\nexit\n")
    assert result.exit_code == 0
    assert "that question stays in the conversation, so do not type it again" in result.stderr
    assert "answers one + go on" in result.stdout


# -- #1: Ctrl-C while llama.cpp loads -------------------------------------------------------------------------------


class _SlowLlama:
    """A model whose load delivers SIGINT inside a ctypes callback, where llama.cpp's log callback received it."""

    closed: ClassVar[list[bool]] = []

    def __init__(self, path: str, n_ctx: int, **kwargs: Any) -> None:
        def log() -> None:  # (a KeyboardInterrupt raised here is "ignored" by ctypes)
            signal.raise_signal(signal.SIGINT)

        ctypes.CFUNCTYPE(None)(log)()
        self._n_ctx, self.metadata = n_ctx, {}

    def n_ctx(self) -> int:
        return self._n_ctx

    def close(self) -> None:
        _SlowLlama.closed.append(True)


@pytest.mark.skipif(sys.platform == "win32", reason="raise_signal(SIGINT) in a ctypes callback")
def test_ctrl_c_during_the_load_stops_it_and_keeps_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import _loaded

    monkeypatch.setattr(_loaded, "_llama_cpp", lambda: types.SimpleNamespace(Llama=_SlowLlama))
    monkeypatch.setattr(_SlowLlama, "closed", [])
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"not read: the fake loads it")
    with pytest.raises(KeyboardInterrupt):
        _loaded.load_model(gguf, n_ctx=512)
    assert _SlowLlama.closed == [True]
    assert not any(str(gguf) == key[0] for key in _loaded._MODELS)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


# -- #7: calls refused for their arguments are not said to have run --------------------------------------------------


def test_a_call_refused_for_its_arguments_is_not_said_to_have_run() -> None:
    from toolwire import AIMessage, tool
    from toolwire.cli_text import interrupted_turn, tools_ran
    from toolwire.messages import ToolMessage, tool_call

    @tool
    def addnote(text: str) -> str:
        """Add a note."""
        return "saved"

    stopped = "Error: Tool 'addnote' was stopped while it ran: check what it did before running it again."
    turn = [HumanMessage("add notes"),
            AIMessage("", tool_calls=[tool_call("addnote", {"txt": "hi"}, "c1"), tool_call("addnote", {"txt": 1}, "c2"),
                                      tool_call("addnote", {"text": "ok"}, "c3")]),
            ToolMessage("Error: Invalid arguments for tool 'addnote': 'text': Field required.", tool_call_id="c1",
                        name="addnote", status="error"),
            ToolMessage("Error: Invalid arguments for tool 'addnote': 'text': Field required.", tool_call_id="c2",
                        name="addnote", status="error"),
            ToolMessage(stopped, tool_call_id="c3", name="addnote", status="error")]
    exc = KeyboardInterrupt()
    exc.messages = turn  # type: ignore[attr-defined]
    kept = interrupted_turn(exc, [], {"addnote": addnote})
    assert kept is not None
    said = kept[1]
    assert "that had run" not in said
    assert "1 call stopped while running" in said and "2 other calls did not run" in said
    assert tools_ran(exc, [], "", {"addnote": addnote}) == ""  # type: ignore[arg-type]
    exc.messages = turn[:3]  # type: ignore[attr-defined]
    assert interrupted_turn(exc, [], {"addnote": addnote}) is None  # nothing ran: the question is dropped


# -- #6: a log warning at a second Ctrl-C is a warning: line of its own --------------------------------------------


def test_a_log_warning_is_a_warning_line_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import logging

    from rich.console import Console

    from toolwire import _cli_run

    shown = io.StringIO()
    monkeypatch.setattr(_cli_run, "err", Console(file=shown, no_color=True, highlight=False, soft_wrap=True))
    monkeypatch.setattr(_cli_run, "_terminal", lambda stream: True)  # the terminal echoed ^C^C on the line
    logger = logging.getLogger("toolwire")
    monkeypatch.setattr(logger, "handlers", [])
    monkeypatch.setattr(logger, "propagate", True)
    _cli_run.log_lines()
    logging.getLogger("toolwire.tools").warning("%d tool call(s) still running at a new interrupt, while the run "
                                                "was stopping, were given up: %s", 1, "'slow'")
    assert shown.getvalue() == ("\nwarning: 1 tool call(s) still running at a new interrupt, while the run was "
                                "stopping, were given up: 'slow'\n")
    assert logger.propagate is False
