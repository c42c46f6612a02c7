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


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full, a device that is always full")
@pytest.mark.parametrize("args", [["models", "list"], ["ask", "--help"]])
def test_output_that_cannot_be_written_ends_in_one_line(args: list[str], tmp_path: Path) -> None:
    """(#2) a full disk ended every command with a 40-line traceback."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "TOOLWIRE_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    env.pop("TOOLWIRE_MODEL_PATH", None)
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-c", "from toolwire.cli import main; main()", *args], stdout=full,
                              stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    assert done.returncode == 1
    assert done.stderr == ("error: cannot write the output (No space left on device): free some space, or write it "
                           "elsewhere.\n")


def test_a_full_disk_is_an_output_failure_and_a_closed_pipe_is_not() -> None:
    import errno

    from toolwire._std_streams import output_failed

    assert output_failed(OSError(errno.ENOSPC, "No space left on device"))
    assert not output_failed(BrokenPipeError(errno.EPIPE, "Broken pipe"))
    assert not output_failed(ValueError("x"))


def test_an_empty_reply_is_said_on_stderr_in_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """(#9) "(the model gave no answer: stop reason answer)" went to stdout, as if it were the answer."""
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: ScriptedChatModel([""]))
    result = CliRunner().invoke(cli.app, ["ask", "hi"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "? hi\n"
    assert "(the model gave no answer: its reply was empty; ask again, or in other words)" in result.stderr
    assert "stop reason" not in result.output


def _help_texts(command: object, path: str) -> list[tuple[str, str]]:
    texts = [getattr(command, "help", None) or "", getattr(command, "short_help", None) or "",
             getattr(command, "epilog", None) or ""]
    texts += [getattr(param, "help", None) or "" for param in getattr(command, "params", [])]
    found = [(path, text) for text in texts]
    for name, sub in (getattr(command, "commands", None) or {}).items():
        found += _help_texts(sub, f"{path} {name}")
    return found


def test_no_help_text_names_an_internal_review() -> None:
    """(#10a) ``toolwire models list --help`` ended with "(review 199 #10)"."""
    import re

    import typer

    texts = _help_texts(typer.main.get_command(cli.app), "toolwire")
    assert len(texts) > 50
    assert [(path, text) for path, text in texts if re.search(r"\breview\s+\d", text, re.IGNORECASE)] == []
    listed = CliRunner().invoke(cli.app, ["models", "--help"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0 and "review" not in listed.output


@pytest.mark.parametrize("args", [["models", "list"], ["models", "path", "smollm2-135m"]])
def test_a_mistyped_model_path_is_said(args: list[str], tmp_path: Path) -> None:
    """(#10b) only ``models pull`` said that TOOLWIRE_MODEL_PATH does not exist."""
    typo = tmp_path / "modles" / "x.gguf"
    result = CliRunner().invoke(cli.app, args, env={"TOOLWIRE_HOME": str(tmp_path), "TOOLWIRE_MODEL_PATH": str(typo),
                                                    "COLUMNS": "300"})
    assert f"warning: TOOLWIRE_MODEL_PATH={typo} does not exist" in " ".join(result.stderr.split())
    if args[1] == "list":
        assert result.exit_code == 0 and "which does not exist" in result.stdout


def test_mcp_servers_with_no_tools_are_refused_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """(#5) the question went to the model with no tools at all, and nothing said so."""
    import toolwire.mcp

    monkeypatch.setattr(toolwire.mcp, "load_tools", lambda server: [])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: ScriptedChatModel(["Sunny."]))
    result = CliRunner().invoke(cli.app, ["ask", "Weather in Paris?", "--mcp", "my-server --empty"])
    assert result.exit_code == 1
    assert result.stderr == ("error: The --mcp server offers no tools ('my-server --empty'): check that it is the "
                             "server you meant, or leave out --mcp to use the book's three tools.\n")
    assert "Sunny." not in result.stdout


@pytest.mark.parametrize(("args", "said"), [
    (["chat"], "error: standard input is closed: chat reads its questions from it; run it in a terminal, or pipe "
               "them in.\n"),
    (["mcp", "serve", "--tools", "not_loaded.py"],
     "error: standard input is closed: mcp serve reads its client's messages from it on stdio; let an MCP client "
     "start it, or serve with --transport http.\n")])
def test_a_closed_standard_input_is_said_in_one_line(monkeypatch: pytest.MonkeyPatch, args: list[str],
                                                     said: str) -> None:
    """(#7) ``toolwire chat <&-`` (``sys.stdin`` is None) ended in an AttributeError traceback."""
    import sys

    from toolwire import cli_mcp

    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: ScriptedChatModel(["Hi."]))

    class Closed(CliRunner):
        def isolation(self, *a, **k):  # type: ignore[no-untyped-def]
            import contextlib

            @contextlib.contextmanager
            def closed():  # type: ignore[no-untyped-def]
                with CliRunner.isolation(self, *a, **k) as streams:
                    sys.stdin = None  # type: ignore[assignment]
                    yield streams

            return closed()

    assert cli_mcp.app is not None
    result = Closed().invoke(cli.app, args)
    assert result.exit_code == 1, result.output
    assert result.stderr == said


@pytest.mark.parametrize("args", [["ask", "Qual \udce9 o clima?"], ["ask", "hi", "--system", "R\udce9ponds"],
                                  ["chat", "--system", "R\udce9ponds"]])
def test_a_question_or_system_text_that_is_not_utf8_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                               args: list[str]) -> None:
    """(#4) ``ask`` sent bytes that are not UTF-8 (a Latin-1 terminal's "é") to the model as U+FFFD, exit code 0."""
    model = ScriptedChatModel(["Sunny."])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    result = CliRunner().invoke(cli.app, args, input="hi\n")
    assert result.exit_code == 1, result.output
    what = "--system text" if "--system" in args else "question"
    assert result.stderr == f"error: The {what} is not UTF-8 text: set your terminal to UTF-8 and type it again.\n"


def test_a_utf8_question_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: ScriptedChatModel(["Sol."]))
    result = CliRunner().invoke(cli.app, ["ask", "Qual é o clima?", "--system", "Réponds"])
    assert result.exit_code == 0 and result.stdout.startswith("? Qual é o clima?\n")


def test_an_mcp_server_401_says_what_the_command_line_can_do() -> None:
    """(#6) the advice named HttpServer(headers=...), which ``--mcp`` cannot pass."""
    from toolwire._cli_errors import MCP_TOKEN_HINT, error_text
    from toolwire.errors import UserError
    from toolwire.mcp.common import HEADER_ADVICE

    library = UserError(f"The MCP server 'http://h/mcp' refused the credentials (HTTP 401, x): check the token it "
                        f"needs, {HEADER_ADVICE}.")
    said = error_text(library)
    assert said == f"The MCP server 'http://h/mcp' refused the credentials (HTTP 401, x): check the token it needs, " \
                   f"{MCP_TOKEN_HINT}"
    assert "HttpServer(url, headers={'Authorization'" not in said and "cannot send headers" in said
    assert error_text(UserError("Put it in the URL.")) == "Put it in the URL."


@pytest.mark.parametrize(("module", "cls", "env", "sdk"), [
    ("toolwire.models.anthropic", "ChatAnthropic", "ANTHROPIC_BASE_URL", "anthropic"),
    ("toolwire.models.google", "ChatGoogleGenAI", "GOOGLE_GEMINI_BASE_URL", "google.genai")])
def test_a_base_url_variable_that_is_no_url_is_refused_at_once(monkeypatch: pytest.MonkeyPatch, module: str, cls: str,
                                                               env: str, sdk: str) -> None:
    """(#3) only OPENAI_BASE_URL was checked; the others were retried 3 times, said as a broken connection."""
    import importlib

    from toolwire.errors import UserError

    pytest.importorskip(sdk)
    model_class = getattr(importlib.import_module(module), cls)
    monkeypatch.setenv(env, "localhost:8000")
    with pytest.raises(UserError, match=rf"^The environment variable {env} holds 'localhost:8000', which is not an "):
        model_class(model="m", api_key="k")
    monkeypatch.setenv(env, "http://localhost:8000")
    model_class(model="m", api_key="k")


@pytest.mark.parametrize("width", [40, 60, 80])
def test_the_eval_score_table_is_printed_whole_on_a_narrow_terminal(width: int) -> None:
    """(#8) at 80 columns every header was cut to "…"; at 60 the item counts were blank and 100.00 was "100.…"."""
    import io

    from rich.console import Console

    from toolwire.evals.cli import _print_whole, _results_table
    from toolwire.evals.report import ItemResult, Report

    items = [ItemResult("irrelevance_0", "irrelevance", True),
             ItemResult("simple_python_0", "simple_python", False, "wrong_value", "x")]
    screen = io.StringIO()
    table = _results_table(Report("m", ["simple_python", "irrelevance"], items))
    _print_whole(Console(file=screen, width=width), table)
    shown = screen.getvalue()
    for text in ("items", "correct", "accuracy %", "mean s", "in tok", "out tok", "errors", "100.00",
                 "overall (mean of categories)"):
        assert text in shown
    assert "…" not in shown
