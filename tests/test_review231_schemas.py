"""Review 231: schema half-fixes (#1 error texts of a union holding a date, #2 enum.Flag bounds, #5 a partial of a
bound singledispatchmethod, #6 flat arguments of a tool whose own parameter is named ``parameters``)."""

from __future__ import annotations

import datetime as dt
import enum
import json
from typing import Annotated, Any, Literal

import pytest
from pydantic import AwareDatetime, BaseModel, Field

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


# ------------------------------------------------------------------ #1: the reasons a date in a union is refused

_After2026 = Annotated[dt.date, Field(gt=dt.date(2026, 1, 1))]


@tool
def _remind(after: _After2026 | int) -> str:
    """Remind me after a date, or after a number of days."""
    return repr(after)


@tool
def _plan(days: list[_After2026] | int) -> str:
    """Plan some days of 2026 or later, or a count of days."""
    return repr(days)


class _Slot(BaseModel):
    start: AwareDatetime | int


@tool
def _meet(slot: _Slot, others: list[AwareDatetime] | str = "") -> str:
    """Book a meeting."""
    return repr(slot.start)


@tool
def _schedule(at: dt.datetime | str) -> str:
    """Schedule at a date and time, or at a described time."""
    return repr(at)


@tool
def _pick(day: _After2026 | Literal["today"]) -> str:
    """Pick a day."""
    return repr(day)


@pytest.mark.parametrize("t, args, reason", [
    (_remind, {"after": "2025-05-01"}, "'after': Input should be greater than 2026-01-01, or input should be a valid "
                                       "integer"),
    (_remind, {"after": "2026-02-30"}, "'after': Input should be a valid date or datetime, day value is outside"),
    (_plan, {"days": ["2025-05-01"]}, "'days.0': Input should be greater than 2026-01-01 (got '2025-05-01')"),
    (_plan, {"days": ["2026-02-30"]}, "'days.0': Input should be a valid date or datetime, day value is outside"),
    (_plan, {"days": [20260501]}, "'days.0': Input should be a date written YYYY-MM-DD, not a number or digits alone"),
    (_meet, {"slot": {"start": "2026-05-15T10:00:00"}}, "'slot.start': Input should have timezone info, or input"),
    (_meet, {"slot": {"start": 5}, "others": ["2026-05-15T10:00:00"]}, "'others.0': Input should have timezone info"),
    (_schedule, {"at": 1700000000}, "'at': Input should be a date and time written YYYY-MM-DDTHH:MM:SS, not a "
                                    "number or digits alone (read as a Unix timestamp), or input should be a valid "
                                    "string (got 1700000000)"),
    (_pick, {"day": "2025-05-01"}, "'day': Input should be greater than 2026-01-01, or input"),
    (_pick, {"day": 20260501}, "'day': Input should be a date written YYYY-MM-DD, not a number or digits alone (read "
                               "as a Unix timestamp), or input should be 'today' (got 20260501)"),
])
def test_a_date_in_a_union_is_refused_with_pydantics_own_reason(t: Any, args: dict[str, Any], reason: str) -> None:
    text = _text(t, args)
    assert reason in text, text
    assert "should be a valid date (" not in text and "should be a valid datetime" not in text
    assert "a valid date," not in text


@pytest.mark.parametrize("t, args, expected", [
    (_remind, {"after": 5}, "5"), (_remind, {"after": "20260501"}, "20260501"),
    (_remind, {"after": "2026-05-01"}, "datetime.date(2026, 5, 1)"),
    (_plan, {"days": ["2026-05-01"]}, "[datetime.date(2026, 5, 1)]"),
    (_schedule, {"at": "2026-05-15T10:00:00"}, "datetime.datetime(2026, 5, 15, 10, 0)"),
    (_schedule, {"at": "20260515"}, "'20260515'"),
    (_pick, {"day": "today"}, "'today'"),
])
def test_a_date_in_a_union_still_takes_dates_and_leaves_numbers_to_the_others(t: Any, args: dict[str, Any],
                                                                              expected: str) -> None:
    assert _text(t, args) == expected
