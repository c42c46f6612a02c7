"""``toolwire ask``/``chat --repeat-calls NAME`` (review 100: the repeated-call note named an Agent argument the command
line has no option for), and the note as the command line shows it."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from toolwire import AIMessage, cli
from toolwire.errors import RepeatedCallWarning, UserError
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel


def _twice() -> ScriptedChatModel:
    calls = [tool_call("calculate", {"expression": "2 * 3"}, f"c{i}") for i in (1, 2)]
    return ScriptedChatModel([AIMessage("", tool_calls=calls), "6, twice."])


@pytest.mark.parametrize(("given", "wanted"), [([], "answer"), (["calculate"], ["calculate"]),
                                               (["calculate", "all"], "run")])
def test_repeat_calls_reaches_the_agent(monkeypatch: pytest.MonkeyPatch, given: list[str], wanted: object) -> None:
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: _twice())
    agent = cli._agent(None, None, 6, None, None, repeat_calls=given)
    assert agent.repeat_calls == (wanted if isinstance(wanted, str) else frozenset(wanted))


def test_a_name_no_tool_has_is_refused_with_the_close_match(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: _twice())
    with pytest.raises(UserError, match=r"^--repeat-calls 'calculte' names no tool: did you mean 'calculate'\?$"):
        cli._agent(None, None, 6, None, None, repeat_calls=["calculte"])
    result = CliRunner().invoke(cli.app, ["ask", "2 * 3?", "--repeat-calls", "nothing_like_it"])
    assert result.exit_code == 1 and "names no tool: the tools are 'get_weather', 'calculate'" in result.output


def test_ask_with_repeat_calls_gives_no_note_and_without_it_the_note_names_the_option(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import warnings

    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: _twice())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert CliRunner().invoke(cli.app, ["ask", "2 * 3, twice?", "--repeat-calls", "calculate"]).exit_code == 0
        assert not [w for w in caught if issubclass(w.category, RepeatedCallWarning)]
        assert CliRunner().invoke(cli.app, ["ask", "2 * 3, twice?"]).exit_code == 0
    [note] = [w for w in caught if issubclass(w.category, RepeatedCallWarning)]
    assert note.message.tool_name == "calculate" and note.message.names == ("calculate",)
    cli._warning_line(note.message, note.category, note.filename, note.lineno)
    assert capsys.readouterr().err == (
        "warning: the Agent answered a repeated call of 'calculate' with the result it already had, without running "
        "the tool again: for a tool that must run on every call, pass --repeat-calls calculate.\n")


def test_chat_with_a_model_file_that_is_not_there_fails_at_start(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # (review 104: the session started, failed on every question and exited 0)
    missing = tmp_path / "x.gguf"
    result = CliRunner().invoke(cli.app, ["chat", "--model", str(missing)], input="hi\nexit\n")
    assert result.exit_code == 1
    assert f"There is no file at {missing}: pass the path of an existing .gguf file" in result.output
    assert "you>" not in result.output


def test_chat_fed_from_a_pipe_shows_each_question(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: ScriptedChatModel(["Olá!"]))
    result = CliRunner().invoke(cli.app, ["chat"], input="oi\nexit\n")
    assert result.exit_code == 0 and "you> oi\n" in result.output and "Olá!" in result.output


def test_chat_ends_at_once_when_the_tools_alone_fill_the_context(monkeypatch: pytest.MonkeyPatch) -> None:
    # (review 104: every question was dropped with "ask something shorter", which no question could be)
    from toolwire.errors import ContextOverflowError

    def overflow(messages: list) -> str:
        raise ContextOverflowError(320, 256, tools_tokens=299, tool_count=3)

    model = ScriptedChatModel([overflow], cycle=True)
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    result = CliRunner().invoke(cli.app, ["chat"], input="hi\nhello\nexit\n")
    assert result.exit_code == 1
    assert result.output.count("The 3 tools bound alone take 299 tokens, more than the 256") == 1
    assert "pass a larger --n-ctx (more than 256)" in result.output and "dropped" not in result.output


@pytest.mark.parametrize("command", ["ask", "chat"])
def test_the_help_names_option_values_not_python_types(command: str) -> None:
    # (review 104: '<list[str]>' read as if --tools took a Python list, and '<str>', '<int range>' were typer's own)
    shown = CliRunner().invoke(cli.app, [command, "--help"], terminal_width=140).output
    for wanted in ("FILE", "MODEL", "TEXT", "SERVER", "TOKENS", "SECONDS", "NAME"):
        assert wanted in shown, wanted
    assert "list[str]" not in shown and "<float range>" not in shown and "<int range>" not in shown


def test_tools_of_one_name_in_two_files_are_refused_naming_both_and_one_file_twice_is_read_once(
        tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    source = 'def get_weather(city: str) -> str:\n    """Weather of a city."""\n    return "sunny"\n'
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_text(source)
    second.write_text(source)
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: _twice())
    with pytest.raises(UserError, match=rf"^Two tools are named 'get_weather', one in {first} and one in {second}: "
                                        r"rename one \(@tool\(\"other_name\"\)\) or leave one of the files out\.$"):
        cli._agent(None, [str(first), str(second)], 6, None, None)
    agent = cli._agent(None, [str(first), str(first)], 6, None, None)
    assert [t.name for t in agent.executor.tools.values()] == ["get_weather"]
