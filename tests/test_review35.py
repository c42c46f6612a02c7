"""Review 35: ``toolwire eval bfcl`` used as a demanding user would (fake models only, no GGUF is loaded).

Faults found (each test failed before its fix):

1. Provider models are not asked at temperature 0 (the spec says every item is asked at temperature 0).
2. A resumed ``--out`` of the same model run with another ``--dialect`` is reused silently.
3. A function doc the runner cannot turn into a tool stops the run mid-way, after the model loaded and ran,
   with an error that does not name the item.
4. Two items with one id: the second item's result replaces the first one's (and both use one answer).
5. BFCL's ``BFCL_v1_*`` file names are not found ("any version's file names").
6. The advertised ``gorilla_openfunctions_v1_test_`` parallel answers (``name_1``, ``name_2`` keys) fail to load.
7. Ctrl-C without ``--out`` loses every item scored (no table, no ``--html`` page).
8. An empty question file runs "successfully" and reports the category at 0.00 % accuracy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import toolwire.models
from toolwire.errors import UserError
from toolwire.evals import cli
from toolwire.evals.bfcl import functions_to_tools, load_category
from toolwire.evals.bfcl_checker import check_calls
from toolwire.evals.bfcl_runner import run_bfcl
from toolwire.evals.report import Report, write_html
from toolwire.messages import AIMessage, BaseMessage
from toolwire.testing import ScriptedChatModel

# ------------------------------------------------------------------ helpers

FN = {"name": "math.factorial", "description": "n!",
      "parameters": {"type": "dict", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}


def write_lines(path: Path, rows: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")


def simple_data(root: Path, n: int = 3, prefix: str = "BFCL_v4_", stem: str = "simple_python",
                id_stem: str = "simple_python") -> Path:
    """A folder with ``n`` simple items: item k asks for factorial(k + 1), one function ``math.factorial``."""
    questions = [{"id": f"{id_stem}_{k}", "question": [[{"role": "user", "content": f"factorial of {k + 1}"}]],
                  "function": [FN]} for k in range(n)]
    answers = [{"id": f"{id_stem}_{k}", "ground_truth": [{"math.factorial": {"n": [k + 1]}}]} for k in range(n)]
    write_lines(root / f"{prefix}{stem}.json", questions)
    write_lines(root / "possible_answer" / f"{prefix}{stem}.json", answers)
    return root


def answer_from_question(messages: list[BaseMessage]) -> AIMessage:
    """The right call for ``simple_data`` items: the number is the last word of the question."""
    n = int(messages[-1].text.split()[-1])
    return AIMessage("", tool_calls=[{"name": "math_factorial", "args": {"n": n}}])


def scripted() -> ScriptedChatModel:
    return ScriptedChatModel([answer_from_question], cycle=True)


def run_cli(args: list[str]) -> Any:
    return CliRunner().invoke(cli.app, ["bfcl", *args])


# ------------------------------------------------------------------ 1. temperature 0


def test_provider_model_is_asked_at_temperature_0(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = simple_data(tmp_path / "bfcl", n=1)
    seen: list[Any] = []
    real_load = cli._load_model

    def load(*args: Any, **kwargs: Any) -> Any:
        model = real_load("openai-compatible:qwen@http://127.0.0.1:9/v1", None)

        def generate(request: Any) -> AIMessage:  # no network: record what would be sent
            seen.append(request.options.get("temperature", model.options.get("temperature")))
            return answer_from_question(list(request.messages))

        model._generate = generate
        return model

    monkeypatch.setattr(cli, "_load_model", load)
    result = run_cli(["--data", str(data), "--category", "simple_python"])
    assert result.exit_code == 0, result.output
    assert seen == [0]


# ------------------------------------------------------------------ 2. resume across dialects


def test_resume_with_another_dialect_does_not_reuse_results(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    data = simple_data(tmp_path / "bfcl", n=2)
    out = tmp_path / "r.json"
    real = toolwire.models.init_chat_model
    asked: list[str | None] = []

    def init(*args: Any, **kwargs: Any) -> Any:
        model = real(*args, **kwargs)  # a ChatLlamaCpp object: nothing is loaded until it generates

        def generate(request: Any) -> AIMessage:
            asked.append(model.dialect)
            return answer_from_question(list(request.messages))

        model._generate = generate
        return model

    monkeypatch.setattr(toolwire.models, "init_chat_model", init)
    first = run_cli(["--data", str(data), "--category", "simple_python", "--dialect", "json", "--out", str(out)])
    assert first.exit_code == 0, first.output
    assert asked == ["json", "json"]
    second = run_cli(["--data", str(data), "--category", "simple_python", "--dialect", "pythonic",
                      "--out", str(out)])
    # either refused (another setting's report) or run again with the new dialect: never json's results as pythonic
    assert second.exit_code == 1 or asked == ["json", "json", "pythonic", "pythonic"], (second.output, asked)


# ------------------------------------------------------------------ 3. bad function doc found mid-run


def test_function_doc_without_name_is_reported_before_the_run(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    data = simple_data(tmp_path / "bfcl", n=2)
    rows = [json.loads(line) for line in (data / "BFCL_v4_simple_python.json").read_text().splitlines()]
    rows[1]["function"] = [{"description": "a doc without a name", "parameters": {"type": "dict", "properties": {}}}]
    write_lines(data / "BFCL_v4_simple_python.json", rows)
    model = scripted()
    loaded: list[Any] = []
    monkeypatch.setattr(cli, "_load_model", lambda *a, **k: loaded.append(a) or model)
    result = run_cli(["--data", str(data), "--category", "simple_python", "--out", str(tmp_path / "r.json")])
    assert result.exit_code == 1
    assert "simple_python_1" in result.output, result.output
    assert loaded == [] and model.requests == []


# ------------------------------------------------------------------ 4. duplicate ids


def test_duplicate_ids_are_refused_or_scored_separately(tmp_path: Path) -> None:
    data = simple_data(tmp_path / "bfcl", n=2)
    for path in (data / "BFCL_v4_simple_python.json", data / "possible_answer" / "BFCL_v4_simple_python.json"):
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        for row in rows:
            row["id"] = "simple_python_0"
        write_lines(path, rows)
    always_1 = ScriptedChatModel([AIMessage("", tool_calls=[{"name": "math_factorial", "args": {"n": 1}}])],
                                 cycle=True)
    try:
        report = run_bfcl(always_1, data, "simple_python")
    except UserError:
        return  # refusing a file with duplicate ids is a fine answer
    # item 0 (factorial of 1) is right, item 1 (factorial of 2) is wrong
    assert [i.valid for i in report.items] == [True, False]


# ------------------------------------------------------------------ 5. BFCL_v1_ file names


def test_bfcl_v1_file_names_are_found(tmp_path: Path) -> None:
    data = simple_data(tmp_path / "bfcl", n=2, prefix="BFCL_v1_", stem="simple", id_stem="v1_simple")
    items = load_category(data, "simple")
    assert [i.id for i in items] == ["v1_simple_0", "v1_simple_1"]


# ------------------------------------------------------------------ 6. gorilla v1 parallel answers


def test_gorilla_v1_parallel_answers_load(tmp_path: Path) -> None:
    data = tmp_path / "bfcl"
    name = "gorilla_openfunctions_v1_test_parallel_function.json"
    fn = {"name": "spotify.play", "description": "play",
          "parameters": {"type": "dict", "properties": {"artist": {"type": "string"}, "duration": {"type": "integer"}},
                         "required": ["artist", "duration"]}}
    write_lines(data / name, [{"question": "Play Taylor Swift for 20 minutes and Maroon 5 for 15.", "function": fn}])
    write_lines(data / "possible_answer" / name,
                [{"spotify.play_1": {"artist": ["Taylor Swift"], "duration": [20]},
                  "spotify.play_2": {"artist": ["Maroon 5"], "duration": [15]}}])
    items = load_category(data, "parallel")
    calls = [{"name": "spotify.play", "args": {"artist": "Maroon 5", "duration": 15}},
             {"name": "spotify.play", "args": {"artist": "Taylor Swift", "duration": 20}}]
    assert check_calls("parallel", items[0].functions, items[0].ground_truth, calls).valid


# ------------------------------------------------------------------ 7. Ctrl-C without --out


def test_ctrl_c_without_out_keeps_the_items_scored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = simple_data(tmp_path / "bfcl", n=4)

    def reply(messages: list[BaseMessage]) -> AIMessage:
        if messages[-1].text.endswith(" 3"):
            raise KeyboardInterrupt
        return answer_from_question(messages)

    model = ScriptedChatModel([reply], cycle=True)
    monkeypatch.setattr(cli, "_load_model", lambda *a, **k: model)
    html = tmp_path / "r.html"
    result = run_cli(["--data", str(data), "--category", "simple_python", "--html", str(html)])
    assert result.exit_code == 130
    assert html.is_file() or "BFCL: scripted" in result.output, result.output


# ------------------------------------------------------------------ 8. empty question file


def test_empty_question_file_is_not_reported_as_zero_accuracy(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "bfcl"
    write_lines(data / "BFCL_v4_simple_python.json", [])
    write_lines(data / "possible_answer" / "BFCL_v4_simple_python.json", [])
    monkeypatch.setattr(cli, "_load_model", lambda *a, **k: scripted())
    out = tmp_path / "r.json"
    result = run_cli(["--data", str(data), "--category", "simple_python", "--out", str(out)])
    if result.exit_code == 1:
        return  # refused with an error: fine
    summary = json.loads(out.read_text())["summary"]
    assert summary[0]["count"] == 0 and summary[0]["accuracy"] is None


# ================================================================== what works


@pytest.mark.parametrize(("props", "required", "answer", "args", "valid", "reason"), [
    ({"x": {"type": "float"}}, [], {"x": [5.0]}, {"x": 5}, True, None),  # int for float
    ({"x": {"type": "integer"}}, [], {"x": [5]}, {"x": 5.0}, False, "wrong_type"),
    ({"x": {"type": "integer"}}, [], {"x": [1]}, {"x": True}, False, "wrong_type"),  # bool is not int
    ({"x": {"type": "string"}}, [], {"x": ["New York, NY"]}, {"x": "new york ny"}, True, None),
    ({"x": {"type": "string"}}, [], {"x": ["it's"]}, {"x": 'IT"S'}, True, None),
    ({"x": {"type": "tuple", "items": {"type": "integer"}}}, [], {"x": [[1, 2]]}, {"x": [1, 2]}, True, None),
    ({"x": {"type": "array", "items": {"type": "integer"}}}, [], {"x": [[1, 2]]}, {"x": [2, 1]}, False,
     "wrong_value"),
    ({"x": {"type": "string"}, "y": {"type": "integer"}}, ["x"], {"x": ["a"], "y": ["", 3]}, {"x": "a"}, True, None),
    ({"x": {"type": "string"}, "y": {"type": "integer"}}, ["x"], {"x": ["a"], "y": [3]}, {"x": "a"}, False,
     "missing_parameter"),
    ({"x": {"type": "string"}}, ["x"], {"x": ["", "a"]}, {}, False, "missing_parameter"),  # required wins
    ({"x": {"type": "string"}, "z": {"type": "string"}}, [], {"x": ["a"]}, {"x": "a", "z": "b"}, False,
     "unexpected_parameter"),
    ({"x": {"type": "dict"}}, [], {"x": [{"a": [1], "b": ["", "q"]}]}, {"x": {"a": 1}}, True, None),
    ({"x": {"type": "dict"}}, [], {"x": [{"a": ["New York"]}]}, {"x": {"a": "new-york"}}, True, None),
    ({"x": {"type": "any"}}, [], {"x": [5]}, {"x": 5}, True, None),
    ({"x": {"type": "boolean"}}, [], {"x": [True]}, {"x": 1}, False, "wrong_type"),
    ({"x": {"type": "long"}}, [], {"x": [5]}, {"x": 5}, True, None),
    ({"x": {"type": "array", "items": {"type": "string"}}}, [], {"x": [""]}, {"x": []}, True, None),
])
def test_checker_follows_the_readme_rules(props: dict[str, Any], required: list[str], answer: dict[str, Any],
                                          args: dict[str, Any], valid: bool, reason: str | None) -> None:
    functions = [{"name": "f", "parameters": {"type": "dict", "properties": props, "required": required}}]
    result = check_calls("simple_python", functions, [{"f": answer}], [{"name": "f", "args": args}])
    assert (result.valid, result.reason) == (valid, reason), result.message


def test_checker_counts_and_relevance() -> None:
    fns = [{"name": "f", "parameters": {"type": "dict", "properties": {"x": {"type": "string"}}}}]
    two = [{"f": {"x": ["a", "b"]}}, {"f": {"x": ["a"]}}]
    calls = [{"name": "f", "args": {"x": "a"}}, {"name": "f", "args": {"x": "b"}}]
    assert check_calls("parallel", fns, two, calls).valid  # order free, overlap of allowed values
    assert check_calls("parallel", fns, two, calls[:1]).reason == "wrong_count"
    assert check_calls("multiple", fns, [{"f": {"x": ["a"]}}], calls).reason == "wrong_count"
    assert check_calls("irrelevance", fns, None, []).valid
    assert check_calls("live_irrelevance", fns, None, calls[:1]).reason == "called_when_should_not"
    assert check_calls("live_relevance", fns, None, []).reason == "no_call"


def test_dotted_names_are_renamed_reversibly() -> None:
    toolset = functions_to_tools([{"name": "a.b"}, {"name": "a_b"}, {"name": "get-weather"}])
    sent = [t["function"]["name"] for t in toolset.tools]
    assert sent[1:] == ["a_b", "get-weather"] and sent[0] not in ("a_b", "a.b")
    assert [toolset.original_name(s) for s in sent] == ["a.b", "a_b", "get-weather"]


def test_v3_names_and_live_categories_load(tmp_path: Path) -> None:
    data = simple_data(tmp_path / "bfcl", n=2, prefix="BFCL_v3_", stem="simple", id_stem="simple")
    write_lines(data / "BFCL_v3_live_irrelevance.json",
                [{"id": "live_irrelevance_0-0-0", "question": [[{"role": "user", "content": "hi"}]], "function": [FN]}])
    assert [i.id for i in load_category(data, "simple_python")] == ["simple_0", "simple_1"]
    live = load_category(data, "live_irrelevance")
    assert live[0].ground_truth is None and live[0].category == "live_irrelevance"


def test_unknown_category_and_missing_answer_fail_before_the_model(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    data = simple_data(tmp_path / "bfcl", n=2)
    monkeypatch.setattr(cli, "_load_model", lambda *a, **k: pytest.fail("model loaded before checks"))
    result = run_cli(["--data", str(data), "--category", "simple,nope"])
    assert result.exit_code == 1 and "No BFCL data for category 'nope'" in result.output
    write_lines(data / "possible_answer" / "BFCL_v4_simple_python.json",
                [{"id": "simple_python_0", "ground_truth": [{"math.factorial": {"n": [1]}}]}])
    result = run_cli(["--data", str(data), "--category", "simple"])
    assert result.exit_code == 1 and "'simple_python_1' has no answer" in result.output
    (data / "BFCL_v4_simple_python.json").write_text('{"id": "x", "question": \n', encoding="utf-8")
    result = run_cli(["--data", str(data), "--category", "simple"])
    assert result.exit_code == 1 and "BFCL_v4_simple_python.json:1 is not valid JSON" in result.output


def test_truncated_out_is_refused_before_the_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = simple_data(tmp_path / "bfcl", n=1)
    out = tmp_path / "r.json"
    out.write_text('{"model": "scripted", "items": [', encoding="utf-8")
    monkeypatch.setattr(cli, "_load_model", lambda *a, **k: pytest.fail("model loaded before checks"))
    result = run_cli(["--data", str(data), "--category", "simple", "--out", str(out)])
    assert result.exit_code == 1 and "is not a BFCL report toolwire wrote" in result.output


@pytest.mark.parametrize("concurrency", [1, 3])
def test_ctrl_c_with_out_then_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, concurrency: int) -> None:
    data = simple_data(tmp_path / "bfcl", n=5)
    out = tmp_path / "missing" / "folder" / "r.json"  # a folder that does not exist yet

    def stop_at_4(messages: list[BaseMessage]) -> AIMessage:
        if messages[-1].text.endswith(" 4"):
            raise KeyboardInterrupt
        return answer_from_question(messages)

    first = ScriptedChatModel([stop_at_4], cycle=True)
    monkeypatch.setattr(cli, "_load_model", lambda *a, **k: first)
    result = run_cli(["--data", str(data), "--category", "simple", "--out", str(out), "--model", "scripted",
                      "--concurrency", str(concurrency)])  # (named: no --model means the registry's default model,
    # whose report another is refused as before the model loads)
    assert result.exit_code == 130 and "rerun to resume" in result.output
    saved = Report.load(out)
    assert saved.finished is None and {"simple_python_0", "simple_python_1", "simple_python_2"} <= {
        i.id for i in saved.items} and all(i.valid for i in saved.items)
    second = scripted()
    monkeypatch.setattr(cli, "_load_model", lambda *a, **k: second)
    result = run_cli(["--data", str(data), "--category", "simple", "--out", str(out), "--model", "scripted",
                      "--concurrency", str(concurrency)])  # (named: no --model means the registry's default model,
    # whose report another is refused as before the model loads)
    assert result.exit_code == 0, result.output
    report = Report.load(out)
    assert [i.id for i in report.items] == [f"simple_python_{k}" for k in range(5)]
    assert all(i.valid for i in report.items) and report.finished
    assert len(second.requests) == 5 - len(saved.items)


def test_html_escapes_hostile_strings(tmp_path: Path) -> None:
    hostile = '</pre></td><script>alert(1)</script><img src=x onerror=alert(2)>"\''
    data = tmp_path / "bfcl"
    fn = {"name": "f" + hostile, "description": hostile,
          "parameters": {"type": "dict", "properties": {"x": {"type": "string"}}, "required": ["x"]}}
    write_lines(data / "BFCL_v4_simple_python.json",
                [{"id": "s" + hostile, "question": [[{"role": "user", "content": hostile}]], "function": [fn]}])
    write_lines(data / "possible_answer" / "BFCL_v4_simple_python.json",
                [{"id": "s" + hostile, "ground_truth": [{"f" + hostile: {"x": [hostile]}}]}])
    model = ScriptedChatModel([AIMessage(hostile, tool_calls=[{"name": "g", "args": {"x": hostile}}])], cycle=True)
    report = run_bfcl(model, data, "simple_python")
    report.model = hostile
    page = tmp_path / "r.html"
    write_html(report, page, published={hostile: {"simple_python": 50.0}})
    text = page.read_text(encoding="utf-8")
    assert "<script" not in text and "<img" not in text and "&lt;script&gt;" in text
    assert text.count("<pre>") == text.count("</pre>")
