"""Review 204 #2, #5, #6: a key a union branch requires but no ``properties`` declare, the tagged-union error of a
union that may be null, and the @tool regex SchemaError naming what pydantic-core's Rust engine refused."""

from __future__ import annotations

import copy
import json
import warnings
from typing import Annotated, Any

import pytest
from pydantic import Field
from tests.test_grammar import Gbnf

from toolwire import Tool, tool
from toolwire.errors import SchemaError, ToolDefinitionWarning
from toolwire.models._tool_conversion import to_tool_spec
from toolwire.models._tool_text import format_calls
from toolwire.models.dialects import python_signature
from toolwire.models.grammar import call_grammar
from toolwire.models.lowering.anthropic import convert_to_anthropic_tool
from toolwire.models.lowering.gemini import convert_to_gemini_tool
from toolwire.models.lowering.openai import convert_to_openai_tool


def _refusal(pattern: str) -> str:
    with pytest.raises(SchemaError) as caught:
        @tool
        def lookup(code: Annotated[str, Field(pattern=pattern)]) -> str:
            """Look up a code."""
            return code

    text = str(caught.value)
    assert "\n" not in text and type(caught.value) is SchemaError and "parameter 'code'" in text, text
    return text


# -- #6: the regex SchemaError names the construct the Rust engine refused -----------------------------------------

def test_python_end_anchor_is_named_with_its_rust_spelling() -> None:
    text = _refusal(r"^\d+\Z")
    assert "lookaround" not in text and "backreference" not in text, text
    assert "'\\Z'" in text and "write '$' in its place" in text and "regex_engine='python-re'" in text, text


@pytest.mark.parametrize(("pattern", "named"), [
    (r"^(?!TMP-)[A-Z0-9-]+$", "uses a lookaround '(?!'"),
    (r"(?<=a)b", "uses a lookaround '(?<='"),
    (r"(a)\1", "uses a backreference '\\1'"),
    ("a\n(?=b)", "uses a lookaround '(?='"),  # (a pattern of several lines, which Rust shows numbered)
])
def test_lookaround_and_backreference_are_named(pattern: str, named: str) -> None:
    text = _refusal(pattern)
    assert named in text and "regex_engine='python-re'" in text and "Tool.from_schema" in text, text


def test_another_construct_gets_rusts_own_reason() -> None:
    text = _refusal(r"(?P<x>a)(?P=x)")
    assert "lookaround" not in text and "backreference '" not in text, text
    assert "'(?P=x)' (Rust's regex: unrecognized flag)" in text and "regex_engine='python-re'" in text, text


def test_a_pattern_no_engine_reads_is_said_to_be_invalid() -> None:
    text = _refusal(r"a{2,1}")
    assert "'a{2,1}'" in text and "is not a valid regular expression" in text and "correct it" in text, text
    assert "python-re" not in text, text


# -- #5: the tagged-union error when the union may also be null ---------------------------------------------------

def _echo(**kwargs: Any) -> str:
    return json.dumps(kwargs, sort_keys=True)


def _call(t: Tool, args: dict[str, Any]) -> Any:
    return t.invoke({"type": "tool_call", "id": "1", "name": t.name, "args": args})


def _branch(tag: str, key: str, kind: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"op": {"const": tag}, key: {"type": kind}}, "required": ["op", key],
            "additionalProperties": False}


_ADD, _DEL = _branch("add", "text", "string"), _branch("del", "id", "integer")


@pytest.mark.parametrize("action", [
    {"anyOf": [_ADD, _DEL, {"type": "null"}]},  # pydantic's Add | Delete | None (FastMCP)
    {"oneOf": [_ADD, _DEL], "nullable": True},  # OpenAPI 3.0
    {"anyOf": [{"oneOf": [_ADD, _DEL], "discriminator": {"propertyName": "op"}}, {"type": "null"}],
     "description": "What to do."},  # pydantic's optional discriminated union
    {"oneOf": [{"$ref": "#/$defs/Add"}, {"$ref": "#/$defs/Del"}, {"const": None}]},
], ids=["anyOf-null", "openapi-nullable", "discriminated-optional", "refs-const-null"])
def test_a_nullable_tagged_union_gets_the_picked_branchs_errors(action: dict[str, Any]) -> None:
    schema = {"type": "object", "properties": {"action": action}, "required": ["action"],
              "$defs": {"Add": _ADD, "Del": _DEL}}
    t = Tool.from_schema(_echo, "todo", "Edit the todo list.", schema)
    out = _call(t, {"action": {"op": "add", "id": 3}})
    assert out.status == "error" and "not valid under any of the given schemas" not in out.content, out.content
    assert "with op \"add\": 'action.text' is required but missing" in out.content, out.content
    assert "'action.id' is not an allowed field here (got 3)" in out.content, out.content
    unknown = _call(t, {"action": {"op": "move", "id": 3}})
    assert "'action.op' must be one of \"add\", \"del\" (got \"move\")" in unknown.content, unknown.content
    assert _call(t, {"action": None}).status == "success"
    assert _call(t, {"action": {"op": "del", "id": 3}}).status == "success"


def test_a_nullable_object_that_is_no_union_keeps_its_error() -> None:
    schema = {"type": "object", "properties": {"action": {"anyOf": [_ADD, {"type": "null"}]}}, "required": ["action"]}
    t = Tool.from_schema(_echo, "todo", "Edit.", schema)
    out = _call(t, {"action": {"op": "add", "id": 3}})
    assert out.status == "error" and "'action'" in out.content, out.content


# -- #2: a key a union branch requires that no properties declare -------------------------------------------------

_TODO = {"oneOf": [
    {"type": "object", "properties": {"op": {"const": "add"}, "text": {"type": "string"}},
     "required": ["op", "text", "priority"]},
    {"type": "object", "properties": {"op": {"const": "del"}, "id": {"type": "integer"}}, "required": ["op", "id"]}]}


def _made(schema: dict[str, Any], name: str = "todo") -> tuple[Tool, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = Tool.from_schema(_echo, name, "Edit the todo list.", schema)
    return t, [str(w.message) for w in caught if issubclass(w.category, ToolDefinitionWarning)]


def test_a_branch_key_no_properties_declare_is_declared_with_one_warning() -> None:
    t, said = _made(copy.deepcopy(_TODO))
    assert len(said) == 1 and "'priority'" in said[0] and "do not declare" in said[0], said
    assert _call(t, {"op": "add", "text": "milk", "priority": 2}).status == "success"
    assert _call(t, {"op": "add", "text": "milk", "priority": "high"}).status == "success"  # (any value)
    missing = _call(t, {"op": "add", "text": "milk"})
    assert "with op \"add\": 'priority' is required but missing" in missing.content, missing.content


@pytest.mark.parametrize("fmt", ["json", "pythonic", "function_tag"])
def test_the_local_grammar_writes_the_branch_key(fmt: str) -> None:
    t, _ = _made(copy.deepcopy(_TODO))
    spec = to_tool_spec(t)
    call = {"name": "todo", "args": {"op": "add", "text": "milk", "priority": 2}, "id": None, "type": "tool_call"}
    text = format_calls([call], fmt, tools=[spec])
    assert Gbnf(call_grammar([spec], fmt, parallel=False)).accepts(text), text
    assert "priority" in python_signature(spec)


@pytest.mark.filterwarnings("ignore::toolwire.errors.StrictSchemaWarning")
def test_every_provider_is_sent_the_branch_key() -> None:
    t, _ = _made(copy.deepcopy(_TODO))
    openai = convert_to_openai_tool(t, strict=True)["function"]["parameters"]
    anthropic = convert_to_anthropic_tool(t)["input_schema"]
    gemini = convert_to_gemini_tool(t)["parameters"]
    for sent in (openai, anthropic, gemini):
        assert "priority" in sent["properties"] and "give text and priority" in sent["description"], sent


def test_a_nested_union_branch_key_is_named_with_its_path() -> None:
    t, said = _made({"type": "object", "properties": {"edit": copy.deepcopy(_TODO)}, "required": ["edit"]})
    assert len(said) == 1 and "'edit.priority'" in said[0], said
    assert _call(t, {"edit": {"op": "add", "text": "milk", "priority": [1]}}).status == "success"


def test_a_branch_without_properties_gains_the_key() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}},
              "anyOf": [{"required": ["a"]}, {"required": ["zz"]}]}
    t, said = _made(schema)
    assert len(said) == 1 and "'zz'" in said[0], said
    assert "zz" in convert_to_openai_tool(t)["function"]["parameters"]["properties"]
    assert _call(t, {"zz": 1}).status == "success" and _call(t, {"a": "x"}).status == "success"


@pytest.mark.parametrize("schema", [
    {"type": "object", "allOf": [{"properties": {"a": {"type": "string"}}}, {"required": ["a"]}]},
    {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
     "anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
     "oneOf": [{"properties": {"a": {"const": "x"}, "b": {"type": "integer"}}, "required": ["b"]},
               {"properties": {"a": {"const": "y"}}}]},
    {"type": "object", "properties": {"a": {"type": "string"}},
     "anyOf": [{"required": ["a"]}, {"required": ["zz"], "additionalProperties": False}]},
    {"type": "object", "properties": {"a": {"type": "string"}}, "patternProperties": {"^z": {}},
     "anyOf": [{"required": ["a"]}, {"required": ["zz"]}]},
    {"type": "object", "properties": {"v": {"anyOf": [{"type": "object", "required": ["x"]}, {"type": "string"}]}}},
], ids=["allOf-split", "anyOf-of-required", "declared-by-parent", "closed-branch", "pattern-properties", "free-form"])
def test_keys_declared_elsewhere_or_refused_are_left_alone(schema: dict[str, Any]) -> None:
    before = copy.deepcopy(schema)
    _, said = _made(schema)
    assert said == [] and schema == before
