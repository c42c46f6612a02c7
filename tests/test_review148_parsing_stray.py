"""Review 148 #1: a key written beside "arguments" in a JSON call is merged into the arguments, or
makes an invalid call when it clashes with them; it is never dropped."""

from __future__ import annotations

import pytest

from _parsed import WEATHER, calls, errors
from toolwire.parsing import parse_tool_calls


@pytest.mark.parametrize("text", [
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}, "unit": "F"}</tool_call>',
    '{"name": "get_weather", "arguments": {"city": "Paris"}, "unit": "F"}',
    '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}, "unit": "F"}]',
    '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}", "unit": "F"}</tool_call>',
    '<tool_call>{"name": "get_weather", "parameters": {"city": "Paris"}, "unit": "F"}</tool_call>',
])
def test_a_key_beside_the_arguments_is_merged_into_them(text: str) -> None:
    reply = parse_tool_calls(text, WEATHER)
    assert calls(reply) == [("get_weather", {"city": "Paris", "unit": "F"})]
    assert reply.invalid_tool_calls == [] and reply.content == ""


def test_a_key_beside_the_arguments_with_the_same_value_is_kept_once() -> None:
    reply = parse_tool_calls('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}, "city": "Paris"}'
                             "</tool_call>", WEATHER)
    assert calls(reply) == [("get_weather", {"city": "Paris"})]


def test_a_key_beside_the_arguments_with_another_value_is_an_invalid_call() -> None:
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}, "city": "Rome"}</tool_call>'
    reply = parse_tool_calls(text, WEATHER)
    assert calls(reply) == []
    assert errors(reply) == ['Parameter \'city\' is given both inside "arguments" and beside it, with different '
                             'values; give it once, inside "arguments".']
    assert "Rome" in reply.invalid_tool_calls[0]["args"]  # the raw call is kept


def test_both_arguments_and_parameters_with_different_content_are_an_invalid_call() -> None:
    text = ('<tool_call>{"name": "get_weather", "parameters": {"city": "Paris", "unit": "F"}, "arguments": {}}'
            "</tool_call>")
    reply = parse_tool_calls(text, WEATHER)
    assert calls(reply) == []
    assert errors(reply) == ['The tool call gives both "arguments" and "parameters", with different content; send '
                             'all the arguments once, in "arguments".']
    same = ('<tool_call>{"name": "get_weather", "parameters": {"city": "Oslo"}, "arguments": {"city": "Oslo"}}'
            "</tool_call>")
    assert calls(parse_tool_calls(same, WEATHER)) == [("get_weather", {"city": "Oslo"})]


def test_the_call_keys_are_still_read_as_the_call_and_not_as_arguments() -> None:
    text = ('<tool_call>{"id": "c1", "type": "function", "function": {"name": "get_weather", '
            '"arguments": {"city": "Paris"}}}</tool_call>')
    reply = parse_tool_calls(text, WEATHER)
    assert calls(reply) == [("get_weather", {"city": "Paris"})] and reply.tool_calls[0]["id"] == "c1"
    text = ('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "c2", "type": "function"}'
            "</tool_call>")
    reply = parse_tool_calls(text, WEATHER)
    assert calls(reply) == [("get_weather", {"city": "Paris"})] and reply.tool_calls[0]["id"] == "c2"
