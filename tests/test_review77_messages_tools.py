"""Review 77, findings 3-5: AIMessage call arguments that are no object, tools from functools.partial, and option
refusals at construction."""

from __future__ import annotations

import functools
import sqlite3

import pytest

from toolwire import AIMessage, Tool, ToolExecutor, message_from_dict, tool
from toolwire.errors import SchemaError
from toolwire.interop import tool_from_schema

# -- 3: AIMessage(tool_calls=...) reads the arguments as message_from_dict does ----------------------------------


@pytest.mark.parametrize(("args", "raw", "error"), [
    ('{"city": "Pa', '{"city": "Pa', "cut off"),
    ("not json", "not json", "not valid JSON"),
    ("[1, 2]", "[1, 2]", "got a JSON array"),
    (5, "5", "JSON object"),
    ([1, 2], "[1, 2]", "JSON object"),
])
def test_arguments_that_are_no_object_make_an_invalid_call(args, raw, error) -> None:
    ai = AIMessage(content="", tool_calls=[{"name": "w", "args": args, "id": "c"}])
    assert ai.tool_calls == []
    [bad] = ai.invalid_tool_calls
    assert bad["name"] == "w" and bad["id"] == "c" and bad["args"] == raw and error in bad["error"]
    assert bad["type"] == "invalid_tool_call" and "index" not in bad


def test_the_constructor_and_message_from_dict_give_the_same_invalid_call() -> None:
    built = AIMessage(content="", tool_calls=[{"name": "w", "args": '{"city": "Pa', "id": "c"}])
    read = message_from_dict({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "w", "arguments": '{"city": "Pa'}}]})
    assert built == read
    assert message_from_dict(built.to_dict()) == built


def test_json_text_of_an_object_is_read_and_a_dict_is_kept() -> None:
    args = {"city": "Paris"}
    ai = AIMessage(content="", tool_calls=[{"name": "w", "args": '{"city": "Paris"}', "id": "a"},
                                           {"name": "w", "args": args, "id": "b"}])
    assert [call["args"] for call in ai.tool_calls] == [{"city": "Paris"}, {"city": "Paris"}]
    assert ai.invalid_tool_calls == []


def test_an_invalid_call_keeps_its_place_among_the_calls() -> None:
    ai = AIMessage(content="", tool_calls=[{"name": "w", "args": {}, "id": "a"},
                                           {"name": "w", "args": "oops", "id": "b"},
                                           {"name": "w", "args": {}, "id": "c"}])
    assert [call["id"] for call in ai.tool_calls] == ["a", "c"]
    assert [(bad["id"], bad.get("index")) for bad in ai.invalid_tool_calls] == [("b", 1)]
    answers = ToolExecutor([]).execute(ai)
    assert [answer.tool_call_id for answer in answers] == ["a", "b", "c"]


def test_message_from_dict_keeps_the_place_of_an_invalid_openai_call() -> None:
    read = message_from_dict({"role": "assistant", "content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "w", "arguments": "oops"}},
        {"id": "b", "type": "function", "function": {"name": "w", "arguments": "{}"}}]})
    assert [(bad["id"], bad.get("index")) for bad in read.invalid_tool_calls] == [("a", 0)]


def test_copy_with_new_calls_reads_their_arguments() -> None:
    ai = AIMessage(content="").copy(tool_calls=[{"name": "w", "args": "[1]", "id": "x"}])
    assert ai.tool_calls == [] and ai.invalid_tool_calls[0]["args"] == "[1]"


def test_the_invalid_call_is_answered_with_the_parsers_error() -> None:
    ai = AIMessage(content="", tool_calls=[{"name": "w", "args": '{"city": "Pa', "id": "c"}])
    [answer] = ToolExecutor([]).execute(ai)
    assert answer.status == "error" and answer.tool_call_id == "c" and "cut off" in answer.content


# -- 4: a tool made from functools.partial is named after the wrapped function ----------------------------------


def run_sql(conn: sqlite3.Connection, sql: str) -> str:
    """Run SQL.

    Args:
        sql: the query to run.
    """
    return repr(conn.execute(sql).fetchall())


def test_a_partial_takes_the_wrapped_functions_name() -> None:
    con = sqlite3.connect(":memory:")
    try:
        with pytest.raises(SchemaError, match=r"functools\.partial"):
            tool(run_sql)
        made = tool(functools.partial(run_sql, conn=con))
        assert made.name == "run_sql" and made.description == "Run SQL."
        assert made.invoke({"sql": "select 1"}) == "[(1,)]"
        nested = Tool.from_function(functools.partial(functools.partial(run_sql, conn=con)))
        assert nested.name == "run_sql"
        assert tool(name="query")(functools.partial(run_sql, conn=con)).name == "query"
    finally:
        con.close()


def test_tool_from_schema_names_a_partial_after_the_wrapped_function() -> None:
    made = tool_from_schema({"type": "object", "properties": {"sql": {"type": "string"}}},
                            functools.partial(run_sql, conn=None), description="Run SQL.")
    assert made.name == "run_sql"


def test_a_partial_of_an_object_without_a_name_still_asks_for_one() -> None:
    class Runner:
        def __call__(self, sql: str) -> str:
            """Run SQL."""
            return sql

    with pytest.raises(SchemaError, match="pass name="):
        tool(functools.partial(Runner()))


# -- 5: options an API has not, and an unknown local model name, are refused when the model is built --------------


def test_anthropic_refuses_seed_when_built() -> None:
    pytest.importorskip("anthropic")
    from toolwire.errors import UserError
    from toolwire.models.anthropic import ChatAnthropic

    with pytest.raises(UserError, match="The Anthropic Messages API has no 'seed' option"):
        ChatAnthropic("claude-x", api_key="k", seed=1)
    with pytest.raises(UserError, match="no 'seed' option"):
        ChatAnthropic("claude-x", api_key="k", model_kwargs={"seed": 1})
    model = ChatAnthropic("claude-x", api_key="k", stop="x")
    with pytest.raises(UserError, match="no 'seed' option"):  # a per-call seed still fails at that call
        model.invoke("hi", seed=1)


def test_the_responses_api_refuses_stop_and_seed_when_built() -> None:
    pytest.importorskip("openai")
    from toolwire.errors import UserError
    from toolwire.models.openai import ChatOpenAI

    with pytest.raises(UserError, match="The OpenAI Responses API has no 'stop' option"):
        ChatOpenAI("gpt-5-mini", api_key="k", use_responses_api=True, stop=["x"], seed=1)
    with pytest.raises(UserError, match="no 'seed' option"):
        ChatOpenAI("gpt-5-mini", api_key="k", use_responses_api=True, seed=1)
    assert ChatOpenAI("gpt-5-mini", api_key="k", stop=["x"], seed=1).options == {"stop": ["x"], "seed": 1}
    model = ChatOpenAI("gpt-5-mini", api_key="k", use_responses_api=True)
    with pytest.raises(UserError, match="no 'stop' option"):
        model.invoke("hi", stop=["x"])


def test_an_unknown_local_model_name_is_refused_when_built(tmp_path, monkeypatch) -> None:
    from toolwire.errors import UserError
    from toolwire.models.llamacpp import ChatLlamaCpp
    from toolwire.models.registry import DEFAULT_MODEL

    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError, match="Unknown model 'nope'"):
        ChatLlamaCpp(model="nope")
    unreadable = tmp_path / "weights"
    unreadable.write_bytes(b"not a gguf file")
    unreadable.chmod(0)  # a name of an existing file builds without its contents being read
    try:
        assert ChatLlamaCpp(model="weights").model == "weights"
        assert ChatLlamaCpp(model=str(tmp_path / "missing.gguf"))._loaded is None  # checked when loaded
        assert ChatLlamaCpp(model=DEFAULT_MODEL, pull=False)._loaded is None
    finally:
        unreadable.chmod(0o600)
