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


# -- #3: OpenAPI's nullable: true -----------------------------------------------------------------------------------

_NULLABLE = {"type": "object", "required": ["repo", "assignee"], "properties": {
    "repo": {"type": "string"},
    "assignee": {"type": "string", "nullable": True},
    "state": {"type": "string", "enum": ["open", "closed"], "nullable": True},
    "owner": {"allOf": [{"$ref": "#/$defs/User"}], "nullable": True, "description": "Who owns it."},
    "flag": {"type": "boolean", "nullable": False}},
    "$defs": {"User": {"type": "object", "properties": {"login": {"type": "string"}}, "required": ["login"]}}}


def test_openapi_nullable_takes_null_where_gemini_is_told_it_may() -> None:
    from toolwire.models.lowering.gemini import parse_response

    t = Tool.from_schema(_echo, "list_issues", "List issues.", _NULLABLE)
    gem = convert_to_gemini_tool(t)["parameters"]["properties"]
    assert gem["assignee"] == {"type": "STRING", "nullable": True}
    assert gem["state"]["nullable"] is True and gem["state"]["enum"] == ["open", "closed"]
    assert gem["owner"]["nullable"] is True and gem["owner"]["description"] == "Who owns it."
    reply = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "list_issues", "args": {
        "repo": "a/b", "assignee": None, "state": None, "owner": None}}}]}, "finishReason": "STOP"}]}
    msg = parse_response(reply, tool_names=["list_issues"])
    result = t.invoke(msg.tool_calls[0])
    assert result.status == "success", result.content
    assert "('assignee', None)" in result.content
    for args in ({"repo": "a", "assignee": "bo", "state": "open", "owner": {"login": "x"}},
                 {"repo": "a", "assignee": None, "owner": {"login": "x"}, "flag": True}):
        assert _call(t, args).status == "success", args
    for bad in ({"repo": "a", "assignee": 3}, {"repo": "a", "assignee": None, "state": "gone"},
                {"repo": "a", "assignee": None, "owner": {}}, {"repo": None, "assignee": None}):
        assert _call(t, bad).status == "error", bad


def test_openapi_nullable_is_json_schema_null_for_every_provider() -> None:
    t = Tool.from_schema(_echo, "list_issues", "List issues.", _NULLABLE)
    props = t.parameters["properties"]
    assert props["assignee"] == {"type": ["string", "null"]}
    assert props["state"] == {"type": ["string", "null"], "enum": ["open", "closed", None]}
    assert props["owner"]["anyOf"][1] == {"type": "null"} and props["flag"] == {"type": "boolean"}
    sent = convert_to_openai_tool(t)["function"]["parameters"]["properties"]
    assert "nullable" not in str(sent) and sent["assignee"] == {"type": ["string", "null"]}
    assert _NULLABLE["properties"]["assignee"] == {"type": "string", "nullable": True}  # (input not changed)


# -- #4: Gemini and a closed tuple -----------------------------------------------------------------------------------

@pytest.mark.parametrize("to", [
    {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": False},
    {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": False}])
def test_gemini_closed_tuple_gets_its_length_and_positions(to: dict[str, Any]) -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"to": to}, "required": ["to"]}
    if isinstance(to["items"], list):
        schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    t = Tool.from_schema(_echo, "move", "Move to a point.", schema)
    sent = convert_to_gemini_tool(t)["parameters"]["properties"]["to"]
    assert sent["max_items"] == 2 and sent["items"] == {"type": "NUMBER"}
    assert "Items by position: 1. number, 2. number." in sent["description"]


def test_gemini_closed_tuple_keeps_a_smaller_max_and_its_min() -> None:
    to = {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}, {"type": "integer"}],
          "items": False, "minItems": 1, "maxItems": 2}
    t = Tool.from_schema(_echo, "move", "Move.", {"type": "object", "properties": {"to": to}})
    sent = convert_to_gemini_tool(t)["parameters"]["properties"]["to"]
    assert sent["max_items"] == 2 and sent["min_items"] == 1
    open_tuple = {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}]}
    t = Tool.from_schema(_echo, "move", "Move.", {"type": "object", "properties": {"to": open_tuple}})
    sent = convert_to_gemini_tool(t)["parameters"]["properties"]["to"]
    assert "max_items" not in sent and "description" not in sent  # (an open tuple, as before)


# -- #5: a folded tagged union says which keys go with which tag -------------------------------------------------

_TAGGED = {"oneOf": [
    {"type": "object", "properties": {"op": {"const": "add"}, "text": {"type": "string"}}, "required": ["op", "text"],
     "additionalProperties": False},
    {"type": "object", "properties": {"op": {"const": "delete"}, "id": {"type": "integer"}}, "required": ["op", "id"],
     "additionalProperties": False},
    {"type": "object", "properties": {"op": {"enum": ["list"]}}, "required": ["op"], "additionalProperties": False}]}
_PAIRING = 'With op "add", give text; with op "delete", give id; with op "list", nothing more.'


def test_folded_tagged_union_names_the_keys_of_each_tag() -> None:
    t = Tool.from_schema(_echo, "todo", "Edit the todo list.", _TAGGED)
    assert convert_to_openai_tool(t)["function"]["parameters"]["description"] == _PAIRING
    assert convert_to_anthropic_tool(t)["input_schema"]["description"] == _PAIRING
    assert convert_to_gemini_tool(t)["parameters"]["description"] == _PAIRING


def test_folded_union_without_tags_keeps_its_sentence() -> None:
    schema = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
              "oneOf": [{"required": ["id"]}, {"required": ["name"]}]}
    t = Tool.from_schema(_echo, "get", "Get one.", schema)
    assert convert_to_openai_tool(t)["function"]["parameters"]["description"] == "Give id or name (only one of them)."


def test_a_call_mixing_the_tags_is_told_what_to_fix() -> None:
    t = Tool.from_schema(_echo, "todo", "Edit the todo list.", _TAGGED)
    mixed = _call(t, {"op": "add", "id": 3})
    assert mixed.status == "error"
    assert ("with op \"add\": 'text' is required but missing; 'id' is not a parameter of this tool (got 3)"
            in mixed.content), mixed.content
    wrong = _call(t, {"op": "edit", "text": "x"})
    assert '\'op\' must be one of "add", "delete", "list" (got "edit")' in wrong.content, wrong.content
    missing = _call(t, {"text": "x"})
    assert "'op' is required but missing (one of \"add\", \"delete\", \"list\")" in missing.content, missing.content
    assert _call(t, {"op": "add", "text": "milk"}).status == "success"
    assert _call(t, {"op": "list"}).status == "success"


def test_a_nested_tagged_union_error_names_its_place() -> None:
    schema = {"type": "object", "properties": {"edit": _TAGGED}, "required": ["edit"]}
    t = Tool.from_schema(_echo, "todo", "Edit the todo list.", schema)
    out = _call(t, {"edit": {"op": "delete", "text": "x"}})
    assert "with op \"delete\": 'edit.id' is required but missing" in out.content, out.content
    assert "'edit.text' is not an allowed field here" in out.content, out.content


# -- #6: @tool with a pattern pydantic-core's regex engine cannot build -------------------------------------------

def test_tool_with_a_lookaround_pattern_raises_toolwires_schema_error() -> None:
    from typing import Annotated

    from pydantic import Field

    from toolwire import tool
    from toolwire.errors import SchemaError

    with pytest.raises(SchemaError) as caught:
        @tool
        def sku(code: Annotated[str, Field(pattern=r"^(?!TMP-)[A-Z0-9-]+$")]) -> str:
            """Look up a SKU."""
            return code

    text = str(caught.value)
    assert "parameter 'code'" in text and "regex_engine='python-re'" in text and "Tool.from_schema" in text
    assert "\n" not in text and type(caught.value) is SchemaError


def test_the_fix_the_message_gives_works() -> None:
    from pydantic import BaseModel, ConfigDict, Field

    from toolwire import tool

    class Sku(BaseModel):
        model_config = ConfigDict(regex_engine="python-re")
        code: str = Field(pattern=r"^(?!TMP-)[A-Z0-9-]+$")

    @tool
    def sku(item: Sku) -> str:
        """Look up a SKU."""
        return item.code

    assert _call(sku, {"item": {"code": "AB-1"}}).content == "AB-1"
    assert _call(sku, {"item": {"code": "TMP-1"}}).status == "error"
