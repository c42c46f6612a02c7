"""How the pythonic prompt writes tools: nested objects' keys in the docstring, example calls the schema
accepts, descriptions that cannot break the docstring."""

from __future__ import annotations

import ast

import jsonschema
import pytest

from toolwire.models._tool_text import _example_call, python_signature
from toolwire.tools import ToolSpec

QUERY = ToolSpec("db_query", "Query a table.", {
    "type": "object",
    "properties": {
        "table": {"type": "string", "description": "Table name."},
        "where": {"type": "object", "description": "Filters.", "properties": {
            "school": {"type": "string", "description": "School name."},
            "grade": {"type": "integer"},
            "range": {"type": "object", "properties": {"low": {"type": "number"}, "high": {"type": "number"}},
                      "required": ["low"]},
        }, "required": ["school"]},
        "order": {"type": "array", "items": {"type": "object", "properties": {
            "field": {"type": "string", "description": "Column."},
            "desc": {"type": "boolean"}}, "required": ["field", "desc"]}},
        "note": {"anyOf": [{"type": "object", "properties": {"text": {"type": "string"}}}, {"type": "null"}]},
    },
    "required": ["table", "where", "order"],
})


def test_nested_object_keys_are_listed_under_their_parameter() -> None:
    text = python_signature(QUERY)
    assert text.splitlines()[0] == ("def db_query(table: str, where: dict, order: list[dict], "
                                    "note: dict | None = None):")
    assert (
        "        where: Filters. A dict with these keys:\n"
        "            school (str): School name.\n"
        "            grade (int, optional)\n"
        "            range (dict, optional): A dict with these keys:\n"
        "                low (float)\n"
        "                high (float, optional)\n"
        "        order: A list of dicts, each with these keys:\n"
        "            field (str): Column.\n"
        "            desc (bool)\n"
        "        note: A dict with these keys:\n"
        "            text (str, optional)\n"
    ) in text
    ast.parse(text + "\n    pass\n")  # still a valid Python definition


def test_a_description_cannot_end_the_docstring_or_break_its_lines() -> None:
    spec = ToolSpec("f", 'Say """hi""".', {"type": "object", "properties": {
        "x": {"type": "string", "description": 'Ends """ here.\nSecond   line.  '}}, "required": ["x"]})
    text = python_signature(spec)
    tree = ast.parse(text + "\n    pass\n")
    doc = ast.get_docstring(tree.body[0])
    assert "x: Ends ''' here. Second line." in doc


@pytest.mark.parametrize("variant", [0, 1])
def test_example_calls_are_valid_against_the_schema(variant: int) -> None:
    spec = ToolSpec("g", "G.", {
        "type": "object",
        "properties": {
            "where": QUERY.parameters["properties"]["where"],
            "order": {**QUERY.parameters["properties"]["order"], "minItems": 1},
            "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "page": {"type": ["null", "integer"], "minimum": 5},
            "ratio": {"type": "number", "minimum": 10},
        },
        "required": ["where", "order", "limit", "page", "ratio"],
    })
    args = _example_call(spec, variant)["args"]
    jsonschema.validate(args, spec.parameters)
    assert args["where"] == {"school": "value" if not variant else "other value"}
    assert args["page"] == 5 and args["ratio"] == 10


# -- review 13: examples the grammar accepts, odd schemas that must not break the prompt ------------------

_ODD = {
    "many items": {"type": "array", "items": {"type": "string"}, "minItems": 5},
    "distinct items": {"type": "array", "items": {"type": "integer"}, "minItems": 3, "uniqueItems": True},
    "integer above 2.5": {"type": "integer", "minimum": 2.5},
    "bounded numbers": {"type": "number", "exclusiveMinimum": 4, "maximum": 9},
    "untyped branches": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                         "anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
    "untyped array": {"items": {"type": "integer"}},
    "long string": {"type": "string", "minLength": 8},
    "nullable first": {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 3}]},
    # review 131 #6: the grammar holds neither patterns nor counts, so only the example keeps them
    "postal code": {"type": "string", "pattern": "^[0-9]{5}$"},
    "order id": {"type": "string", "pattern": r"^ORD-\d{4}$", "maxLength": 8},
    "negated class": {"type": "string", "pattern": "^[^@]+@[^@]+$"},
    "pattern in a list": {"type": "array", "items": {"type": "string", "pattern": "^[A-Z]{2}$"}, "minItems": 2},
    "twenty items": {"type": "array", "items": {"type": "string"}, "minItems": 20},
}


@pytest.mark.parametrize("name", sorted(_ODD))
def test_example_calls_pass_the_call_grammar_and_the_schema(name: str) -> None:
    from test_grammar import Gbnf
    from toolwire.models._tool_text import format_calls
    from toolwire.models.grammar import call_grammar

    spec = ToolSpec("f", "F.", {"type": "object", "properties": {"p": _ODD[name]}, "required": ["p"]})
    grammar = Gbnf(call_grammar([spec], "pythonic"))
    for variant in (0, 1):
        call = _example_call(spec, variant)
        jsonschema.validate(call["args"], spec.parameters)
        assert grammar.accepts(format_calls([call], "pythonic", [spec])), format_calls([call], "pythonic", [spec])


def test_odd_nested_schemas_render_a_valid_definition() -> None:
    spec = ToolSpec("f", "F.", {"type": "object", "required": ["o"], "properties": {
        "o": {"type": "object", "required": True, "description": None, "properties": {
            'x"""\nimport os': {"type": "string", "description": None}, "y": {"type": "integer"}}}}})
    text = python_signature(spec)
    tree = ast.parse(text + "\n    pass\n")
    doc = ast.get_docstring(tree.body[0])
    assert "None" not in doc and "x''' import os (str, optional)" in doc and "y (int, optional)" in doc
    assert _example_call(spec)["args"] == {"o": {}}  # a non-list "required" counts as no required keys


def test_example_strings_are_the_examples_made_up_strings_only() -> None:
    from toolwire.models._tool_text import example_strings

    spec = ToolSpec("f.g", "F.", {"type": "object", "required": ["city", "n", "x", "unit", "mode", "zone"],
                                  "properties": {
        "city": {"type": "string"}, "n": {"type": "integer"}, "x": {"type": "number"},
        "unit": {"enum": ["value", "km"]}, "mode": {"type": "string", "default": "other value"},
        "zone": {"type": "string"}}})
    # "value" is an enum choice and "other value" a default: real values; numbers are never example_values
    assert example_strings([spec]) == {}
    plain = ToolSpec("g", "G.", {"type": "object", "required": ["q"], "properties": {"q": {"type": "string"}}})
    assert example_strings([plain, spec]) == {"g": frozenset({"value", "other value"})}
    assert example_strings([plain], parallel=False) == {"g": frozenset({"value"})}  # one example shown
    odd = ToolSpec("h", "H.", {"type": "object", "required": ["p"], "properties": [{"p": 1}]})
    assert example_strings([odd]) == {} and example_strings([]) == {}


def test_nested_example_keys_follow_the_grammars_order() -> None:
    from test_grammar import Gbnf
    from toolwire.models._tool_text import format_calls
    from toolwire.models.grammar import call_grammar

    spec = ToolSpec("f", "F.", {"type": "object", "required": ["o"], "properties": {"o": {
        "type": "object", "required": ["b", "a"], "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "minimum": 10**400}}})
    call = _example_call(spec)
    assert list(call["args"]["o"]) == ["a", "b"]
    assert Gbnf(call_grammar([spec], "pythonic")).accepts(format_calls([call], "pythonic", [spec]))


def test_a_boolean_min_items_is_no_bound_for_the_grammar_or_the_example() -> None:
    from test_grammar import Gbnf
    from toolwire.models._tool_text import format_calls
    from toolwire.models.grammar import call_grammar

    spec = ToolSpec("f", "F.", {"type": "object", "required": ["xs"], "properties": {
        "xs": {"type": "array", "items": {"type": "integer"}, "minItems": True}}})
    call = _example_call(spec)
    assert call["args"] == {"xs": []}
    assert Gbnf(call_grammar([spec], "pythonic")).accepts(format_calls([call], "pythonic", [spec]))


def test_a_patterns_example_is_the_same_in_every_process() -> None:
    """The example string of a negated class is drawn from a set, whose order follows the process's string hash
    seed; the prompt (and its cache) must not."""
    import subprocess
    import sys

    code = ("from toolwire.models._tool_text import _example_value as e; "
            "print([e({'type': 'string', 'pattern': '^[^@]+@[^@]{3}$'}, v) for v in (0, 1)])")
    seen = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3")}
    assert len(seen) == 1, seen


def test_a_pattern_python_cannot_read_keeps_the_plain_example() -> None:
    from toolwire.models._tool_text import _example_value

    assert _example_value({"type": "string", "pattern": r"^\p{L}+$"}) == "value"  # ECMA-262, not Python's re
    assert _example_value({"type": "string", "pattern": "^[0-9]{5}$", "minLength": 6}) == "valuex"


@pytest.mark.parametrize("pattern", ["^(a{1000}){1000}$", "^[0-9]{100000000}$", "^[\\u0000-\\U0010ffff]{5}$"])
def test_a_pattern_without_a_short_match_or_with_a_huge_class_keeps_the_plain_example(pattern: str) -> None:
    """Review 139 #1: drawing for these took seconds, built a megabyte example, or never ended."""
    from toolwire.models._tool_text import _example_value

    assert _example_value({"type": "string", "pattern": pattern}) == "value"


def test_a_lookaround_pattern_is_checked_in_linear_time() -> None:
    """Review 139 #1: the drawn text was searched with Python's backtracking re, which froze the process on this
    pattern; the example is now checked as validation checks a value."""
    from toolwire.models._tool_text import _example_value

    text = _example_value({"type": "string", "pattern": "^(a|aa)+a{40}(?=b)$"})
    assert isinstance(text, str) and len(text) <= 64


def test_nested_lists_keep_their_example_small() -> None:
    """Review 139 #1: nested lists of minItems 64 multiplied into examples of millions of characters."""
    import json

    from toolwire.models._tool_text import _example_value

    nested: dict = {"type": "string"}
    for _ in range(4):
        nested = {"type": "array", "items": nested, "minItems": 64}
    assert len(json.dumps(_example_value(nested))) < 20_000
