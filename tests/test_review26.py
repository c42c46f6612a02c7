"""Review 26: a new user's pass over the docs' promises, the async paths, message round-trips and the CLI.

1. ``merge_chunks`` failed (TypeError) on usage that is not plain token counts: a ``None`` count or a nested
   dict (a custom model's LangChain-style ``input_token_details``).
2. A tool's text holding a lone surrogate (a file name that is not UTF-8, from ``os.listdir``) made every
   provider's request fail with ``UnicodeEncodeError``; the same for a question typed in a terminal that is not
   UTF-8 (``toolwire ask``/``chat``).
3. ``toolwire ask --tools f.py`` where ``f.py`` sets ``TOOLS`` to one tool or a number ended in a traceback.
4. ``toolwire eval bfcl --html DIR`` (a folder) failed only after the whole run.
5. ``toolwire eval bfcl --dialect`` with a provider's model was ignored silently (``ask`` refuses it).
6. ``toolwire ask``'s error at ``--max-steps`` advised ``on_max_steps='answer'``, which the command does not
   take; ``--max-steps 0`` is refused by the option itself.
7. A ``base_url`` (or MCP URL) holding credentials reached the logs through the SDK's HTTP library.

No model is loaded and nothing touches the network.
"""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from _paths import BFCL
from toolwire import Agent, AIMessage, AIMessageChunk, ToolExecutor, cli, merge_chunks, tool
from toolwire.evals import cli as eval_cli
from toolwire.messages import tool_call
from toolwire.results import error_text, result_to_content
from toolwire.testing import ScriptedChatModel

# ------------------------------------------------------------------ 1. usage in merge_chunks


def test_merge_chunks_keeps_going_on_usage_with_none_or_nested_counts() -> None:
    chunks = [
        AIMessageChunk("a", usage={"input_tokens": 1, "output_tokens": None, "total_tokens": 2,  # type: ignore[typeddict-item]
                                   "input_token_details": {"cache_read": 1}}),
        AIMessageChunk("b", usage={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3,  # type: ignore[typeddict-item]
                                   "input_token_details": {"cache_read": 2, "audio": 0}}),
    ]
    merged = merge_chunks(chunks, as_chunk=False)
    assert merged.text == "ab"
    assert merged.usage == {"input_tokens": 2, "output_tokens": 2, "total_tokens": 5, "cached_tokens": 3,
                            "input_token_details": {"audio": 0}}
    assert merged.usage_metadata["input_token_details"] == {"audio": 0, "cache_read": 3}
    plain = merge_chunks([AIMessageChunk(usage={"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}),
                          AIMessageChunk(usage={"input_tokens": 2, "output_tokens": 3, "total_tokens": 5,
                                                "cached_tokens": 1})])
    assert plain.usage == {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7, "cached_tokens": 1}


# ------------------------------------------------------------------ 2. lone surrogates


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def test_valid_text_repairs_surrogates() -> None:
    from toolwire.results import valid_text

    assert valid_text("plain") == "plain"
    assert valid_text("café") == "café"
    assert valid_text("caf\udce9.txt") == "caf\ufffd.txt"
    assert valid_text("\ud83d\ude00") == "\U0001f600"  # a pair written as two code points: the character


def test_tool_results_and_errors_with_lone_surrogates_are_valid_utf8() -> None:
    @tool
    def list_files(folder: str) -> str:
        """List the files of a folder."""
        return "caf\udce9.txt"

    @tool
    def listing(folder: str) -> list[str]:
        """List the files as data."""
        return ["caf\udce9.txt", "ok.txt"]

    @tool
    def open_file(name: str) -> str:
        """Open a file."""
        raise FileNotFoundError("No such file: 'caf\udce9.txt'")

    reply = AIMessage("", tool_calls=[tool_call("list_files", {"folder": "."}, "a"),
                                      tool_call("listing", {"folder": "."}, "b"),
                                      tool_call("open_file", {"name": "x"}, "c")])
    results = ToolExecutor([list_files, listing, open_file]).execute(reply)
    assert [r.status for r in results] == ["success", "success", "error"]
    assert all(_utf8(r.text) for r in results), [r.text for r in results]
    assert results[0].text == "caf\ufffd.txt" and json.loads(results[1].text) == ["caf\ufffd.txt", "ok.txt"]
    assert "caf\ufffd.txt" in results[2].text
    assert _utf8(list_files.invoke(tool_call("list_files", {"folder": "."}, "d")).text)
    assert _utf8(result_to_content({"name": "caf\udce9"}))  # type: ignore[arg-type]
    assert _utf8(error_text(ValueError("bad \udcff"), "t"))


def test_messages_with_lone_surrogates_can_be_sent_and_saved() -> None:
    from toolwire import HumanMessage, SystemMessage, ToolMessage

    for message in (HumanMessage("summarise caf\udce9.txt"), SystemMessage("x\udcff"),
                    ToolMessage("r\udcff", tool_call_id="c"), AIMessage("\ud83d\ude00 ok\udc80")):
        assert _utf8(message.text), repr(message)
        json.dumps(message.to_dict(), ensure_ascii=False).encode("utf-8")  # a conversation saved as UTF-8 JSON
    assert AIMessage("\ud83d\ude00").text == "\U0001f600"
    assert HumanMessage("café").content == "café"


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> ScriptedChatModel:
    model = ScriptedChatModel(["ok"], cycle=True)
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    return model


def test_cli_question_not_in_utf8_reaches_the_model_as_valid_text(scripted: ScriptedChatModel) -> None:
    # the shell gave bytes that are not UTF-8 ("Paris\xff"): Python reads them as a lone surrogate
    # (refused in one line, not sent as U+FFFD: review 227 #4)
    result = CliRunner().invoke(cli.app, ["ask", "clima em Paris\udcff", "--system", "sys\udcff"])
    assert result.exit_code == 1 and "The question is not UTF-8 text" in result.output and not scripted.requests
    result = CliRunner().invoke(cli.app, ["chat"], input=b"ol\xe1\n")  # read strictly: a UnicodeDecodeError
    assert result.exit_code == 0, result.output
    assert "not UTF-8 text" in result.output and result.exception is None
    lines = iter(["ol\udce1", "ol\xe1"])  # a stdin read with surrogateescape (the C locale): that line is refused

    def read(prompt: str = "") -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    import builtins

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(builtins, "input", read)
        result = CliRunner().invoke(cli.app, ["chat"])
    assert result.exit_code == 0, result.output
    assert "not UTF-8 text" in result.output  # (review 157 #1: it was sent on as "ol\ufffd")
    assert scripted.requests[-1].messages[-1].text == "ol\xe1"


# ------------------------------------------------------------------ 3. TOOLS that is not a list


@pytest.mark.parametrize("value", ["f", "5", "'f'", "{'f': f}"])
def test_tools_that_is_not_a_list_is_one_line(value: str, tmp_path: Path, scripted: ScriptedChatModel) -> None:
    path = tmp_path / "my_tools.py"
    path.write_text(f'from toolwire import tool\n\n@tool\ndef f(x: int) -> int:\n    """F."""\n    return x\n\n'
                    f"TOOLS = {value}\n", encoding="utf-8")
    result = CliRunner().invoke(cli.app, ["ask", "hi", "--tools", str(path)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit | None)
    assert "must be a list of tools" in result.output and "TOOLS = [" in result.output
    assert scripted.requests == []


# ------------------------------------------------------------------ 4, 5. eval bfcl checks before the run


def test_eval_html_or_out_that_is_a_folder_fails_before_the_run(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eval_cli, "_load_model", lambda *a: pytest.fail("model loaded before checks"))
    for flag in ("--html", "--out"):
        result = CliRunner().invoke(eval_cli.app, ["bfcl", "--data", str(BFCL), "--category", "simple",
                                                   "--limit", "1", flag, str(tmp_path)])
        assert result.exit_code == 1, result.output
        assert result.output.strip().startswith(f"error: {flag} ") and "is a folder" in result.output
        assert len(result.output.strip().splitlines()) == 1


def test_eval_dialect_with_a_provider_model_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolwire.models

    monkeypatch.setattr(toolwire.models, "init_chat_model",
                        lambda model, dialect=None, temperature=None: SimpleNamespace(provider="openai"))
    with pytest.raises(Exception, match="--dialect applies to local models only"):
        eval_cli._load_model("openai:gpt-5-mini", "json")
    local = SimpleNamespace(provider="llamacpp", prompt_cache=True, reuse_kv=True)
    monkeypatch.setattr(toolwire.models, "init_chat_model", lambda model, dialect=None, temperature=None: local)
    assert eval_cli._load_model(None, "json") is local


# ------------------------------------------------------------------ 6. --max-steps


def test_cli_max_steps_error_names_the_option(monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("calculate", {"expression": "1 + 1"})])],
                              cycle=True)
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    result = CliRunner().invoke(cli.app, ["ask", "quanto é 1 + 1?", "--max-steps", "2"])
    assert result.exit_code == 1, result.output
    assert "raise --max-steps" in result.output and "on_max_steps" not in result.output
    result = CliRunner().invoke(cli.app, ["chat", "--max-steps", "1"], input="quanto é 1 + 1?\nexit\n")
    assert "raise --max-steps" in result.output and "on_max_steps" not in result.output
    result = CliRunner().invoke(cli.app, ["ask", "hi", "--max-steps", "0"])
    assert result.exit_code == 2 and "--max-steps" in result.output


# ------------------------------------------------------------------ 7. credentials in HTTP logs


def test_credentials_of_a_base_url_never_reach_the_http_library_logs() -> None:
    pytest.importorskip("openai")
    from toolwire.mcp.common import HttpServer
    from toolwire.models import ChatOpenAI

    ChatOpenAI(model="m", base_url="http://user:tok3n@127.0.0.1:9/v1")
    HttpServer("http://127.0.0.1:9/mcp?api_key=s3cret")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    for name in ("httpx", "httpx2"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        old = logger.level
        logger.setLevel(logging.INFO)
        try:  # the request line these libraries write
            logger.info('HTTP Request: %s %s "%s %d %s"', "POST", "http://user:tok3n@127.0.0.1:9/v1/chat?api_key=s3cret",
                        "HTTP/1.1", 200, "OK")
        finally:
            logger.removeHandler(handler)
            logger.setLevel(old)
    text = stream.getvalue()
    assert text.count("HTTP Request: POST http://****@127.0.0.1:9/v1/chat?api_key=****") == 2, text
    assert "tok3n" not in text and "s3cret" not in text


def test_redacting_filter_leaves_other_records_alone() -> None:
    from toolwire._secrets import redact_http_logs

    redact_http_logs()
    redact_http_logs()  # once is enough: no second filter
    logger = logging.getLogger("httpx")
    assert sum(type(f).__name__ == "_RedactURLs" for f in logger.filters) == 1
    record = logger.makeRecord("httpx", logging.INFO, __file__, 1, "plain %s", ("text",), None)
    assert all(f.filter(record) for f in logger.filters)  # type: ignore[union-attr]
    assert record.getMessage() == "plain text" and record.args == ("text",)




# ------------------------------------------------------------------ 8. models path with a file; mcp serve --path


def test_models_path_with_a_file_says_it_takes_a_registry_name() -> None:
    result = CliRunner().invoke(cli.app, ["models", "path", "/tmp/nonexistent-review26.gguf"])
    assert result.exit_code == 1
    assert "takes a registry name" in result.output and "--model" in result.output
    assert "or the path of a .gguf file" not in result.output


def test_mcp_http_path_without_a_slash_is_one_line(tmp_path: Path) -> None:
    import asyncio

    from toolwire.errors import UserError
    from toolwire.mcp.server import serve_async

    path = tmp_path / "t.py"
    path.write_text('def f(x: int) -> int:\n    """F."""\n    return x\n', encoding="utf-8")
    result = CliRunner().invoke(cli.app, ["mcp", "serve", "--tools", str(path), "--transport", "http",
                                          "--path", "mcp", "--port", "1"])
    assert result.exit_code == 1, result.output
    assert "--path must start with '/'" in result.output and "--path /mcp" in result.output
    assert not isinstance(result.exception, AssertionError)

    @tool
    def g(x: int) -> int:
        """G."""
        return x

    with pytest.raises(UserError, match="must start with '/'"):
        asyncio.run(serve_async([g], transport="http", path="mcp"))


def test_mcp_connection_failure_says_what_to_check() -> None:
    pytest.importorskip("mcp")
    from toolwire.errors import UserError
    from toolwire.mcp import load_tools

    with pytest.raises(UserError, match=r"\(FileNotFoundError: .*\): check that the command exists"):
        load_tools("nonexistent-command-review26")


# ------------------------------------------------------------------ 9. a numpy array as a result


def test_a_numpy_array_result_is_text_not_a_misleading_error() -> None:
    np = pytest.importorskip("numpy")
    from toolwire import ToolMessage

    @tool
    def stats(n: int) -> Any:
        """An array of n numbers."""
        return np.arange(n)

    [result] = ToolExecutor([stats]).execute(AIMessage("", tool_calls=[tool_call("stats", {"n": 3}, "s")]))
    assert result.status == "success" and result.text == "[0, 1, 2]"  # its values as JSON (review 36: not str(),
    assert ToolMessage(np.arange(3), tool_call_id="c").text == "[0, 1, 2]"  # which elides a long array's middle)


# ------------------------------------------------------------------ 10. eval files that are not UTF-8


def test_eval_files_that_are_not_utf8_are_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eval_cli, "_load_model", lambda *a: SimpleNamespace(name="m"))  # the data is read first
    data = tmp_path / "bfcl"
    (data / "possible_answer").mkdir(parents=True)
    for path in (data / "BFCL_v4_simple_python.json", data / "possible_answer" / "BFCL_v4_simple_python.json"):
        path.write_bytes(b"\xff\xfe{}")
    result = CliRunner().invoke(eval_cli.app, ["bfcl", "--data", str(data), "--category", "simple_python"])
    assert result.exit_code == 1
    assert "BFCL_v4_simple_python.json" in result.output and "is not UTF-8 text" in result.output

    from toolwire.errors import UserError
    from toolwire.evals.report import Report

    report = tmp_path / "r.json"
    for body in (b"\xff\xfe", b'{"bad', b"[1, 2]", b'{"model": "m", "items": [1]}', b'{"model": "m", "items": [{}]}'):
        report.write_bytes(body)
        with pytest.raises(UserError, match=r"is not a BFCL report toolwire .*: pass a new file name"):
            Report.load(report)


# ------------------------------------------------------------------ 11. binding flags


@pytest.mark.parametrize("flag", ["parallel_tool_calls", "strict"])
def test_bind_tools_refuses_flags_that_are_not_bools(flag: str) -> None:
    from toolwire.errors import UserError

    with pytest.raises(UserError, match=f"{flag} must be True, False or None, not 'false'"):
        ScriptedChatModel(["a"]).bind_tools([], **{flag: "false"})


def test_agent_keeps_parallel_tool_calls_and_strict_of_a_bound_model() -> None:
    @tool
    def f(x: int) -> int:
        """F."""
        return x

    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("f", {"x": 1}, "c")]), "done"])
    agent = Agent(model.bind_tools([], parallel_tool_calls=False, strict=True), [f], tool_choice="required")
    assert agent.invoke("q").output == "done"
    assert [r.parallel_tool_calls for r in model.requests] == [False, False]
    assert [r.tool_choice for r in model.requests] == ["required", "auto"]
    assert agent.model.strict is True and agent._after_tools_model.strict is True
    plain = Agent(model, [f])
    assert plain.model.parallel_tool_calls is None and plain.model.strict is None


def test_tools_given_as_a_module_name_of_a_file_here_load_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            scripted: ScriptedChatModel) -> None:
    (tmp_path / "review26_tools_here.py").write_text('def f(x: int) -> int:\n    """F."""\n    return x\n',
                                                     encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.path", [p for p in __import__("sys").path if p not in ("", ".", str(tmp_path))])
    result = CliRunner().invoke(cli.app, ["ask", "hi", "--tools", "review26_tools_here"])
    assert result.exit_code == 0, result.output  # the current folder is on the import path, as for python -m (review
    # 117); before, the command said to pass --tools review26_tools_here.py
    assert scripted.requests[0].tools == ["f"]


# ------------------------------------------------------------------ 12. a tool that swallows the run's cancellation


def test_a_cancelled_run_stops_even_when_its_one_tool_swallows_the_cancellation() -> None:
    import asyncio

    @tool
    async def stubborn(x: int) -> str:
        """Catches CancelledError and returns."""
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            return "swallowed"
        return "done"

    async def run(calls: int) -> tuple[str, int]:
        model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("stubborn", {"x": i}, f"c{i}")
                                                             for i in range(calls)]), "final"])
        try:
            # (0.5 s, not 0.1: the model has been asked and the calls run by then on a loaded machine too)
            await asyncio.wait_for(Agent(model, [stubborn]).ainvoke("go"), 0.5)
        except TimeoutError:
            return "timed out", len(model.requests)
        return "went on", len(model.requests)

    assert asyncio.run(run(2)) == ("timed out", 1)
    assert asyncio.run(run(1)) == ("timed out", 1)  # was: the run went on and asked the model again

    @tool
    async def quick(x: int) -> str:
        """Returns at once."""
        return "ok"

    quick_executor = ToolExecutor([quick])

    async def cleanup() -> list[str]:  # a cancellation delivered before the calls run is not theirs: they answer
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        try:
            await asyncio.sleep(1)
        except asyncio.CancelledError:
            return [r.text for r in await quick_executor.acall([tool_call("quick", {"x": 0}, "c")])]
        return []

    assert asyncio.run(cleanup()) == ["ok"]


# ------------------------------------------------------------------ 13. a merged stream used as a message


def test_a_merged_chunk_is_taken_where_a_message_is() -> None:
    from toolwire import HumanMessage

    @tool
    def f(x: int) -> int:
        """F."""
        return x

    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("f", {"x": 1}, "c")]), "done"])
    bound = model.bind_tools([f])
    chunk = merge_chunks(bound.stream("q"))  # the default: the merged AIMessageChunk
    assert isinstance(chunk, AIMessageChunk)
    results = ToolExecutor([f]).execute(chunk)  # type: ignore[arg-type]
    assert [r.text for r in results] == ["1"]
    assert bound.invoke([HumanMessage("q"), chunk, *results]).text == "done"
    assert model.requests[-1].messages[1] == chunk.to_message()
    again = ScriptedChatModel(["done"])
    out = Agent(again, [f]).invoke([HumanMessage("q"), chunk])  # its call runs before the model is asked
    assert [type(m).__name__ for m in out.messages] == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]


# ------------------------------------------------------------------ 14. execute() with a list holding a bad item


def test_execute_answers_each_item_of_a_list_in_its_place() -> None:
    @tool
    def f(x: int) -> int:
        """F."""
        return x

    items: list[Any] = [tool_call("f", {"x": 1}, "a"), "garbage", {"name": 5, "args": {}, "id": "b"},
                        {"name": "f", "args": {"x": 2}}]
    for run in (ToolExecutor([f]).execute, ToolExecutor([f]).call):
        results = run(items)
        assert len(results) == len(items)
        assert [r.status for r in results] == ["success", "error", "error", "success"]
        assert results[0].tool_call_id == "a" and results[2].tool_call_id == "b" and results[3].text == "2"


# ------------------------------------------------------------------ 15. the CLI shows an invalid call without a name


def test_cli_shows_an_invalid_call_without_a_name(monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedChatModel([
        AIMessage("", invalid_tool_calls=[{"name": None, "args": "{bad", "id": "x", "error": "cut off"},
                                          {"name": None, "args": None, "id": "z", "error": "no text"}]),
        "done",
    ])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    result = CliRunner().invoke(cli.app, ["ask", "hi"])
    assert result.exit_code == 0, (result.output, result.exception)
    assert '→ ?("{bad")' in result.output and "→ ?(null)" in result.output and "done" in result.output


# ------------------------------------------------------------------ 16. a terminal that cannot show the text


def test_output_a_terminal_cannot_encode_prints_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = io.BytesIO()
    ascii_out = io.TextIOWrapper(raw, encoding="ascii", errors="strict")  # an LC_ALL=C shell's stdout
    monkeypatch.setattr("sys.stdout", ascii_out)
    from toolwire._std_streams import tolerant_output

    tolerant_output()
    print("Como está o clima? →", file=ascii_out)
    ascii_out.flush()
    assert raw.getvalue() == b"Como est? o clima? ?\n"
    tolerant_output()  # a stream without reconfigure (a test runner's) is left alone


def test_ctrl_c_during_a_chat_answer_drops_that_question_and_the_session_goes_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from toolwire import cli
    from toolwire.testing import ScriptedChatModel

    def interrupted(messages: list) -> AIMessage:
        raise KeyboardInterrupt

    model = ScriptedChatModel(["Hello.", interrupted, "Still here."])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    result = CliRunner().invoke(cli.app, ["chat"], input="hi\nslow one\nare you there?\nexit\n")
    assert result.exit_code == 0, result.output
    assert "interrupted" in result.output and "Still here." in result.output
    last = model.requests[-1].messages  # the interrupted question is not in the conversation
    assert [m.text for m in last] == ["hi", "Hello.", "are you there?"]


def test_eval_checks_the_data_and_the_resume_file_before_the_model_loads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eval_cli, "_load_model", lambda *a: pytest.fail("the model loaded before the checks"))
    data = tmp_path / "bfcl"
    (data / "possible_answer").mkdir(parents=True)
    (data / "BFCL_v4_simple_python.json").write_text('{"id": "simple_python_0", "question": [], "function": []}\n')
    (data / "possible_answer" / "BFCL_v4_simple_python.json").write_text('{"id": "simple_python_0", "ground_truth"\n')
    result = CliRunner().invoke(eval_cli.app, ["bfcl", "--data", str(data), "--category", "simple_python"])
    assert result.exit_code == 1 and "possible_answer" in result.output  # the answer file's bad JSON, named
    if not (BFCL / "README.md").is_file():  # (the second half reads the BFCL data beside the repo: review 123)
        pytest.skip("no BFCL data beside the repo")
    bad_report = tmp_path / "old.json"
    bad_report.write_text('{"bad')
    result = CliRunner().invoke(eval_cli.app, ["bfcl", "--data", str(BFCL), "--category", "simple_python",
                                               "--limit", "1", "--out", str(bad_report)])
    assert result.exit_code == 1 and "is not a BFCL report toolwire wrote" in result.output


def test_eval_decline_value_lists_is_set_on_a_local_model_only(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolwire.models
    from toolwire.evals.bfcl_runner import model_settings

    monkeypatch.setattr(toolwire.models, "init_chat_model",
                        lambda model, dialect=None, temperature=None: SimpleNamespace(provider="openai"))
    with pytest.raises(Exception, match="--decline-value-lists applies to local models only"):
        eval_cli._load_model("openai:gpt-5-mini", None, decline_value_lists=True)
    local = SimpleNamespace(provider="llamacpp", prompt_cache=True, reuse_kv=True, decline_value_lists=False)
    monkeypatch.setattr(toolwire.models, "init_chat_model", lambda model, dialect=None, temperature=None: local)
    # off (its default) it is not recorded, so that reports written before it existed still resume
    assert "decline_value_lists" not in model_settings(eval_cli._load_model(None, None))
    assert eval_cli._load_model(None, None, decline_value_lists=True).decline_value_lists is True
    assert model_settings(local)["decline_value_lists"] == "declined where a call was as likely as the call bar"
    # (review 89: the thirty-first session's rule, recorded as true, is another rule: its reports are not resumed)
