"""Review 187: a dict schema given to ``with_structured_output`` is checked as the user wrote it.

#1 a draft-07 or draft-04 JSON Schema is checked with its own draft's rules against the schema as written (it was
normalized to 2020-12 and then checked with the old draft's rules: every tuple item refused, a draft-04 bound refused
as invalid JSON Schema); #2 a schema that closes its object with ``unevaluatedProperties: false`` still refuses an
unknown key.
"""

from __future__ import annotations

from typing import Any

import pytest

from toolwire.errors import ToolCallParseError
from toolwire.messages import AIMessage
from toolwire.models._structured_dicts import DictSchemaError
from toolwire.models.structured import output_tool
from toolwire.testing import ScriptedChatModel

_DRAFT7 = "http://json-schema.org/draft-07/schema#"
_DRAFT4 = "http://json-schema.org/draft-04/schema#"
_TUPLE = {"$schema": _DRAFT7, "type": "object", "required": ["point"],
          "properties": {"point": {"type": "array", "items": [{"type": "integer"}, {"type": "integer"}],
                                   "additionalItems": False}}}


def _forms(name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """The three dict forms with_structured_output takes: a JSON Schema with a title, a response_format schema (bare
    and whole), and OpenAI's tool dict."""
    return [{"title": name, **params}, {"name": name, "schema": params},
            {"type": "json_schema", "json_schema": {"name": name, "schema": params}},
            {"type": "function", "function": {"name": name, "parameters": params}},
            {"name": name, "input_schema": params}]


def _reply(name: str, args: Any) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": "c1"}])


# --------------------------------------------------------------------------- #1 older drafts


@pytest.mark.parametrize("schema", _forms("P", _TUPLE))
def test_a_draft7_tuple_is_checked_with_draft7_rules(schema: dict[str, Any]) -> None:
    spec, read = output_tool(schema)
    # sent as 2020-12 (what providers read) ...
    assert spec.parameters["properties"]["point"] == {"type": "array", "prefixItems": [{"type": "integer"}] * 2,
                                                      "items": False}
    # ... and checked as written, in draft-07
    assert read({"point": [1, 2]}) == {"point": [1, 2]}
    assert read({"point": [1.0, 2]}) == {"point": [1, 2]}  # a whole float at an integer item made an int
    with pytest.raises(DictSchemaError, match="not of type 'integer'"):
        read({"point": [1, "2"]})
    with pytest.raises(DictSchemaError, match="Additional items"):
        read({"point": [1, 2, 3]})


def test_a_draft7_value_that_fits_is_returned_end_to_end() -> None:
    model = ScriptedChatModel([_reply("P", {"point": [1, 2]})])
    assert model.with_structured_output({"title": "P", **_TUPLE}).invoke("x") == {"point": [1, 2]}


@pytest.mark.parametrize("schema", _forms("N", {
    "$schema": _DRAFT4, "type": "object",
    "properties": {"n": {"type": "number", "maximum": 5, "exclusiveMaximum": True}}}))
def test_a_draft4_boolean_bound_is_taken_and_checked(schema: dict[str, Any]) -> None:
    spec, read = output_tool(schema)  # (it raised SchemaError: "'maximum' is a dependency of 'exclusiveMaximum'")
    assert spec.parameters["properties"]["n"] == {"type": "number", "exclusiveMaximum": 5}
    assert read({"n": 4}) == {"n": 4}
    with pytest.raises(DictSchemaError, match="'n'"):
        read({"n": 5})


def test_a_2020_schema_with_no_dollar_schema_is_checked_as_before() -> None:
    _, read = output_tool({"title": "P", "type": "object", "properties": {
        "point": {"type": "array", "prefixItems": [{"type": "integer"}], "items": False}}})
    assert read({"point": [1]}) == {"point": [1]}
    with pytest.raises(DictSchemaError):
        read({"point": [1, 2]})


# --------------------------------------------------------------------------- #2 unevaluatedProperties

_CLOSED = {"title": "Answer", "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
           "unevaluatedProperties": False}


def test_unevaluated_properties_false_still_refuses_an_unknown_key() -> None:
    model = ScriptedChatModel([_reply("Answer", {"city": "Paris", "citty": "Lyon"}),
                               _reply("Answer", {"city": "Paris"})])
    structured = model.with_structured_output(_CLOSED)
    with pytest.raises(ToolCallParseError, match="'citty'"):
        structured.invoke("x")
    assert structured.invoke("x") == {"city": "Paris"}


def test_unevaluated_properties_false_counts_keys_an_allof_branch_declares() -> None:
    _, read = output_tool({"title": "A", "type": "object", "allOf": [{"properties": {"b": {"type": "integer"}}}],
                           "properties": {"a": {"type": "string"}}, "unevaluatedProperties": False})
    assert read({"a": "x", "b": 1}) == {"a": "x", "b": 1}
    with pytest.raises(DictSchemaError, match="'c'"):
        read({"a": "x", "c": 1})


@pytest.mark.parametrize("extra", [{}, {"allOf": [{"properties": {"b": {"type": "integer"}}}]},
                                   {"patternProperties": {"^x_": {"type": "integer"}}}])
def test_a_schema_that_says_nothing_of_other_keys_lets_them_through(extra: dict[str, Any]) -> None:
    _, read = output_tool({"title": "A", "type": "object", "properties": {"a": {"type": "string"}}, **extra})
    assert read({"a": "x", "other": [1]}) == {"a": "x", "other": [1]}
