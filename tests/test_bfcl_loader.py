"""Loading BFCL data and converting it: the real files in ../shared/bfcl and small hand-made folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _paths import BFCL
from toolwire.errors import UserError
from toolwire.evals.bfcl import (
    CATEGORIES,
    available_categories,
    convert_schema,
    find_category_files,
    function_to_tool,
    functions_to_tools,
    json_type,
    load_category,
    parse_categories,
    question_to_messages,
    resolve_category,
)
from toolwire.messages import HumanMessage, SystemMessage

DATA = BFCL
needs_data = pytest.mark.skipif(not (DATA / "BFCL_v4_simple_python.json").is_file(), reason="no BFCL data")
COUNTS = {"simple_python": 400, "multiple": 200, "parallel": 200, "parallel_multiple": 200, "irrelevance": 240}
JSON_TYPES = {"object", "number", "integer", "string", "boolean", "array", "null"}


def assert_json_schema_types(schema: Any, where: str) -> None:
    """Every ``type`` in the schema, at any depth, is a JSON Schema type."""
    assert isinstance(schema, dict), where
    assert schema.get("type") in JSON_TYPES, f"{where}: {schema.get('type')!r}"
    assert "optional" not in schema
    for name, sub in (schema.get("properties") or {}).items():
        assert_json_schema_types(sub, f"{where}.{name}")
    if "items" in schema:
        assert_json_schema_types(schema["items"], f"{where}[]")
    if schema["type"] == "object" and "required" in schema:
        assert isinstance(schema["required"], list)


def assert_valid_tool(tool: dict[str, Any]) -> None:
    assert tool["type"] == "function"
    fn = tool["function"]
    assert set(fn) == {"name", "description", "parameters"}
    assert isinstance(fn["name"], str) and fn["name"]
    assert all(c.isalnum() or c in "_-" for c in fn["name"]) and len(fn["name"]) <= 64
    assert isinstance(fn["description"], str)
    assert fn["parameters"]["type"] == "object"
    assert isinstance(fn["parameters"]["properties"], dict)
    assert_json_schema_types(fn["parameters"], fn["name"])
    json.dumps(tool)


@needs_data
@pytest.mark.parametrize(("category", "count"), COUNTS.items())
def test_real_counts_and_conversion(category: str, count: int) -> None:
    items = load_category(DATA, category)
    assert len(items) == count
    assert len({i.id for i in items}) == count
    for item in items:
        assert item.category == category
        assert item.id.startswith(category)
        toolset = item.toolset()
        assert len(toolset.tools) == len(item.functions)
        for tool in toolset.tools:
            assert_valid_tool(tool)
        assert sorted(toolset.names.values()) == sorted(f["name"] for f in item.functions)
        assert sorted(toolset.names) == sorted(t["function"]["name"] for t in toolset.tools)
        messages = item.messages()
        assert messages and isinstance(messages[-1], HumanMessage) and messages[-1].text
        if category == "irrelevance":
            assert item.ground_truth is None
        else:
            assert item.ground_truth
            offered = {f["name"] for f in item.functions}
            for expected in item.ground_truth:
                (name, params), = expected.items()
                assert name in offered
                assert all(isinstance(v, list) for v in params.values())


@needs_data
def test_real_expected_call_counts() -> None:
    assert all(len(i.ground_truth or []) == 1 for i in load_category(DATA, "simple_python"))
    assert all(len(i.ground_truth or []) == 1 for i in load_category(DATA, "multiple"))
    assert all(len(i.functions) >= 2 for i in load_category(DATA, "multiple"))
    assert sum(len(i.ground_truth or []) > 1 for i in load_category(DATA, "parallel")) > 150


@needs_data
def test_alias_and_limit() -> None:
    items = load_category(DATA, "simple", limit=5)
    assert [i.id for i in items] == [f"simple_python_{n}" for n in range(5)]
    assert items[1].functions[0]["name"] == "math.factorial"
    assert items[1].ground_truth == [{"math.factorial": {"number": [5]}}]
    assert load_category(DATA, "parallel", limit=0) == []


@needs_data
def test_available_categories_and_files() -> None:
    assert set(CATEGORIES) <= set(available_categories(DATA))
    questions, answers = find_category_files(DATA, "multiple")
    assert questions.name == "BFCL_v4_multiple.json"
    assert answers == DATA / "possible_answer" / "BFCL_v4_multiple.json"
    assert find_category_files(DATA, "irrelevance")[1] is None


@needs_data
def test_unknown_category_lists_available() -> None:
    with pytest.raises(UserError, match=r"available: .*simple_python"):
        load_category(DATA, "live_simple")


def test_missing_folder() -> None:
    with pytest.raises(UserError, match="does not exist"):
        load_category("/nonexistent/bfcl", "simple")


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")


FN = {"name": "calc.add", "description": "Add.",
      "parameters": {"type": "dict", "properties": {"a": {"type": "integer"}}, "required": ["a"]}}


def test_other_release_file_names(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "BFCL_v3_simple.json",
                [{"id": "simple_0", "question": [[{"role": "user", "content": "1+?"}]], "function": [FN]}])
    write_jsonl(tmp_path / "possible_answer" / "BFCL_v3_simple.json",
                [{"id": "simple_0", "ground_truth": [{"calc.add": {"a": [1]}}]}])
    write_jsonl(tmp_path / "BFCL_v3_live_simple.json",
                [{"id": "live_simple_0", "question": [[{"role": "system", "content": "Be brief."},
                                                       {"role": "user", "content": "add 2"}]],
                  "function": [FN]}])
    write_jsonl(tmp_path / "possible_answer" / "BFCL_v3_live_simple.json",
                [{"id": "live_simple_0", "ground_truth": [{"calc.add": {"a": [2]}}]}])
    write_jsonl(tmp_path / "gorilla_openfunctions_v1_test_parallel_function.json",
                [{"question": "add 1 and 2 separately", "function": FN}])
    write_jsonl(tmp_path / "possible_answer" / "gorilla_openfunctions_v1_test_parallel_function.json",
                [{"calc.add": {"a": [1]}}])
    write_jsonl(tmp_path / "gorilla_openfunctions_v1_test_relevance.json",
                [{"question": "weather?", "function": [FN]}])
    assert available_categories(tmp_path) == ["irrelevance", "live_simple", "parallel", "simple_python"]
    (item,) = load_category(tmp_path, "simple_python")
    assert (item.id, item.category, item.ground_truth) == ("simple_0", "simple_python", [{"calc.add": {"a": [1]}}])
    (live,) = load_category(tmp_path, "live_simple")
    messages = live.messages()
    assert isinstance(messages[0], SystemMessage) and isinstance(messages[1], HumanMessage)
    assert live.question_text == "add 2"
    (par,) = load_category(tmp_path, "parallel_function")
    assert par.id == "parallel_0"
    assert par.question == [[{"role": "user", "content": "add 1 and 2 separately"}]]
    assert par.functions == [FN] and par.ground_truth == [{"calc.add": {"a": [1]}}]
    (irr,) = load_category(tmp_path, "irrelevance")
    assert irr.ground_truth is None and irr.id == "irrelevance_0"


def test_missing_answer_file_and_item(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "BFCL_v4_multiple.json",
                [{"id": "multiple_0", "question": [[{"role": "user", "content": "x"}]], "function": [FN]}])
    with pytest.raises(UserError, match="answer file"):
        load_category(tmp_path, "multiple")
    write_jsonl(tmp_path / "possible_answer" / "BFCL_v4_multiple.json",
                [{"id": "multiple_9", "ground_truth": [{"calc.add": {"a": [1]}}]}])
    with pytest.raises(UserError, match="multiple_0"):
        load_category(tmp_path, "multiple")


@pytest.mark.parametrize("entry", [{"calc.add": {"a": [1]}, "calc.sub": {"a": [1]}}, {}, "calc.add", {"calc.add": [1]}])
def test_an_answer_entry_that_is_not_one_call_is_refused_with_its_item(tmp_path: Path, entry: Any) -> None:
    write_jsonl(tmp_path / "BFCL_v4_multiple.json",
                [{"id": "multiple_0", "question": [[{"role": "user", "content": "x"}]], "function": [FN]}])
    write_jsonl(tmp_path / "possible_answer" / "BFCL_v4_multiple.json",
                [{"id": "multiple_0", "ground_truth": [entry]}])
    with pytest.raises(UserError, match=r"\(item 'multiple_0'\) has the entry .*; fix or remove that line"):
        load_category(tmp_path, "multiple")


def test_bad_json_line_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "BFCL_v4_irrelevance.json").write_text('{"id": "irrelevance_0"}\n{oops\n', encoding="utf-8")
    with pytest.raises(UserError, match=r"BFCL_v4_irrelevance.json:2"):
        load_category(tmp_path, "irrelevance")


def test_multi_turn_refused(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="multi-turn"):
        load_category(tmp_path, "multi_turn_base")


def test_parse_categories() -> None:
    assert parse_categories(None) == list(CATEGORIES)
    assert parse_categories("simple, multiple,simple_python") == ["simple_python", "multiple"]
    assert parse_categories(["Parallel"]) == ["parallel"]
    assert resolve_category("parallel_function") == "parallel"
    with pytest.raises(UserError):
        parse_categories(" , ")


@pytest.mark.parametrize(("bfcl", "expected"), [
    ("dict", "object"), ("float", "number"), ("double", "number"), ("integer", "integer"),
    ("long", "integer"), ("short", "integer"), ("byte", "integer"), ("string", "string"),
    ("char", "string"), ("any", "string"), ("boolean", "boolean"), ("bool", "boolean"),
    ("array", "array"), ("list", "array"), ("tuple", "array"), ("Float", "number"),
    ("HashMap", "string"), (None, "string"), (["integer", "null"], "integer"), (3, "string"),
])
def test_type_mapping(bfcl: Any, expected: str) -> None:
    assert json_type(bfcl) == expected


def test_convert_schema_recursive() -> None:
    schema = {
        "type": "dict",
        "properties": {
            "point": {"type": "tuple", "items": {"type": "float"}, "description": "x, y"},
            "people": {"type": "array", "items": {"type": "dict", "properties": {
                "age": {"type": "long"}, "tags": {"type": "list", "items": {"type": "char"}},
                "meta": {"type": "any"}}}},
            "flag": {"type": "bool", "optional": True, "default": False},
            "mystery": {"description": "no type"},
            "choice": {"type": "string", "enum": ["a", "b"]},
        },
        "required": ["point"],
    }
    original = json.dumps(schema)
    out = convert_schema(schema)
    assert json.dumps(schema) == original  # input untouched
    props = out["properties"]
    assert out["type"] == "object" and out["required"] == ["point"]
    assert props["point"] == {"type": "array", "items": {"type": "number"}, "description": "x, y"}
    person = props["people"]["items"]
    assert person["type"] == "object"
    assert person["properties"]["age"] == {"type": "integer"}
    assert person["properties"]["tags"] == {"type": "array", "items": {"type": "string"}}
    assert person["properties"]["meta"] == {"type": "string"}
    assert props["flag"] == {"type": "boolean", "default": False}
    assert props["mystery"] == {"type": "string", "description": "no type"}
    assert props["choice"]["enum"] == ["a", "b"]


def test_function_to_tool_shape() -> None:
    tool = function_to_tool(FN)
    assert tool == {"type": "function", "function": {
        "name": "calc.add", "description": "Add.",
        "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}}}
    assert function_to_tool({"name": "f"})["function"]["parameters"] == {"type": "object", "properties": {}}
    with pytest.raises(UserError):
        function_to_tool({"description": "nameless"})


def test_rename_is_reversible_and_avoids_collisions() -> None:
    docs = [{"name": "math.factorial"}, {"name": "math_factorial"}, {"name": "math factorial"},
            {"name": "plain"}, {"name": "x" * 70 + ".y"}]
    toolset = functions_to_tools(docs)
    sent = [t["function"]["name"] for t in toolset.tools]
    assert sent[1] == "math_factorial" and sent[3] == "plain"  # valid names are kept
    assert sent[0] == "math_factorial_2" and sent[2] == "math_factorial_3"
    assert len(sent[4]) <= 64
    assert len(set(sent)) == len(sent)
    assert [toolset.original_name(s) for s in sent] == [d["name"] for d in docs]
    assert toolset.original_name("unknown") == "unknown"
    simple = functions_to_tools([{"name": "math.factorial"}])
    assert simple.names == {"math_factorial": "math.factorial"}


def test_duplicate_function_names_refused() -> None:
    with pytest.raises(UserError, match="share a name"):
        functions_to_tools([{"name": "a"}, {"name": "a"}])


def test_question_to_messages_roles() -> None:
    messages = question_to_messages([[{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]])
    assert messages == [SystemMessage("S"), HumanMessage("U")]
    with pytest.raises(UserError, match="role"):
        question_to_messages([[{"role": "tool", "content": "x"}]])
