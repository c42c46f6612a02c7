"""Review 228: strict-mode lowering of free-form objects.

#1: OpenAI strict mode read an object whose ``type`` is a list (``["object", "null"]``) as no object at all, so a
free-form one went out strict with no ``additionalProperties: false`` (a 400, or only ``{}``/``null`` for the model);
the suite's wire checker had the same blind spot.
#2: Anthropic strict tool use closed ``{"type": "object", "properties": {}}`` (any object, in JSON Schema) with
``additionalProperties: false``, so the model could only send ``{}``.
Both now send the tool non-strict with a StrictSchemaWarning, as a plain ``{"type": "object"}`` is.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire import tool
from toolwire.interop.openai_tools import tool_from_schema
from toolwire.models.lowering._anthropic_strict import NotStrictError, anthropic_strict_schema
from toolwire.models.lowering.anthropic import convert_to_anthropic_tool
from toolwire.models.lowering.openai import StrictSchemaWarning, convert_to_openai_tool, strict_schema

wire_openai = pytest.importorskip("providers.wire_openai")
wire_servers = pytest.importorskip("providers.wire_servers")


def _tool(meta: dict[str, Any]) -> Any:
    schema = {"type": "object", "properties": {"meta": meta}, "required": ["meta"]}
    return tool_from_schema(schema, lambda meta=None: f"tagged {meta}", name="tag", description="Tag a record.")


def _params(meta: dict[str, Any], required: bool = True) -> dict[str, Any]:
    return {"type": "object", "properties": {"meta": meta}, **({"required": ["meta"]} if required else {})}


FREE_TYPE_LISTS = [
    {"type": ["object", "null"]},
    {"type": ["object"]},
    {"type": ["object", "null"], "additionalProperties": {"type": "string"}},
    {"type": ["object", "null"], "additionalProperties": True},
    {"type": ["object", "null"], "properties": {}},
    {"type": ["object", "string"]},
]


@pytest.mark.parametrize("meta", FREE_TYPE_LISTS, ids=json.dumps)
def test_openai_free_form_object_with_a_type_list_is_not_strict(meta: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"free-form keys|no declared properties"):
        strict_schema(_params(meta))
    with pytest.warns(StrictSchemaWarning, match=r"free-form keys|no declared properties"):
        sent = convert_to_openai_tool(_tool(meta), strict=True)
    assert "strict" not in sent["function"]
    assert sent["function"]["parameters"]["properties"]["meta"] == meta  # (sent as the tool has it)


def test_openai_type_list_object_with_properties_is_closed() -> None:
    meta = {"type": ["object", "null"], "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    out = strict_schema(_params(meta))
    assert out["properties"]["meta"] == {"type": ["object", "null"], "required": ["a"],
                                         "properties": {"a": {"type": "integer"}}, "additionalProperties": False}
    closed = {"type": ["object", "null"], "additionalProperties": False}
    assert strict_schema(_params(closed))["properties"]["meta"] == {**closed, "properties": {}, "required": []}
    extra = {**meta, "additionalProperties": {"type": "string"}}
    with pytest.raises(ValueError, match="beyond its declared properties"):
        strict_schema(_params(extra))


def test_wire_checker_sees_an_object_whose_type_is_a_list() -> None:
    checker = wire_servers.Checker()
    wire_openai.check_strict(checker, _params({"type": ["object", "null"]}), "parameters")
    assert any("parameters.properties.meta" in p and "additionalProperties" in p for p in checker.problems)
    ok = wire_servers.Checker()
    wire_openai.check_strict(ok, strict_schema(_params({"type": ["object", "null"], "properties": {
        "a": {"type": "string"}}})), "parameters")
    assert ok.problems == []


FREE_EMPTY = [
    {"type": "object", "properties": {}},
    {"properties": {}},
    {"type": ["object", "null"], "properties": {}},
    {"anyOf": [{"type": "object", "properties": {}}, {"type": "null"}]},
    {"type": "array", "items": {"type": "object", "properties": {}}},
]


@pytest.mark.parametrize("meta", FREE_EMPTY, ids=json.dumps)
@pytest.mark.parametrize("required", [True, False])
def test_anthropic_object_with_empty_properties_is_not_strict(meta: dict[str, Any], required: bool) -> None:
    with pytest.raises(NotStrictError, match="beyond its declared properties"):
        anthropic_strict_schema(_params(meta, required))
    with pytest.raises(ValueError):  # (OpenAI's lowering reads it the same way)
        strict_schema(_params(meta, required))


def test_anthropic_sends_an_empty_properties_object_non_strict_with_a_warning() -> None:
    meta = {"type": "object", "properties": {}}
    t = _tool(meta)
    with pytest.warns(StrictSchemaWarning, match="beyond its declared properties"):
        sent = convert_to_anthropic_tool(t, strict=True)
    assert "strict" not in sent
    assert sent["input_schema"]["properties"]["meta"] == meta
    assert t.invoke({"id": "c1", "name": "tag", "args": {"meta": {"k": "v"}}, "type": "tool_call"}).status == \
        "success"


def test_anthropic_closed_and_root_objects_stay_strict() -> None:
    class Empty(BaseModel):  # (toolwire writes additionalProperties: false on it: a model without fields)
        pass

    def take(e: Empty, n: int = 1) -> str:
        """Take an empty model."""
        return ""

    with warnings.catch_warnings():
        warnings.simplefilter("error", StrictSchemaWarning)
        sent = convert_to_anthropic_tool(tool(take), strict=True)
    assert sent["strict"] is True
    assert sent["input_schema"]["properties"]["e"] == {"additionalProperties": False, "type": "object",
                                                       "properties": {}}
    closed = {"type": "object", "properties": {}, "additionalProperties": False}
    assert anthropic_strict_schema(_params(closed))["properties"]["meta"] == closed
    # a root with no (or empty) properties is a tool without arguments, as before
    for root in ({"type": "object"}, {"type": "object", "properties": {}}):
        assert anthropic_strict_schema(root) == {"type": "object", "properties": {}, "additionalProperties": False}
