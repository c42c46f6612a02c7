"""Review 215: reading tool calls from model text (repeated keys in Python syntax, a quoted <tool_call> inside a
hermes block, lists of tool definitions, a quoted closing tag before an unclosed <think>, the python_retry search
time, a list comprehension at the end of a reply)."""

from __future__ import annotations

import pytest

from toolwire.errors import ToolCallParseError
from toolwire.parsing import normalize_arguments, parse_tool_calls

_TWICE = "Parameter 'city' is given twice; give each parameter once."
_NAME_TWICE = "The tool call gives 'name' twice; give each key once."


def _read(text: str, names: list[str], dialect: str | None = None) -> tuple[list, list[str], str]:
    r = parse_tool_calls(text, names, dialect)
    return [(c["name"], c["args"]) for c in r.tool_calls], [c["error"] for c in r.invalid_tool_calls], r.content


# ------------------------------------------------------------------ #1: repeated keys in Python-dict syntax

@pytest.mark.parametrize("text", [
    "{'name': 'get_weather', 'arguments': {'city': 'Paris', 'city': 'Rome'}}",
    "<tool_call>{'name': 'get_weather', 'arguments': {'city': 'Paris', 'city': 'Rome'}}</tool_call>",
    "[TOOL_CALLS]get_weather[ARGS]{'city': 'Paris', 'city': 'Rome'}",
    "<|python_tag|>{'name': 'get_weather', 'parameters': {'city': 'Paris', 'city': 'Rome'}}",
    "<function=get_weather>{'city': 'Paris', 'city': 'Rome'}</function>",
    "[get_weather(city={'city': 'Paris', 'city': 'Rome'})]",
])
def test_python_dict_repeated_parameter_is_refused(text: str) -> None:
    calls, invalid, _ = _read(text, ["get_weather"])
    assert calls == []
    assert len(invalid) == 1 and invalid[0].startswith(_TWICE[:-1])


def test_python_dict_repeated_name_is_refused() -> None:
    calls, invalid, _ = _read("{'name': 'read_file', 'arguments': {'path': 'a.txt'}, 'name': 'delete_file'}",
                              ["read_file", "delete_file"])
    assert calls == [] and len(invalid) == 1 and invalid[0].startswith(_NAME_TWICE)


def test_python_dict_repeated_equal_values_are_kept_once() -> None:
    calls, invalid, _ = _read("{'name': 'get_weather', 'arguments': {'city': 'Paris', 'city': 'Paris'}}",
                              ["get_weather"])
    assert calls == [("get_weather", {"city": "Paris"})] and invalid == []
    calls, invalid, _ = _read("get_weather(city={'a': 1, 'a': 1})", ["get_weather"])
    assert calls == [("get_weather", {"city": {"a": 1}})] and invalid == []


def test_normalize_arguments_refuses_python_dict_repeated_key() -> None:
    with pytest.raises(ToolCallParseError, match="given twice") as info:
        normalize_arguments("{'city': 'Paris', 'city': 'Rome'}")
    assert str(info.value).startswith(_TWICE)
    assert normalize_arguments("{'city': 'Paris', 'n': True}") == {"city": "Paris", "n": True}
