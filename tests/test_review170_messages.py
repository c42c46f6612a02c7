"""Review 170: the texts of errors and warnings people (and models) read."""

from __future__ import annotations

import pytest

from toolwire import tool
from toolwire.errors import SchemaError


@pytest.mark.parametrize("bad", [5, ["Adds."], {"text": "Adds."}])
def test_description_not_text_is_refused_when_the_tool_is_made(bad: object) -> None:
    """#2: @tool(description=5) was taken and sent to the provider as a JSON number."""

    def add(x: int) -> int:
        """Add."""
        return x

    with pytest.raises(SchemaError) as info:
        tool(description=bad)(add)
    name = type(bad).__name__
    assert str(info.value) == (f"The description of tool 'add' must be text, not {name}: pass description='...', "
                               "a sentence saying what the tool does.")


def test_a_tools_file_class_is_named_by_the_file_not_the_internal_module(tmp_path, monkeypatch) -> None:
    """#5: the CLI named the class toolwire_user_tools_<hash>.Connection, a module the user never wrote."""
    from toolwire.cli_tools import load_tools
    from toolwire.errors import UserError

    (tmp_path / "helper_type.py").write_text(
        "class Connection:\n    pass\n\n\ndef query(conn: Connection, sql: str) -> str:\n"
        '    """Run a SQL query."""\n    return ""\n')
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError) as info:
        load_tools("helper_type.py")
    text = str(info.value)
    assert "toolwire_user_tools" not in text
    assert "parameter 'conn' is typed helper_type.Connection, which has no JSON form" in text


def test_a_tools_entry_message_keeps_the_ellipsis_of_the_library_text(tmp_path, monkeypatch) -> None:
    """#6: "pass description=)": the first sentence's final-period strip took the whole "..." away."""
    from toolwire.cli_tools import load_tools
    from toolwire.errors import UserError

    (tmp_path / "nodoc.py").write_text("def lookup(order_id: int) -> str:\n    return ''\n\n\nTOOLS = [lookup]\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError) as info:
        load_tools("nodoc.py")
    assert str(info.value) == (
        "The TOOLS entry 'lookup' in 'nodoc.py' cannot be a tool (Tool 'lookup' has no description: add a docstring "
        "to the function or pass description=... so the model knows when to use it): fix it or take it out of TOOLS.")


@pytest.mark.parametrize(("data", "expected"), [
    ({"type": "bot", "content": "x"},
     "Cannot read a message of type 'bot'; use one of ai, assistant, developer, human, system, tool, user."),
    ({"role": "bot", "content": "x"},
     "Cannot read a message with the role 'bot'; use one of ai, assistant, developer, human, system, tool, user."),
    ({"content": "x"}, "Cannot read a message without a 'role'; add one, such as {'role': 'user', 'content': 'hi'}."),
])
def test_an_unknown_message_kind_is_named_by_its_key_in_a_plain_list(data: dict, expected: str) -> None:
    """#7: the kinds were a Python list repr, and a {"role": ...} dict was told about its "type"."""
    from toolwire import message_from_dict
    from toolwire.errors import UserError

    with pytest.raises(UserError) as info:
        message_from_dict(data)
    assert str(info.value) == expected


def test_an_unknown_langchain_type_lists_the_types_plainly() -> None:
    """#7: the LangChain types read were a Python list repr."""
    from toolwire import message_from_dict
    from toolwire.errors import UserError

    with pytest.raises(UserError) as info:
        message_from_dict({"type": "function", "data": {"content": "x", "name": "f"}})
    assert "[" not in str(info.value) and str(info.value).endswith(" ai, chat, human, system, tool.")


def _get_weather():
    @tool
    def get_weather(city: str) -> str:
        """Get the weather of a city."""
        return "sunny"

    return get_weather


def test_a_call_given_to_the_wrong_tool_says_it_did_not_run_not_failed() -> None:
    """#8: the model read "tool 'get_weather' failed: The call names ... which did not run it"."""
    answer = _get_weather().invoke({"name": "get_time", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"})
    assert answer.status == "error"
    assert answer.content == ("Error: tool 'get_weather' did not run this call, which names the tool 'get_time': "
                              "give each call to the tool it names.")


def test_a_tool_whose_own_error_reads_like_a_wrong_tool_call_still_failed() -> None:
    """#8, as left open: the wrong-tool result was told by its text, so a tool that ran and raised an error with
    that wording was reported as not run (the model would call it again). It is told apart by type now."""
    from toolwire import tool
    from toolwire.errors import ToolExecutionError

    @tool
    def lookup(city: str) -> str:
        """Look a city up."""
        raise ToolExecutionError("The call names the tool 'x' but was given to the tool 'lookup', which did not run "
                                 "it.", "lookup")

    answer = lookup.invoke({"name": "lookup", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"})
    assert answer.status == "error"
    assert answer.content.startswith("Error: tool 'lookup' raised ToolExecutionError: The call names the tool 'x'")


def test_the_wrong_tool_result_names_a_call_name_with_quotes_whole() -> None:
    """#8: a name with both kinds of quote is named as the call gave it (kept when the text match went)."""
    answer = _get_weather().invoke({"name": "it's \"x\"", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"})
    assert answer.content.startswith("Error: tool 'get_weather' did not run this call, which names the tool 'it\\'s")


def test_an_invalid_call_text_has_no_capital_after_the_colon_and_one_instruction() -> None:
    """#8: "was not valid: The arguments ...; send one JSON object ... Send the call again ..."."""
    from toolwire import AIMessage, ToolExecutor

    msg = AIMessage(content="", tool_calls=[{"name": "get_weather", "args": "{city: Paris", "id": "c2"}])
    [answer] = ToolExecutor([_get_weather()]).execute(msg)
    text = answer.content
    assert text.startswith("Error: the call to 'get_weather' was not valid: the arguments are not valid JSON (")
    assert text.endswith('; send one JSON object such as {"city": <text>}. The arguments received were: {city: Paris.')
    assert text.lower().count("send") == 1


def test_the_repeated_failure_warning_reads_as_one_sentence() -> None:
    """#9: "a call of 'save' that had failed 3 times in a row with the same error with that error"."""
    import warnings

    from toolwire import Agent, AIMessage
    from toolwire.errors import RepeatedCallWarning
    from toolwire.testing import ScriptedChatModel

    @tool
    def save(x: int) -> str:
        """Save a number."""
        raise RuntimeError("disk full")

    calls = [AIMessage(content="", tool_calls=[{"name": "save", "args": {"x": 1}, "id": f"c{i}"}]) for i in range(4)]
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        Agent(ScriptedChatModel([*calls, "done"]), [save]).invoke("save 1")
    [text] = [str(w.message) for w in got if issubclass(w.category, RepeatedCallWarning)]
    assert text.startswith("The Agent answered a call of 'save' with the error it had given 3 times in a row, "
                           "without running the tool again (")


@pytest.mark.parametrize(("args", "said"), [
    (["ask", "hi", "--tool-timeout", "abc"], "Invalid value for '--tool-timeout': abc is not a number of seconds of "
     "at least 0.001: pass one, such as 30, or leave the option out for no limit."),
    (["ask", "hi", "--n-ctx", "100"], "Invalid value for '--n-ctx': 100 is not a number of tokens of at least 256: "
     "pass one, such as 8192."),
    (["ask", "hi", "--max-steps", "0"], "Invalid value for '--max-steps': 0 is not a number of model calls of at "
     "least 1: pass one, such as 6."),
    (["chat", "--max-steps", "x"], "Invalid value for '--max-steps': x is not a number of model calls of at least 1: "
     "pass one, such as 6."),
    (["ask", "hi", "--n-threads", "0"], "Invalid value for '--n-threads': 0 is not a number of threads from 1 to "
     "512: pass one, such as 4."),  # (the most ggml takes: review 199 #2)
])
def test_cli_option_numbers_are_refused_in_the_projects_words(args: list[str], said: str) -> None:
    """#11: pydantic's "Input should be greater than or equal to 256" / "unable to parse string as a number"."""
    import re

    from typer.testing import CliRunner

    from toolwire import cli

    result = CliRunner().invoke(cli.app, args, terminal_width=200)
    assert result.exit_code == 2
    assert said in " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())


def test_cli_option_numbers_in_range_are_taken() -> None:
    """#11: the parsers give the options their numbers."""
    from toolwire._cli_errors import seconds, whole_number

    assert whole_number("number of tokens", 256, 8192)("4096") == 4096
    assert whole_number("port number", 1, 8000, 65535)("65535") == 65535
    assert seconds("0.5") == 0.5


def test_a_missing_bfcl_data_folder_says_what_to_pass(tmp_path) -> None:
    """#11: "BFCL data folder '...' does not exist or is not a folder." said only what was wrong."""
    from toolwire.errors import UserError
    from toolwire.evals.bfcl import available_categories, load_category

    missing = tmp_path / "nonexist"
    for read in (lambda: available_categories(missing), lambda: load_category(missing, "simple_python")):
        with pytest.raises(UserError) as info:
            read()
        assert str(info.value) == (f"BFCL data folder {str(missing)!r} does not exist or is not a folder: pass the "
                                   "folder that holds the BFCL_v4_<category>.json question files (this project's CI "
                                   "keeps them in ../shared/bfcl).")


def test_the_wrong_tool_error_pickles_and_copies() -> None:
    """Review 181 #2: WrongToolCallError could not be rebuilt from its message, so a process pool broke."""
    import copy
    import pickle

    from toolwire._tool_run import WrongToolCallError, check_call_name
    from toolwire.errors import ToolExecutionError

    try:
        check_call_name("get_weather", {"name": "get_time"})
    except WrongToolCallError as exc:
        for again in (pickle.loads(pickle.dumps(exc)), copy.copy(exc)):
            assert isinstance(again, ToolExecutionError) and str(again) == str(exc)
            assert (again.tool_name, again.called) == ("get_weather", "get_time")
    else:
        raise AssertionError("not refused")
