"""Review 222: text-call parsing (#2 a list of calls with a "description" argument, #3 a closed think block after a
call quoting its tags, #9 the retry-search cache outliving the parse)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolwire.models._text_calls import read_text_calls
from toolwire.parsing import parse_tool_calls


def _both(text: str, tools: Any) -> tuple[list, list]:
    """The calls parse_tool_calls and read_text_calls (ChatOpenAI(text_tool_calls=True)) read, as (name, args)."""
    parsed = parse_tool_calls(text, tools)
    found = read_text_calls(text, tools)
    return ([(c["name"], c["args"]) for c in parsed.tool_calls],
            [] if found is None else [(c["name"], c["args"]) for c in found[1]])


# ------------------------------------------------------------------ #2: a list of calls with a description argument

_SCHEMAS = {
    "get_weather": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "create_issue": {"type": "object", "properties": {"title": {"type": "string"}, "description": {"type": "string"}},
                     "required": ["title"]},
    "save_schema": {"type": "object", "properties": {"type": {"type": "string"}, "properties": {"type": "object"}}},
}


@pytest.mark.parametrize("tools", [_SCHEMAS, list(_SCHEMAS)])
@pytest.mark.parametrize("value, expected", [
    ([{"name": "get_weather", "city": "Paris"}, {"name": "create_issue", "title": "Bug", "description": "blank"}],
     [("get_weather", {"city": "Paris"}), ("create_issue", {"title": "Bug", "description": "blank"})]),
    ([{"name": "create_issue", "arguments": {"title": "Bug"}, "description": "blank"}],
     [("create_issue", {"title": "Bug", "description": "blank"})]),
    ([{"name": "get_weather", "arguments": {"city": "Paris"}},
      {"name": "save_schema", "arguments": {"type": "object", "properties": {"a": {}}}}],
     [("get_weather", {"city": "Paris"}), ("save_schema", {"type": "object", "properties": {"a": {}}})]),
])
def test_a_list_of_calls_with_a_description_argument_is_read(value: list, expected: list, tools: Any) -> None:
    text = json.dumps(value)
    assert _both(text, tools) == (expected, expected)


def test_a_call_of_a_tool_taking_a_schema_in_parameters_is_read_when_its_schema_is_known() -> None:
    value = [{"name": "save_schema", "parameters": {"type": "object", "properties": {"a": {}}}}]
    expected = [("save_schema", {"type": "object", "properties": {"a": {}}})]
    assert _both(json.dumps(value), _SCHEMAS) == (expected, expected)


_DEFINITION = {"name": "create_issue", "description": "Create an issue", "parameters": _SCHEMAS["create_issue"]}


@pytest.mark.parametrize("tools", [_SCHEMAS, list(_SCHEMAS)])
@pytest.mark.parametrize("value", [
    [_DEFINITION],
    [{"name": "create_issue", "description": "Create an issue", "input_schema": _SCHEMAS["create_issue"]}],
    [{"name": "create_issue", "inputSchema": _SCHEMAS["create_issue"]}],
    [{"type": "function", "function": _DEFINITION}],
    [{"type": "function", "function": {"name": "get_weather", "description": "The weather now"}}],
    [{"name": "get_weather", "city": "Paris"}, _DEFINITION],
])
def test_a_list_of_tool_definitions_still_stays_text(value: list, tools: Any) -> None:
    text = "My tools:\n" + json.dumps(value)
    assert parse_tool_calls(text, tools).tool_calls == []
    assert read_text_calls(text, tools) is None
