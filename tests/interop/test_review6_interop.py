"""Review 6 regressions in schema tools and MCP: draft-07/draft-04 schemas keep their dialect (finding 3),
a skipped MCP tool frees its name (finding 3), server descriptions hide secrets (finding 8)."""

from __future__ import annotations

import warnings
from typing import Any

import jsonschema
import pytest

from toolwire import ToolValidationError, UserError
from toolwire.interop import tool_from_schema
from toolwire.interop.openai_tools import normalize_parameters, schema_validator
from toolwire.mcp import MCPClient, server_from

DRAFT7 = "http://json-schema.org/draft-07/schema#"
DRAFT4 = "http://json-schema.org/draft-04/schema#"

# draft-07 tuple form: "items" is a list (2020-12 calls this prefixItems and refuses a list here)
PAIR_D7: dict[str, Any] = {
    "$schema": DRAFT7, "type": "object",
    "properties": {"pair": {"type": "array", "items": [{"type": "integer"}, {"type": "string"}],
                            "additionalItems": False}},
    "required": ["pair"],
}
# draft-04: exclusiveMaximum is a boolean next to maximum
LIMIT_D4: dict[str, Any] = {
    "$schema": DRAFT4, "type": "object",
    "properties": {"n": {"type": "number", "maximum": 5, "exclusiveMaximum": True}}, "required": ["n"],
}


def test_draft07_tuple_schema_makes_a_tool_validated_with_draft07() -> None:
    t = tool_from_schema({"name": "p", "description": "P.", "parameters": PAIR_D7}, lambda pair: pair)
    assert "$schema" not in t.parameters  # providers do not get the dialect URI
    # providers read JSON Schema 2020-12: the draft-07 tuple is sent as prefixItems (review 21)
    assert t.parameters["properties"]["pair"]["prefixItems"] == [{"type": "integer"}, {"type": "string"}]
    jsonschema.Draft202012Validator.check_schema(t.parameters)
    assert t.invoke({"pair": [1, "a"]}) == [1, "a"]
    with pytest.raises(ToolValidationError) as info:
        t.invoke({"pair": ["x", 1, 3]})
    text = str(info.value)
    assert "'pair.0': 'x' is not of type 'integer'" in text
    assert "'pair.1': 1 is not of type 'string'" in text
    assert "Additional items" in text


def test_draft04_boolean_exclusive_maximum_is_validated_with_draft04() -> None:
    t = tool_from_schema({"name": "p4", "description": "P.", "parameters": LIMIT_D4}, lambda n: n)
    assert t.invoke({"n": 4.5}) == 4.5
    with pytest.raises(ToolValidationError, match="greater than or equal to the maximum of 5"):
        t.invoke({"n": 5})


def test_schema_validator_takes_the_dialect_of_a_stripped_schema() -> None:
    sent = normalize_parameters(LIMIT_D4, "p4")  # what providers get: 2020-12's numeric exclusiveMaximum
    jsonschema.Draft202012Validator.check_schema(sent)
    params = normalize_parameters(LIMIT_D4, "p4", dialect_form=True)
    assert "$schema" not in params
    validate = schema_validator(params, "p4", dialect=DRAFT4)
    with pytest.raises(ToolValidationError):
        validate({"n": 5})
    assert validate({"n": 1}) == {"n": 1}


def test_default_dialect_is_still_2020_12() -> None:
    # a list "items" is no valid 2020-12 schema: without $schema the tool is still refused
    bare = {k: v for k, v in PAIR_D7.items() if k != "$schema"}
    from toolwire.errors import SchemaError

    with pytest.raises(SchemaError, match="not valid JSON Schema"):
        tool_from_schema({"name": "p", "description": "P.", "parameters": bare}, lambda pair: pair)


def _mcp_client() -> MCPClient:
    return MCPClient("python never_started.py")  # _build needs no session


def test_mcp_draft07_tool_is_kept() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tools = _mcp_client()._build([{"name": "pair", "description": "Pairs.", "inputSchema": PAIR_D7}])
    assert [t.name for t in tools] == ["pair"]
    with pytest.raises(ToolValidationError):
        tools[0].validate_args({"pair": ["x", 1]})


def test_skipped_mcp_tool_does_not_keep_its_name() -> None:
    broken = {"type": "object", "properties": {"a": {"type": 5}}}  # not JSON Schema in any dialect
    ok = {"type": "object", "properties": {}}
    with pytest.warns(UserWarning, match="Skipping the MCP tool 'pair.make'"):
        tools = _mcp_client()._build([{"name": "pair.make", "description": "A.", "inputSchema": broken},
                                      {"name": "pair_make", "description": "B.", "inputSchema": ok}])
    assert [t.name for t in tools] == ["pair_make"]


# -- finding 8: secrets in server descriptions ---------------------------------------------------------

SECRET = "sk-SECRET-1234"


@pytest.mark.parametrize("spec", [
    {"url": "https://x.example/mcp", "headers": {"Authorization": f"Bearer {SECRET}"}},
    {"command": "npx", "args": ["-y", "server-github"], "env": {"GITHUB_TOKEN": SECRET}},
])
def test_server_repr_and_str_hide_header_and_env_values(spec: dict[str, Any]) -> None:
    server = server_from(spec)
    for text in (repr(server), str(server), f"{server}", repr([server]), server.label):
        assert SECRET not in text
    key = "Authorization" if "url" in spec else "GITHUB_TOKEN"
    assert f"'{key}': '***'" in repr(server)  # the names stay visible
    assert server == server_from(spec)  # equality still compares the values
    field = "headers" if "url" in spec else "env"
    assert dict(getattr(server, field))[key].endswith(SECRET)  # the value itself is kept for the connection


@pytest.mark.parametrize("bad", [
    {"headers": {"Authorization": f"Bearer {SECRET}"}, "type": "http"},
    {"env": {"GITHUB_TOKEN": SECRET}, "args": ["x"]},
    [SECRET, 5],
])
def test_unreadable_server_error_does_not_echo_secrets(bad: Any) -> None:
    with pytest.raises(UserError) as info:
        server_from(bad)
    text = str(info.value)
    assert SECRET not in text and SECRET not in repr(info.value)
    assert text.startswith("Cannot read a ") and "\n" not in text
    if isinstance(bad, dict):
        assert all(repr(k) in text for k in bad)  # the keys say what was given


def test_a_top_level_union_of_non_objects_is_refused_at_construction():
    """Review 11: it was wrapped into an object no call could match, and every call failed."""
    from toolwire import Tool
    from toolwire.errors import SchemaError

    with pytest.raises(SchemaError, match=r"must be an object schema .* not an anyOf of non-object types"):
        Tool.from_schema(lambda **k: k, "u", "U.", {"anyOf": [{"type": "string"}, {"type": "integer"}]})
    either = Tool.from_schema(lambda **k: k, "e", "E.", {"oneOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}]})
    assert either.invoke({"b": 2}) == {"b": 2}
