"""Review 269 #4-#5.

#4: argument text written as a Python dict (a native call's ``function.arguments``, ``tool.invoke``'s ``args``) reads
an int, float, bool or None dict key as a call written as a Python dict does (``{3: 'North'}`` -> ``{"3": "North"}``),
and names a set, a tuple key or two keys of one text in its error.

#5: the 400 a Mistral-family server answers for a tool call id that is not 9 letters and digits (a Mistral model
served under a name toolwire does not know as Mistral's) says to pass ``ChatOpenAI(..., mistral_call_ids=True)``, and
is not retried; the command line, which has no such option, says to give the model a Mistral name instead.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolwire import AIMessage, ToolExecutor, tool
from toolwire.errors import ToolCallParseError
from toolwire.parsing import parse_tool_calls
from toolwire.parsing.arguments import normalize_arguments, tool_call_from_native


@tool
def zones(names: dict[int, str], final: bool = False) -> str:
    """Name the zones by number."""
    return repr(names)


# ------------------------------------------------------------------------------------------- #4: dict keys


@pytest.mark.parametrize(("text", "expected"), [
    ("{'names': {3: 'North'}}", {"names": {"3": "North"}}),
    ("{'names': {-1: 'South', 2.5: 'x'}, 'final': True}", {"names": {"-1": "South", "2.5": "x"}, "final": True}),
    ("{'names': {None: 'a', False: 'b'}}", {"names": {"null": "a", "false": "b"}}),
    ("{'names': {123456789012345678901234567890: 'a'}}", {"names": {"123456789012345678901234567890": "a"}}),
    ("{'names': {3: 'North', 'x': {4: {5: 'deep'}}}}", {"names": {"3": "North", "x": {"4": {"5": "deep"}}}}),
])
def test_python_dict_argument_text_reads_scalar_keys_as_a_python_dict_call_does(text: str, expected: Any) -> None:
    assert normalize_arguments(text) == expected
    assert normalize_arguments(json.dumps(text)) == expected  # (double-encoded: a JSON string holding the dict)
    in_reply = parse_tool_calls(f"{{'name': 'zones', 'arguments': {text}}}", tool_names=["zones"])
    assert [c["args"] for c in in_reply.tool_calls] == [expected]


def test_native_call_and_tool_invoke_run_with_an_int_key() -> None:
    call = tool_call_from_native("zones", "{'names': {3: 'North'}, 'final': True}", "call_1")
    assert call["type"] == "tool_call" and call["args"] == {"names": {"3": "North"}, "final": True}
    assert ToolExecutor([zones]).execute(AIMessage("", tool_calls=[call]))[0].content == "{3: 'North'}"
    given = {"name": "zones", "args": "{'names': {3: 'North', 4: 'South'}}", "id": "c1", "type": "tool_call"}
    assert zones.invoke(given).content == "{3: 'North', 4: 'South'}"


@pytest.mark.parametrize(("text", "named"), [
    ("{'names': {1: 'a', '1': 'b'}}", "two keys of the same text ('1')"),
    ("{'names': {(1, 2): 'a'}}", "a key that is not a string, number, True, False or None ((1, 2))"),
    ("{'names': {1e400: 'a'}}", "a key that is not a string, number, True, False or None (inf)"),
    ("{'names': {3: {1, 2}}}", "a set value"),
    ("{'names': {3: b'North'}}", "a bytes value"),
])
def test_values_json_cannot_carry_are_named_as_in_a_python_dict_call(text: str, named: str) -> None:
    with pytest.raises(ToolCallParseError) as caught:
        normalize_arguments(text)
    message = str(caught.value)
    assert f"hold {named}, which JSON cannot carry" in message
    assert "write lists for sets, and strings or numbers for dict keys" in message
    in_reply = parse_tool_calls(f"{{'name': 'zones', 'arguments': {text}}}", tool_names=["zones"])
    assert f"holds {named}, which JSON cannot carry" in in_reply.invalid_tool_calls[0]["error"]
    invalid = tool_call_from_native("zones", text, "call_1")
    assert invalid["type"] == "invalid_tool_call" and named in (invalid["error"] or "")


def test_a_key_given_twice_as_int_and_bool_is_refused() -> None:
    with pytest.raises(ToolCallParseError, match="given twice"):
        normalize_arguments("{'names': {1: 'a', True: 'b'}}")
