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
from typing import Any

import pytest

from toolwire.interop.openai_tools import tool_from_schema
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
