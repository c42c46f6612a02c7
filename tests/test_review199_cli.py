"""Review 199: the command line's run paths. A thread count llama.cpp cannot take is refused (#2); ``chat`` whose model
cannot load ends at the first question (#4); a sync tool call cut off as the command ends is named (#5); ``--json`` is
coloured only on a terminal (#6); ``chat`` from a pipe ends its prompt line for a blank or refused line (#7); the
help texts are not cut with an ellipsis (#9)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
    with pytest.raises(UserError, match=r"more CPU threads than toolwire lets llama\.cpp use") as info:
        check_n_threads(value)
    assert "\n" not in str(info.value)


def test_chat_llama_cpp_refuses_too_many_threads_before_loading() -> None:
    pytest.importorskip("llama_cpp")
    from toolwire.models.llamacpp import ChatLlamaCpp

    with pytest.raises(UserError, match=r"n_threads=1000000 is more CPU threads than toolwire lets llama\.cpp use"):
        ChatLlamaCpp("qwen2.5-coder-0.5b", n_threads=1_000_000)


def test_chat_whose_model_cannot_load_ends_at_the_first_question(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
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


_SLOW_TOOLS = """import os
import time

FLAG = {flag!r}


def slow(a: int) -> int:
    \"\"\"Wait to be released (FLAG written), then answer.

    Args:
        a: a number.
    \"\"\"
    for _ in range(1500):
        if os.path.exists(FLAG):
            break
        time.sleep(0.02)
    return a


def boom() -> str:
    \"\"\"Stop the run as a Ctrl-C would.\"\"\"
    time.sleep(0.2)
    raise KeyboardInterrupt
"""


def _interrupted_ask(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *options: str) -> Any:
    """``ask`` whose run Ctrl-C stops (a tool raises KeyboardInterrupt) while an untimed sync call still runs; the
    call is released after the command ends."""
    from toolwire import AIMessage, _tool_run
    from toolwire.messages import tool_call

    monkeypatch.setattr(_tool_run, "CANCEL_GRACE", 0.2)
    flag = tmp_path / "release"
    script = tmp_path / "slow199.py"
    script.write_text(_SLOW_TOOLS.format(flag=str(flag)))
    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("slow", {"a": 6}, "s1"),
                                                         tool_call("boom", {}, "b1")]), "never"])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    try:
        return CliRunner().invoke(cli.app, ["ask", "go", "--tools", str(script), *options])
    finally:
        flag.write_text("go")
        _wait_for_no_call()


def _wait_for_no_call() -> None:
    import time

    from toolwire._concurrency import still_running

    for _ in range(200):
        if not still_running():
            return
        time.sleep(0.02)


def test_ctrl_c_names_an_untimed_sync_call_it_cuts_off(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """(#5) the call ran on a pool thread, which still_running() did not count: no warning."""
    result = _interrupted_ask(monkeypatch, tmp_path)
    assert result.exit_code == 130, result.output
    assert result.stderr.endswith("warning: the call of 'slow' still running is stopped part-way now that the command "
                                  "ends: check what it did.\n")


def test_ctrl_c_with_json_says_the_call_is_stopped_not_that_it_may_finish(monkeypatch: pytest.MonkeyPatch,
                                                                          tmp_path: Path) -> None:
    import json

    result = _interrupted_ask(monkeypatch, tmp_path, "--json")
    assert result.exit_code == 130, result.output
    answer = next(m for m in json.loads(result.stdout) if m.get("tool_call_id") == "s1")
    assert answer["content"] == ("Error: Tool 'slow' was still running when the run was stopped, and is stopped "
                                 "part-way now that the command ends: check what it did before running it again.")
    assert "warning: the call of 'slow' still running is stopped part-way" in result.stderr


def test_still_running_counts_pool_threads_of_tool_calls_only() -> None:
    import contextvars
    import functools
    import threading

    from toolwire._concurrency import still_running, thread_pool
    from toolwire._tool_run import _running

    release = threading.Event()
    started = threading.Barrier(3)

    def work(_: object) -> None:
        started.wait(5)
        release.wait(5)

    with _running({"name": "mailer", "args": {}, "id": "m1", "type": "tool_call"}):
        in_call = functools.partial(contextvars.copy_context().run, work)
    outside = functools.partial(contextvars.copy_context().run, work)  # (a model's reply: no tool call)
    futures = [thread_pool().submit(in_call, None), thread_pool().submit(outside, None)]
    try:
        started.wait(5)
        assert still_running() == ["mailer"] and still_running(untimed=False) == []
        assert still_running(timed=False) == ["mailer"]
    finally:
        release.set()
        for future in futures:
            future.result(5)
    assert still_running() == []


@pytest.mark.parametrize("tty", [False, True])
def test_json_is_coloured_only_on_a_real_terminal(monkeypatch: pytest.MonkeyPatch, tty: bool) -> None:
    """(#6) FORCE_COLOR (many CI systems set it) made rich colour ``--json`` on a pipe, which jq cannot read."""
    import io
    import json

    from rich.console import Console

    class Stream(io.StringIO):
        def isatty(self) -> bool:
            return tty

    stream = Stream()
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    from toolwire import _cli_run

    monkeypatch.setattr(_cli_run, "out", Console(file=stream, highlight=False, soft_wrap=True))  # (review 227)
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: ScriptedChatModel(["Olá."]))
    result = CliRunner().invoke(cli.app, ["ask", "hi", "--json"])
    assert result.exit_code == 0, result.output
    written = stream.getvalue()
    if tty:
        assert "\x1b[" in written
    else:
        assert "\x1b" not in written and json.loads(written)[-1]["content"] == "Olá."


def test_chat_from_a_pipe_ends_the_prompt_line_of_a_blank_or_refused_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """(#7) "you> you> you> you> clear": a blank line, or one refused as not UTF-8, left its prompt's line open."""
    model = ScriptedChatModel(["Hello."])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    result = CliRunner().invoke(cli.app, ["chat"], input=b"first\n\n   \n\xff\xfe\nclear\nexit\n")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[1:] == ["you> first", "Hello.", "you> ", "you> ", "you> ", "you> clear", "a new conversation starts.",
                         "you> exit"]
    assert result.stderr.count("that line is not UTF-8 text") == 1


@pytest.mark.parametrize(("args", "width", "wanted"), [
    (["ask", "--help"], 40, "local | registry name | .gguf path | provider:model"),
    (["chat", "--help"], 40, "local | registry name | .gguf path | provider:model"),
    (["eval", "bfcl", "--help"], 80, "simple_python, multiple, parallel, parallel_multiple, irrelevance (all of these "
     "by default)"),
])
def test_help_wraps_and_cuts_nothing(args: list[str], width: int, wanted: str) -> None:
    """(#9) rich's table cut a word longer than the column with "…": --model's provider:model at 40 columns, the
    --category default at 80."""
    result = CliRunner().invoke(cli.app, args, terminal_width=width, env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    lines = [line.strip("│ ") for line in result.output.splitlines()]
    column = "".join(line.rpartition("  ")[2] for line in lines).replace(" ", "")  # (the help column, read on)
    assert wanted.replace(" ", "") in column
