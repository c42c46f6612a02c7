"""Review 199: the command line's run paths. A thread count llama.cpp cannot take is refused (#2); ``chat`` whose model
cannot load ends at the first question (#4); a sync tool call cut off as the command ends is named (#5); ``--json`` is
coloured only on a terminal (#6); ``chat`` from a pipe ends its prompt line for a blank or refused line (#7); the
help texts are not cut with an ellipsis (#9)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from toolwire import cli
from toolwire.errors import UserError
from toolwire.models._threads import MOST_THREADS, check_n_threads
from toolwire.testing import ScriptedChatModel


def _words(text: str) -> str:
    """``text`` (a usage error in rich's box) as one line of words."""
    return " ".join(text.replace("\u2502", " ").split())


@pytest.mark.parametrize("value", ["1000000", "513", "99999999999999999999"])
def test_n_threads_past_what_llama_cpp_takes_is_a_usage_error(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """(#2) ggml aborted the process (SIGABRT, a gdb backtrace) on 1000000 threads; a number past a C int was cut."""
    made: list[object] = []
    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: made.append(args) or ScriptedChatModel(["hi"]))
    result = CliRunner().invoke(cli.app, ["ask", "hi", "--n-threads", value])
    assert result.exit_code == 2 and not made
    assert f"{value} is not a number of threads from 1 to 512" in _words(result.stderr)


def test_the_most_threads_is_taken() -> None:
    assert MOST_THREADS == 512
    with pytest.warns(UserWarning, match="more than the"):
        assert check_n_threads(MOST_THREADS, name="--n-threads") == MOST_THREADS
    assert cli.NThreadsOpt.__metadata__[0].parser("512") == 512


@pytest.mark.parametrize("value", [513, 1_000_000, 10**20])
def test_check_n_threads_refuses_what_llama_cpp_cannot_run(value: int) -> None:
    with pytest.raises(UserError, match=r"more CPU threads than llama\.cpp can run a model on") as info:
        check_n_threads(value)
    assert "\n" not in str(info.value)


def test_chat_llama_cpp_refuses_too_many_threads_before_loading() -> None:
    pytest.importorskip("llama_cpp")
    from toolwire.models.llamacpp import ChatLlamaCpp

    with pytest.raises(UserError, match=r"n_threads=1000000 is more CPU threads than llama.cpp"):
        ChatLlamaCpp("qwen2.5-coder-0.5b", n_threads=1_000_000)


def test_chat_whose_model_cannot_load_ends_at_the_first_question(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """(#4) the same error was printed for every question, and the session exited 0."""
    pytest.importorskip("llama_cpp")
    from toolwire.models.llamacpp import ChatLlamaCpp

    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"not a model")
    tried: list[str] = []

    def load(self: ChatLlamaCpp) -> None:
        tried.append(self.model)
        raise UserError("Cannot load junk.gguf as a llama.cpp model (bad magic): download it again.")

    monkeypatch.setattr(ChatLlamaCpp, "load", load)
    result = CliRunner().invoke(cli.app, ["chat", "-m", str(junk)], input="first\nsecond\nthird\n")
    assert result.exit_code == 1, result.output
    assert result.stderr.count("error:") == 1 and "Cannot load junk.gguf" in result.stderr
    assert tried == [str(junk)] and "you> first\n" in result.stdout and "second" not in result.stdout
