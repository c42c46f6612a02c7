"""Review 198 #1: the embedded model and a JSON-Schema tool whose arguments are a top-level oneOf/anyOf/allOf of
objects.

Its grammar allowed only ``{}`` in every format, the pythonic prompt showed ``def edit():`` and the function_tag
reader kept ``3`` as ``"3"``. The grammar now takes each combination of the branches, the prompt and the readers the
union's fold; validation stays on the tool's own schema. Calls are checked against the GBNF with the matcher
``tests/test_grammar.py`` uses.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from tests.test_grammar import Gbnf

from toolwire import Tool
from toolwire.messages import HumanMessage
from toolwire.models._local_union import MAX_FORMS, argument_forms, local_parameters
from toolwire.models._tool_conversion import to_tool_spec
from toolwire.models._tool_text import _example_call, format_calls
from toolwire.models.dialects import _openai_tool, get_dialect, parse_reply, python_signature
from toolwire.models.grammar import FORMATS, call_grammar
from toolwire.parsing import parse_tool_calls

ONE_OF = {"oneOf": [
    {"type": "object", "properties": {"op": {"const": "add"}, "x": {"type": "integer"}}, "required": ["op", "x"],
     "additionalProperties": False},
    {"type": "object", "properties": {"op": {"const": "del"}, "id": {"type": "string"}}, "required": ["op", "id"],
     "additionalProperties": False}]}
ANY_OF = {"type": "object", "anyOf": [
    {"properties": {"path": {"type": "string"}}, "required": ["path"]},
    {"properties": {"url": {"type": "string"}}, "required": ["url"]}]}
ALL_OF = {"allOf": [
    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
    {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}]}
REF_BRANCHES = {"$defs": {"Add": {"type": "object", "properties": {"op": {"const": "add"}, "x": {"type": "integer"}},
                                  "required": ["op", "x"]},
                          "Del": {"type": "object", "properties": {"op": {"const": "del"}, "id": {"type": "string"}},
                                  "required": ["op", "id"]}},
                "oneOf": [{"$ref": "#/$defs/Add"}, {"$ref": "#/$defs/Del"}]}

CASES = [
    ("oneOf", ONE_OF, [{"op": "add", "x": 3}, {"op": "del", "id": "r7"}]),
    ("anyOf", ANY_OF, [{"path": "/tmp/x"}, {"url": "https://example.com"}]),
    ("allOf", ALL_OF, [{"a": "s", "b": 1}]),
    ("$ref", REF_BRANCHES, [{"op": "add", "x": 3}, {"op": "del", "id": "r7"}]),
]


def _edit(**kwargs: Any) -> str:
    return f"ok {sorted(kwargs.items())}"


def _tool(schema: dict[str, Any]) -> Tool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Tool.from_schema(_edit, "edit", "Edit a record.", schema)


def _run(tool: Tool, args: dict[str, Any]) -> Any:
    return tool.invoke({"type": "tool_call", "id": "c1", "name": "edit", "args": args})


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("kind", "schema", "calls"), CASES, ids=[c[0] for c in CASES])
def test_every_call_the_union_accepts_is_allowed_read_back_and_runs(kind: str, schema: dict[str, Any],
                                                                   calls: list[dict[str, Any]], fmt: str) -> None:
    tool = _tool(schema)
    spec = to_tool_spec(tool)
    grammar = Gbnf(call_grammar([spec], fmt, parallel=False))
    for args in calls:
        text = format_calls([{"name": "edit", "args": args, "id": "c1", "type": "tool_call"}], fmt, [spec])
        if fmt == "pythonic":
            assert text.startswith("[edit(") and text != "[edit()]"
        assert grammar.accepts(text), (fmt, text)
        read = parse_reply(text, [spec], fmt)
        assert not read.invalid_tool_calls
        assert [c["args"] for c in read.tool_calls] == [args]  # (function_tag: 3 is read as 3, not "3")
        message = _run(tool, read.tool_calls[0]["args"])
        assert message.status == "success", message.content


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("kind", "schema", "calls"), CASES, ids=[c[0] for c in CASES])
def test_the_empty_call_no_branch_accepts_is_not_allowed(kind: str, schema: dict[str, Any],
                                                         calls: list[dict[str, Any]], fmt: str) -> None:
    spec = to_tool_spec(_tool(schema))
    text = format_calls([{"name": "edit", "args": {}, "id": "c1", "type": "tool_call"}], fmt, [spec])
    assert not Gbnf(call_grammar([spec], fmt, parallel=False)).accepts(text)


@pytest.mark.parametrize("fmt", ["json", "hermes", "function_tag"])
def test_the_grammar_keeps_the_pairing_of_a_tagged_union(fmt: str) -> None:
    spec = to_tool_spec(_tool(ONE_OF))
    grammar = Gbnf(call_grammar([spec], fmt, parallel=False))
    for wrong in ({"op": "add", "id": "r7"}, {"op": "del", "x": 3}, {"op": "add"}, {"x": 3}):
        text = format_calls([{"name": "edit", "args": wrong, "id": "c1", "type": "tool_call"}], fmt, [spec])
        assert not grammar.accepts(text), text


def test_the_pythonic_prompt_shows_the_parameters_and_which_to_give() -> None:
    spec = to_tool_spec(_tool(ONE_OF))
    text = python_signature(spec)
    assert text.splitlines()[0] == 'def edit(op: Literal["add", "del"], x: int = None, id: str = None):'
    assert local_parameters(ONE_OF)["description"] in text  # which alternative to give ("Give x or id ...")
    assert python_signature(to_tool_spec(_tool(ALL_OF))).splitlines()[0] == "def edit(a: str, b: int):"


@pytest.mark.parametrize("dialect", ["pythonic", "json"])
def test_the_prompt_example_call_is_one_the_grammar_allows_and_the_tool_accepts(dialect: str) -> None:
    tool = _tool(ONE_OF)
    spec = to_tool_spec(tool)
    fmt = get_dialect(dialect).formats[0]
    example = _example_call(spec)
    assert _run(tool, example["args"]).status == "success"
    text = format_calls([example], fmt, [spec])
    shown = text[1:-1] if fmt == "pythonic" else text  # (the prompt lists two example calls)
    assert shown in get_dialect(dialect).render([HumanMessage("add 3")], [spec]).messages[0]["content"]
    assert Gbnf(call_grammar([spec], fmt, parallel=False)).accepts(text)


def test_a_chat_template_is_given_the_folded_parameters() -> None:
    parameters = _openai_tool(to_tool_spec(_tool(ANY_OF)))["function"]["parameters"]
    assert list(parameters["properties"]) == ["path", "url"]


def test_the_function_tag_reader_types_values_by_the_fold_for_any_caller() -> None:
    text = "<tool_call>\n<function=edit>\n<parameter=op>\nadd\n</parameter>\n<parameter=x>\n3\n</parameter>\n" \
           "</function>\n</tool_call>"
    read = parse_tool_calls(text, {"edit": ONE_OF}, dialect="hermes")  # (the tool's own schema, not folded first)
    assert read.tool_calls[0]["args"] == {"op": "add", "x": 3}


def test_a_plain_object_schema_is_left_as_it_is() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    assert local_parameters(schema) is schema
    assert argument_forms(schema) == [schema]


def test_forms_combine_allof_with_a_oneof_and_keep_the_branch_tags() -> None:
    schema = {"type": "object", "properties": {"op": {"enum": ["add", "del"]}},
              "allOf": [{"properties": {"note": {"type": "string"}}}],
              "oneOf": [{"properties": {"op": {"const": "add"}, "x": {"type": "integer"}}, "required": ["op", "x"]},
                        {"properties": {"op": {"const": "del"}}, "required": ["op"]}]}
    forms = argument_forms(schema)
    assert [sorted(f["properties"]) for f in forms] == [["note", "op", "x"], ["note", "op"]]
    assert forms[0]["properties"]["op"] == {"enum": ["add", "del"], "const": "add"}
    assert forms[1]["required"] == ["op"]


def test_too_many_combinations_fall_back_to_the_fold() -> None:
    branches = [{"type": "object", "properties": {f"k{i}": {"type": "string"}}, "required": [f"k{i}"]}
                for i in range(MAX_FORMS + 1)]
    schema = {"anyOf": branches}
    assert argument_forms(schema) == [local_parameters(schema)]
    spec = to_tool_spec(_tool(schema))
    text = format_calls([{"name": "edit", "args": {"k3": "v"}, "id": "c1", "type": "tool_call"}], "json", [spec])
    assert Gbnf(call_grammar([spec], "json", parallel=False)).accepts(text)


def test_a_union_of_non_objects_keeps_the_old_grammar_without_failing() -> None:
    schema = {"oneOf": [{"type": "string"}, {"type": "integer"}]}
    assert local_parameters(schema) is schema
    assert argument_forms(schema) == [schema]
