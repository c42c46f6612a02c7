"""Review 68: ``toolwire eval bfcl`` tried as a new user would, and broken.

1. Two categories of one run with an item id in common (hand-built ``live_*`` files numbered alike): the report
   files results by id, so one category's results overwrote the other's (``live_simple`` 0 items, ``live_multiple``
   4, and the JSON filed all 4 under ``live_simple``). Now refused before the model loads; and a report that holds
   an id under another category is refused rather than silently dropping that result.
2. Ctrl-C with ``--concurrency 2`` and a local model, then Ctrl-C again while the process waited (silently) for the
   running items: a ``KeyboardInterrupt`` traceback from the interpreter's shutdown, then a segmentation fault (exit
   -11: the exit handler freed the model a worker thread was still using). Now the wait is announced and a second
   Ctrl-C quits at once with 130 (``os._exit``, no exit handler).
3. A BFCL file saved with a UTF-8 byte-order mark (as some editors write a hand-built ``live_*`` file) was refused
   as invalid JSON on line 1; the mark is now skipped.
4. A data README.md that is not all UTF-8 ended the run (it is read only for the published scores).

No real model is loaded: the CLI's ``_load_model`` is replaced, and the runner gets small fake models.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolwire import AIMessage
from toolwire.errors import UserError
from toolwire.evals import cli
from toolwire.evals.bfcl import load_category
from toolwire.evals.bfcl_runner import RunInterrupted, run_bfcl
from toolwire.evals.report import Report, load_published_scores
from toolwire.testing import ScriptedChatModel

_FUNCTION = {"name": "math.add_one", "description": "Add one to x.",
             "parameters": {"type": "dict", "properties": {"x": {"type": "integer", "description": "A number."}},
                            "required": ["x"]}}


def _write(folder: Path, category: str, ids: list[str], *, bom: bool = False) -> Path:
    """A BFCL folder with one ``category`` file of items ``ids`` (each: add one to 1), and its answers."""
    (folder / "possible_answer").mkdir(parents=True, exist_ok=True)
    questions = "".join(json.dumps({"id": i, "question": [[{"role": "user", "content": "Add one to 1."}]],
                                    "function": [_FUNCTION]}) + "\n" for i in ids)
    answers = "".join(json.dumps({"id": i, "ground_truth": [{"math.add_one": {"x": [1]}}]}) + "\n" for i in ids)
    name = f"BFCL_v4_{category}.json"
    (folder / name).write_bytes((b"\xef\xbb\xbf" if bom else b"") + questions.encode("utf-8"))
    (folder / "possible_answer" / name).write_text(answers, encoding="utf-8")
    return folder


def _reply() -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "math_add_one", "args": {"x": 1}, "id": "c1", "type": "tool_call"}])


# -- 1 ----------------------------------------------------------------------------------------------------------
def test_an_id_in_two_categories_of_a_run_is_refused_before_any_item_runs(tmp_path: Path) -> None:
    data = _write(_write(tmp_path, "live_simple", ["item_0", "item_1"]), "live_multiple", ["item_0"])
    model = ScriptedChatModel([_reply()], cycle=True)
    with pytest.raises(UserError, match=r"live_simple and live_multiple .*'item_0'"):
        run_bfcl(model, data, "live_simple,live_multiple", out=tmp_path / "r.json")
    assert model.requests == []
    assert not (tmp_path / "r.json").exists()


def test_the_cli_says_so_in_one_line_before_the_model_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _write(_write(tmp_path, "live_simple", ["item_0"]), "live_multiple", ["item_0"])
    loaded: list[Any] = []
    monkeypatch.setattr(cli, "_load_model", lambda *a, **k: loaded.append(a) or ScriptedChatModel([_reply()]))
    result = CliRunner().invoke(cli.app, ["bfcl", "--data", str(data), "--category", "live_simple,live_multiple"])
    assert result.exit_code == 1
    assert result.output.strip().startswith("error: BFCL categories live_simple and live_multiple")
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert loaded == []


def test_a_report_holding_the_id_under_another_category_is_not_resumed(tmp_path: Path) -> None:
    data = _write(_write(tmp_path, "live_simple", ["item_0"]), "live_multiple", ["item_0"])
    out = tmp_path / "r.json"
    run_bfcl(ScriptedChatModel([_reply()], cycle=True), data, "live_simple", out=out)
    before = out.read_text(encoding="utf-8")
    model = ScriptedChatModel([_reply()], cycle=True)
    with pytest.raises(UserError, match=r"holds the item 'item_0' of live_simple.*live_multiple"):
        run_bfcl(model, data, "live_multiple", out=out)
    assert model.requests == []
    assert out.read_text(encoding="utf-8") == before
    assert [(i.id, i.category) for i in Report.load(out).items] == [("item_0", "live_simple")]


def test_distinct_ids_across_categories_still_share_one_report(tmp_path: Path) -> None:
    data = _write(_write(tmp_path, "live_simple", ["live_simple_0"]), "live_multiple", ["live_multiple_0"])
    out = tmp_path / "r.json"
    run_bfcl(ScriptedChatModel([_reply()], cycle=True), data, "live_simple", out=out)
    report = run_bfcl(ScriptedChatModel([_reply()], cycle=True), data, "live_multiple", out=out)
    assert sorted((i.id, i.category, i.valid) for i in report.items) == [
        ("live_multiple_0", "live_multiple", True), ("live_simple_0", "live_simple", True)]


# -- 2 ----------------------------------------------------------------------------------------------------------
class _SecondBlocks:
    """Answers the item ``item_1`` only when ``release`` is set, and ``item_0`` once ``item_1`` has started (so that
    ``item_1`` is running, not still queued, when ``item_0`` is scored: a queued item is cancelled, not handed over;
    on a loaded machine the second worker thread could start after the first item was scored)."""

    name = "blocking"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()

    def bind_tools(self, tools: Any) -> _SecondBlocks:
        return self

    def invoke(self, messages: Any) -> AIMessage:
        if "Add one to 2." in str(messages[-1].content):
            self.started.set()
            self.release.wait(10)
        else:
            self.started.wait(10)
        return _reply()


def test_ctrl_c_with_threads_hands_over_the_items_still_running(tmp_path: Path) -> None:
    data = _write(tmp_path, "simple_python", ["simple_python_0"])
    second = {"id": "simple_python_1", "question": [[{"role": "user", "content": "Add one to 2."}]],
              "function": [_FUNCTION]}
    with (data / "BFCL_v4_simple_python.json").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(second) + "\n")
    with (data / "possible_answer" / "BFCL_v4_simple_python.json").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "simple_python_1", "ground_truth": [{"math.add_one": {"x": [2]}}]}) + "\n")
    model = _SecondBlocks()

    def progress(done: int, total: int, correct: int) -> None:
        if done == 1:
            raise KeyboardInterrupt

    try:
        with pytest.raises(RunInterrupted) as caught:
            run_bfcl(model, data, "simple_python", concurrency=2, out=tmp_path / "r.json", progress=progress)
        assert [i.id for i in caught.value.report.items] == ["simple_python_0"]
        assert len(caught.value.running) == 1 and not caught.value.running[0].done()
    finally:
        model.release.set()
    assert caught.value.running[0].result(timeout=10).id == "simple_python_1"


def test_a_second_ctrl_c_while_waiting_quits_at_once(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(futures: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "wait", interrupted)
    codes: list[int] = []
    cli._await_running([Future(), Future()], exit_now=codes.append)
    assert codes == [130]
    assert "Waiting for the 2 items still running to end" in capsys.readouterr().err


def test_nothing_running_means_no_wait_and_no_message(capsys: pytest.CaptureFixture[str]) -> None:
    finished: Future[Any] = Future()
    finished.set_result(None)
    codes: list[int] = []
    cli._await_running([finished], exit_now=codes.append)
    cli._await_running([], exit_now=codes.append)
    assert codes == [] and capsys.readouterr().err == ""


# -- 3 ----------------------------------------------------------------------------------------------------------
def test_a_file_with_a_byte_order_mark_loads(tmp_path: Path) -> None:
    data = _write(tmp_path, "live_simple", ["live_simple_0", "live_simple_1"], bom=True)
    assert [i.id for i in load_category(data, "live_simple")] == ["live_simple_0", "live_simple_1"]


# -- 4 ----------------------------------------------------------------------------------------------------------
def test_a_data_readme_that_is_not_utf8_does_not_stop_the_run(tmp_path: Path) -> None:
    """A byte that is not UTF-8 in the data folder's README (read only for the published scores) ended the run
    before the model loaded with ``error: 'utf-8' codec can't decode byte 0xff...``, naming no file."""
    (tmp_path / "README.md").write_bytes(b"# notes \xff\n| model | simple |\n|---|---|\n| A | 50.0 |\n")
    assert load_published_scores(tmp_path / "README.md") == {"A": {"simple_python": 50.0}}
