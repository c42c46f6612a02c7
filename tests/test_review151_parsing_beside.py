"""Review 151 #2: a key beside "arguments" (or beside an OpenAI "function" wrapper) is merged into the arguments
only when it is an argument: a parameter of the tool when its schema is known, else any key that is not about the
call ("reasoning", "index", "tool_call_id"...); the others are ignored, as before review 148 #1."""

from __future__ import annotations

from typing import Any

import pytest

from _parsed import calls
from toolwire.parsing import parse_tool_calls

WEATHER = {"get_weather": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                           "required": ["city"], "additionalProperties": False}}



@pytest.mark.parametrize("text", [
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}, "reasoning": "The user asked."}</tool_call>',
    '[{"name": "get_weather", "arguments": {"city": "Paris"}, "index": 0}]',
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}, "tool_call_id": "x", "thought": "t"}'
    "</tool_call>",
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}, "note": "Rome"}</tool_call>',
])
def test_a_key_beside_the_arguments_that_is_no_parameter_is_ignored_when_the_schema_is_known(text: str) -> None:
    reply = parse_tool_calls(text, WEATHER)
    assert calls(reply) == [("get_weather", {"city": "Paris"})]
    assert reply.invalid_tool_calls == []


@pytest.mark.parametrize("text", [
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}, "reasoning": "The user asked."}</tool_call>',
    '[{"name": "get_weather", "arguments": {"city": "Paris"}, "index": 0}]',
])
def test_a_key_about_the_call_is_ignored_when_no_schema_is_known(text: str) -> None:
    reply = parse_tool_calls(text, ["get_weather"])
    assert calls(reply) == [("get_weather", {"city": "Paris"})]


def test_another_key_is_merged_when_no_schema_is_known() -> None:
    reply = parse_tool_calls('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}, "unit": "F", '
                             '"reasoning": "r"}</tool_call>', ["get_weather"])
    assert calls(reply) == [("get_weather", {"city": "Paris", "unit": "F"})]


def test_a_schema_open_to_other_keys_takes_them_but_not_the_keys_about_the_call() -> None:
    schema = {"f": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": True}}
    reply = parse_tool_calls('<tool_call>{"name": "f", "arguments": {"a": "x"}, "b": 1, "index": 0}</tool_call>',
                             schema)
    assert calls(reply) == [("f", {"a": "x", "b": 1})]


def test_a_parameter_named_like_a_key_about_the_call_is_merged() -> None:
    schema = {"f": {"type": "object", "properties": {"a": {"type": "string"}, "reasoning": {"type": "string"}}}}
    reply = parse_tool_calls('<tool_call>{"name": "f", "arguments": {"a": "x"}, "reasoning": "r"}</tool_call>',
                             schema)
    assert calls(reply) == [("f", {"a": "x", "reasoning": "r"})]


@pytest.mark.parametrize("tools", [WEATHER, ["get_weather"]])
def test_a_parameter_beside_a_function_wrapper_is_merged(tools: Any) -> None:
    text = ('<tool_call>{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}, '
            '"unit": "F", "index": 0, "id": "c1"}</tool_call>')
    reply = parse_tool_calls(text, tools)
    assert calls(reply) == [("get_weather", {"city": "Paris", "unit": "F"})]
    assert reply.tool_calls[0]["id"] == "c1"


def test_a_key_beside_a_function_wrapper_that_clashes_is_an_invalid_call() -> None:
    text = ('<tool_call>{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}, '
            '"city": "Rome"}</tool_call>')
    reply = parse_tool_calls(text, WEATHER)
    assert calls(reply) == []
    assert [bad["error"] for bad in reply.invalid_tool_calls] == [
        'Parameter \'city\' is given both inside "arguments" and beside it, with different values; give it once, '
        'inside "arguments".']
    assert "Rome" in reply.invalid_tool_calls[0]["args"]
