"""Review 135, a new user's first hour: four defects of the ``toolwire`` command.

#2: an answer made up after a call that never ran (arguments the tool refuses, a call that could not be read) got no
"(no tool was called ...)" note: such a call counted as a tool having been called.
#3: a tools file that fails at import (a syntax error, an exception) and a broken BFCL data line gave one-line errors
that did not say where, or what to do (the BFCL one read cut off: json's "Unterminated string starting at").
#4: a 401 from an OpenAI-compatible server told a command-line user to pass ``ChatOpenAI(..., api_key=...)``.
#5: a refused (``content_filter``) hosted reply with text beside its call printed the text twice, as the answer, and
never said the run ended on a refusal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from providers.scripted_http import Answer, ScriptedServer
from toolwire import cli
from toolwire.errors import UserError
from toolwire.messages import AIMessage, tool_call
from toolwire.testing import ScriptedChatModel

NOTE = "(no tool was called for this answer: it comes from the model alone)"


def _ask(monkeypatch: pytest.MonkeyPatch, *replies: Any, question: str = "Weather in Oslo?") -> Any:
    """``toolwire ask`` with the book's tools, the model answering ``replies`` in turn."""
    model = ScriptedChatModel(list(replies))
    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: model)
    return CliRunner().invoke(cli.app, ["ask", question])


# -- #2 ------------------------------------------------------------------------------------------------------------


def test_an_answer_after_a_call_whose_arguments_the_tool_refused_gets_the_note(monkeypatch: pytest.MonkeyPatch
                                                                             ) -> None:
    result = _ask(monkeypatch, AIMessage("", tool_calls=[tool_call("get_weather", {"town": "Oslo"}, "a1")]),
                  "It is 12 degrees and raining in Oslo.")
    assert result.exit_code == 0 and "Invalid arguments for tool 'get_weather'" in result.output
    assert "It is 12 degrees and raining in Oslo." in result.output and NOTE in result.output


def test_an_answer_after_a_call_that_could_not_be_read_gets_the_note(monkeypatch: pytest.MonkeyPatch) -> None:
    bad = {"name": "get_weather", "args": '{"city": "Os', "id": "a1", "error": "truncated JSON",
           "type": "invalid_tool_call"}
    result = _ask(monkeypatch, AIMessage("", invalid_tool_calls=[bad]), "It is sunny in Oslo.")
    assert result.exit_code == 0 and "was not valid: truncated JSON" in result.output and NOTE in result.output


def test_an_answer_after_a_tool_that_ran_gets_no_note_even_beside_a_refused_call(monkeypatch: pytest.MonkeyPatch
                                                                                ) -> None:
    reply = AIMessage("", tool_calls=[tool_call("get_weather", {"town": "Oslo"}, "a1"),
                                      tool_call("get_weather", {"city": "Oslo"}, "a2")])
    result = _ask(monkeypatch, reply, "Sunny in Oslo.")
    assert result.exit_code == 0 and "Sunny in Oslo." in result.output and NOTE not in result.output


def test_a_repeat_of_a_refused_call_backs_nothing_either(monkeypatch: pytest.MonkeyPatch) -> None:
    bad = AIMessage("", tool_calls=[tool_call("get_weather", {"town": "Oslo"}, "a1")])
    again = AIMessage("", tool_calls=[tool_call("get_weather", {"town": "Oslo"}, "a2")])
    result = _ask(monkeypatch, bad, again, "Rain in Oslo.")
    assert result.exit_code == 0 and "Rain in Oslo." in result.output and NOTE in result.output


def test_called_this_turn_reads_the_turn_of_the_newest_question_only() -> None:
    from toolwire import Agent
    from toolwire.cli_text import called_this_turn
    from toolwire.examples.book import BOOK_TOOLS

    agent = Agent(ScriptedChatModel([AIMessage("", tool_calls=[tool_call("get_weather", {"city": "Oslo"}, "c1")]),
                                     "Sunny.", AIMessage("", tool_calls=[tool_call("get_weather", {"x": 1}, "c2")]),
                                     "Cloudy."]), BOOK_TOOLS)
    first = agent.invoke("Oslo?")
    assert called_this_turn(first, agent.executor.tools)
    second = agent.invoke([*first.messages, {"role": "user", "content": "And Bergen?"}])
    assert not called_this_turn(second, agent.executor.tools)
    assert called_this_turn(second, set(agent.executor.tools))  # (names alone: the arguments cannot be checked)


def test_a_tools_file_with_a_syntax_error_names_its_line_and_says_to_fix_it(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("from toolwire import tool\n@tool\ndef f(x: int) -> int:\n    'Doc.'\n    return x +\n")
    with pytest.raises(UserError) as info:
        cli.load_tools(str(path))
    text = str(info.value)
    assert f"failed at {path}:5 with SyntaxError: invalid syntax: fix the code there" in text
    assert "\n" not in text and "(broken.py, line 5)" not in text


def test_a_tools_file_that_raises_at_import_names_the_line_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "raises.py"
    path.write_text("import os\n\nAPI = os.environ['R135_SURELY_MISSING_VARIABLE']\n")
    with pytest.raises(UserError) as info:
        cli.load_tools(str(path))
    text = str(info.value)
    assert f"failed at {path}:3 with KeyError: 'R135_SURELY_MISSING_VARIABLE': fix the code there" in text


def test_the_line_named_is_the_users_own_not_the_librarys(tmp_path: Path) -> None:
    (tmp_path / "helper_r135.py").write_text("import json\n\n\ndef load():\n    return json.loads('{')\n")
    path = tmp_path / "uses_helper.py"
    path.write_text("from helper_r135 import load\n\nCONFIG = load()\n")
    with pytest.raises(UserError) as info:
        cli.load_tools(str(path))
    assert f"failed at {tmp_path / 'helper_r135.py'}:5 with JSONDecodeError" in str(info.value)


def test_a_module_that_is_not_there_says_to_give_a_file_or_a_module() -> None:
    with pytest.raises(UserError, match=r"there is no module named 'no_such_module_r135': give a \.py file"):
        cli.load_tools("no_such_module_r135")


def test_a_broken_bfcl_line_gives_its_column_and_what_to_do(tmp_path: Path) -> None:
    from toolwire.evals.bfcl import _read_jsonl

    path = tmp_path / "BFCL_v4_simple_python.json"
    path.write_text('{"id": "a"}\n{"id": "b", "function": [{"name": "f", "descrip\n', encoding="utf-8")
    with pytest.raises(UserError) as info:
        _read_jsonl(path)
    assert str(info.value) == (f"{path}:2 is not valid JSON (Unterminated string starting at column 40): fix that "
                               "line, or get a fresh copy of the BFCL data.")


# -- #4 ------------------------------------------------------------------------------------------------------------


def test_a_401_from_a_compatible_server_says_to_set_openai_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", "wrong-key")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with ScriptedServer() as server:
        server.push(Answer(401, {"error": {"message": "Invalid API key", "type": "invalid_request_error"}}))
        result = CliRunner().invoke(cli.app, ["ask", "hi", "--model", f"openai-compatible:m@{server.url}/v1"])
    assert result.exit_code == 1
    assert "Invalid API key. Set OPENAI_API_KEY to this server's own API key (the key it was started with" \
        in result.output
    assert "ChatOpenAI" not in result.output and "api_key=" not in result.output


# -- #5 ------------------------------------------------------------------------------------------------------------


def _completion(content: str | None, finish: str, calls: list[dict[str, Any]] | None = None) -> Answer:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    return Answer(200, {"id": "x", "object": "chat.completion", "created": 1, "model": "m",
                        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})


def test_a_refused_hosted_reply_prints_its_text_once_and_says_it_was_refused(monkeypatch: pytest.MonkeyPatch
                                                                            ) -> None:
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    call = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
    with ScriptedServer() as server:
        server.push(_completion("I'll check.", "content_filter", [call]))
        result = CliRunner().invoke(cli.app, ["ask", "Weather in Oslo?", "--model",
                                              f"openai-compatible:m@{server.url}/v1"])
    assert result.exit_code == 0, result.output  # (as a run that ends with no answer, or one cut at its limit)
    assert result.output.count("I'll check.") == 1
    assert "(the run ended on a refusal: the model, or its provider's safety filter, refused this reply, so it is " \
        "not an answer and its tool calls were not run; ask in other words, or ask something else)" in result.output
    assert NOTE not in result.output


def test_a_refused_reply_without_calls_is_said_to_be_one_too(monkeypatch: pytest.MonkeyPatch) -> None:
    refused = AIMessage("I cannot help with that.", response_metadata={"finish_reason": "content_filter"})
    result = _ask(monkeypatch, refused)
    assert result.exit_code == 0 and result.output.count("I cannot help with that.") == 1
    assert "(the run ended on a refusal" in result.output and "tool calls were not run" not in result.output


def test_an_answer_anthropic_cut_at_the_context_window_says_so() -> None:
    """Review 139 #7: the CLI said the reply reached its token limit, whose fix (more tokens) cannot help."""
    from toolwire import AIMessage
    from toolwire.cli_text import cut_reason

    window = AIMessage("The report says", response_metadata={"finish_reason": "model_context_window_exceeded"})
    assert "context window ran out: shorten the conversation" in cut_reason([window])
    tokens = AIMessage("The report says", response_metadata={"finish_reason": "max_tokens"})
    assert cut_reason([tokens]) == "the answer was cut at the most tokens a reply may have"
