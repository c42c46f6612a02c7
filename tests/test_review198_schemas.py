"""Review 198 #2-#6: JSON-Schema tools and their lowering for each provider."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from toolwire import Tool
from toolwire.errors import ToolDefinitionWarning
from toolwire.models.lowering.anthropic import convert_to_anthropic_tool
from toolwire.models.lowering.gemini import convert_to_gemini_tool
from toolwire.models.lowering.openai import convert_to_openai_tool


def _echo(**kw: Any) -> str:
    return f"got {sorted(kw.items())}"


def _call(t: Tool, args: dict[str, Any]) -> Any:
    return t.invoke({"type": "tool_call", "id": "1", "name": t.name, "args": args})


# -- #2: a required key that properties do not declare ------------------------------------------------------------

_UNDECLARED = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query", "limit"]}


def test_required_undeclared_key_is_taken_with_any_value_and_warned_once() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = Tool.from_schema(_echo, "search", "Search the docs.", _UNDECLARED)
    found = [w for w in caught if issubclass(w.category, ToolDefinitionWarning)]
    assert len(found) == 1 and "'limit'" in str(found[0].message) and "required" in str(found[0].message)
    assert _call(t, {"query": "x", "limit": 5}).status == "success"
    assert _call(t, {"query": "x", "limit": "ten"}).status == "success"
    missing = _call(t, {"query": "x"})
    assert missing.status == "error" and "limit" in missing.content
    assert _call(t, {"query": "x", "limit": 5, "other": 1}).status == "error"  # (others still refused)
    assert _UNDECLARED["properties"] == {"query": {"type": "string"}}  # (the input is not changed)


def test_required_undeclared_key_stays_required_in_every_lowering() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = Tool.from_schema(_echo, "search", "Search the docs.", _UNDECLARED)
        sent = [convert_to_openai_tool(t)["function"]["parameters"],
                convert_to_openai_tool(t, strict=True)["function"]["parameters"],
                convert_to_anthropic_tool(t)["input_schema"],
                convert_to_anthropic_tool(t, strict=True)["input_schema"],
                convert_to_gemini_tool(t)["parameters"]]
    for params in sent:
        assert "limit" in params["properties"] and "limit" in params["required"], params


def test_required_undeclared_key_nested_is_declared() -> None:
    schema = {"type": "object", "properties": {"f": {"type": "object", "properties": {"a": {"type": "string"}},
                                                     "required": ["a", "b"]}}, "required": ["f"]}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = Tool.from_schema(_echo, "nest", "Nested.", schema)
    assert any("'f.b'" in str(w.message) for w in caught)
    gem = convert_to_gemini_tool(t)["parameters"]["properties"]["f"]
    assert "b" in gem["properties"] and gem["required"] == ["a", "b"]


def test_no_warning_when_every_required_key_is_declared() -> None:
    schema = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Tool.from_schema(_echo, "search", "Search the docs.", schema)


def test_tool_from_schema_refuses_a_function_that_cannot_take_the_required_key() -> None:
    from toolwire.errors import SchemaError
    from toolwire.interop.openai_tools import tool_from_schema

    def search(query: str) -> str:
        return query

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(SchemaError, match="limit"):
            tool_from_schema({**_UNDECLARED}, search, description="Search.")
