"""Review 197 (`toolwire eval bfcl`, third reading): a model that takes only its default temperature, a run whose
first items all fail with one client error, generated ids equal to another line's, two runs into one --out, and a
server URL with a trailing slash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _bfcl_data import FUNCTION, add_one_data
from toolwire import AIMessage
from toolwire.errors import UserError
from toolwire.evals.bfcl import load_category
from toolwire.evals.bfcl_runner import model_settings, run_bfcl
from toolwire.testing import ScriptedChatModel


def _replies(count: int) -> list[AIMessage]:
    return [AIMessage("", tool_calls=[{"name": "add_one", "args": {"x": n}, "id": f"c{n}", "type": "tool_call"}])
            for n in range(count)]


class _ServerModel(ScriptedChatModel):
    """A scripted model that says which server it talks to, as a ChatOpenAI with base_url does."""

    def __init__(self, replies: list[Any], base_url: str) -> None:
        super().__init__(replies, cycle=True)
        self.base_url = base_url
        self.name = "fake"


# --- #4: the same server with and without a trailing slash -------------------------------------------------------

def test_a_trailing_slash_is_the_same_server_on_resume(tmp_path: Path) -> None:
    data, out = add_one_data(tmp_path / "d", 2), tmp_path / "r.json"
    run_bfcl(_ServerModel(_replies(2), "http://127.0.0.1:18197/v1"), data, "simple_python", limit=1, out=out)
    again = _ServerModel(_replies(2), "http://127.0.0.1:18197/v1/")
    run_bfcl(again, data, "simple_python", out=out)
    assert len(again.requests) == 1  # the first item was kept
    assert json.loads(out.read_text())["settings"]["base_url"] == "http://127.0.0.1:18197/v1"


def test_a_report_that_recorded_the_trailing_slash_is_resumed_without_it(tmp_path: Path) -> None:
    data, out = add_one_data(tmp_path / "d", 2), tmp_path / "r.json"
    run_bfcl(_ServerModel(_replies(2), "http://127.0.0.1:18197/v1"), data, "simple_python", limit=1, out=out)
    saved = json.loads(out.read_text())
    saved["settings"]["base_url"] = "http://127.0.0.1:18197/v1/"  # as reports before review 197 recorded it
    out.write_text(json.dumps(saved))
    again = _ServerModel(_replies(2), "http://127.0.0.1:18197/v1")
    run_bfcl(again, data, "simple_python", out=out)
    assert len(again.requests) == 1


def test_the_recorded_server_keeps_its_query_and_drops_the_slash_and_credentials() -> None:
    settings = model_settings(_ServerModel([], "https://u:pw@llm.example.org/v1/?api_key=secret"))
    assert settings["base_url"] == "https://llm.example.org/v1?api_key=****"


# --- #2: an id given to a line without one that another line has -------------------------------------------------

def _mixed_ids(folder: Path) -> Path:
    """Line 1 has the id simple_python_1; line 2 has none, so its place gives it simple_python_1 too."""
    (folder / "possible_answer").mkdir(parents=True)
    questions = [{"id": "simple_python_1", "question": [[{"role": "user", "content": "Add one to 10."}]],
                  "function": [FUNCTION]},
                 {"question": [[{"role": "user", "content": "Add one to 20."}]], "function": [FUNCTION]}]
    answers = [{"id": "simple_python_1", "ground_truth": [{"add_one": {"x": [10]}}]},
               {"ground_truth": [{"add_one": {"x": [20]}}]}]
    (folder / "BFCL_v4_simple_python.json").write_text("".join(json.dumps(q) + "\n" for q in questions))
    (folder / "possible_answer" / "BFCL_v4_simple_python.json").write_text("".join(json.dumps(a) + "\n"
                                                                                  for a in answers))
    return folder


def test_a_generated_id_equal_to_another_line_s_is_refused(tmp_path: Path) -> None:
    data = _mixed_ids(tmp_path / "d")
    with pytest.raises(UserError, match=r"items 1 and 2 both have the id 'simple_python_1' \(item 2 has no id and is "
                                        r"given 'simple_python_1' by its place\); ids must be unique"):
        load_category(data, "simple_python")
    model = ScriptedChatModel(_replies(2), cycle=True)
    with pytest.raises(UserError, match="both have the id"):
        run_bfcl(model, data, "simple_python")
    assert not model.requests  # refused before any item runs


def test_lines_without_ids_and_lines_with_other_ids_still_load(tmp_path: Path) -> None:
    data = _mixed_ids(tmp_path / "d")
    text = (data / "BFCL_v4_simple_python.json").read_text().replace('"simple_python_1"', '"simple_python_7"')
    (data / "BFCL_v4_simple_python.json").write_text(text)
    answers = data / "possible_answer" / "BFCL_v4_simple_python.json"
    answers.write_text(answers.read_text().replace('"simple_python_1"', '"simple_python_7"'))
    items = load_category(data, "simple_python")
    assert [(i.id, i.ground_truth) for i in items] == [("simple_python_7", [{"add_one": {"x": [10]}}]),
                                                       ("simple_python_1", [{"add_one": {"x": [20]}}])]
