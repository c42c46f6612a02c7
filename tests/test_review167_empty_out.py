"""Review 167 #3: ``--out`` naming an existing empty (or whitespace-only) file, such as ``mktemp`` makes, starts a
fresh report, as ``--html`` takes an empty file; a file that holds anything else is still refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from _bfcl_data import add_one_data
from toolwire import AIMessage
from toolwire.cli import app
from toolwire.errors import UserError
from toolwire.evals import cli as eval_cli
from toolwire.evals.bfcl_runner import run_bfcl
from toolwire.evals.report import Report
from toolwire.testing import ScriptedChatModel


def _data(folder: Path, count: int = 2) -> Path:
    return add_one_data(folder, count)


def _model() -> ScriptedChatModel:
    return ScriptedChatModel([AIMessage("", tool_calls=[{"name": "add_one", "args": {"x": n}, "id": f"c{n}",
                                                         "type": "tool_call"}]) for n in range(2)])


@pytest.mark.parametrize("content", ["", " \n"])
def test_an_empty_out_file_is_a_fresh_report(tmp_path: Path, content: str) -> None:
    out = tmp_path / "r.json"
    out.write_text(content, encoding="utf-8")
    report = run_bfcl(_model(), _data(tmp_path / "d"), "simple_python", out=out)
    assert report.accuracy() == {"simple_python": 100.0}
    assert len(Report.load(out).items) == 2


def test_the_command_takes_an_empty_out_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "r.json"
    out.touch()
    monkeypatch.setattr(eval_cli, "_load_model", lambda *args, **kwargs: _model())
    result = CliRunner().invoke(app, ["eval", "bfcl", "--data", str(_data(tmp_path / "d")), "--category",
                                      "simple_python", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert Report.load(out).finished is not None


def test_a_file_that_is_not_a_report_is_still_refused(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    out.write_text("my notes\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"is not a BFCL report toolwire wrote"):
        run_bfcl(_model(), _data(tmp_path / "d"), "simple_python", out=out)
    assert out.read_text(encoding="utf-8") == "my notes\n"
    assert Report.load_existing(tmp_path / "none.json") is None
