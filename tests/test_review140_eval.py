"""Review 140: `toolwire eval bfcl` defects (v1's ``relevance`` name, malformed item shapes, a bool inside a dict
value, the expected cell of a relevance failure)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from toolwire.errors import UserError
from toolwire.evals.bfcl import BfclItem, functions_to_tools, load_category, resolve_category
from toolwire.evals.bfcl_checker import check_calls, value_matches
from toolwire.evals.bfcl_runner import load_items, run_bfcl, score_item
from toolwire.evals.report import ItemResult
from toolwire.evals.report_html import render_html
from toolwire.testing import ScriptedChatModel

FN = {"name": "calc.add", "description": "Add.",
      "parameters": {"type": "dict", "properties": {"a": {"type": "integer"}}, "required": ["a"]}}


def write_jsonl(path: Path, rows: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")


def test_v1_relevance_name_loads_and_scores_the_items_as_irrelevance(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "gorilla_openfunctions_v1_test_relevance.json",
                [{"question": "What is the weather?", "function": [FN]},
                 {"question": "Tell me a joke.", "function": [FN]}])
    assert resolve_category("Relevance") == "irrelevance"
    items = load_category(tmp_path, "relevance")
    assert [(i.id, i.category) for i in items] == [("irrelevance_0", "irrelevance"), ("irrelevance_1", "irrelevance")]
    model = ScriptedChatModel(["None of the offered functions fits."], cycle=True)  # never calls: all correct
    report = run_bfcl(model, tmp_path, "relevance")
    assert report.accuracy() == {"irrelevance": 100.0}
    assert report.categories == ["irrelevance"]


ANSWER = {"id": "simple_python_0", "ground_truth": [{"calc.add": {"a": [1]}}]}


@pytest.mark.parametrize(("row", "what"), [
    ({"function": ["calc.add"]}, r'has a function that is not a \{"name", "description", "parameters"\} object '
                                 r'\("calc.add"\)'),
    ({"function": "calc.add"}, r'has a "function" that is not a list of function objects \("calc.add"\)'),
    ({"question": [["What is 1 + 0?"]]}, r'has a question message that is not a \{"role", "content"\} object '
                                          r'\("What is 1 \+ 0\?"\)'),
    ({"question": None}, r'has a "question" that is not a string or a list of turns \(null\)'),
])
def test_malformed_item_shapes_are_refused_at_load_naming_file_and_line(tmp_path: Path, row: dict[str, Any],
                                                                         what: str) -> None:
    good = {"id": "simple_python_0", "question": [[{"role": "user", "content": "add 1"}]], "function": [FN]}
    path = tmp_path / "BFCL_v4_simple_python.json"
    path.write_text("\n" + json.dumps({**good, **row}) + "\n", encoding="utf-8")  # (line 2: a blank line first)
    write_jsonl(tmp_path / "possible_answer" / "BFCL_v4_simple_python.json", [ANSWER])
    remedy = ": fix that line, or get a fresh copy of the BFCL data.$"
    with pytest.raises(UserError, match=f"^{re.escape(str(path))}:2 {what}{remedy}"):
        load_items(tmp_path, "simple_python")  # (before any model is loaded: the CLI loads the items first)


def test_score_item_records_a_malformed_question_and_refuses_a_malformed_function_doc() -> None:
    model = ScriptedChatModel(["No call."], cycle=True)
    item = BfclItem("x_0", "simple_python", [["What is 1 + 0?"]], [FN], [{"calc.add": {"a": [1]}}])  # type: ignore[list-item]
    result = score_item(model, item)  # (raised AttributeError outside its try before)
    assert (result.valid, result.reason, result.question) == (False, "error", "")
    assert "not a {\"role\", \"content\"} object" in result.message
    with pytest.raises(UserError, match=r"^BFCL item 'x_1': A BFCL function doc is \"f\", not a"):
        score_item(model, BfclItem("x_1", "simple_python", [[{"role": "user", "content": "hi"}]], ["f"]))  # type: ignore[list-item]
    with pytest.raises(UserError, match="not a"):
        functions_to_tools(["f"])  # type: ignore[list-item]


def test_readme_states_which_model_errors_stop_a_run_as_the_runner_has_it(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "BFCL_v4_irrelevance.json",
                [{"id": f"irrelevance_{n}", "question": "weather?", "function": [FN]} for n in range(7)])

    def broken(messages: Any) -> Any:
        raise RuntimeError("llama_decode returned -1")  # not server trouble: recorded per item, the run goes on

    report = run_bfcl(ScriptedChatModel([broken], cycle=True), tmp_path, "irrelevance")
    assert [i.reason for i in report.items] == ["error"] * 7
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8").split())
    assert "A model that fails (raises) on 5 items in a row stops the run" not in readme
    assert "fails on 5 items in a row with server trouble" in readme
    assert "Any other exception from the model" in readme and "is recorded as that item's error" in readme


POPULATION = {"name": "waste", "parameters": {"type": "dict", "properties": {
    "population": {"type": "dict", "properties": {}},
    "flags": {"type": "array", "items": {"type": "integer"}},
    "count": {"type": "integer"}}, "required": []}}


def _valid(args: dict[str, Any], answer: dict[str, Any]) -> bool:
    return check_calls("simple_python", [POPULATION], [{"waste": answer}], [{"name": "waste", "args": args}]).valid


def test_a_bool_equals_a_number_where_bfcl_applies_no_type_check_and_nowhere_else() -> None:
    # inside a dict's values (BFCL's dict_checker: plain `in`), at any depth, as on the real item parallel_29
    assert _valid({"population": {"adults": 2, "singles": False}}, {"population": [{"adults": [2], "singles": [0]}]})
    assert _valid({"population": {"singles": 1}}, {"population": [{"singles": [True]}]})
    assert _valid({"population": {"ages": [True, 0]}}, {"population": [{"ages": [[1, 0]]}]})
    assert not _valid({"population": {"singles": True}}, {"population": [{"singles": [2]}]})
    # an optional list, compared whole once BFCL's nested type check met its ""
    assert _valid({"flags": [True, False]}, {"flags": [[1, 0], ""]})
    # kept: the top level and a typed list
    assert not _valid({"count": True}, {"count": [1]})
    assert not _valid({"flags": [True, False]}, {"flags": [[1, 0]]})
    assert value_matches(True, [1], untyped=True) and not value_matches(True, [1])


def test_html_row_of_a_failed_relevance_item_expects_a_call(tmp_path: Path) -> None:
    for category in ("live_relevance", "irrelevance"):
        write_jsonl(tmp_path / f"BFCL_v4_{category}.json",
                    [{"id": f"{category}_0", "question": "add 1", "function": [FN]}])
    never_calls = ScriptedChatModel(["No call."], cycle=True)
    report = run_bfcl(never_calls, tmp_path, "live_relevance")
    report.items.append(ItemResult("irrelevance_0", "irrelevance", False, "called_when_should_not", "Made 1 call.",
                                   None, [{"name": "calc.add", "args": {"a": 1}}]))
    html = render_html(report, {})
    cells = {row_id: re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
             for row_id, row in re.findall(r'<tr id="([^"]+)">(.*?)</tr>', html, re.S)}
    assert re.sub(r"<[^>]+>", "", cells["live_relevance_0"][4]) == "a call (any)"
    assert re.sub(r"<[^>]+>", "", cells["irrelevance_0"][4]) == "no call"
