"""Review 148 #4: a key given twice in a JSON call (the call's own keys, its arguments) is an invalid call,
as in the pythonic and function_tag dialects, in every JSON reader and in normalize_arguments."""

from __future__ import annotations

import pytest

from _parsed import WEATHER, calls, errors
from toolwire.errors import ToolCallParseError
from toolwire.parsing import normalize_arguments, parse_tool_calls


@pytest.mark.parametrize("text", [
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "city": "Rome"}}</tool_call>',
    '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "city": "Rome"}',
    '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris", "city": "Rome"}}]',
    '{"name": "get_weather", "arguments": {"city": "Paris", "city": "Rome"}}',
    '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris", "city": "Rome"}}',
])
def test_a_parameter_given_twice_in_json_is_an_invalid_call(text: str) -> None:
    reply = parse_tool_calls(text, WEATHER)
    assert calls(reply) == []
    assert len(errors(reply)) == 1
    assert errors(reply)[0].startswith("Parameter 'city' is given twice; give each parameter once.")
    assert reply.invalid_tool_calls[0]["name"] == "get_weather"


def test_a_name_given_twice_in_a_json_call_runs_neither_tool() -> None:
    text = '<tool_call>{"name": "delete_all", "arguments": {}, "name": "get_weather"}</tool_call>'
    reply = parse_tool_calls(text, ["get_weather", "delete_all"])
    assert calls(reply) == []
    assert errors(reply)[0].startswith("The tool call gives 'name' twice; give each key once.")


def test_the_other_calls_of_a_list_are_kept_beside_one_with_a_key_given_twice() -> None:
    text = ('<tool_call>[{"name": "get_weather", "arguments": {"city": "Oslo"}}, '
            '{"name": "get_weather", "arguments": {"city": "Paris", "city": "Rome"}}]</tool_call>')
    reply = parse_tool_calls(text, WEATHER)
    assert calls(reply) == [("get_weather", {"city": "Oslo"})]
    assert len(errors(reply)) == 1 and "'city' is given twice" in errors(reply)[0]


def test_native_argument_text_with_a_key_given_twice_is_refused() -> None:
    with pytest.raises(ToolCallParseError, match=r"^Parameter 'city' is given twice; give each parameter once\.$"):
        normalize_arguments('{"city": "Paris", "city": "Rome"}')
    with pytest.raises(ToolCallParseError, match="'a' is given twice"):
        normalize_arguments('"{\\"a\\": 1, \\"a\\": 2}"')  # double-encoded
    with pytest.raises(ToolCallParseError, match="'b' is given twice"):
        normalize_arguments('{"filter": {"b": 1, "b": [2]}}')  # in a nested object too


def test_a_key_given_twice_with_the_same_value_is_kept_once() -> None:
    assert normalize_arguments('{"city": "Paris", "city": "Paris"}') == {"city": "Paris"}
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo", "city": "Oslo"}}</tool_call>'
    assert calls(parse_tool_calls(text, WEATHER)) == [("get_weather", {"city": "Oslo"})]
    # values that Python finds equal but JSON does not (1, 1.0 and true) are two values
    with pytest.raises(ToolCallParseError, match="given twice"):
        normalize_arguments('{"n": 1, "n": true}')
    with pytest.raises(ToolCallParseError, match="given twice"):
        normalize_arguments('{"n": 1, "n": 1.0}')
