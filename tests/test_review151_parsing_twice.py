"""Review 151 #6: an object or array argument sent as JSON text that gives a key twice, with different values, is
refused saying so (naming the argument and the key), not kept as text for validation to call "not a dictionary"."""

from __future__ import annotations

import json

import pytest

from toolwire import tool
from toolwire.errors import ToolCallParseError
from toolwire.parsing import normalize_arguments
from toolwire.parsing.arguments import decode_json_strings, json_string_plan, tool_call_from_native

TWICE = ("The argument 'limits' is JSON text that gives the key 'alice' twice, with different values; give each key "
         "once.")


@tool
def set_limits(limits: dict[str, int]) -> str:
    """Set per-user limits."""
    return str(limits)


@tool
def set_rows(rows: list[dict[str, int]]) -> str:
    """Set rows."""
    return str(rows)


def test_argument_text_with_a_repeated_key_inside_a_json_string_is_refused_naming_both() -> None:
    text = json.dumps({"limits": '{"alice": 1, "alice": 2}'})
    with pytest.raises(ToolCallParseError) as caught:
        normalize_arguments(text, set_limits.parameters)
    assert str(caught.value) == TWICE
    message = set_limits.invoke({"name": "set_limits", "args": text, "id": "1", "type": "tool_call"}).content
    assert message == f"Error: Invalid arguments for tool 'set_limits': {TWICE}"


def test_a_native_call_with_such_an_argument_is_an_invalid_call_keeping_its_text() -> None:
    text = json.dumps({"limits": '{"alice": 1, "alice": 2}'})
    call = tool_call_from_native("set_limits", text, "c1", schema=set_limits.parameters)
    assert call["type"] == "invalid_tool_call" and call["error"] == TWICE and call["args"] == text


def test_equal_values_and_text_not_decoded_are_as_before() -> None:
    assert normalize_arguments({"limits": '{"alice": 1, "alice": 1}'}, set_limits.parameters) == {
        "limits": {"alice": 1}}
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {"type": "integer"}}}}
    # an object where an array is wanted is not decoded: validation says what the value should be
    assert normalize_arguments({"rows": '{"a": 1, "a": 2}'}, schema) == {"rows": '{"a": 1, "a": 2}'}
    text_too = {"type": "object", "properties": {"note": {"anyOf": [{"type": "string"}, {"type": "object"}]}}}
    assert normalize_arguments({"note": '{"a": 1, "a": 2}'}, text_too) == {"note": '{"a": 1, "a": 2}'}


def test_decode_json_strings_refuses_it_when_asked_and_keeps_the_text_otherwise() -> None:
    plan = json_string_plan(set_limits.parameters)
    assert plan is not None
    args = {"limits": '{"alice": 1, "alice": 2}'}
    assert decode_json_strings(args, plan) is args
    with pytest.raises(ToolCallParseError) as caught:
        decode_json_strings(args, plan, refuse_repeated_keys=True)
    assert str(caught.value) == TWICE
    rows = json_string_plan(set_rows.parameters)
    assert rows is not None
    with pytest.raises(ToolCallParseError, match="'rows' is JSON text that gives the key 'a' twice"):
        decode_json_strings({"rows": '[{"a": 1, "a": 2}]'}, rows, refuse_repeated_keys=True)
    assert decode_json_strings({"rows": '[{"a": 1}]'}, rows, refuse_repeated_keys=True) == {"rows": [{"a": 1}]}


def test_a_dict_argument_sent_as_json_text_with_a_key_twice_is_an_invalid_argument() -> None:
    # review 151 #6 through tool.invoke: the model was told "Input should be a valid dictionary"
    from toolwire import tool

    @tool
    def set_limits(limits: dict[str, int]) -> str:
        """Set per-user limits."""
        return str(limits)

    call = {"name": "set_limits", "args": {"limits": '{"alice": 1, "alice": 2}'}, "id": "c1", "type": "tool_call"}
    answer = set_limits.invoke(call)
    assert answer.status == "error" and answer.content == (
        "Error: Invalid arguments for tool 'set_limits': The argument 'limits' is JSON text that gives the key 'alice' "
        "twice, with different values; give each key once.")
    call["args"] = {"limits": '{"alice": 1, "bob": 2}'}
    assert set_limits.invoke(call).content == "{'alice': 1, 'bob': 2}"
