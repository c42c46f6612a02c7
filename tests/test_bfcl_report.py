"""run_bfcl with fake models, resume, the JSON and HTML reports, the published-scores parser, the CLI."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

from _paths import BFCL
from toolwire.errors import UserError
from toolwire.evals import cli
from toolwire.evals.bfcl import CATEGORIES, BfclItem, load_category
from toolwire.evals.bfcl_checker import example_calls
from toolwire.evals.bfcl_runner import run_bfcl
from toolwire.evals.report import (
    ItemResult,
    Report,
    load_published_scores,
    parse_published_table,
    write_html,
)
from toolwire.messages import AIMessage, BaseMessage

DATA = BFCL
pytestmark = pytest.mark.skipif(not (DATA / "README.md").is_file(), reason="no BFCL data")
FIRST = 20


class FakeModel:
    """A duck-typed chat model: ``bind_tools(tools).invoke(messages)`` -> AIMessage.

    ``answer(item_or_None, tool_names, messages)`` returns the calls (with the names as sent) or raises.
    Items are found by (last user text, sent tool names), which is unique in the BFCL data.
    """

    def __init__(self, answer: Callable[[BfclItem | None, list[str], list[BaseMessage]], list[dict[str, Any]]],
                 items: list[BfclItem] = (), name: str = "fake", delay: float = 0.0) -> None:  # type: ignore[assignment]
        self.name = name
        self.answer = answer
        self.delay = delay
        self.index = {(i.question_text, tuple(i.toolset().names)): i for i in items}
        self.calls = 0
        self.running = 0
        self.max_running = 0
        self.lock = threading.Lock()

    def bind_tools(self, tools: list[dict[str, Any]]) -> _Bound:
        return _Bound(self, [t["function"]["name"] for t in tools])


class _Bound:
    def __init__(self, model: FakeModel, names: list[str]) -> None:
        self.model, self.names = model, names

    def invoke(self, messages: list[BaseMessage]) -> AIMessage:
        model = self.model
        with model.lock:
            model.calls += 1
            model.running += 1
            model.max_running = max(model.max_running, model.running)
        try:
            if model.delay:
                time.sleep(model.delay)
            item = model.index.get((messages[-1].text, tuple(self.names)))
            calls = model.answer(item, self.names, messages)
            return AIMessage("" if calls else "None of the tools fits.", tool_calls=calls,
                             usage={"input_tokens": 100, "output_tokens": 10, "total_tokens": 110})
        finally:
            with model.lock:
                model.running -= 1


def from_truth(item: BfclItem | None, names: list[str], messages: list[BaseMessage]) -> list[dict[str, Any]]:
    """Answer from the ground truth: the first allowed value of each parameter, names as sent."""
    assert item is not None
    if item.ground_truth is None:
        return []
    sent = {original: s for s, original in item.toolset().names.items()}
    return [{"name": sent[c["name"]], "args": c["args"]} for c in example_calls(item.ground_truth, item.functions)]


def never(item: BfclItem | None, names: list[str], messages: list[BaseMessage]) -> list[dict[str, Any]]:
    return []


def items_of(categories: tuple[str, ...] | list[str], limit: int | None = FIRST) -> list[BfclItem]:
    return [i for c in categories for i in load_category(DATA, c, limit)]


def oracle(**kwargs: Any) -> FakeModel:
    return FakeModel(from_truth, items_of(CATEGORIES), name=kwargs.pop("name", "oracle"), **kwargs)


# ------------------------------------------------------------------ runner

def test_ground_truth_model_scores_100_percent() -> None:
    model = oracle()
    report = run_bfcl(model, DATA, limit=FIRST)
    summary = {s.category: s for s in report.summary()}
    assert list(summary) == list(CATEGORIES)
    for s in summary.values():
        assert (s.count, s.correct, s.accuracy, s.errors) == (FIRST, FIRST, 100.0, 0), s
        assert s.input_tokens == 100 * FIRST and s.output_tokens == 10 * FIRST
        assert s.mean_seconds >= 0
    assert report.overall() == 100.0
    assert report.failures() == []
    assert report.finished is not None and report.model == "oracle"
    assert model.calls == FIRST * len(CATEGORIES)


def test_dotted_names_are_sent_renamed_and_mapped_back() -> None:
    seen: list[list[str]] = []

    def spy(item: BfclItem | None, names: list[str], messages: list[BaseMessage]) -> list[dict[str, Any]]:
        seen.append(names)
        return from_truth(item, names, messages)

    report = run_bfcl(FakeModel(spy, items_of(["simple_python"], 2)), DATA, "simple", limit=2)
    assert seen[1] == ["math_factorial"]
    assert report.items[1].actual == [{"name": "math.factorial", "args": {"number": 5}}]
    assert report.items[1].valid


def test_model_that_never_calls() -> None:
    report = run_bfcl(FakeModel(never), DATA, list(CATEGORIES), limit=FIRST)
    accuracy = report.accuracy()
    assert accuracy == {"simple_python": 0.0, "multiple": 0.0, "parallel": 0.0, "parallel_multiple": 0.0,
                        "irrelevance": 100.0}
    assert {i.reason for i in report.failures()} == {"no_call"}
    assert report.failures()[0].text == "None of the tools fits."


def test_wrong_answers_have_reasons() -> None:
    def off_by_one(item: BfclItem | None, names: list[str], messages: list[BaseMessage]) -> list[dict[str, Any]]:
        calls = from_truth(item, names, messages)
        if calls:
            calls[0]["args"] = {k: (v + 1 if type(v) is int else v) for k, v in calls[0]["args"].items()}
        return calls

    report = run_bfcl(FakeModel(off_by_one, items_of(["simple_python"], 5)), DATA, "simple_python", limit=5)
    (wrong,) = [i for i in report.items if i.id == "simple_python_0"]
    assert (wrong.valid, wrong.reason) == (False, "wrong_value")
    assert "'base'" in wrong.message
    assert wrong.expected == [{"calculate_triangle_area": {"base": [10], "height": [5], "unit": ["units", ""]}}]
    assert wrong.actual[0]["args"]["base"] == 11


def test_model_errors_are_recorded_and_the_run_goes_on() -> None:
    def flaky(item: BfclItem | None, names: list[str], messages: list[BaseMessage]) -> list[dict[str, Any]]:
        if item is not None and item.id == "multiple_1":
            raise RuntimeError("server down")
        return from_truth(item, names, messages)

    report = run_bfcl(FakeModel(flaky, items_of(["multiple"], 4)), DATA, "multiple", limit=4)
    assert len(report.items) == 4
    (failed,) = report.failures()
    assert (failed.id, failed.reason) == ("multiple_1", "error")
    assert "RuntimeError: server down" in failed.message
    assert report.summary()[0].errors == 1 and report.accuracy()["multiple"] == 75.0


def test_concurrency_runs_items_at_once_and_keeps_data_order() -> None:
    model = oracle(delay=0.02)
    report = run_bfcl(model, DATA, "parallel,irrelevance", limit=8, concurrency=4)
    assert model.max_running > 1
    assert [i.id for i in report.items] == [f"parallel_{n}" for n in range(8)] + [
        f"irrelevance_{n}" for n in range(8)]
    assert report.overall() == 100.0


def test_progress_callback() -> None:
    ticks: list[tuple[int, int, int]] = []
    run_bfcl(FakeModel(never), DATA, "simple_python,irrelevance", limit=3,
             progress=lambda d, t, c: ticks.append((d, t, c)))
    assert ticks[0] == (0, 6, 0)
    assert ticks[-1] == (6, 6, 3)
    assert [d for d, _, _ in ticks] == list(range(7))


def test_resume_skips_scored_items(tmp_path: Path) -> None:
    out = tmp_path / "run" / "report.json"
    first = oracle()
    run_bfcl(first, DATA, "simple_python", limit=5, out=out)
    saved = json.loads(out.read_text())
    assert len(saved["items"]) == 5 and saved["finished"]
    assert not list(out.parent.glob("*.tmp"))
    again = oracle()
    report = run_bfcl(again, DATA, "simple_python,irrelevance", limit=8, out=out)
    assert again.calls == 3 + 8  # simple_python_5..7 and the irrelevance items
    assert len(report.items) == 16 and report.overall() == 100.0
    other = oracle(name="another-model")
    with pytest.raises(UserError, match="holds a report of 'oracle', not 'another-model': pass another --out"):
        run_bfcl(other, DATA, "simple_python", limit=5, out=out)
    assert other.calls == 0 and len(Report.load(out).items) == 16  # another model's file is never replaced


def test_resume_refuses_a_report_of_other_default_dialects(tmp_path: Path) -> None:
    # a local model left to its default dialect records which those are, so a run begun before the defaults
    # changed (pythonic everywhere, then json with several tools) is not mixed with the new replies
    out = tmp_path / "report.json"
    before = oracle()
    before.dialect = None  # type: ignore[attr-defined]
    before.default_dialects = lambda: "pythonic"  # type: ignore[attr-defined]
    run_bfcl(before, DATA, "multiple", limit=2, out=out)
    assert json.loads(out.read_text())["settings"]["default_dialects"] == "pythonic"
    after = oracle()
    after.dialect = None  # type: ignore[attr-defined]
    after.default_dialects = lambda: "pythonic; json with 2+ tools"  # type: ignore[attr-defined]
    with pytest.raises(UserError, match="the model's default dialects 'pythonic' there, 'pythonic; json with 2\\+ "
                       "tools' now"):
        run_bfcl(after, DATA, "multiple", limit=4, out=out)
    assert after.calls == 0
    same = oracle()
    same.dialect = None  # type: ignore[attr-defined]
    same.default_dialects = lambda: "pythonic"  # type: ignore[attr-defined]
    saved = json.loads(out.read_text())
    saved["started"] = "2020-01-02T03:04:05+00:00"
    out.write_text(json.dumps(saved))
    run_bfcl(same, DATA, "multiple", limit=4, out=out)
    resumed = json.loads(out.read_text())
    assert same.calls == 2 and resumed["started"] == "2020-01-02T03:04:05+00:00"  # a resumed run keeps its start
    assert resumed["finished"] > resumed["started"]
    # a dialect named now: the message names the option, not the defaults it replaces
    named = oracle()
    named.dialect = "json"  # type: ignore[attr-defined]
    with pytest.raises(UserError) as refused:
        run_bfcl(named, DATA, "multiple", limit=4, out=out)
    assert "(--dialect the model's default there, 'json' now)" in str(refused.value)
    assert "default dialects" not in str(refused.value)


def test_a_smaller_rerun_keeps_the_items_outside_its_selection(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    run_bfcl(oracle(), DATA, "simple_python,irrelevance", limit=4, out=out)
    again = oracle()
    report = run_bfcl(again, DATA, "simple_python", limit=1, out=out)
    assert again.calls == 0
    assert [i.id for i in report.items][:1] == ["simple_python_0"] and len(report.items) == 8
    assert report.categories == ["simple_python", "irrelevance"]
    assert len(Report.load(out).items) == 8


def test_resume_retries_errors(tmp_path: Path) -> None:
    out = tmp_path / "r.json"

    def broken(item: BfclItem | None, names: list[str], messages: list[BaseMessage]) -> list[dict[str, Any]]:
        raise ConnectionError("refused")

    run_bfcl(FakeModel(broken, name="m"), DATA, "multiple", limit=3, out=out)
    assert {i.reason for i in Report.load(out).items} == {"error"}
    fixed = FakeModel(from_truth, items_of(["multiple"], 3), name="m")
    report = run_bfcl(fixed, DATA, "multiple", limit=3, out=out)
    assert fixed.calls == 3 and report.accuracy() == {"multiple": 100.0}


@pytest.mark.parametrize("concurrency", [1, 3])
def test_ctrl_c_keeps_what_was_scored(tmp_path: Path, concurrency: int) -> None:
    out = tmp_path / "r.json"
    count = {"n": 0}
    lock = threading.Lock()

    def interrupted(item: BfclItem | None, names: list[str], messages: list[BaseMessage]) -> list[dict[str, Any]]:
        with lock:
            count["n"] += 1
            n = count["n"]
        if n == 5:
            raise KeyboardInterrupt
        if n > 5:
            time.sleep(0.05)
        return from_truth(item, names, messages)

    model = FakeModel(interrupted, items_of(["parallel"], 10), name="m")
    # a KeyboardInterrupt in a worker thread surfaces from future.result() in the calling thread
    with pytest.raises(KeyboardInterrupt):
        run_bfcl(model, DATA, "parallel", limit=10, out=out, concurrency=concurrency)
    partial = Report.load(out)
    assert partial.finished is None
    if concurrency == 1:
        assert [i.id for i in partial.items] == [f"parallel_{n}" for n in range(4)]
    else:  # items finish out of order; the ones done when the interrupt surfaced are kept
        assert 1 <= len(partial.items) < 10
    assert all(i.valid for i in partial.items)
    resumed = FakeModel(from_truth, items_of(["parallel"], 10), name="m")
    report = run_bfcl(resumed, DATA, "parallel", limit=10, out=out)
    assert resumed.calls == 10 - len(partial.items)
    assert len(report.items) == 10 and report.accuracy() == {"parallel": 100.0}


def test_bad_arguments() -> None:
    with pytest.raises(UserError, match="concurrency"):
        run_bfcl(FakeModel(never), DATA, "simple", concurrency=0)
    with pytest.raises(UserError, match="No BFCL data"):
        run_bfcl(FakeModel(never), DATA, "nonsense")


# ------------------------------------------------------------------ report

def test_report_json_round_trip_and_rounding() -> None:
    items = [ItemResult("simple_python_0", "simple_python", True, seconds=0.5, input_tokens=7),
             ItemResult("simple_python_1", "simple_python", True, seconds=1.0),
             ItemResult("simple_python_2", "simple_python", False, "wrong_value", "bad", [{"f": {"a": [1]}}],
                        [{"name": "f", "args": {"a": 2}}], seconds=1.5, output_tokens=3)]
    report = Report("m", ["simple_python", "irrelevance"], items, "/data", "2025-01-01T00:00:00+00:00")
    data = json.loads(report.to_json())
    (simple, irrelevance) = data["summary"]
    assert simple == {"category": "simple_python", "count": 3, "correct": 2, "accuracy": 66.67,
                      "mean_seconds": 1.0, "input_tokens": 7, "output_tokens": 3, "errors": 0}
    assert irrelevance["count"] == 0 and irrelevance["accuracy"] is None  # nothing scored is not 0 % right
    assert data["overall"] == 66.67  # categories without items are not averaged
    assert data["items"][2]["actual"] == [{"name": "f", "args": {"a": 2}}]
    again = Report.from_dict(data)
    assert again == report
    with pytest.raises(UserError):
        Report.from_dict({"nope": 1})


def test_parse_published_table_of_readme() -> None:
    scores = load_published_scores(DATA / "README.md")
    assert len(scores) == 5
    qwen = scores["Qwen2.5-0.5B-Instruct (FC, v3 2025-04)"]
    assert qwen == {"simple_python": 81.5, "multiple": 78.0, "parallel": 60.0, "parallel_multiple": 50.0,
                    "irrelevance": 39.17}
    assert scores["GPT-4o-mini (FC, v4 2025-11)"]["irrelevance"] == 82.5


def test_parse_published_table_edge_cases() -> None:
    text = ("| category | items |\n|---|---|\n| simple | 400 |\n\nScores:\n"
            "| Model | simple | irrelevance |\n|:--|--:|--:|\n| A | 10.5 | n/a |\n| B | 99% | 1 |\n"
            "after\n| C | 1 | 2 |\n")
    assert parse_published_table(text) == {"A": {"simple_python": 10.5}, "B": {"simple_python": 99.0,
                                                                                "irrelevance": 1.0}}
    assert parse_published_table("no table here") == {}
    with pytest.raises(UserError):
        load_published_scores("/nonexistent/README.md")


class _Checker(HTMLParser):
    VOID: ClassVar[set[str]] = {"meta", "br", "img", "input", "link", "hr", "area", "base", "col", "embed",
                                "source", "track", "wbr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_report(tmp_path: Path) -> None:
    def mixed(item: BfclItem | None, names: list[str], messages: list[BaseMessage]) -> list[dict[str, Any]]:
        assert item is not None
        if item.id.endswith("_1"):
            return [{"name": names[0], "args": {"<script>alert(1)</script>": "x & y"}}]
        return from_truth(item, names, messages)

    report = run_bfcl(FakeModel(mixed, items_of(CATEGORIES, 3), name="tiny <model>"), DATA, limit=3)
    report.items[0].question = "<script>alert('q')</script>"
    page = tmp_path / "out" / "report.html"
    write_html(report, page, published=DATA / "README.md")
    text = page.read_text(encoding="utf-8")
    checker = _Checker()
    checker.feed(text)
    checker.close()
    assert checker.errors == [] and checker.stack == []
    assert text.startswith("<!DOCTYPE html>")
    tags = [t for t, _ in checker.tags]
    assert "svg" in tags and "style" in tags and "script" not in tags
    assert all("src" not in attrs and "href" not in attrs for _, attrs in checker.tags)
    assert "http" not in text.lower().replace("http-equiv", "")
    assert "<script>alert" not in text and "&lt;script&gt;alert" in text
    assert "tiny &lt;model&gt;" in text
    body = "".join(checker.text)
    for category in CATEGORIES:
        assert category in body
    for model in load_published_scores(DATA / "README.md"):
        assert model in body
    assert tags.count("details") == len(CATEGORIES)
    assert "simple_python_1" in body and "missing_parameter" in body and "called_when_should_not" in body
    assert "81.50" in body  # a published score next to ours
    assert tags.count("rect") == len(CATEGORIES) * 6  # this run + 5 published models per category


def test_html_without_published_scores(tmp_path: Path) -> None:
    page = tmp_path / "r.html"
    write_html(Report("m", ["simple_python"]), page)
    checker = _Checker()
    checker.feed(page.read_text(encoding="utf-8"))
    assert checker.errors == [] and "No items scored" in "".join(checker.text)


# ------------------------------------------------------------------ CLI

def test_cli_runs_and_writes_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[Any, ...]] = []

    def load(model: str | None, dialect: str | None, min_call_probability: float | None = None,
             min_value_probability: float | None = None, optional_argument_share: float | None = None,
             parallel_call_share: float | None = None, decline_value_lists: bool = False) -> FakeModel:
        made.append((model, dialect, min_call_probability, min_value_probability, optional_argument_share,
                     parallel_call_share, decline_value_lists))
        return oracle(name=model or "oracle")

    monkeypatch.setattr(cli, "_load_model", load)
    out, html = tmp_path / "r.json", tmp_path / "r.html"
    result = CliRunner().invoke(cli.app, ["bfcl", "--data", str(DATA), "--category", "simple,irrelevance",
                                          "--limit", "3", "--model", "qwen-test", "--dialect", "hermes",
                                          "--concurrency", "2", "--out", str(out), "--html", str(html),
                                          "--min-call-probability", "0.5", "--min-value-probability", "0.2",
                                          "--optional-argument-share", "0.4", "--parallel-call-share", "0.1",
                                          "--decline-value-lists"])
    assert result.exit_code == 0, result.output
    assert made == [("qwen-test", "hermes", 0.5, 0.2, 0.4, 0.1, True)]
    assert "simple_python" in result.output and "100.00" in result.output
    assert Report.load(out).accuracy() == {"simple_python": 100.0, "irrelevance": 100.0}
    assert "qwen-test" in html.read_text(encoding="utf-8")
    assert "Resuming" not in result.stderr
    # review 59: a rerun says it resumes, and a table written to a pipe keeps its category names whole
    again = CliRunner().invoke(cli.app, ["bfcl", "--data", str(DATA), "--category", "simple,irrelevance",
                                         "--limit", "3", "--model", "qwen-test", "--dialect", "hermes",
                                         "--out", str(out)])
    assert again.exit_code == 0, again.output
    assert f"Resuming {out}: 6 of this run's 6 items are scored already and not run again." in again.stderr
    assert "simple_python" in again.stdout and "irrelevance" in again.stdout and "…" not in again.stdout
    # a resume the run refuses (other settings) is never announced as resuming (review 68)
    other = CliRunner().invoke(cli.app, ["bfcl", "--data", str(DATA), "--category", "simple,irrelevance",
                                         "--limit", "3", "--model", "other-model", "--out", str(out)])
    assert other.exit_code == 1, other.output
    assert "Resuming" not in other.stderr and "holds a report of" in other.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["--data", "/nonexistent/bfcl"], "does not exist"),
    (["--data", str(DATA), "--category", "nope"], "No BFCL data for category 'nope'"),
])
def test_cli_errors_are_one_line(args: list[str], message: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_load_model", lambda *a: pytest.fail("model loaded before checks"))
    result = CliRunner().invoke(cli.app, ["bfcl", *args])
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output
    assert result.output.strip().startswith("error:") and len(result.output.strip().splitlines()) == 1


def test_cli_model_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: Any) -> Any:
        raise UserError("Unknown model 'zzz'; see toolwire models.")

    monkeypatch.setattr(cli, "_load_model", fail)
    result = CliRunner().invoke(cli.app, ["bfcl", "--data", str(DATA), "--model", "zzz"])
    assert result.exit_code == 1
    assert result.output.strip() == "error: Unknown model 'zzz'; see toolwire models."


def test_cli_interrupt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[BfclItem | None] = []

    def stop(item: BfclItem | None, names: list[str], messages: list[BaseMessage]) -> list[dict[str, Any]]:
        asked.append(item)
        if len(asked) > 1:  # the first item is scored, Ctrl-C comes at the second
            raise KeyboardInterrupt
        return from_truth(item, names, messages)

    monkeypatch.setattr(cli, "_load_model", lambda *a: FakeModel(stop, items_of(CATEGORIES)))
    result = CliRunner().invoke(cli.app, ["bfcl", "--data", str(DATA), "--limit", "2", "--concurrency", "1",
                                          "--out", str(tmp_path / "r.json")])
    assert result.exit_code == 130
    assert "rerun to resume" in result.output and (tmp_path / "r.json").exists()


def test_cli_interrupt_before_any_item_is_scored_leaves_out_alone(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    def stop(item: BfclItem | None, names: list[str], messages: list[BaseMessage]) -> list[dict[str, Any]]:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_load_model", lambda *a: FakeModel(stop))
    result = CliRunner().invoke(cli.app, ["bfcl", "--data", str(DATA), "--limit", "2",
                                          "--out", str(tmp_path / "r.json")])
    assert result.exit_code == 130
    assert "Interrupted." in result.output and "rerun to resume" not in result.output  # review 238 #1
    assert not (tmp_path / "r.json").exists()


def test_progress_as_log_lines_when_stderr_is_not_a_terminal() -> None:
    now = [100.0]
    lines: list[str] = []
    log = cli.LogLines(lines.append, every=60, clock=lambda: now[0])
    log(40, 140, 30)  # the start: 40 items resumed from the report
    for done in range(41, 141):
        now[0] += 3.0  # three seconds per item
        log(done, 140, 30 + (done - 40) // 2)
    assert lines[0] == "BFCL 41/140 items, 73.17% right, 0:00:03 elapsed, about 0:04:57 left"
    assert len(lines) == 6  # the first item, then one a minute (every 20 items: 61, 81, 101, 121), the last
    assert lines[1].startswith("BFCL 61/140 items") and lines[1].endswith("about 0:03:57 left")
    assert lines[-1] == "BFCL 140/140 items, 57.14% right, 0:05:00 elapsed"


def test_cli_writes_progress_lines_to_a_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_load_model", lambda *a: oracle())
    result = CliRunner().invoke(cli.app, ["bfcl", "--data", str(DATA), "--category", "simple", "--limit", "3"])
    assert result.exit_code == 0, result.output
    assert "BFCL 1/3 items, 100.00% right" in result.output and "BFCL 3/3 items, 100.00% right" in result.output
    assert "acc 100.00%" not in result.output  # no progress-bar frame in a log


def test_the_local_model_is_set_up_to_score_each_item_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # an item's reply must not depend on the item run before it: with the KV cache of the previous prompt
    # reused, BFCL irrelevance_202 was answered in text after irrelevance_199 and with a call alone
    from types import SimpleNamespace

    import toolwire.models

    made = SimpleNamespace(provider="llamacpp", prompt_cache=True, reuse_kv=True)
    monkeypatch.setattr(toolwire.models, "init_chat_model", lambda model, dialect=None, temperature=None: made)
    assert cli._load_model(None, None) is made
    assert made.prompt_cache is False and made.reuse_kv is False
    other = SimpleNamespace(provider="openai")
    monkeypatch.setattr(toolwire.models, "init_chat_model", lambda model, dialect=None, temperature=None: other)
    assert cli._load_model("openai:gpt-5-mini", None) is other and not hasattr(other, "reuse_kv")
