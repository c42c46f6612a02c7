"""Review 167 #1: a BFCL run stopped after 5 server failures in a row keeps and shows what was scored as Ctrl-C does
(the table, ``--out``, ``--html``; no advice to rerun "with the same --out" when there is none), and a stop when
every item was run is a finished run, not a stop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _bfcl_data import add_one_data
from toolwire import AIMessage
from toolwire.cli import app
from toolwire.evals import cli as eval_cli
from toolwire.evals.bfcl_runner import _FAILED_IN_A_ROW, RunStopped, run_bfcl
from toolwire.evals.report import Report

_data = add_one_data


class _Model:
    """Answers items 0 to ``good - 1`` right; its server is down for the others (thread-safe: each reply depends on
    its item only)."""

    name = "fake"

    def __init__(self, good: int) -> None:
        self.good = good

    def bind_tools(self, tools: Any) -> _Model:
        return self

    def invoke(self, messages: Any) -> AIMessage:
        n = int(str(messages[-1].content).split()[-1].rstrip("."))
        if n >= self.good:
            raise ConnectionError("Could not connect to http://127.0.0.1:18199/v1")
        return AIMessage("", tool_calls=[{"name": "add_one", "args": {"x": n}, "id": f"c{n}", "type": "tool_call"}])


def _model(good: int) -> _Model:
    return _Model(good)


@pytest.mark.parametrize("concurrency", [1, 2])
def test_the_stop_hands_over_what_was_scored(tmp_path: Path, concurrency: int) -> None:
    data = _data(tmp_path / "d", 2 + _FAILED_IN_A_ROW + 3)
    with pytest.raises(RunStopped, match=rf"failed on {_FAILED_IN_A_ROW} items in a row") as caught:
        run_bfcl(_model(2), data, "simple_python", concurrency=concurrency)
    report = caught.value.report
    assert report.finished is None and sum(i.valid for i in report.items) == 2
    assert "--out" not in str(caught.value)  # none was given: no advice to rerun with the same one
    out = tmp_path / "r.json"
    with pytest.raises(RunStopped, match=r"with the same --out, the items scored are kept"):
        run_bfcl(_model(2), data, "simple_python", concurrency=concurrency, out=out)
    assert Report.load(out).finished is None


@pytest.mark.parametrize("concurrency", [1, 2])
def test_a_stop_on_the_last_item_is_a_finished_run(tmp_path: Path, concurrency: int) -> None:
    data, out = _data(tmp_path / "d", 2 + _FAILED_IN_A_ROW), tmp_path / "r.json"
    report = run_bfcl(_model(2), data, "simple_python", concurrency=concurrency, out=out)
    assert report.finished is not None and Report.load(out).finished is not None
    assert len(report.items) == 2 + _FAILED_IN_A_ROW and sum(i.reason == "error" for i in report.items) == 5


def _cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int, *options: str) -> Any:
    monkeypatch.setattr(eval_cli, "_load_model", lambda *args, **kwargs: _model(2))
    return CliRunner().invoke(app, ["eval", "bfcl", "--data", str(_data(tmp_path / "d", count)), "--category",
                                    "simple_python", *options])


def test_the_command_shows_and_writes_what_was_scored_when_it_stops(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "r.html"
    result = _cli(tmp_path, monkeypatch, 2 + _FAILED_IN_A_ROW + 3, "--html", str(page))
    text = " ".join(result.output.split())
    assert result.exit_code == 1, text
    assert "simple_python" in text and "overall" in text, text  # the table
    assert page.is_file() and "simple_python_2" in page.read_text(encoding="utf-8")
    assert f"error: The model failed on {_FAILED_IN_A_ROW} items in a row" in text and "--out" not in text, text
    out = tmp_path / "r.json"
    page.unlink()
    result = _cli(tmp_path, monkeypatch, 2 + _FAILED_IN_A_ROW + 3, "--out", str(out), "--html", str(page))
    assert result.exit_code == 1 and page.is_file() and "same --out" in result.output, result.output
    assert sum(i.valid for i in Report.load(out).items) == 2


def test_the_command_ends_a_run_whose_last_item_was_the_fifth_failure(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    page, out = tmp_path / "r.html", tmp_path / "r.json"
    result = _cli(tmp_path, monkeypatch, 2 + _FAILED_IN_A_ROW, "--out", str(out), "--html", str(page))
    assert result.exit_code == 0, result.output
    assert page.is_file() and Report.load(out).finished is not None
