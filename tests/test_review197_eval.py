"""Review 197 (`toolwire eval bfcl`, third reading): a model that takes only its default temperature, a run whose
first items all fail with one client error, generated ids equal to another line's, two runs into one --out, and a
server URL with a trailing slash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _bfcl_data import FUNCTION, add_one_data
from test_review85_eval import _replies, _ServerModel  # (the same scripted server model)
from toolwire.errors import UserError
from toolwire.evals.bfcl import load_category
from toolwire.evals.bfcl_runner import model_settings, run_bfcl
from toolwire.testing import ScriptedChatModel

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


# --- #1: a model that takes only its default temperature; a run whose first items all fail with one 4xx -----------

def _reasoning_answer(body: Any, number: int) -> Any:
    """As api.openai.com answers a reasoning model: 400 for a temperature other than 1, else a call add_one(x=n)
    for the question "Add one to n."."""
    if body.get("temperature", 1) != 1:
        return (400, {"error": {"message": f"Unsupported value: 'temperature' does not support "
                                           f"{body['temperature']} with this model. Only the default (1) value is "
                                           "supported.", "type": "invalid_request_error", "param": "temperature",
                                "code": "unsupported_value"}})
    n = int(body["messages"][-1]["content"].split()[-1].rstrip("."))
    call = {"id": f"c{number}", "type": "function", "function": {"name": "add_one", "arguments": json.dumps({"x": n})}}
    return {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                         "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def test_a_reasoning_model_runs_without_a_temperature_and_says_so(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai")
    from typer.testing import CliRunner

    from _queued_http import serving
    from toolwire.cli import app

    out = tmp_path / "r.json"
    with serving("/v1") as server:
        server.answer = _reasoning_answer
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        result = CliRunner().invoke(app, ["eval", "bfcl", "--data", str(add_one_data(tmp_path / "d", 7)),
                                          "--category", "simple_python", "--model", "openai:gpt-5-mini",
                                          "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert len(server.requests) == 7 and all("temperature" not in body for body in server.requests)
    assert "note: gpt-5-mini takes only its default temperature, so it runs without temperature 0" in result.output
    saved = json.loads(out.read_text())
    assert saved["settings"]["temperature"] is None
    assert [i["valid"] for i in saved["items"]] == [True] * 7


def test_which_models_take_only_their_default_temperature(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai")
    from toolwire.evals.cli import _load_model, default_temperature_only

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    for name, only in (("openai:gpt-5-mini", True), ("openai:o4-mini", True), ("openai:gpt-4o", False),
                       ("openai:gpt-5-chat-latest", False), ("openai-compatible:qwen@http://127.0.0.1:9/v1", False)):
        model = _load_model(name, None)
        assert default_temperature_only(model) is only, name
        assert model_settings(model)["temperature"] == (None if only else 0), name
    assert not default_temperature_only(ScriptedChatModel([]))


def _refused(messages: list[Any]) -> Any:
    from toolwire.errors import ProviderError

    raise ProviderError("Unsupported value: 'temperature' does not support 0 with this model.", provider="openai",
                        status=400)


@pytest.mark.parametrize("concurrency", [1, 2])
def test_a_run_whose_first_items_fail_with_one_client_error_stops(tmp_path: Path, concurrency: int) -> None:
    from toolwire.evals.bfcl_runner import _FAILED_IN_A_ROW, RunStopped

    data, out = add_one_data(tmp_path / "d", 20), tmp_path / "r.json"
    model = ScriptedChatModel([_refused], cycle=True)
    with pytest.raises(RunStopped, match=rf"^The model failed on this run's first {_FAILED_IN_A_ROW} items with the "
                                         r"same error: ProviderError: openai \(status 400\): Unsupported value: "
                                         r".*; the request, not the items, is at fault: check the model and its "
                                         r"options, then run again \(with the same --out"):
        run_bfcl(model, data, "simple_python", out=out, concurrency=concurrency)
    assert len(model.requests) <= _FAILED_IN_A_ROW + concurrency  # not every item was sent
    saved = json.loads(out.read_text())
    assert saved["finished"] is None and all(i["decoding"] == {"failure": "request"} for i in saved["items"])
    # the rerun runs the items that failed again without counting them, then stops again on new ones
    again = ScriptedChatModel([_refused], cycle=True)
    with pytest.raises(RunStopped):
        run_bfcl(again, data, "simple_python", out=out, concurrency=concurrency)
    assert len(again.requests) < 20


def test_item_errors_or_a_right_answer_first_do_not_stop_the_run(tmp_path: Path) -> None:
    from toolwire.errors import ProviderError

    data = add_one_data(tmp_path / "d", 8)

    def too_long(messages: list[Any]) -> Any:  # (a context overflow names each item's own length)
        raise ProviderError(f"the prompt ({messages[-1].text}) is too long", provider="openai", status=400)

    report = run_bfcl(ScriptedChatModel([too_long], cycle=True), data, "simple_python")
    assert len(report.items) == 8 and report.finished is not None
    report = run_bfcl(ScriptedChatModel([*_replies(1), *[_refused] * 7]), data, "simple_python")
    assert len(report.items) == 8 and report.finished is not None


# --- #3: two runs into one --out at the same time -------------------------------------------------------------------

_HOLDER = """
import sys
from pathlib import Path
from toolwire.evals._report_lock import report_lock
with report_lock(Path(sys.argv[1])):
    print("locked", flush=True)
    sys.stdin.read()  # until the test closes it (or kills this process)
"""


def _hold(out: Path) -> Any:
    """A process that holds the lock of ``out`` until its stdin is closed."""
    import subprocess
    import sys

    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(out)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    return holder


def test_a_second_run_into_one_out_is_refused_and_the_first_keeps_its_items(tmp_path: Path) -> None:
    data, out = add_one_data(tmp_path / "d", 2), tmp_path / "r.json"
    holder = _hold(out)
    try:
        model = ScriptedChatModel(_replies(2), cycle=True)
        with pytest.raises(UserError, match=rf"^'{out}' is being written by another run \(process {holder.pid}\): "
                                            r"wait for it to end, or pass another --out\.$"):
            run_bfcl(model, data, "simple_python", out=out)
        assert not model.requests and not out.exists()
    finally:
        holder.stdin.close()
        holder.wait(10)
    assert not (tmp_path / "r.json.lock").exists()  # removed when the run that held it ended
    report = run_bfcl(ScriptedChatModel(_replies(2), cycle=True), data, "simple_python", out=out)
    assert len(report.items) == 2 and not (tmp_path / "r.json.lock").exists()


def test_a_lock_left_by_a_killed_run_is_taken_over(tmp_path: Path) -> None:
    data, out = add_one_data(tmp_path / "d", 2), tmp_path / "r.json"
    holder = _hold(out)
    holder.kill()
    holder.wait(10)
    assert (tmp_path / "r.json.lock").exists()  # (a killed run removes nothing)
    report = run_bfcl(ScriptedChatModel(_replies(2), cycle=True), data, "simple_python", out=out)
    assert len(report.items) == 2 and not (tmp_path / "r.json.lock").exists()


def test_the_command_refuses_a_second_run_before_loading_the_model(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from toolwire.cli import app
    from toolwire.evals import cli as eval_cli

    data, out = add_one_data(tmp_path / "d", 2), tmp_path / "r.json"
    monkeypatch.setattr(eval_cli, "_load_model", lambda *a, **k: pytest.fail("the model was loaded"))
    holder = _hold(out)
    try:
        result = CliRunner().invoke(app, ["eval", "bfcl", "--data", str(data), "--category", "simple_python",
                                          "--out", str(out)])
    finally:
        holder.stdin.close()
        holder.wait(10)
    assert result.exit_code == 1
    assert f"error: '{out}' is being written by another run (process {holder.pid})" in result.output


def test_ctrl_c_releases_the_lock_and_the_rerun_resumes(tmp_path: Path) -> None:
    from toolwire.evals.bfcl_runner import RunInterrupted

    data, out = add_one_data(tmp_path / "d", 3), tmp_path / "r.json"

    def interrupt(messages: list[Any]) -> Any:
        raise KeyboardInterrupt

    with pytest.raises(RunInterrupted):
        run_bfcl(ScriptedChatModel([*_replies(1), interrupt]), data, "simple_python", out=out)
    assert not (tmp_path / "r.json.lock").exists()
    again = ScriptedChatModel(_replies(3)[1:])
    report = run_bfcl(again, data, "simple_python", out=out)
    assert len(again.requests) == 2 and [i.valid for i in report.items] == [True] * 3


def test_the_same_thread_may_lock_again_but_another_thread_may_not(tmp_path: Path) -> None:
    import threading

    from toolwire.evals._report_lock import report_lock

    out, seen = tmp_path / "r.json", []

    def other() -> None:
        try:
            with report_lock(out):
                seen.append("locked")
        except UserError as exc:
            seen.append(str(exc))

    with report_lock(out), report_lock(out):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert seen and "is being written by another run" in seen[0]
    assert not (tmp_path / "r.json.lock").exists()
    other()
    assert seen[-1] == "locked"
