"""Review 140: `toolwire eval bfcl` defects (v1's ``relevance`` name, malformed item shapes, a bool inside a dict
value, the expected cell of a relevance failure)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolwire.evals.bfcl import load_category, resolve_category
from toolwire.evals.bfcl_runner import run_bfcl
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
