"""Review 231: schema half-fixes (#1 error texts of a union holding a date, #2 enum.Flag bounds, #5 a partial of a
bound singledispatchmethod, #6 flat arguments of a tool whose own parameter is named ``parameters``)."""

from __future__ import annotations

import enum
import json
from typing import Any

import pytest

from toolwire import tool

# ------------------------------------------------------------------ #2: enum.Flag / IntFlag bounds


class _Perm(enum.Flag):
    READ = 1
    WRITE = 2
    EXEC = 4


class _Big(enum.IntFlag):
    A = 1
    B = 2
    C = 4
    D = 8
    E = 16
    F = 32
    H = 128


@tool
def _set_permissions(path: str, perm: _Perm, extra: _Big = _Big.A) -> str:
    """Set a file's permissions.

    Args:
        path: the file
        perm: the permissions
        extra: more flags
    """
    return f"{perm.value} {extra.value}"


def _text(t: Any, args: dict[str, Any]) -> str:
    try:
        return str(t.invoke(args))
    except Exception as exc:  # (the error text the model reads)
        return f"Error: {exc}"


@pytest.mark.parametrize("args", [{"perm": -1}, {"perm": -4}, {"perm": 8}, {"perm": 1, "extra": -1},
                                  {"perm": 1, "extra": 64}, {"perm": 1, "extra": 192}, {"perm": 1, "extra": 1000}])
def test_a_flag_outside_its_bits_is_refused(args: dict[str, Any]) -> None:
    text = _text(_set_permissions, {"path": "a", **args})
    assert text.startswith("Error: Invalid arguments"), text
    assert "Input should be a combination of the flags" in text


@pytest.mark.parametrize("args, expected", [({"perm": 0}, "0 1"), ({"perm": 7}, "7 1"),
                                            ({"perm": 5, "extra": 191}, "5 191"), ({"perm": 1, "extra": 0}, "1 0")])
def test_a_flag_combination_is_taken(args: dict[str, Any], expected: str) -> None:
    assert _text(_set_permissions, {"path": "a", **args}) == expected


def test_a_callers_own_flag_member_is_taken() -> None:
    assert _text(_set_permissions, {"path": "a", "perm": _Perm.READ | _Perm.EXEC}) == "5 1"


# ------------------------------------------------------------------ #6: flat arguments of a tool taking "parameters"

_TOOLS = {
    "get_weather": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "register_tool": {"type": "object", "properties": {"tool_name": {"type": "string"},
                                                       "parameters": {"type": "object"}},
                      "required": ["tool_name", "parameters"]},
    "upload_schema": {"type": "object", "properties": {"label": {"type": "string"},
                                                       "input_schema": {"type": "object"}}},
}
_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}


def _read(text: str, tools: Any) -> tuple[list, list]:
    from toolwire.models._text_calls import read_text_calls
    from toolwire.parsing import parse_tool_calls

    found = read_text_calls(text, tools)
    return ([(c["name"], c["args"]) for c in parse_tool_calls(text, tools).tool_calls],
            [] if found is None else [(c["name"], c["args"]) for c in found[1]])


@pytest.mark.parametrize("value, expected", [
    ([{"name": "get_weather", "city": "Oslo"},
      {"name": "register_tool", "tool_name": "weather", "parameters": _SCHEMA}],
     [("get_weather", {"city": "Oslo"}), ("register_tool", {"tool_name": "weather", "parameters": _SCHEMA})]),
    ([{"name": "register_tool", "tool_name": "weather", "parameters": _SCHEMA}],
     [("register_tool", {"tool_name": "weather", "parameters": _SCHEMA})]),
    ([{"name": "get_weather", "city": "Oslo"}, {"name": "upload_schema", "label": "w", "input_schema": _SCHEMA}],
     [("get_weather", {"city": "Oslo"}), ("upload_schema", {"label": "w", "input_schema": _SCHEMA})]),
])
def test_flat_arguments_of_a_tool_taking_parameters_are_read(value: list, expected: list) -> None:
    text = json.dumps(value)
    assert _read(text, _TOOLS) == (expected, expected)


def test_a_marked_flat_call_of_a_tool_taking_parameters_gets_its_own_arguments() -> None:
    call = {"name": "register_tool", "tool_name": "weather", "parameters": _SCHEMA}
    expected = [("register_tool", {"tool_name": "weather", "parameters": _SCHEMA})]
    assert _read(f"<tool_call>{json.dumps(call)}</tool_call>", _TOOLS)[0] == expected


@pytest.mark.parametrize("tools", [_TOOLS, list(_TOOLS)])
@pytest.mark.parametrize("value", [
    [{"name": "register_tool", "description": "Register a tool", "parameters": _TOOLS["register_tool"]}],
    [{"name": "get_weather", "city": "Oslo"},
     {"name": "register_tool", "description": "Register a tool", "parameters": _TOOLS["register_tool"]}],
    [{"name": "get_weather", "description": "The weather", "parameters": _TOOLS["get_weather"]}],
])
def test_tool_definitions_still_stay_text(value: list, tools: Any) -> None:
    text = "My tools:\n" + json.dumps(value)
    assert _read(text, tools) == ([], [])
