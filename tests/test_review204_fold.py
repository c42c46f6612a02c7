"""Review 204 #1 and #7: folding a top-level union whose branches get their keys from unions of their own.

A top-level ``oneOf`` whose branches extend a base with ``allOf`` (OpenAPI inheritance, ``Cat = allOf: [Pet, {...}]``),
a top-level ``allOf`` of two ``anyOf`` s, and a union of more alternatives than the grammar writes (taken as its fold)
folded to ``{"type": "object", "properties": {}}``: every provider was told the tool takes nothing, the pythonic prompt
showed ``def add_pet():`` and the grammar of the big union allowed only ``{}``. The fold now takes the branches' nested
keys. The pythonic prompt's "which alternative to give" sentence spells keys as its signature does. Grammars are
checked with the matcher ``tests/test_grammar.py`` uses.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import pytest
from tests.test_grammar import Gbnf

from toolwire import Tool
from toolwire.models._local_union import MAX_FORMS, argument_forms, local_parameters
from toolwire.models._tool_conversion import to_tool_spec
from toolwire.models._tool_text import format_calls
from toolwire.models.dialects import _openai_tool, python_signature
from toolwire.models.grammar import FORMATS, call_grammar
from toolwire.models.lowering._object_union import merge_object_union
from toolwire.models.lowering.anthropic import convert_to_anthropic_tool
from toolwire.models.lowering.gemini import convert_to_gemini_tool
from toolwire.models.lowering.openai import convert_to_openai_tool

PETS = {"$defs": {
    "Pet": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    "Cat": {"allOf": [{"$ref": "#/$defs/Pet"}, {"type": "object", "properties": {
        "kind": {"const": "cat"}, "indoor": {"type": "boolean"}}, "required": ["kind"]}]},
    "Dog": {"allOf": [{"$ref": "#/$defs/Pet"}, {"type": "object", "properties": {
        "kind": {"const": "dog"}, "breed": {"type": "string"}}, "required": ["kind", "breed"]}]}},
    "oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]}
INLINE_BASE = {"anyOf": [
    {"allOf": [{"properties": {"id": {"type": "integer"}}, "required": ["id"]},
               {"properties": {"by": {"const": "id"}}, "required": ["by"]}]},
    {"allOf": [{"properties": {"email": {"type": "string"}}, "required": ["email"]},
               {"properties": {"by": {"const": "email"}}, "required": ["by"]}]}]}


def _object(key: str, kind: str) -> dict[str, Any]:
    return {"type": "object", "properties": {key: {"type": kind}}, "required": [key]}


PRODUCT = {"allOf": [{"anyOf": [_object("a", "string"), _object("b", "integer")]},
                     {"oneOf": [_object("c", "boolean"), _object("d", "number")]}]}
BIG = {"allOf": [{"anyOf": [_object(f"a{i}", "string") for i in range(5)]},
                 {"anyOf": [_object(f"b{i}", "string") for i in range(4)]}]}  # 20 forms

CASES = [
    ("inheritance", PETS, ["name", "kind", "indoor", "breed"],
     [{"name": "Rex", "kind": "dog", "breed": "lab"}, {"name": "Tom", "kind": "cat"}]),
    ("inline base", INLINE_BASE, ["id", "by", "email"], [{"id": 3, "by": "id"}, {"email": "a@b.c", "by": "email"}]),
    ("allOf of anyOfs", PRODUCT, ["a", "b", "c", "d"], [{"a": "x", "c": True}, {"b": 1, "d": 1.5}]),
    ("more forms than written", BIG, [*(f"a{i}" for i in range(5)), *(f"b{i}" for i in range(4))],
     [{"a0": "x", "b3": "y"}, {"a4": "x", "b0": "y"}]),
]
IDS = [c[0] for c in CASES]


def _echo(**kwargs: Any) -> str:
    return f"ok {sorted(kwargs.items())}"


def _tool(schema: dict[str, Any], name: str = "add_pet") -> Tool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Tool.from_schema(_echo, name, "Add a pet.", schema)


def _run(tool: Tool, args: dict[str, Any]) -> Any:
    return tool.invoke({"type": "tool_call", "id": "c1", "name": tool.name, "args": args})


@pytest.mark.parametrize(("kind", "schema", "keys", "calls"), CASES, ids=IDS)
def test_every_provider_and_prompt_gets_every_key_the_branches_give(kind: str, schema: dict[str, Any],
                                                                    keys: list[str],
                                                                    calls: list[dict[str, Any]]) -> None:
    tool = _tool(schema)
    for args in calls:
        assert _run(tool, args).status == "success"
    spec = to_tool_spec(tool)
    sent = {
        "OpenAI": convert_to_openai_tool(tool)["function"]["parameters"],
        "Anthropic": convert_to_anthropic_tool(tool)["input_schema"],
        "chat template": _openai_tool(spec)["function"]["parameters"],
        "local": local_parameters(spec.parameters),
    }
    if "allOf" not in schema:  # (Gemini's lowering folds a top-level anyOf/oneOf only; its allOf: not this module's)
        sent["Gemini"] = convert_to_gemini_tool(tool).get("parameters") or {}
    for who, parameters in sent.items():
        assert list(parameters.get("properties") or {}) == keys, who
    head = python_signature(spec).splitlines()[0]
    for key in keys:
        assert f"{key}:" in head, head


def test_the_inherited_union_keeps_the_base_required_and_says_what_each_tag_wants() -> None:
    parameters = convert_to_openai_tool(_tool(PETS))["function"]["parameters"]
    assert parameters["required"] == ["name", "kind"]
    assert parameters["properties"]["kind"] == {"enum": ["cat", "dog"]}
    assert "with kind \"dog\", give breed" in parameters["description"]
    assert python_signature(to_tool_spec(_tool(PETS))).splitlines()[0] == \
        'def add_pet(name: str, kind: Literal["cat", "dog"], indoor: bool = None, breed: str = None):'


def test_an_allof_of_unions_says_which_alternatives_to_give() -> None:
    description = convert_to_anthropic_tool(_tool(PRODUCT))["input_schema"]["description"]
    assert description == "Give a or b. Give c or d (only one of them)."


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("kind", "schema", "keys", "calls"), CASES, ids=IDS)
def test_the_grammar_allows_the_calls_the_schema_accepts(kind: str, schema: dict[str, Any], keys: list[str],
                                                         calls: list[dict[str, Any]], fmt: str) -> None:
    spec = to_tool_spec(_tool(schema))
    grammar = Gbnf(call_grammar([spec], fmt, parallel=False))
    for args in calls:
        text = format_calls([{"name": "add_pet", "args": args, "id": "c1", "type": "tool_call"}], fmt, [spec])
        assert grammar.accepts(text), (fmt, text)


def test_a_union_past_the_limit_is_its_fold_with_keys_not_only_the_empty_object() -> None:
    forms = argument_forms(to_tool_spec(_tool(BIG)).parameters)
    assert len(forms) == 1 and len(forms[0]["properties"]) == 9 and MAX_FORMS < 20


def test_a_ref_cycle_in_a_branch_folds_without_hanging() -> None:
    schema = {"$defs": {"Node": {"allOf": [{"$ref": "#/$defs/Node"},
                                           {"properties": {"v": {"type": "integer"}}, "required": ["v"]}]}},
              "type": "object", "oneOf": [{"$ref": "#/$defs/Node"}, _object("w", "string")]}
    assert list(local_parameters(schema)["properties"]) == ["v", "w"]


def test_a_union_of_many_ref_cycles_stays_fast() -> None:
    looped = [{"$ref": "#/$defs/N", "description": str(i)} for i in range(10)]
    schema = {"$defs": {"N": {"anyOf": [*looped, {"properties": {"v": {"type": "integer"}}}]}},
              "type": "object", "oneOf": [{"$ref": "#/$defs/N"}] * 10}
    started = time.monotonic()
    assert list(local_parameters(schema)["properties"]) == ["v"]
    assert [list(f["properties"]) for f in argument_forms(schema)] == [["v"]]
    assert time.monotonic() - started < 5


def test_merge_object_union_without_a_resolver_keeps_its_old_signature() -> None:
    node = {"type": "object", "properties": {"x": {"type": "string"}}}
    out = merge_object_union(node, [("anyOf", [{"allOf": [{"$ref": "#/$defs/Gone"}, _object("y", "integer")]}])])
    assert list(out["properties"]) == ["x", "y"] and out["required"] == ["y"]


ODD_NAMES = {"oneOf": [
    {"type": "object", "properties": {"class": {"type": "string"}, "first name": {"type": "string"}},
     "required": ["class", "first name"]},
    {"type": "object", "properties": {"from": {"type": "string"}}, "required": ["from"]}]}
ODD_TAG = {"oneOf": [
    {"type": "object", "properties": {"from": {"const": True}, "first name": {"type": "string"}},
     "required": ["from", "first name"]},
    {"type": "object", "properties": {"from": {"const": False}, "class": {"type": "string"}},
     "required": ["from", "class"]}]}


def test_the_pythonic_prompt_names_the_alternatives_as_its_signature_does() -> None:
    text = python_signature(to_tool_spec(_tool(ODD_NAMES, "enrol")))
    assert text.splitlines()[0] == "def enrol(class_: str = None, first_name: str = None, from_: str = None):"
    assert "Give (class_ and first_name) or from_ (only one of them)." in text
    tagged = python_signature(to_tool_spec(_tool(ODD_TAG, "enrol")))
    assert "With from_ True, give first_name; with from_ False, give class_." in tagged, tagged
    # (the providers keep the schema's own spellings)
    assert "Give (class and first name) or from" in convert_to_openai_tool(_tool(ODD_NAMES, "enrol"))[
        "function"]["parameters"]["description"]
