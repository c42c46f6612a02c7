"""Review 42: ``toolwire eval bfcl`` as a demanding user and BFCL expert would try to break it: the AST checker against
the rules of the BFCL data README (shared/bfcl/README.md), the loader on odd but valid data, the runner and report
through the Python API with ``ScriptedChatModel``, and the CLI only with inputs that must fail before a model loads
(``_load_model`` is replaced by a recorder; no real model is ever loaded).

The checker held up on every rule probed (int for float, bool not int, string normalisation at every depth, lists,
answer-key dicts, ``""`` for an optional parameter, parallel order, several allowed answers, irrelevance, dotted
names renamed and mapped back, collisions after renaming), and a scripted model answering every item of the five
shared categories with its answer key scores 100 %. The faults found are in output handling and resuming.

Faults (each test asserts the correct behaviour and failed before its fix; all four fixed in the nineteenth session):

1. ``toolwire eval bfcl --out DIR/afile/r.json`` (an ``--out`` that cannot be written: its parent is a regular file)
   passes every check made before the model loads; the model is loaded and asked the first item, and only then the
   run stops with ``error: Cannot write ...: File exists.``. Review 26 added the pre-check for a folder only; any
   ``--out`` that cannot be written should be refused in one sentence before the model loads.
2. The same for ``--html``: an ``--html`` path that cannot be written is found only after the whole run (the
   model ran every item; without ``--out`` the results are gone, only the terminal table is left). It should be
   refused before the model loads.
3. ``--out r.json --html r.json`` (one file for both, a typo) is accepted: the run saves the JSON report there, then
   the HTML page overwrites it; the command exits 0 and prints ``Report: r.json``, but the file is HTML, so the
   run cannot be resumed or rescored (``Report.load`` refuses it). The two paths should be refused as the same file
   before the model loads.
4. Resuming with the same ``--out`` against another data folder (e.g. a v3 copy and a v4 copy of BFCL, which share
   ids such as ``multiple_0``) reuses the old verdict of every item whose id matches, even when its question and
   answer key differ: the report claims the new ``data_dir`` yet scores the old question (the item's stored
   ``question`` says so). An item whose question changed should be run again (or the report refused, as for
   another model or other settings).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolwire import AIMessage
from toolwire.errors import UserError
from toolwire.evals import cli
from toolwire.evals.bfcl_runner import run_bfcl
from toolwire.evals.report import Report
from toolwire.testing import ScriptedChatModel

_FUNCTION = {"name": "math.add_one", "description": "Add one to x.",
             "parameters": {"type": "dict", "properties": {"x": {"type": "integer", "description": "A number."}},
                            "required": ["x"]}}


def _data(folder: Path, question: str = "Add one to 1.", answer: int = 1) -> Path:
    """A one-item simple_python BFCL folder."""
    (folder / "possible_answer").mkdir(parents=True, exist_ok=True)
    item = {"id": "simple_python_0", "question": [[{"role": "user", "content": question}]], "function": [_FUNCTION]}
    key = {"id": "simple_python_0", "ground_truth": [{"math.add_one": {"x": [answer]}}]}
    (folder / "BFCL_v4_simple_python.json").write_text(json.dumps(item) + "\n", encoding="utf-8")
    (folder / "possible_answer" / "BFCL_v4_simple_python.json").write_text(json.dumps(key) + "\n", encoding="utf-8")
    return folder


def _reply(x: int) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "math_add_one", "args": {"x": x}, "id": "c1", "type": "tool_call"}],
                     usage={"input_tokens": 10, "output_tokens": 3, "total_tokens": 13})


def _recording_loader(loaded: list[Any]) -> Any:
    def load(*args: Any, **kwargs: Any) -> ScriptedChatModel:
        loaded.append(args)
        return ScriptedChatModel([_reply(1)], cycle=True)
    return load


def _run_cli(monkeypatch: pytest.MonkeyPatch, data: Path, *extra: str) -> tuple[Any, list[Any]]:
    loaded: list[Any] = []
    monkeypatch.setattr(cli, "_load_model", _recording_loader(loaded))
    result = CliRunner().invoke(cli.app, ["bfcl", "--data", str(data), "--category", "simple_python", *extra])
    return result, loaded


def _one_line_error(result: Any) -> bool:
    text = result.output.strip()
    return text.startswith("error:") and len(text.splitlines()) == 1 and "Traceback" not in text


# -- 1 and 2 ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("flag", "name"), [("--out", "r.json"), ("--html", "r.html")])
def test_an_unwritable_output_is_refused_before_the_model_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 flag: str, name: str) -> None:
    data = _data(tmp_path / "data")
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder", encoding="utf-8")
    result, loaded = _run_cli(monkeypatch, data, flag, str(blocker / name))
    assert result.exit_code == 1
    assert loaded == [], f"the model was loaded (and asked) before {flag} was found unwritable"
    assert _one_line_error(result), result.output
    assert flag in result.output and "is a file, not a folder" in result.output


# -- 3 ---------------------------------------------------------------------------------------------------------
def test_out_and_html_on_one_file_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _data(tmp_path / "data")
    same = tmp_path / "bfcl.json"
    result, loaded = _run_cli(monkeypatch, data, "--out", str(same), "--html", str(same))
    if result.exit_code == 0:  # what happens today: the page replaced the JSON report, which is lost
        Report.load(same)  # the resume file must still be a report
    assert result.exit_code == 1
    assert loaded == []
    assert _one_line_error(result), result.output


# -- 4 ---------------------------------------------------------------------------------------------------------
def test_resume_against_changed_data_does_not_reuse_a_stale_verdict(tmp_path: Path) -> None:
    first = _data(tmp_path / "v3", question="Add one to 1.", answer=1)
    second = _data(tmp_path / "v4", question="Add one to 2.", answer=2)
    out = tmp_path / "r.json"
    report = run_bfcl(ScriptedChatModel([_reply(1)]), first, "simple_python", out=out)
    assert report.items[0].valid
    model = ScriptedChatModel([_reply(1)])  # the same model: 1 is wrong for the second folder's item
    try:
        report = run_bfcl(model, second, "simple_python", out=out)
    except UserError:
        return  # refusing to mix two data sets is right too
    item = report.items[0]
    assert model.requests, f"not asked again: the old verdict of {item.question!r} was kept for 'Add one to 2.'"
    assert item.question == "Add one to 2."
    assert not item.valid and item.reason == "wrong_value"
