"""Gemini gets one OBJECT for a tool whose arguments are a top-level allOf of unions of objects, as OpenAI and
Anthropic get the fold (review 204 #1, the Gemini part)."""

from __future__ import annotations

from toolwire.models.lowering._gemini_schema import gemini_schema


def _obj(key: str) -> dict:
    return {"type": "object", "properties": {key: {"type": "string"}}}


def test_a_top_level_all_of_of_unions_is_one_object() -> None:
    schema = {"allOf": [{"type": "object", "anyOf": [_obj("a"), _obj("b")]},
                        {"type": "object", "oneOf": [_obj("c"), _obj("d")]}]}
    out, _ = gemini_schema(schema, "t")
    assert out is not None and out["type"] == "OBJECT"
    assert set(out["properties"]) == {"a", "b", "c", "d"}


def test_a_top_level_all_of_of_objects_is_still_merged() -> None:
    out, _ = gemini_schema({"allOf": [{**_obj("a"), "required": ["a"]}, _obj("b")]}, "t")
    assert out == {"type": "OBJECT", "properties": {"a": {"type": "STRING"}, "b": {"type": "STRING"}},
                   "required": ["a"]}
