"""Review 158 #3: folding a top-level union of argument sets keeps every alternative's schema of a key that several
branches declare (an ``enum`` of their ``const`` tags, else an ``anyOf``), so every alternative stays writable for
every provider, strict Anthropic and Gemini's ``enum`` included."""

from __future__ import annotations

import warnings
from typing import Any

import jsonschema

from toolwire.interop import tool_from_schema
from toolwire.models.lowering._common import merge_object_union
from toolwire.models.lowering._union_keys import shared_key_schema
from toolwire.models.lowering.anthropic import convert_to_anthropic_tool
from toolwire.models.lowering.gemini import convert_to_gemini_tool
from toolwire.models.lowering.openai import convert_to_openai_tool

TAGGED = {"oneOf": [
    {"type": "object", "properties": {"by": {"const": "id"}, "id": {"type": "integer"}}, "required": ["by", "id"]},
    {"type": "object", "properties": {"by": {"const": "email"}, "email": {"type": "string"}},
     "required": ["by", "email"]}]}
MIXED = {"anyOf": [
    {"type": "object", "properties": {"key": {"type": "integer", "minimum": 1}}, "required": ["key"]},
    {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}]}


def _tool(parameters: dict[str, Any]) -> Any:
    return tool_from_schema({"type": "function", "function": {"name": "lookup", "description": "Find a user.",
                                                             "parameters": parameters}}, lambda **kw: f"found {kw}")


def _lowered(parameters: dict[str, Any]) -> dict[str, dict[str, Any]]:
    t = _tool(parameters)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {"openai": convert_to_openai_tool(t)["function"]["parameters"],
                "openai strict": convert_to_openai_tool(t, strict=True)["function"]["parameters"],
                "anthropic": convert_to_anthropic_tool(t)["input_schema"],
                "anthropic strict": convert_to_anthropic_tool(t, strict=True)["input_schema"]}


def test_a_shared_tag_takes_every_alternative():
    for where, schema in _lowered(TAGGED).items():
        assert schema["properties"]["by"] == {"enum": ["id", "email"]}, where
        for args in ({"by": "id", "id": 3}, {"by": "email", "email": "a@b.c"}):
            assert jsonschema.Draft202012Validator(schema).is_valid(args), (where, args)
    gemini = convert_to_gemini_tool(_tool(TAGGED))["parameters"]
    assert gemini["properties"]["by"] == {"type": "STRING", "enum": ["id", "email"]}


def test_a_shared_key_of_different_types_takes_each():
    for where, schema in _lowered(MIXED).items():
        for args in ({"key": 3}, {"key": "abc"}):
            assert jsonschema.Draft202012Validator(schema).is_valid(args), (where, args)
    gemini = convert_to_gemini_tool(_tool(MIXED))["parameters"]
    assert [b["type"] for b in gemini["properties"]["key"]["any_of"]] == ["INTEGER", "STRING"]


def test_the_objects_own_schema_and_allof_are_kept_as_before():
    node = {"type": "object", "properties": {"by": {"type": "string"}}, **TAGGED}
    assert merge_object_union(node, [("oneOf", TAGGED["oneOf"])])["properties"]["by"] == {"type": "string"}
    both = [{"properties": {"x": {"type": "integer"}}}, {"properties": {"x": {"minimum": 0}}}]
    assert merge_object_union({"type": "object"}, [("allOf", both)])["properties"]["x"] == {"type": "integer"}


def test_shared_key_schema():
    same = {"type": "string"}
    assert shared_key_schema([same, dict(same)]) == same
    assert shared_key_schema([{"const": 1}, {"enum": [True, 1.0, 1]}]) == {"enum": [1, True, 1.0]}
    assert shared_key_schema([{"type": "string", "const": "a", "description": "the tag"},
                              {"type": "string", "enum": ["b", "a"]}]) == {"enum": ["a", "b"], "type": "string",
                                                                           "description": "the tag"}
    assert shared_key_schema([{"const": "a"}, {"type": "string"}]) == {"anyOf": [{"const": "a"}, {"type": "string"}]}
