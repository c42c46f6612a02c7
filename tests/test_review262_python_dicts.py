"""Review 262 #2: a call written as a Python dict (row P3) whose arguments hold a Python literal JSON has no direct form
for is read the way the pythonic call form reads it: an int, float, bool or None dict key becomes its JSON text
(``{3: 'North'}`` -> ``{"3": "North"}``), a tuple a list; a set (or a key of another kind) gives an error naming it,
not "neither valid JSON nor a Python literal"."""

from __future__ import annotations

import pytest

from toolwire import ToolExecutor, tool
from toolwire.parsing import parse_tool_calls


@tool
def zones(names: dict[int, str]) -> str:
    """Name the zones by number."""
    return repr(names)


_FORMS = [
    "{'name': 'zones', 'arguments': %s}",
    "<tool_call>\n{'name': 'zones', 'arguments': %s}\n</tool_call>",
    "[{'name': 'zones', 'arguments': %s}]",
    "<function=zones>%s</function>",
]


@pytest.mark.parametrize("form", _FORMS)
def test_scalar_dict_keys_are_read_as_the_pythonic_form_reads_them(form):
    pythonic = parse_tool_calls("[zones(names={3: 'North', -1: 'x', 1.5: 'y', True: 'z', None: 'w'})]", ["zones"])
    reply = parse_tool_calls(form % "{'names': {3: 'North', -1: 'x', 1.5: 'y', True: 'z', None: 'w'}}", ["zones"])
    assert reply.invalid_tool_calls == []
    assert [c["args"] for c in reply.tool_calls] == [c["args"] for c in pythonic.tool_calls]
    assert reply.tool_calls[0]["args"] == {"names": {"3": "North", "-1": "x", "1.5": "y", "true": "z", "null": "w"}}


def test_the_call_runs_with_int_keys():
    reply = parse_tool_calls("{'name': 'zones', 'arguments': {'names': {3: 'North'}}}", ["zones"])
    [answer] = ToolExecutor([zones]).call(reply.tool_calls, reply.invalid_tool_calls)
    assert answer.content == "{3: 'North'}"


def test_a_tuple_is_a_list():
    reply = parse_tool_calls("<tool_call>{'name': 'zones', 'arguments': {'tags': ('a', 'b')}}</tool_call>", ["zones"])
    assert reply.tool_calls[0]["args"] == {"tags": ["a", "b"]}


@pytest.mark.parametrize(("value", "named"), [
    ("{'a', 'b'}", "a set value"),
    ("{(1, 2): 'a'}", "a key that is not a string, number, True, False or None ((1, 2))"),
    ("{3: 'a', '3': 'b'}", "two keys of the same text ('3')"),
])
@pytest.mark.parametrize("form", _FORMS)
def test_a_value_json_cannot_carry_is_named(form, value, named):
    reply = parse_tool_calls(form % "{'tags': %s}" % value, ["zones"])
    assert reply.tool_calls == []
    [invalid] = reply.invalid_tool_calls
    assert invalid["name"] == "zones"
    assert f"holds {named}, which JSON cannot carry" in invalid["error"]
    assert "nor a Python literal" not in invalid["error"]
