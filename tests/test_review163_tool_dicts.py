"""Review 163 #1: a tool dict with its schema under MCP's ``inputSchema`` or google-genai's
``parameters_json_schema`` keeps its parameters in ``bind_tools``, and Anthropic is sent only the keys its tool
definition takes."""

from __future__ import annotations

import logging

import pytest

from toolwire.interop import tool_from_schema
from toolwire.models.base import to_tool_spec
from toolwire.models.lowering.anthropic import convert_to_anthropic_tool
from toolwire.models.lowering.openai import convert_to_openai_tool

SCHEMA = {"type": "object", "properties": {"latitude": {"type": "number"}, "longitude": {"type": "number"}},
          "required": ["latitude", "longitude"]}
MCP_TOOL = {"name": "get_forecast", "title": "Forecast", "description": "Weather forecast for a location.",
            "inputSchema": SCHEMA, "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True},
            "_meta": {"x": 1}}


@pytest.mark.parametrize("key", ["inputSchema", "parameters_json_schema", "parametersJsonSchema"])
def test_schema_keys_read_as_tool_from_schema_reads_them(key: str) -> None:
    tool = {"name": "get_forecast", "description": "Weather forecast for a location.", key: SCHEMA}
    spec = to_tool_spec(tool)
    assert spec.parameters == SCHEMA
    assert spec.parameters == tool_from_schema(tool, lambda latitude, longitude: 0).parameters
    assert convert_to_openai_tool(tool)["function"]["parameters"] == SCHEMA
    assert key not in convert_to_anthropic_tool(tool)


def test_anthropic_gets_only_its_tool_keys(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="toolwire"):
        sent = convert_to_anthropic_tool(MCP_TOOL)
    assert sent == {"name": "get_forecast", "description": "Weather forecast for a location.", "input_schema": SCHEMA}
    assert "_meta, annotations, outputSchema, title" in caplog.text
    kept = convert_to_anthropic_tool({**MCP_TOOL, "cache_control": {"type": "ephemeral"}, "defer_loading": True,
                                      "input_examples": [{"latitude": 1, "longitude": 2}]})
    assert kept["cache_control"] == {"type": "ephemeral"} and kept["defer_loading"] is True
    assert kept["input_examples"] == [{"latitude": 1, "longitude": 2}]
