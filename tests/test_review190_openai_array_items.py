"""Review 190 #1: an array without ``items`` (as many MCP servers write a list) is sent to OpenAI with ``items``."""

from __future__ import annotations

import copy
import json
import warnings
from typing import Any

import pytest

from toolwire.errors import StrictSchemaWarning
from toolwire.models.lowering.openai import convert_to_openai_responses_tool, convert_to_openai_tool

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tags": {"type": "array"},
        "maybe": {"type": ["array", "null"]},
        "grid": {"type": "array", "items": {"type": "array"}},
        "either": {"anyOf": [{"type": "string"}, {"type": "array"}]},
        "any_items": {"type": "array", "items": True},
        "inner": {"type": "object", "properties": {"xs": {"type": "array", "description": "d"}}},
        "ref": {"$ref": "#/$defs/Box"},
    },
    "required": ["tags"],
    "$defs": {"Box": {"type": "object", "properties": {"ys": {"type": "array"}}}},
}


def _tool() -> dict[str, Any]:
    return {"name": "t", "description": "T.", "parameters": copy.deepcopy(_SCHEMA)}


def _arrays(node: Any) -> list[dict[str, Any]]:
    """Every array node of a schema (walking dict and list values)."""
    out: list[dict[str, Any]] = []
    if isinstance(node, dict):
        kind = node.get("type")
        if kind == "array" or (isinstance(kind, list) and "array" in kind):
            out.append(node)
        for value in node.values():
            out += _arrays(value)
    elif isinstance(node, list):
        for value in node:
            out += _arrays(value)
    return out


@pytest.mark.parametrize("strict", [False, True])
def test_every_array_sent_to_openai_has_items(strict: bool) -> None:
    tool = _tool()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chat = convert_to_openai_tool(tool, strict=strict)["function"]
        responses = convert_to_openai_responses_tool(tool, strict=strict)
    for params in (chat["parameters"], responses["parameters"]):
        arrays = _arrays(params)
        assert len(arrays) == 8, json.dumps(params)  # (grid's inner array counted too; the $ref is inlined)
        assert all(isinstance(a.get("items"), dict) for a in arrays), json.dumps(params)
    props = chat["parameters"]["properties"]
    assert props["tags"] == {"type": "array", "items": {}}
    assert props["inner"]["properties"]["xs"] == {"type": "array", "description": "d", "items": {}}
    assert props["ref"]["properties"]["ys"] == {"type": "array", "items": {}}
    assert tool["parameters"] == _SCHEMA  # (the tool's own schema is left as it was)
    if strict:  # (strict mode takes no items: {}: sent non-strict, said by a warning)
        assert "strict" not in chat and responses["strict"] is False
        assert any(issubclass(w.category, StrictSchemaWarning) for w in caught)


def test_strict_stays_strict_when_every_array_has_items() -> None:
    tool = {"name": "t", "description": "T.", "parameters": {
        "type": "object", "properties": {"xs": {"type": "array", "items": {"type": "integer"}}}, "required": ["xs"]}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        function = convert_to_openai_tool(tool, strict=True)["function"]
    assert function["strict"] is True
    assert function["parameters"]["properties"]["xs"] == {"type": "array", "items": {"type": "integer"}}


def test_a_nested_strict_array_without_items_goes_non_strict() -> None:
    tool = {"name": "t", "description": "T.", "parameters": {
        "type": "object", "properties": {"o": {"type": "object", "properties": {"xs": {"type": "array"}},
                                               "required": ["xs"]}}, "required": ["o"]}}
    with pytest.warns(StrictSchemaWarning, match="items"):
        function = convert_to_openai_tool(tool, strict=True)["function"]
    assert "strict" not in function
    assert function["parameters"]["properties"]["o"]["properties"]["xs"] == {"type": "array", "items": {}}


def test_with_items_reaches_defs_and_leaves_its_input_alone() -> None:
    from toolwire.models.lowering._tuples import untyped_items, with_items

    schema = copy.deepcopy(_SCHEMA)
    out = with_items(schema)
    assert schema == _SCHEMA and out is not schema
    assert out["$defs"]["Box"]["properties"]["ys"] == {"type": "array", "items": {}}
    assert not untyped_items(out) and untyped_items(schema)
    typed = {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "string"}}}}
    assert with_items(typed) is typed  # (nothing to add: the same object)
    data = {"type": "object", "properties": {"x": {"type": "string", "enum": [{"type": "array"}]}}}
    assert with_items(data) is data  # (an enum value is data, not a schema)
