"""Review 6 regressions in tool conversion and the providers' schema lowering: an OpenAI tool dict's
``$ref`` inlined (finding 6), OpenAI strict mode's unsupported keywords (finding 4), Gemini's nested
free-form objects (finding 7)."""

from __future__ import annotations

import copy
import json
import re
import warnings
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from toolwire import SchemaError, ToolValidationError, tool
from toolwire.interop import tool_from_schema
from toolwire.models.base import to_tool
from toolwire.models.lowering.openai import StrictSchemaWarning, convert_to_openai_tool, strict_schema


class Item(BaseModel):
    sku: str
    qty: int


class Order(BaseModel):
    items: list[Item]
    note: str | None = None


def test_an_openai_tool_dict_gets_its_refs_inlined() -> None:
    params = Order.model_json_schema()
    d = {"type": "function", "function": {"name": "order", "description": "Place an order.", "parameters": params}}
    before = copy.deepcopy(d)
    item = {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
            "required": ["sku", "qty"]}
    assert to_tool(d).parameters == {
        "type": "object", "required": ["items"],
        "properties": {"items": {"type": "array", "items": item},
                       "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}}}
    assert d == before  # the caller's dict is not changed
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # strict works: no "cannot use OpenAI strict mode" warning
        out = convert_to_openai_tool(d, strict=True)["function"]
    assert out["strict"] is True and "$ref" not in json.dumps(out) and "$defs" not in json.dumps(out)


def test_an_openai_tool_dict_with_a_recursive_ref_is_refused() -> None:
    d = {"name": "tree", "description": "T.", "parameters": {
        "type": "object", "properties": {"node": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object",
                           "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}}
    with pytest.raises(SchemaError, match="refers to itself"):
        to_tool(d)


# -- finding 4: OpenAI strict mode gets no oneOf, discriminator or uniqueItems ---------------------------


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    meow: int


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    bark: int


def test_strict_turns_a_discriminated_union_into_anyof_and_drops_discriminator_and_unique_items() -> None:
    @tool
    def adopt(pet: Annotated[Cat | Dog, Field(discriminator="kind")], tags: set[str] = set()) -> str:  # noqa: B006
        """Adopt a pet."""
        return f"{type(pet).__name__}:{sorted(tags)}"

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = convert_to_openai_tool(adopt, strict=True)["function"]
    assert out["strict"] is True
    text = json.dumps(out["parameters"])
    for refused in ('"oneOf"', '"discriminator"', '"uniqueItems"', '"default"'):
        assert refused not in text
    pet = out["parameters"]["properties"]["pet"]
    assert [branch["properties"]["kind"]["const"] for branch in pet["anyOf"]] == ["cat", "dog"]
    assert all(branch["required"] == list(branch["properties"]) for branch in pet["anyOf"])
    assert out["parameters"]["properties"]["tags"] == {"type": ["array", "null"], "items": {"type": "string"},
                                                       "description": "Items must be unique. Default: []."}
    assert "uniqueItems" in json.dumps(adopt.parameters)  # the tool's own schema is unchanged
    # what a strict model sends is accepted; a pydantic set drops duplicates as it always did
    assert adopt.invoke({"pet": {"kind": "dog", "bark": 2}, "tags": None}) == "Dog:[]"
    assert adopt.invoke({"pet": {"kind": "cat", "meow": 1}, "tags": ["a", "a"]}) == "Cat:['a']"


def test_unique_items_dropped_for_strict_is_still_enforced_on_the_call() -> None:
    spec = {"name": "tagit", "description": "Tag.", "parameters": {
        "type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}},
        "required": ["tags"]}}
    made = tool_from_schema(spec, lambda tags: ",".join(tags))
    assert strict_schema(made.parameters)["properties"]["tags"] == {  # (said in the description: review 94 #8)
        "type": "array", "items": {"type": "string"}, "description": "Items must be unique."}
    assert made.invoke({"tags": ["a", "b"]}) == "a,b"
    with pytest.raises(ToolValidationError, match="non-unique"):
        made.invoke({"tags": ["a", "a"]})


def _strict_params(prop: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"v": prop}, "required": ["v"]}


def test_strict_turns_a_oneof_of_distinct_types_into_anyof() -> None:
    branches = [{"type": "string"}, {"type": "integer"}, {"type": "array", "items": {"type": "integer"}}]
    assert strict_schema(_strict_params({"oneOf": branches}))["properties"]["v"] == {"anyOf": branches}


@pytest.mark.parametrize(
    ("prop", "reason"),
    [
        ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, "a oneOf whose alternatives may overlap"),
        ({"oneOf": [{"type": "object", "properties": {"a": {"type": "integer"}}},
                    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}}]},
         "a oneOf whose alternatives may overlap"),
        ({"oneOf": [{"type": "object", "properties": {"k": {"enum": ["x", "y"]}}, "required": ["k"]},
                    {"type": "object", "properties": {"k": {"enum": ["y", "z"]}}, "required": ["k"]}]},
         "a oneOf whose alternatives may overlap"),
        ({"allOf": [{"type": "integer"}, {"minimum": 1}]}, "an allOf"),
        ({"type": "integer", "not": {"const": 3}}, "a 'not' schema"),
        ({"type": "string", "if": {"minLength": 2}, "then": {"pattern": "^a"}}, "an if/then/else schema"),
    ],
)
def test_strict_refuses_what_it_cannot_express_and_the_tool_goes_non_strict(prop: dict[str, Any], reason: str) -> None:
    spec = {"name": "g", "description": "G.", "parameters": _strict_params(prop)}
    with pytest.raises(ValueError, match=re.escape(reason)):
        strict_schema(spec["parameters"])
    with pytest.warns(StrictSchemaWarning, match=re.escape(reason)):
        out = convert_to_openai_tool(spec, strict=True)
    assert "strict" not in out["function"] and out["function"]["parameters"] == spec["parameters"]


def test_strict_refuses_a_top_level_union() -> None:
    params = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
              "anyOf": [{"required": ["id"]}, {"required": ["name"]}]}
    with pytest.raises(ValueError, match="top-level union"):
        strict_schema(params)


# -- finding 7: Gemini gets no OBJECT without properties below the top --------------------------------


def _empty_objects(node: Any, path: str = "") -> list[str]:
    """Paths of Gemini OBJECT schemas without properties (the API answers 400 "should be non-empty for OBJECT type")."""
    found: list[str] = []
    if isinstance(node, dict):
        if node.get("type") == "OBJECT" and not node.get("properties"):
            found.append(path or "the top")
        for key, value in node.items():
            found += _empty_objects(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _empty_objects(value, f"{path}[{i}]")
    return found


class Config(BaseModel):
    env: dict[str, str]


def test_gemini_sends_a_nested_free_form_object_as_json_text() -> None:
    from toolwire.models.lowering.gemini import convert_to_gemini_tool, gemini_schema

    @tool
    def setup(scores: dict[str, int], cfg: Config, meta: dict = {},  # noqa: B006
              opt: Annotated[dict[str, str] | None, Field(description="Options.")] = None,
              rows: list[dict[str, int]] = []) -> str:  # noqa: B006
        """Set up."""
        return f"{scores}|{cfg.env}|{meta}|{opt}|{rows}"

    schema, dropped = gemini_schema(setup.parameters, "setup")
    assert _empty_objects(schema) == []
    props = schema["properties"]
    hint = "A JSON object written as a string, e.g. '{\"key\": ...}'"
    assert props["scores"] == {"type": "STRING", "description": f"{hint}, each value of type integer."}
    assert props["meta"] == {"type": "STRING", "description": f"{hint}. Default: {{}}."}  # (review 61: the default)
    assert props["opt"] == {"type": "STRING", "nullable": True,
                            "description": f"Options. ({hint}, each value of type string.)"}
    assert props["rows"] == {"type": "ARRAY", "description": "Default: [].",
                             "items": {"type": "STRING", "description": f"{hint}, each value of type integer."}}
    assert props["cfg"]["properties"]["env"]["type"] == "STRING"
    for path in ("scores", "cfg.env", "meta", "opt", "rows[]"):
        assert f"type object at {path}" in dropped
    assert _empty_objects(convert_to_gemini_tool(setup)) == []
    # what a model following that schema sends is decoded before validation
    args = {"scores": '{"a": 1}', "cfg": {"env": {"K": "v"}}, "meta": '{"x": [1]}'}
    message = setup.invoke({"name": "setup", "args": args, "id": "g1", "type": "tool_call"})
    assert (message.status, message.content) == ("success", "{'a': 1}|{'K': 'v'}|{'x': [1]}|None|[]")


def test_gemini_top_level_object_without_properties_still_sends_no_parameters() -> None:
    from toolwire.models.lowering.gemini import gemini_schema

    assert gemini_schema({"type": "object", "additionalProperties": {"type": "string"}}, "free") == (
        None, ["additionalProperties at the top"])
