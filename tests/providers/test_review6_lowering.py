"""Review 6 regressions in tool conversion and the providers' schema lowering: an OpenAI tool dict's
``$ref`` inlined (finding 6), OpenAI strict mode's unsupported keywords (finding 4), Gemini's nested
free-form objects (finding 7)."""

from __future__ import annotations

import copy
import json
import warnings

import pytest
from pydantic import BaseModel

from toolwire import SchemaError
from toolwire.models.base import to_tool
from toolwire.models.lowering.openai import convert_to_openai_tool


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
