"""Review 87: ``toolwire eval bfcl`` resume and stop.

1. An older report recorded ``--data`` as typed (a relative path). Resumed from another working directory while it
   held items outside the run's selection, it was refused as "items kept from another data folder" although the
   folder was the same. Such a path is now taken as relative to the current directory or to the report file's own
   (either matching); new reports record an absolute path.
2. With ``--concurrency`` above 1, the stop after 5 server failures in a row left out of the report the items that
   finished meanwhile (and the items still running, which finished while the process waited for them), and queued
   items kept starting after the stop. Now no item starts once the stop is decided, and every item that finishes is
   saved before the error is raised.

No real model, no network: scripted and small fake models.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from test_review85_eval import _data  # a BFCL folder of n simple items: item n wants add_one(x=n)
from toolwire import AIMessage
from toolwire.errors import UserError
from toolwire.evals.bfcl_runner import _FAILED_IN_A_ROW, RunInterrupted, run_bfcl
from toolwire.evals.report import Report
from toolwire.testing import ScriptedChatModel


def _reply(n: int) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "add_one", "args": {"x": n}, "id": f"c{n}", "type": "tool_call"}])


def _answers() -> ScriptedChatModel:
    def right(messages: list[Any]) -> AIMessage:
        return _reply(int(str(messages[-1].content).split()[-1].rstrip(".")))

    return ScriptedChatModel([right], cycle=True)


def _older_report(out: Path, data: Path, recorded: str) -> None:
    """Score all 3 items of ``data`` into ``out``, then record ``recorded`` as its data folder, as reports before
    review 85 did (``--data`` as typed)."""
    run_bfcl(_answers(), data, "simple_python", out=out)
    raw = json.loads(out.read_text(encoding="utf-8"))
    raw["data_dir"] = recorded
    out.write_text(json.dumps(raw), encoding="utf-8")


# -- 1 ----------------------------------------------------------------------------------------------------------
def test_an_older_report_s_relative_folder_is_resumed_from_another_directory(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # run in tmp_path as `--data bfcl --out r.json`; resumed from elsewhere with the folder's full path
    data, out = _data(tmp_path / "bfcl", 3), tmp_path / "r.json"
    _older_report(out, data, "bfcl")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    again = _answers()
    report = run_bfcl(again, data, "simple_python", limit=1, out=out)
    assert not again.requests  # the same folder: item 0 kept, items 1 and 2 kept beside it
    assert [i.id for i in report.items] == [f"simple_python_{n}" for n in range(3)]
    assert Report.load(out).data_dir == str(data.resolve())  # rewritten as an absolute path


def test_an_older_report_s_relative_folder_is_resumed_from_the_directory_it_was_run_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # run in tmp_path as `--data sets/bfcl --out runs/r.json`: relative to the directory, not to the report
    data, out = _data(tmp_path / "sets" / "bfcl", 3), tmp_path / "runs" / "r.json"
    out.parent.mkdir()
    _older_report(out, data, "sets/bfcl")
    monkeypatch.chdir(tmp_path)
    again = _answers()
    run_bfcl(again, Path("sets/bfcl"), "simple_python", limit=1, out=Path("runs/r.json"))
    assert not again.requests


def test_an_older_report_s_relative_folder_that_is_another_folder_is_still_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data, out = _data(tmp_path / "bfcl", 3), tmp_path / "r.json"
    _data(tmp_path / "other", 3)
    _older_report(out, tmp_path / "other", "other")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    model = _answers()
    with pytest.raises(UserError, match=r"holds 2 items outside this run's selection scored on the data in 'other'"):
        run_bfcl(model, data, "simple_python", limit=1, out=out)
    assert not model.requests


def test_a_new_report_records_its_data_folder_as_an_absolute_path(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _data(tmp_path / "bfcl", 2)
    monkeypatch.chdir(tmp_path)
    run_bfcl(_answers(), Path("bfcl"), "simple_python", out=Path("r.json"))
    recorded = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["data_dir"]
    assert Path(recorded).is_absolute() and recorded == str((tmp_path / "bfcl").resolve())


# -- 2 ----------------------------------------------------------------------------------------------------------
class _DownWhileFirstRuns:
    """Item 0 answers right once ``release`` is set; items 1 and on find the server down. Records every item
    asked (by number)."""

    name = "down"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.asked: list[int] = []
        self._lock = threading.Lock()

    def bind_tools(self, tools: Any) -> _DownWhileFirstRuns:
        return self

    def invoke(self, messages: Any) -> AIMessage:
        n = int(str(messages[-1].content).split()[-1].rstrip("."))
        with self._lock:
            self.asked.append(n)
        if n == 0:
            self.release.wait(10)  # (a bound for a broken run only: the test sets it)
            return _reply(0)
        raise ConnectionError("Could not connect to http://127.0.0.1:18199/v1")


def test_the_stop_with_threads_saves_the_item_still_running_and_starts_no_other(tmp_path: Path) -> None:
    data, out = _data(tmp_path / "d", _FAILED_IN_A_ROW + 4), tmp_path / "r.json"
    model = _DownWhileFirstRuns()
    seen: list[int] = []

    def progress(done: int, total: int, correct: int) -> None:
        seen.append(done)
        if done == _FAILED_IN_A_ROW:  # items 1-5 failed, item 0 still running: let it finish now
            model.release.set()

    try:
        with pytest.raises(UserError, match=rf"failed on {_FAILED_IN_A_ROW} items in a row, the last with: "
                                            r"ConnectionError: Could not connect"):
            run_bfcl(model, data, "simple_python", concurrency=2, out=out, progress=progress)
    finally:
        model.release.set()
    saved = Report.load(out)
    assert [i.id for i in saved.items] == [f"simple_python_{n}" for n in range(_FAILED_IN_A_ROW + 1)]
    assert saved.items[0].valid and all(i.reason == "error" for i in saved.items[1:])
    assert saved.finished is None
    assert sorted(model.asked) == list(range(_FAILED_IN_A_ROW + 1))  # none started after the stop
    assert seen[-1] == _FAILED_IN_A_ROW + 1  # the item that finished after the stop was counted too
    # a rerun resumes: item 0 kept, the failed ones run again
    again = _answers()
    again.name = model.name  # the same model, its server back
    report = run_bfcl(again, data, "simple_python", concurrency=2, out=out)
    assert len(again.requests) == _FAILED_IN_A_ROW + 3 and report.accuracy() == {"simple_python": 100.0}


def test_ctrl_c_after_the_stop_still_hands_over_the_item_running(tmp_path: Path) -> None:
    data, out = _data(tmp_path / "d", _FAILED_IN_A_ROW + 4), tmp_path / "r.json"
    model = _DownWhileFirstRuns()

    def progress(done: int, total: int, correct: int) -> None:
        if done == _FAILED_IN_A_ROW:
            raise KeyboardInterrupt

    try:
        with pytest.raises(RunInterrupted) as caught:
            run_bfcl(model, data, "simple_python", concurrency=2, out=out, progress=progress)
        assert len(caught.value.running) == 1 and not caught.value.running[0].done()
        assert [i.id for i in Report.load(out).items] == [f"simple_python_{n}" for n in range(1, _FAILED_IN_A_ROW + 1)]
    finally:
        model.release.set()
    assert caught.value.running[0].result(timeout=10).id == "simple_python_0"
    assert sorted(model.asked) == list(range(_FAILED_IN_A_ROW + 1))
