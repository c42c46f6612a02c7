"""A resumed BFCL run runs again an item whose function docs or earlier turns changed (same id, same last question,
same answer key): the report keeps a fingerprint of what the model was asked, per item."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolwire import AIMessage
from toolwire.evals.bfcl import load_category
from toolwire.evals.bfcl_runner import run_bfcl
from toolwire.evals.report import Report
from toolwire.testing import ScriptedChatModel

_FUNCTION: dict[str, Any] = {
    "name": "math.add_one", "description": "Add one to x.",
    "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
}


def _data(folder: Path, function: dict[str, Any], turns: list[list[dict[str, str]]] | None = None) -> Path:
    (folder / "possible_answer").mkdir(parents=True, exist_ok=True)
    question = turns or [[{"role": "user", "content": "Add one to 1."}]]
    item = {"id": "simple_python_0", "question": question, "function": [function]}
    key = {"id": "simple_python_0", "ground_truth": [{"math.add_one": {"x": [1]}}]}
    (folder / "BFCL_v4_simple_python.json").write_text(json.dumps(item) + "\n", encoding="utf-8")
    (folder / "possible_answer" / "BFCL_v4_simple_python.json").write_text(json.dumps(key) + "\n", encoding="utf-8")
    return folder


def _reply() -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "math_add_one", "args": {"x": 1}, "id": "c1", "type": "tool_call"}])


def test_the_fingerprint_covers_turns_and_function_docs_and_nothing_else(tmp_path: Path) -> None:
    base = load_category(_data(tmp_path / "a", _FUNCTION), "simple_python")[0]
    same = load_category(_data(tmp_path / "b", json.loads(json.dumps(_FUNCTION))), "simple_python")[0]
    other_doc = load_category(_data(tmp_path / "c", {**_FUNCTION, "description": "Add 1."}), "simple_python")[0]
    system = [[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Add one to 1."}]]
    other_turns = load_category(_data(tmp_path / "d", _FUNCTION, system), "simple_python")[0]
    assert len(base.fingerprint) == 64 and base.fingerprint == same.fingerprint
    assert len({base.fingerprint, other_doc.fingerprint, other_turns.fingerprint}) == 3
    assert base.question_text == other_doc.question_text == other_turns.question_text  # what the old rule compared


def test_a_resume_runs_again_an_item_whose_function_docs_changed(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    first = ScriptedChatModel([_reply()])
    run_bfcl(first, _data(tmp_path / "v1", _FUNCTION), "simple_python", out=out)
    saved = Report.load(out).items[0]
    assert saved.fingerprint and len(first.requests) == 1
    again = ScriptedChatModel([_reply()])
    run_bfcl(again, _data(tmp_path / "v1", _FUNCTION), "simple_python", out=out)  # unchanged: kept
    assert not again.requests
    changed = ScriptedChatModel([_reply()])
    doc = {**_FUNCTION, "description": "Add one to x (an integer) and return the sum."}
    report = run_bfcl(changed, _data(tmp_path / "v2", doc), "simple_python", out=out)
    assert len(changed.requests) == 1 and report.items[0].fingerprint != saved.fingerprint


def test_a_report_written_before_fingerprints_still_resumes(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    data = _data(tmp_path / "v1", _FUNCTION)
    run_bfcl(ScriptedChatModel([_reply()]), data, "simple_python", out=out)
    raw = json.loads(out.read_text(encoding="utf-8"))
    for item in raw["items"]:
        del item["fingerprint"]
    out.write_text(json.dumps(raw), encoding="utf-8")
    again = ScriptedChatModel([_reply()])
    run_bfcl(again, data, "simple_python", out=out)
    assert not again.requests
