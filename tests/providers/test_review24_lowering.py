"""Review 24, defects 2-4 (lowering and messages); each test failed before its fix.

2. OpenAI ``strict=True`` sent schemas the API rejects: ``prefixItems`` (a tuple), objects nested past the
   Structured Outputs limits, too many enum values, and a nested ``extra="allow"`` model turned silently into
   ``additionalProperties: false``. They now go non-strict with a :class:`StrictSchemaWarning`, as the other
   constructs strict mode cannot express already did.
3. A tool whose top-level parameters schema is a union (``tool_from_schema``, an MCP tool) reached Gemini with
   no ``"type": "OBJECT"`` (400 "parameters schema should be of type OBJECT") and OpenAI with a top-level
   ``anyOf`` (400 "schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top
   level"); both now fold it into one object, as Anthropic's lowering did.
4. An empty-string tool call id was kept, though ids are always non-empty (docs/architecture.md).
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from toolwire import tool
from toolwire.errors import SchemaError
from toolwire.interop.openai_tools import tool_from_schema
from toolwire.messages import AIMessage, HumanMessage, ToolMessage
from toolwire.models.lowering import gemini, openai
from toolwire.models.lowering._gemini_schema import gemini_schema
from toolwire.models.lowering._openai_strict import MAX_ENUM_VALUES, MAX_NESTING, StrictLimitError, strict_schema
from toolwire.models.lowering.anthropic import convert_to_anthropic_tool
from toolwire.models.lowering.openai import StrictSchemaWarning, convert_to_openai_tool

# -- 2: OpenAI strict mode past what the API takes ---------------------------------------------------------------


class Labels(BaseModel):
    model_config = ConfigDict(extra="allow")
    title: str


@tool
def tag(item: str, labels: Labels) -> str:
    """Tag an item with labels (extra labels are welcome)."""
    return item


@tool
def move(to: tuple[int, str]) -> str:
    """Move to a (floor, room) place."""
    return str(to)


@tool
def fine(city: str, days: int = 1) -> str:
    """A schema strict mode takes."""
    return city


def _strict_or_warning(one: Any) -> tuple[dict[str, Any], list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = convert_to_openai_tool(one, strict=True)["function"]
    return out, [str(w.message) for w in caught if issubclass(w.category, StrictSchemaWarning)]


def _nested(levels: int) -> dict[str, Any]:
    """An argument schema of ``levels`` objects, each inside the one before (the root is the first)."""
    node: dict[str, Any] = {"type": "object", "properties": {"leaf": {"type": "string"}}, "required": ["leaf"]}
    for _ in range(levels - 1):
        node = {"type": "object", "properties": {"inner": node}, "required": ["inner"]}
    return node


def test_a_nested_model_with_extra_allow_is_not_made_strict():
    function, warned = _strict_or_warning(tag)
    assert "strict" not in function
    assert function["parameters"]["properties"]["labels"]["additionalProperties"] is True
    assert warned and "keys beyond its declared properties" in warned[0]


def test_a_tuple_is_not_made_strict():
    function, warned = _strict_or_warning(move)
    assert "strict" not in function
    assert "prefixItems" in function["parameters"]["properties"]["to"]
    assert warned and "a tuple" in warned[0]


def test_a_schema_within_the_limits_stays_strict():
    function, warned = _strict_or_warning(fine)
    assert function["strict"] is True and not warned
    assert strict_schema(_nested(MAX_NESTING))["required"] == ["inner"]


def test_objects_nested_past_the_limit_are_not_made_strict():
    spec = {"name": "deep", "description": "Deep.", "parameters": _nested(MAX_NESTING + 1)}
    with pytest.raises(StrictLimitError, match=r"11 levels of nested objects, past the limit of 10"):
        strict_schema(spec["parameters"])
    function, warned = _strict_or_warning({"type": "function", "function": spec})
    assert "strict" not in function
    assert warned and "levels of nested objects" in warned[0] and "fewer or flatter parameters" in warned[0]


def test_objects_nested_in_arrays_count_as_levels():
    node = _nested(MAX_NESTING)
    params = {"type": "object", "properties": {"rows": {"type": "array", "items": node}}, "required": ["rows"]}
    with pytest.raises(StrictLimitError, match="levels of nested objects"):
        strict_schema(params)


def test_too_many_enum_values_are_not_made_strict():
    values = [f"v{i}" for i in range(MAX_ENUM_VALUES + 1)]
    params = {"type": "object", "properties": {"pick": {"type": "string", "enum": values}}, "required": ["pick"]}
    with pytest.raises(StrictLimitError, match=r"1001 enum values in all"):
        strict_schema(params)
    # split over several parameters, the total counts
    half = {"type": "string", "enum": values[:600]}
    with pytest.raises(StrictLimitError, match=r"1200 enum values in all"):
        strict_schema({"type": "object", "properties": {"a": half, "b": half}, "required": ["a", "b"]})


def test_a_long_large_string_enum_is_not_made_strict():
    values = [f"{i:03d}" + "x" * 60 for i in range(300)]  # 300 values of 63 characters: 18,900 in all
    params = {"type": "object", "properties": {"pick": {"type": "string", "enum": values}}, "required": ["pick"]}
    with pytest.raises(StrictLimitError, match=r"characters in one string enum of over 250 values"):
        strict_schema(params)
    short = [f"{i:03d}" for i in range(300)]
    assert strict_schema({**params, "properties": {"pick": {"type": "string", "enum": short}}})


def test_too_many_properties_are_not_made_strict():
    props = {f"p{i}": {"type": "integer"} for i in range(5001)}
    with pytest.raises(StrictLimitError, match=r"5001 object properties in all"):
        strict_schema({"type": "object", "properties": props, "required": list(props)})


def test_a_root_that_takes_any_keys_is_not_made_strict():
    with pytest.raises(ValueError, match="free-form keys"):
        strict_schema({"type": "object", "properties": {}, "additionalProperties": True})


# -- 3: a top-level union of argument objects ----------------------------------------------------------------------

UNION = {"anyOf": [{"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
                   {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}]}


def _find(**kwargs: Any) -> Any:
    return kwargs


@pytest.mark.parametrize("parameters", [UNION, {"type": "object", **UNION}, {"oneOf": UNION["anyOf"]}])
def test_gemini_gets_one_object_for_a_top_level_union(parameters):
    found = tool_from_schema({"name": "find", "description": "Find a user.", "parameters": parameters}, _find)
    declared = gemini.convert_to_gemini_tool(found)["parameters"]
    assert declared["type"] == "OBJECT" and "any_of" not in declared and "anyOf" not in declared
    assert declared["properties"] == {"id": {"type": "INTEGER"}, "name": {"type": "STRING"}}
    assert "Give id or name" in declared["description"]


def test_gemini_folds_a_raw_union_with_refs_and_says_so():
    parameters = {"$defs": {"ById": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}},
                  "anyOf": [{"$ref": "#/$defs/ById"}, UNION["anyOf"][1]]}
    out, dropped = gemini_schema(parameters, "find")
    assert out is not None and out["type"] == "OBJECT" and set(out["properties"]) == {"id", "name"}
    assert "anyOf at the top" in dropped


def test_gemini_refuses_a_top_level_union_of_non_objects():
    with pytest.raises(SchemaError, match=r"cannot be sent to Gemini: .*top-level anyOf of non-object schemas"):
        gemini_schema({"anyOf": [{"type": "string"}, {"type": "integer"}]}, "odd")


@pytest.mark.parametrize("parameters", [UNION, {"type": "object", **UNION}])
def test_openai_gets_one_object_for_a_top_level_union(parameters):
    found = tool_from_schema({"name": "find", "description": "Find a user.", "parameters": parameters}, _find)
    for function in (convert_to_openai_tool(found)["function"], openai.convert_to_openai_responses_tool(found)):
        sent = function["parameters"]
        assert sent["type"] == "object" and not any(k in sent for k in ("anyOf", "oneOf", "allOf"))
        assert set(sent["properties"]) == {"id", "name"}
    function, warned = _strict_or_warning(found)  # strict mode still refuses the union: sent non-strict
    assert "strict" not in function and warned and function["parameters"]["type"] == "object"


def test_the_three_providers_fold_a_union_the_same_way():
    found = tool_from_schema({"name": "find", "description": "Find a user.", "parameters": UNION}, _find)
    anthropic = convert_to_anthropic_tool(found)["input_schema"]
    assert convert_to_openai_tool(found)["function"]["parameters"] == anthropic
    # the arguments are still checked against the full schema
    assert found.invoke({"name": "ada"}) == {"name": "ada"}


# -- 4: an empty tool call id ----------------------------------------------------------------------------------------


def test_an_empty_call_id_is_replaced():
    message = AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1}, "id": "", "type": "tool_call"},
                                        {"name": "add", "args": '{"a": 2}', "id": ""},
                                        {"name": "add", "args": {"a": 3}, "id": ""}])
    ids = [c["id"] for c in message.tool_calls]
    assert all(isinstance(i, str) and i for i in ids) and len(set(ids)) == 3


def test_an_empty_invalid_call_id_is_replaced():
    message = AIMessage("", invalid_tool_calls=[{"name": "add", "args": "{", "id": "", "error": "cut",
                                                 "type": "invalid_tool_call"}])
    assert message.invalid_tool_calls[0]["id"]


def test_gemini_names_the_result_of_a_call_that_had_an_empty_id():
    call = AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1}, "id": "", "type": "tool_call"}])
    result = ToolMessage("2", tool_call_id=call.tool_calls[0]["id"])  # no name: read from the call
    _, contents = gemini.lower_messages([HumanMessage("add"), call, result])
    response = contents[-1]["parts"][0]["function_response"]
    assert response["name"] == "add"


def test_openai_never_sends_an_empty_call_id():
    call = AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1}, "id": "", "type": "tool_call"}])
    messages = openai.lower_messages([HumanMessage("add"), call,
                                      ToolMessage("2", tool_call_id=call.tool_calls[0]["id"])])
    assert messages[1]["role"] == "assistant" and messages[1]["tool_calls"][0]["id"]
    assert messages[2]["tool_call_id"] == messages[1]["tool_calls"][0]["id"]
