"""Review 238, ``toolwire eval bfcl`` as a model evaluator uses it: Ctrl-C before any item is scored writes nothing
(#1); BFCL categories toolwire does not score are refused as such, not as broken lines (#2); answer-file errors say
what to do (#3); ``benchmarks/bfcl_diff.py`` and ``bfcl_rescore.py`` say a wrong path or file in one line (#4); a
server URL's scheme and host are compared without case on resume (#5)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolwire.errors import UserError
from toolwire.evals import cli
from toolwire.evals.bfcl import load_category
from toolwire.evals.bfcl_runner import _server_url, run_bfcl
from toolwire.evals.report import Report
from toolwire.messages import AIMessage

ROOT = Path(__file__).resolve().parents[1]


def _data(folder: Path, count: int = 3, prefix: str = "BFCL_v4_", category: str = "simple_python") -> Path:
    """A BFCL data folder with ``count`` items of ``category``, each asking for ``f(x=<n>)``."""
    (folder / "possible_answer").mkdir(parents=True, exist_ok=True)
    function = {"name": "f", "description": "F.", "parameters": {"type": "dict", "properties": {
        "x": {"type": "integer", "description": "X."}}, "required": ["x"]}}
    questions = [{"id": f"{category}_{n}", "question": [[{"role": "user", "content": f"f of {n}"}]],
                  "function": [function]} for n in range(count)]
    answers = [{"id": f"{category}_{n}", "ground_truth": [{"f": {"x": [n]}}]} for n in range(count)]
    (folder / f"{prefix}{category}.json").write_text("\n".join(json.dumps(q) for q in questions) + "\n")
    (folder / "possible_answer" / f"{prefix}{category}.json").write_text(
        "\n".join(json.dumps(a) for a in answers) + "\n")
    return folder


class _Model:
    """A duck-typed chat model that answers ``f(x=<n>)`` for the question ``f of <n>``; it raises
    ``KeyboardInterrupt`` on its call number ``stop_at`` (from 1; 0: never)."""

    def __init__(self, stop_at: int = 0, base_url: str | None = None) -> None:
        self.name = "m"
        self.stop_at = stop_at
        self.calls = 0
        self.lock = threading.Lock()
        if base_url is not None:
            self.provider = "openai-compatible"
            self.base_url = base_url

    def bind_tools(self, tools: list[dict[str, Any]]) -> _Model:
        return self

    def invoke(self, messages: list[Any]) -> AIMessage:
        with self.lock:
            self.calls += 1
            n = self.calls
        if n == self.stop_at:
            raise KeyboardInterrupt
        x = int(messages[-1].text.rsplit(" ", 1)[1])
        return AIMessage("", tool_calls=[{"name": "f", "args": {"x": x}}])


# ------------------------------------------------------------------ 1: Ctrl-C before any item is scored


@pytest.mark.parametrize("concurrency", [1, 2])
@pytest.mark.parametrize("made", [False, True])
def test_ctrl_c_before_any_item_is_scored_writes_no_report(tmp_path: Path, concurrency: int, made: bool) -> None:
    data = _data(tmp_path / "d")
    out = tmp_path / "r.json"
    if made:  # as mktemp makes it
        out.write_bytes(b"")
    with pytest.raises(KeyboardInterrupt):
        run_bfcl(_Model(stop_at=1), data, "simple_python", out=out, concurrency=concurrency)
    if made:
        assert out.read_bytes() == b""
    else:
        assert not out.exists()
    report = run_bfcl(_Model(), data, "simple_python", out=out)  # another run into it starts a new report
    assert len(report.items) == 3


def test_ctrl_c_before_any_item_is_scored_says_only_interrupted(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    data = _data(tmp_path / "d")
    out = tmp_path / "r.json"
    monkeypatch.setattr(cli, "_load_model", lambda *a: _Model(stop_at=1))
    result = CliRunner().invoke(cli.app, ["bfcl", "--data", str(data), "--category", "simple_python",
                                          "--out", str(out)])
    assert result.exit_code == 130
    assert "Interrupted." in result.output and "saved" not in result.output
    assert not out.exists()


def test_ctrl_c_on_a_resumed_run_before_a_new_item_keeps_the_report(tmp_path: Path) -> None:
    data = _data(tmp_path / "d")
    out = tmp_path / "r.json"
    with pytest.raises(KeyboardInterrupt):
        run_bfcl(_Model(stop_at=2), data, "simple_python", out=out)
    saved = out.read_bytes()
    assert [i.id for i in Report.load(out).items] == ["simple_python_0"]
    with pytest.raises(KeyboardInterrupt):
        run_bfcl(_Model(stop_at=1), data, "simple_python", out=out)
    assert out.read_bytes() == saved  # left as it was: still resumable
    with pytest.raises(KeyboardInterrupt):
        run_bfcl(_Model(stop_at=2), data, "simple_python", out=out)
    assert [i.id for i in Report.load(out).items] == ["simple_python_0", "simple_python_1"]


# ------------------------------------------------------------------ 2: categories toolwire does not score


@pytest.mark.parametrize("category", ["exec_simple", "exec_parallel_multiple", "rest", "web_search_base",
                                      "memory_kv", "executable_simple"])
def test_categories_toolwire_does_not_score_are_refused_as_such(tmp_path: Path, category: str) -> None:
    data = tmp_path / "d"
    (data / "possible_answer").mkdir(parents=True)
    question = {"id": f"{category}_0", "question": [[{"role": "user", "content": "What is 7!?"}]],
                "function": [{"name": "math_factorial", "parameters": {"type": "dict", "properties": {}}}]}
    (data / f"BFCL_v3_{category}.json").write_text(json.dumps(question) + "\n")
    (data / "possible_answer" / f"BFCL_v3_{category}.json").write_text(
        json.dumps({"id": f"{category}_0", "ground_truth": ["math_factorial(n=7)"]}) + "\n")
    with pytest.raises(UserError) as caught:
        load_category(data, category)
    message = str(caught.value)
    assert f"{category!r}" in message and "simple_python" in message and "live_" in message
    assert "fix" not in message and "remove" not in message
    assert message.count(". ") == 0 and message.endswith(".")


def test_multi_turn_is_refused_naming_the_categories_scored(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="multi-turn") as caught:
        load_category(tmp_path, "multi_turn_base")
    assert "simple_python" in str(caught.value)


# ------------------------------------------------------------------ 3: answer-file errors say what to do


def test_data_given_the_answer_folder_says_to_pass_its_parent(tmp_path: Path) -> None:
    data = _data(tmp_path / "bfcl")
    with pytest.raises(UserError) as caught:
        load_category(data / "possible_answer", "simple_python")
    message = str(caught.value)
    assert "possible_answer/possible_answer" not in message
    assert f"the folder above it ({str(data)!r})" in message


def test_missing_answer_file_says_what_to_do(tmp_path: Path) -> None:
    data = _data(tmp_path / "d")
    (data / "possible_answer" / "BFCL_v4_simple_python.json").unlink()
    with pytest.raises(UserError) as caught:
        load_category(data, "simple_python")
    message = str(caught.value)
    assert "is missing" in message and "fresh copy" in message and "leave out" in message


def test_item_without_an_answer_says_what_to_do(tmp_path: Path) -> None:
    data = _data(tmp_path / "d", count=2)
    path = data / "possible_answer" / "BFCL_v4_simple_python.json"
    path.write_text(path.read_text().splitlines()[0] + "\n")
    with pytest.raises(UserError) as caught:
        load_category(data, "simple_python")
    message = str(caught.value)
    assert "'simple_python_1' has no answer" in message and "fresh copy" in message


# ------------------------------------------------------------------ 4: the report scripts


def _script(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / name), *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)


def _report_file(tmp_path: Path, data: Path) -> Path:
    out = tmp_path / "r.json"
    run_bfcl(_Model(), data, "simple_python", out=out)
    return out


@pytest.mark.parametrize("script", ["bfcl_diff.py", "bfcl_rescore.py"])
@pytest.mark.parametrize("kind", ["missing", "not_a_report", "not_json", "bad_gzip", "items_not_objects"])
def test_report_scripts_say_a_wrong_file_in_one_line(tmp_path: Path, script: str, kind: str) -> None:
    good = _report_file(tmp_path, _data(tmp_path / "d"))
    bad = tmp_path / ("bad.json.gz" if kind == "bad_gzip" else "bad.json")
    if kind == "not_a_report":
        bad.write_text(json.dumps({"right": {"x": 1}}))
    elif kind == "not_json":
        bad.write_text("not json")
    elif kind == "bad_gzip":
        bad.write_text("plain text")
    elif kind == "items_not_objects":
        bad.write_text(json.dumps({"model": "m", "items": [1, 2]}))
    args = [str(good), str(bad)] if script == "bfcl_diff.py" else [str(bad)]
    result = _script(script, *args)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(bad) in lines[0], result.stderr
    if kind != "missing":
        assert "not a BFCL report toolwire wrote" in lines[0]


def test_report_scripts_still_read_good_reports(tmp_path: Path) -> None:
    data = _data(tmp_path / "d")
    good = _report_file(tmp_path, data)
    packed = tmp_path / "r.json.gz"
    packed.write_bytes(gzip.compress(good.read_bytes()))
    diff = _script("bfcl_diff.py", str(good), str(packed))
    assert diff.returncode == 0 and "simple_python" in diff.stdout and "100.00" in diff.stdout, diff.stderr
    rescore = _script("bfcl_rescore.py", str(packed), "--data", str(data))
    assert rescore.returncode == 0 and "| simple_python | 3 | 100.00 | 100.00 | 0 |" in rescore.stdout, rescore.stderr


# ------------------------------------------------------------------ 5: a server URL's host in another case


def test_server_url_scheme_and_host_compared_without_case() -> None:
    assert _server_url("HTTP://LOCALHOST:8000/v1/") == "http://localhost:8000/v1"
    assert _server_url("Https://Example.COM/V1?x=A") == "https://example.com/V1?x=A"  # the rest is kept as it is
    assert _server_url("http://u:p@HOST.example/v1") == "http://host.example/v1"
    assert _server_url("http://[FE80::1]:80/v1") == "http://[fe80::1]/v1"  # (no default port: review 244 #3)
    assert _server_url("http://localhost:8000/v1") == "http://localhost:8000/v1"


def test_resume_against_the_same_server_with_its_host_in_another_case(tmp_path: Path) -> None:
    data = _data(tmp_path / "d")
    out = tmp_path / "r.json"
    run_bfcl(_Model(base_url="http://localhost:8000/v1"), data, "simple_python", out=out)
    again = _Model(base_url="HTTP://LOCALHOST:8000/v1")
    report = run_bfcl(again, data, "simple_python", out=out)
    assert again.calls == 0 and len(report.items) == 3
    with pytest.raises(UserError, match="the server"):
        run_bfcl(_Model(base_url="http://otherhost:8000/v1"), data, "simple_python", out=out)
