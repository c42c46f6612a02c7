"""Review 85 (a new user of `toolwire eval bfcl`): resume never mixes another server's or another data set's results,
a model that keeps failing stops the run, and a hand-edited report is refused before the model is asked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _bfcl_data import add_one_data
from toolwire import AIMessage
from toolwire.errors import UserError
from toolwire.evals.bfcl_runner import _FAILED_IN_A_ROW, model_settings, run_bfcl
from toolwire.evals.report import Report
from toolwire.testing import ScriptedChatModel


def _data(folder: Path, count: int = 1) -> Path:
    return add_one_data(folder, count)


def _replies(count: int) -> list[AIMessage]:
    return [AIMessage("", tool_calls=[{"name": "add_one", "args": {"x": n}, "id": f"c{n}", "type": "tool_call"}])
            for n in range(count)]


class _ServerModel(ScriptedChatModel):
    """A scripted model that says which server it talks to, as a ChatOpenAI with base_url does."""

    def __init__(self, replies: list[Any], base_url: str) -> None:
        super().__init__(replies, cycle=True)
        self.base_url = base_url
        self.name = "fake"


def test_a_report_of_another_server_s_model_of_the_same_name_is_not_resumed(tmp_path: Path) -> None:
    data, out = _data(tmp_path / "d", 2), tmp_path / "r.json"
    run_bfcl(_ServerModel(_replies(2), "http://127.0.0.1:18101/v1"), data, "simple_python", limit=1, out=out)
    with pytest.raises(UserError, match=r"the server 'http://127.0.0.1:18101/v1' there, 'http://127.0.0.1:18102/v1'"):
        run_bfcl(_ServerModel(_replies(2), "http://127.0.0.1:18102/v1"), data, "simple_python", out=out)
    same = _ServerModel(_replies(2), "http://127.0.0.1:18101/v1")
    run_bfcl(same, data, "simple_python", out=out)
    assert len(same.requests) == 1  # the first item was kept


def test_the_recorded_server_holds_no_credentials() -> None:
    settings = model_settings(_ServerModel([], "https://user:s3cret@llm.example.org:8443/v1"))
    assert settings["base_url"] == "https://llm.example.org:8443/v1"


def test_items_kept_from_another_data_folder_are_not_mixed_in(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    run_bfcl(ScriptedChatModel(_replies(3), cycle=True), _data(tmp_path / "odd", 3), "simple_python", out=out)
    with pytest.raises(UserError, match=r"holds 2 items outside this run's selection scored on the data in"):
        run_bfcl(ScriptedChatModel(_replies(3), cycle=True), _data(tmp_path / "bfcl", 3), "simple_python", limit=1,
                 out=out)
    # the same folder, however it is written, resumes
    again = ScriptedChatModel(_replies(3), cycle=True)
    run_bfcl(again, tmp_path / "odd" / ".." / "odd", "simple_python", limit=1, out=out)
    assert not again.requests


def test_a_model_that_keeps_failing_stops_the_run_and_what_was_scored_is_saved(tmp_path: Path) -> None:
    data, out = _data(tmp_path / "d", _FAILED_IN_A_ROW + 3), tmp_path / "r.json"

    def down(messages: list[Any]) -> Any:
        raise ConnectionError("Could not connect to http://127.0.0.1:18199/v1")

    for concurrency in (1, 2):
        model = ScriptedChatModel([*_replies(1), *([down] * (_FAILED_IN_A_ROW + 5))])  # one answer, then a dead server
        with pytest.raises(UserError, match=rf"failed on {_FAILED_IN_A_ROW} items in a row, the last with: "
                                            r"ConnectionError: Could not connect"):
            run_bfcl(model, data, "simple_python", out=out, concurrency=concurrency)
        saved = Report.load(out)
        assert sum(i.reason == "error" for i in saved.items) >= _FAILED_IN_A_ROW
        if concurrency == 1:  # (with threads, items that finished meanwhile are kept too)
            assert len(saved.items) == 1 + _FAILED_IN_A_ROW  # stopped before the end
        out.unlink()


def test_a_report_with_a_field_of_another_type_is_refused_before_the_model_is_asked(tmp_path: Path) -> None:
    data, out = _data(tmp_path / "d", 2), tmp_path / "r.json"
    run_bfcl(ScriptedChatModel(_replies(2), cycle=True), data, "simple_python", limit=1, out=out)
    raw = json.loads(out.read_text(encoding="utf-8"))
    raw["items"][0]["seconds"] = None
    out.write_text(json.dumps(raw), encoding="utf-8")
    model = ScriptedChatModel(_replies(2), cycle=True)
    with pytest.raises(UserError, match=r"is not a BFCL report toolwire wrote \(TypeError: item 'simple_python_0' "
                                        r"has seconds=None\)"):
        run_bfcl(model, data, "simple_python", out=out)
    assert not model.requests


def test_html_never_replaces_a_file_that_is_not_a_report_page(tmp_path: Path) -> None:
    from toolwire.evals.cli import _check_outputs
    from toolwire.evals.report import write_html

    victim = tmp_path / "victim.json"
    victim.write_text('{"model": "a long run"}', encoding="utf-8")
    with pytest.raises(UserError, match=r"--html .*victim.json' is a file that is not a toolwire report page: pass "
                                        r"a new file name, such as '.*victim.html'"):
        _check_outputs(None, victim)
    page = tmp_path / "page.html"
    page.write_text("<html><body>my notes</body></html>", encoding="utf-8")
    with pytest.raises(UserError, match=r"page-bfcl.html"):
        _check_outputs(None, page)
    ours = tmp_path / "ours.html"
    write_html(Report("m", ["simple_python"], [], "", ""), ours)
    _check_outputs(None, ours)  # a page it wrote is rewritten
    (tmp_path / "empty.html").touch()
    _check_outputs(None, tmp_path / "empty.html")


def test_a_function_doc_whose_properties_are_not_schemas_is_found_before_the_model_is_asked(tmp_path: Path) -> None:
    from toolwire.evals.bfcl_runner import load_items

    data = _data(tmp_path / "d")
    item = json.loads((data / "BFCL_v4_simple_python.json").read_text(encoding="utf-8"))
    item["function"][0]["parameters"]["properties"] = ["x"]
    (data / "BFCL_v4_simple_python.json").write_text(json.dumps(item) + "\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"simple_python_0.*'add_one' has parameters that are not an object of named "
                                        r"parameter schemas"):
        load_items(data, "simple_python")


def test_ctrl_c_before_any_item_was_scored_does_not_say_a_file_was_saved(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from rich.console import Console

    from toolwire.evals.cli import _interrupted

    _interrupted(None, Console(), tmp_path / "never.json", None, {})
    said = capsys.readouterr().err
    assert said.strip() == "Interrupted." and "rerun to resume" not in said


def test_a_parameter_the_key_wants_left_out_says_so() -> None:
    from toolwire.evals.bfcl_checker import _allowed_text

    assert _allowed_text([""]) == "it left out"
    assert _allowed_text([3, ""]) == "3 (or leave it out)"


def test_a_category_with_fewer_items_than_the_readme_lists_gets_a_note(tmp_path: Path) -> None:
    from toolwire.evals.bfcl_runner import load_items
    from toolwire.evals.cli import _count_notes
    from toolwire.evals.report import parse_item_counts, parse_published_table

    data = _data(tmp_path / "d", 3)
    readme = data / "README.md"
    readme.write_text("| category | items | what |\n|---|---|---|\n| simple_python | 4 | one call |\n"
                      "| irrelevance | 240 | no call |\n\n| model | simple | irrelevance |\n|---|---|---|\n"
                      "| A | 91.5 | inf |\n| B | -20 | 80 |\n", encoding="utf-8")
    assert parse_item_counts(readme.read_text()) == {"simple_python": 4, "irrelevance": 240}
    [note] = _count_notes(load_items(data, "simple_python"), readme)
    assert note.startswith("note: simple_python has 3 items, but") and "lists 4" in note
    # published scores that are no percentages are skipped
    assert parse_published_table(readme.read_text()) == {"A": {"simple_python": 91.5}, "B": {"irrelevance": 80.0}}


def test_errors_of_the_items_themselves_do_not_stop_the_run(tmp_path: Path) -> None:
    # review 86: a context overflow or a schema a provider refuses fails the same items on every rerun; counted,
    # they stopped the run again and again before it could reach the rest
    from toolwire.errors import ProviderError

    data, out = _data(tmp_path / "d", _FAILED_IN_A_ROW + 2), tmp_path / "r.json"

    def too_long(messages: list[Any]) -> Any:  # (each item's own length: one same 4xx on the first items stops the
        # run since review 197 #1, for then the request, not the items, is at fault)
        raise ProviderError(f"the prompt ({messages[-1].text}) is too long", provider="openai", status=400)

    model = ScriptedChatModel([too_long] * (_FAILED_IN_A_ROW + 2))
    report = run_bfcl(model, data, "simple_python", out=out)
    assert len(report.items) == _FAILED_IN_A_ROW + 2 and all(i.reason == "error" for i in report.items)


def test_a_page_written_before_the_generator_tag_is_still_rewritten_and_urls_keep_no_secret(tmp_path: Path) -> None:
    from toolwire.evals.bfcl_runner import _without_credentials
    from toolwire.evals.cli import _check_outputs

    old = tmp_path / "old.html"
    old.write_text('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n<title>BFCL report: m</title>',
                   encoding="utf-8")
    _check_outputs(None, old)
    assert _without_credentials("https://u:pw@llm.example.org/v1?api_key=sk-1") == \
        "https://llm.example.org/v1?api_key=****"
