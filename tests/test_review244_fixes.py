"""Review 244, the fixes for reviews 238 and 234: BFCL v4's ``format_sensitivity`` (no answer file) is refused as
not scored and "available:" names only scored categories (#1); ``--data`` naming the answer folder as ``.`` or
through a symlink gets the "pass the folder above it" advice (#2); a default port is the same server on resume
(#3); a misspelled ``Tool.batch`` option names its close match (#4); ``Agent.invoke`` given another request option
says to bind it on the model (#5); model names: ``toolwire models path/pull`` name the close registry name, the
Hugging Face repo name maps to its registry name, and another size is no typo (#6);
``benchmarks/bfcl_rescore.py --out`` into a missing folder and a stored call that is not an object say so in one
line (#7); ``model.bind(model_kwargs={...})`` merges its contents as ``ChatOpenAI(model_kwargs=...)`` does."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from toolwire.errors import UserError
from toolwire.evals.bfcl import available_categories, load_category

ROOT = Path(__file__).resolve().parents[1]
_FUNCTION = {"name": "f", "description": "F.", "parameters": {"type": "dict", "properties": {
    "x": {"type": "integer", "description": "X."}}, "required": ["x"]}}


def _write(folder: Path, file: str, question_id: str, answer: object | None) -> None:
    """Write one question line of ``file`` in ``folder`` and, unless ``answer`` is None, its answer line."""
    (folder / "possible_answer").mkdir(parents=True, exist_ok=True)
    (folder / file).write_text(json.dumps({"id": question_id, "question": [[{"role": "user", "content": "f of 1"}]],
                                           "function": [_FUNCTION]}) + "\n")
    if answer is not None:
        (folder / "possible_answer" / file).write_text(json.dumps({"id": question_id, "ground_truth": answer}) + "\n")


def _cats(folder: Path) -> Path:
    """A BFCL folder shaped as upstream's v4: format_sensitivity is a JSON object of other categories' ids with no
    answer file; web_search, memory, multi-turn and v1 executable files beside simple_python and v3 sql."""
    _write(folder, "BFCL_v4_simple_python.json", "simple_python_0", [{"f": {"x": [1]}}])
    _write(folder, "BFCL_v3_sql.json", "sql_0", [{"f": {"x": [1]}}])
    _write(folder, "BFCL_v4_web_search.json", "web_search_0", ["Paris"])
    _write(folder, "BFCL_v4_memory.json", "memory_0", ["Paris"])
    _write(folder, "BFCL_v4_multi_turn_base.json", "multi_turn_base_0", None)
    _write(folder, "gorilla_openfunctions_v1_test_executable_simple.json", "executable_simple_0", ["f(x=1)"])
    _write(folder, "BFCL_v4_irrelevance.json", "irrelevance_0", None)
    _write(folder, "BFCL_v4_mystery.json", "mystery_0", None)  # an unknown category with no answer file
    (folder / "BFCL_v4_format_sensitivity.json").write_text(json.dumps(
        {"simple_python": ["simple_python_0"], "parallel": ["parallel_1"]}, indent=4))
    return folder


# ---- 1: format_sensitivity, a category without answer files, and the "available:" list ----

def test_format_sensitivity_is_refused_as_not_scored(tmp_path: Path) -> None:
    data = _cats(tmp_path)
    with pytest.raises(UserError) as caught:
        load_category(data, "format_sensitivity")
    message = str(caught.value)
    assert "not scored by toolwire" in message and "simple_python" in message
    assert "fresh copy" not in message


def test_a_category_without_an_answer_file_that_toolwire_does_not_know_is_refused_as_not_scored(
        tmp_path: Path) -> None:
    data = _cats(tmp_path)
    with pytest.raises(UserError) as caught:
        load_category(data, "mystery")
    message = str(caught.value)
    assert "not scored by toolwire" in message and "fresh copy" not in message


def test_a_scored_category_missing_its_answer_file_still_says_get_a_fresh_copy(tmp_path: Path) -> None:
    data = _cats(tmp_path)
    (data / "possible_answer" / "BFCL_v4_simple_python.json").unlink()
    with pytest.raises(UserError, match="fresh copy"):
        load_category(data, "simple_python")


def test_available_lists_only_the_categories_toolwire_scores(tmp_path: Path) -> None:
    data = _cats(tmp_path)
    assert available_categories(data) == ["irrelevance", "simple_python", "sql"]
    with pytest.raises(UserError) as caught:
        load_category(data, "parallel")
    assert caught.value.args[0].endswith("available: irrelevance, simple_python, sql.")
    for name in available_categories(data):
        assert load_category(data, name)


# ---- 2: the answer folder named as '.' or through a symlink ----

def _bfcl(folder: Path) -> Path:
    _write(folder, "BFCL_v4_simple_python.json", "simple_python_0", [{"f": {"x": [1]}}])
    _write(folder, "BFCL_v4_irrelevance.json", "irrelevance_0", None)
    return folder


@pytest.mark.parametrize("category", ["simple_python", "irrelevance", "parallel"])
def test_the_answer_folder_given_as_dot_says_pass_the_folder_above_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, category: str) -> None:
    data = _bfcl(tmp_path / "bfcl")
    monkeypatch.chdir(data / "possible_answer")
    with pytest.raises(UserError) as caught:
        load_category(".", category)
    message = str(caught.value)
    assert "is BFCL's answer folder" in message and str(data) in message and "fresh copy" not in message


@pytest.mark.parametrize("category", ["simple_python", "irrelevance"])
def test_the_answer_folder_given_through_a_symlink_says_pass_the_folder_above_it(
        tmp_path: Path, category: str) -> None:
    data = _bfcl(tmp_path / "bfcl")
    link = tmp_path / "answers_link"
    os.symlink(data / "possible_answer", link)
    with pytest.raises(UserError) as caught:
        load_category(link, category)
    message = str(caught.value)
    assert "is BFCL's answer folder" in message and str(data) in message and "fresh copy" not in message


# ---- 3: a default port (or an empty one) is the same server ----

@pytest.mark.parametrize(("written", "bare"), [
    ("http://127.0.0.1:80/v1", "http://127.0.0.1/v1"),
    ("http://localhost:80/v1", "http://localhost/v1"),
    ("https://api.example.com:443/v1", "https://api.example.com/v1"),
    ("HTTPS://API.example.com:443/v1/", "https://api.example.com/v1"),
    ("http://localhost:/v1", "http://localhost/v1"),
    ("http://user:pw@localhost:80/v1", "http://localhost/v1"),
    ("http://[FE80::1]:80/v1", "http://[fe80::1]/v1"),
    ("http://[::1]:/v1", "http://[::1]/v1"),
])
def test_a_default_or_empty_port_is_the_same_server(written: str, bare: str) -> None:
    from toolwire.evals.bfcl_runner import _server_url

    assert _server_url(written) == _server_url(bare) == bare


@pytest.mark.parametrize(("one", "other"), [
    ("http://localhost:443/v1", "http://localhost/v1"),  # https's port on http is another server
    ("https://localhost:80/v1", "https://localhost/v1"),
    ("http://localhost:8000/v1", "http://localhost/v1"),
    ("http://[::1]:8000/v1", "http://[::1]/v1"),
])
def test_another_port_is_another_server(one: str, other: str) -> None:
    from toolwire.evals.bfcl_runner import _server_url

    assert _server_url(one) != _server_url(other)
    assert _server_url("http://[::1]/v1") == "http://[::1]/v1"  # an IPv6 host with no port is kept whole


# ---- 4: a misspelled keyword of Tool.batch/abatch (and of a model's batch) names its close match ----

def _add_tool():  # type: ignore[no-untyped-def]
    from toolwire import tool

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    return add


@pytest.mark.parametrize(("given", "meant"), [
    ("max_concurency", "max_concurrency"), ("return_exception", "return_exceptions"), ("timout", "timeout")])
def test_tool_batch_names_the_close_match_of_a_misspelled_keyword(given: str, meant: str) -> None:
    import asyncio

    add = _add_tool()
    for call in (lambda: add.batch([{"a": 1, "b": 2}], **{given: 2}),
                 lambda: asyncio.run(add.abatch([{"a": 1, "b": 2}], **{given: 2}))):
        with pytest.raises(UserError) as caught:
            call()
        message = str(caught.value)
        assert f"did you mean {meant}=" in message
        if meant != "timeout":
            assert "an option of the batch itself" in message  # (not as if it were not taken)
    assert add.batch([{"a": 1, "b": 2}], max_concurrency=2, return_exceptions=True, timeout=5) == [3]


def test_tool_batch_given_an_unknown_keyword_says_what_it_passes_on() -> None:
    with pytest.raises(UserError) as caught:
        _add_tool().batch([{"a": 1, "b": 2}], colour="red")
    assert str(caught.value) == "Tool.batch() passes on only timeout= to each invoke(), not colour=."


@pytest.mark.parametrize(("given", "meant"), [
    ("max_concurency", "max_concurrency"), ("return_exception", "return_exceptions")])
def test_a_models_batch_refuses_a_misspelled_batch_keyword_instead_of_sending_it(given: str, meant: str) -> None:
    from toolwire.testing import ScriptedChatModel

    model = ScriptedChatModel(["a"])
    with pytest.raises(UserError, match=f"did you mean {meant}=\\?"):
        model.batch(["hi"], **{given: 2})


# ---- 5: an Agent's run given another request option says to bind it on the model ----

def _agent_entry_points():  # type: ignore[no-untyped-def]
    import asyncio

    from toolwire import Agent
    from toolwire.testing import ScriptedChatModel

    agent = Agent(ScriptedChatModel(["a"]), [_add_tool()])

    async def astream(**options):  # type: ignore[no-untyped-def]
        return [event async for event in agent.astream("hi", **options)]

    return {
        "Agent.invoke": lambda **o: agent.invoke("hi", **o),
        "Agent.ainvoke": lambda **o: asyncio.run(agent.ainvoke("hi", **o)),
        "Agent.stream": lambda **o: list(agent.stream("hi", **o)),
        "Agent.astream": lambda **o: asyncio.run(astream(**o)),
        "Agent.batch": lambda **o: agent.batch(["hi"], **o),
        "Agent.abatch": lambda **o: asyncio.run(agent.abatch(["hi"], **o)),
    }


@pytest.mark.parametrize(("option", "advice"), [
    ({"logprobs": True}, "Agent(model.bind(logprobs=True), tools)"),
    ({"n": 1}, "Agent(model.bind(n=1), tools)"),
    ({"extra_body": {"top_k": 5}}, "Agent(model.bind(extra_body=...), tools)"),
    ({"model_kwargs": {"top_k": 5}}, "Agent(model.bind(model_kwargs=...), tools)"),
    ({"parallel_tool_calls": False}, "Agent(model.bind_tools(tools, parallel_tool_calls=False), tools)"),
    ({"max_retries": 2}, "init_chat_model(..., max_retries=2)"),  # (a setting, not a request field)
])
def test_an_agent_run_given_a_request_option_says_to_set_it_on_the_model(option: dict, advice: str) -> None:
    for owner, call in _agent_entry_points().items():
        with pytest.raises(UserError) as caught:
            call(**option)
        message = str(caught.value)
        assert message.startswith(f"{owner}() takes only"), message
        assert advice in message, message


def test_an_agent_run_given_langchains_tracing_option_says_to_leave_it_out() -> None:
    for call in _agent_entry_points().values():
        with pytest.raises(UserError, match=r"LangChain.s .*leave it out"):
            call(callbacks=[object()])


def test_an_agent_run_given_a_misspelled_request_option_names_it_and_an_unknown_name_gets_no_advice() -> None:
    call = _agent_entry_points()["Agent.invoke"]
    with pytest.raises(UserError, match=r"not logprob= \(did you mean logprobs=\?\): .*model\.bind\(logprobs=True\)"):
        call(logprob=True)
    with pytest.raises(UserError) as caught:
        call(bogus=1)
    assert "bind" not in str(caught.value)


def test_the_bind_tools_advice_works_as_given() -> None:
    from toolwire import Agent
    from toolwire.testing import ScriptedChatModel

    add = _add_tool()
    tools = [add]
    model = ScriptedChatModel(["a"])
    assert Agent(model.bind_tools(tools, parallel_tool_calls=False), tools).model.parallel_tool_calls is False


# ---- 6: model names: models path/pull, the Hugging Face repo name, and another size ----

@pytest.mark.parametrize("command", ["path", "pull"])
@pytest.mark.parametrize(("given", "meant"), [
    ("qwen2.5-coder-1.5", "qwen2.5-coder-1.5b"), ("smollm2-135", "smollm2-135m"),
    ("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "qwen2.5-coder-0.5b"),  # the file column of toolwire models list
    ("Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF", "qwen2.5-coder-0.5b"),  # its Hugging Face repo
])
def test_models_path_and_pull_name_the_registry_name(command: str, given: str, meant: str) -> None:
    from typer.testing import CliRunner

    from toolwire.cli import app

    result = CliRunner().invoke(app, ["models", command, given])
    assert result.exit_code == 1
    assert f"toolwire models {command} {meant}" in " ".join(result.output.split()), result.output


def test_the_hugging_face_repo_name_of_a_registry_model_is_its_registry_name() -> None:
    from toolwire.models.registry import REGISTRY, close_registry_name

    for entry in REGISTRY.values():
        if entry.hub_repo:
            assert close_registry_name(entry.hub_repo) == entry.name
            assert close_registry_name(entry.hub_repo.lower()) == entry.name
    from toolwire.models import init_chat_model

    with pytest.raises(UserError, match=r"did you mean the registry name 'qwen2\.5-coder-0\.5b'\?"):
        init_chat_model("Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF")


@pytest.mark.parametrize("name", ["qwen2.5-coder-7b", "qwen2.5-coder-3b", "qwen2.5-coder-32b", "smollm2-360m",
                                  "smollm2-1.7b", "Qwen/Qwen2.5-Coder-7B-Instruct", "qwen2.5-coder-7b-instruct.gguf"])
def test_another_size_is_no_typo_of_a_registry_name(name: str) -> None:
    from toolwire.models.registry import close_registry_name

    assert close_registry_name(name) is None


@pytest.mark.parametrize(("name", "meant"), [
    ("qwen2.5-coder-1.5", "qwen2.5-coder-1.5b"), ("qwen2.5-coder-1.5B", "qwen2.5-coder-1.5b"),
    ("qwen2.5-codr-1.5b", "qwen2.5-coder-1.5b"), ("smollm2-135", "smollm2-135m"), ("smolm2-135m", "smollm2-135m"),
    ("Qwen/Qwen2.5-Coder-0.5b", "qwen2.5-coder-0.5b")])
def test_a_typo_of_the_same_size_is_still_named(name: str, meant: str) -> None:
    from toolwire.models.registry import close_registry_name

    assert close_registry_name(name) == meant


# ---- 7: benchmarks/bfcl_rescore.py: --out into a missing folder, a stored call that is not an object ----

class _RightModel:
    """A duck-typed chat model that answers ``f(x=1)``."""

    name = "m"

    def bind_tools(self, tools: list[dict]) -> _RightModel:
        return self

    def invoke(self, messages: list) -> object:
        from toolwire.messages import AIMessage

        return AIMessage("", tool_calls=[{"name": "f", "args": {"x": 1}}])


def _rescore(*args: str):  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bfcl_rescore.py"), *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)


def _scored_report(tmp_path: Path) -> tuple[Path, Path]:
    from toolwire.evals.bfcl_runner import run_bfcl

    data = tmp_path / "d"
    _write(data, "BFCL_v4_simple_python.json", "simple_python_0", [{"f": {"x": [1]}}])
    out = tmp_path / "r.json"
    run_bfcl(_RightModel(), data, "simple_python", out=out)
    return out, data


def test_rescore_out_into_a_missing_folder_makes_it_as_eval_bfcl_out_does(tmp_path: Path) -> None:
    report, data = _scored_report(tmp_path)
    target = tmp_path / "nofolder" / "new.json"
    result = _rescore(str(report), "--data", str(data), "--out", str(target))
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert json.loads(target.read_text())["items"][0]["valid"] is True


def test_rescore_out_that_cannot_be_written_says_so_in_one_line(tmp_path: Path) -> None:
    report, data = _scored_report(tmp_path)
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    target = blocker / "new.json"  # (its folder is a file)
    result = _rescore(str(report), "--data", str(data), "--out", str(target))
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: Cannot write") and str(target) in lines[0], result.stderr


@pytest.mark.parametrize("actual", [[1], ["f(x=1)"], [None], [[{"name": "f"}]]])
def test_rescore_of_a_stored_call_that_is_not_an_object_says_so_in_one_line(tmp_path: Path, actual: list) -> None:
    report, data = _scored_report(tmp_path)
    stored = json.loads(report.read_text())
    stored["items"][0]["actual"] = actual
    report.write_text(json.dumps(stored))
    result = _rescore(str(report), "--data", str(data))
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "simple_python_0" in lines[0], result.stderr


# ---- beside the brief: model.bind(model_kwargs={...}) merges its contents, as ChatOpenAI(model_kwargs=...) does ----

_REPLY = {"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": [
    {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}


def _sent(**calls: object) -> list[dict]:
    """The request fields (besides messages and model) a fake OpenAI-compatible server got for each way of giving
    options in ``calls`` (name -> a function of the model that makes one call)."""
    from _queued_http import serving
    from toolwire.models import init_chat_model

    out = []
    with serving("/v1") as server:
        server.answer = lambda body, n: _REPLY
        model = init_chat_model(f"openai-compatible:m@{server.url}")
        for call in calls.values():
            call(model)  # type: ignore[operator]
            out.append({k: v for k, v in server.requests[-1].items() if k not in ("messages", "model")})
    return out


def test_bind_model_kwargs_merges_its_contents_as_the_constructor_does() -> None:
    from _queued_http import serving
    from toolwire.models import init_chat_model

    with serving("/v1") as server:
        server.answer = lambda body, n: _REPLY
        init_chat_model(f"openai-compatible:m@{server.url}", model_kwargs={"top_k": 5}).invoke("hi")
        built = {k: v for k, v in server.requests[-1].items() if k not in ("messages", "model")}
    bound, called, both = _sent(
        bound=lambda m: m.bind(model_kwargs={"top_k": 5}).invoke("hi"),
        called=lambda m: m.invoke("hi", model_kwargs={"top_k": 5}),
        both=lambda m: m.bind(model_kwargs={"top_k": 5}, temperature=0).invoke("hi", model_kwargs={"min_p": 0.1}))
    assert built == bound == called == {"top_k": 5}
    assert both == {"top_k": 5, "min_p": 0.1, "temperature": 0}


def test_bind_model_kwargs_is_checked_as_the_constructors() -> None:
    from toolwire.models import init_chat_model

    model = init_chat_model("openai-compatible:m@http://127.0.0.1:9/v1")
    with pytest.raises(UserError, match="model_kwargs takes a dict"):
        model.bind(model_kwargs="x")
    with pytest.raises(UserError, match="messages"):
        model.bind(model_kwargs={"messages": []})
    with pytest.raises(UserError, match=r"temperature=0 and model_kwargs=\{'temperature': 1\}.*once"):
        model.bind(temperature=0, model_kwargs={"temperature": 1})
    assert model.bind(model_kwargs={"top_k": 5}).bind(model_kwargs={"min_p": 0.1})._bound_options == {
        "top_k": 5, "min_p": 0.1}
