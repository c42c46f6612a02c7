"""Review 76 (interop): LangChain chunks cut mid-arguments, an invalid call's place across a LangChain round trip,
keyword typos at the entry points, AIMessage's LangChain keywords, and batch with an exception that reads as False."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire import Agent, AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolExecutor, ToolMessage, tool
from toolwire.errors import UserError
from toolwire.messages import message_from_dict
from toolwire.models.lowering._common import assistant_calls
from toolwire.testing import ScriptedChatModel


class _EmptyResult(Exception):
    """An exception that is also an (empty) container, so its truth value is False."""

    def __len__(self) -> int:
        return 0


def _reply(messages: list[Any]) -> str:
    if messages[-1].content == "x":
        raise _EmptyResult("nothing found")
    return "ok"


def test_batch_return_exceptions_keeps_an_exception_whose_truth_value_is_false() -> None:
    answers = ScriptedChatModel([_reply], cycle=True).batch(["a", "x", "b"], return_exceptions=True)
    assert [a.content for a in (answers[0], answers[2])] == ["ok", "ok"]
    assert isinstance(answers[1], _EmptyResult) and str(answers[1]) == "nothing found"


def test_abatch_return_exceptions_keeps_an_exception_whose_truth_value_is_false() -> None:
    answers = asyncio.run(ScriptedChatModel([_reply], cycle=True).abatch(["x", "a"], return_exceptions=True))
    assert isinstance(answers[0], _EmptyResult) and answers[1].content == "ok"


# -- 1: a LangChain AIMessageChunk cut mid-arguments ran the tool without the cut arguments ---------------------


@tool
def delete_files(pattern: str = "*", dry_run: bool = True) -> str:
    """Delete files matching pattern."""
    return f"RAN delete_files(pattern={pattern!r}, dry_run={dry_run})"


def _cut_chunk() -> Any:
    lc = pytest.importorskip("langchain_core.messages")
    return lc.AIMessageChunk(content="", tool_call_chunks=[
        {"name": "delete_files", "args": '{"pattern": "*.tmp", "dry_run": fa', "id": "c1", "index": 0}])


def test_a_langchain_chunk_cut_mid_arguments_is_an_invalid_call_that_never_runs() -> None:
    from toolwire.interop.langchain import from_langchain_messages

    chunk = _cut_chunk()
    assert chunk.tool_calls[0]["args"] == {"pattern": "*.tmp"}  # LangChain's partial JSON drops the cut key
    (message,) = from_langchain_messages([chunk])
    assert message.tool_calls == [] and message.invalid_tool_calls[0]["id"] == "c1"
    assert message.invalid_tool_calls[0]["args"] == '{"pattern": "*.tmp", "dry_run": fa'
    (result,) = ToolExecutor([delete_files]).execute(chunk)  # the automatic conversion
    assert result.status == "error" and "RAN" not in result.text
    own = AIMessageChunk(content="", tool_call_chunks=[dict(chunk.tool_call_chunks[0])])  # type: ignore[list-item]
    assert message == own.to_message()  # as toolwire's own chunk reads it


def test_a_langchain_chunk_reads_its_whole_calls_and_keeps_the_invalid_calls_it_was_given() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    from toolwire.interop.langchain import from_langchain_messages

    streamed = (lc.AIMessageChunk(content="", tool_call_chunks=[
        {"name": "delete_files", "args": '{"pattern": "*.tm', "id": "c1", "index": 0}])
        + lc.AIMessageChunk(content="", tool_call_chunks=[{"name": None, "args": 'p"}', "id": None, "index": 0}]))
    (message,) = from_langchain_messages([streamed])
    assert message.tool_calls == [{"name": "delete_files", "args": {"pattern": "*.tmp"}, "id": "c1",
                                   "type": "tool_call"}]
    given = lc.AIMessageChunk(content="", tool_calls=[{"name": "delete_files", "args": {}, "id": "a"}],
                              invalid_tool_calls=[{"name": "nope", "args": "{}", "id": "b", "error": "unknown tool",
                                                   "type": "invalid_tool_call"}])
    (message,) = from_langchain_messages([given])
    assert [c["id"] for c in message.tool_calls] == ["a"]
    assert [(c["id"], c["error"]) for c in message.invalid_tool_calls] == [("b", "unknown tool")]


# -- 2: a LangChain round trip lost an invalid call's place (index), so the turn went back reordered ------------


def _ai_with_a_broken_first_call() -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "delete_files", "args": {"pattern": "a"}, "id": "c2"}],
                     invalid_tool_calls=[{"name": "delete_files", "args": '{"pattern": ', "id": "c1", "error": "cut",
                                          "index": 0}])


def test_a_langchain_round_trip_keeps_an_invalid_calls_place() -> None:
    pytest.importorskip("langchain_core")
    from toolwire.interop.langchain import from_langchain_messages, to_langchain_messages

    ai = _ai_with_a_broken_first_call()
    (lc_ai,) = to_langchain_messages([ai])
    assert "index" not in lc_ai.invalid_tool_calls[0]  # LangChain's invalid_tool_call has no field for it
    assert lc_ai.additional_kwargs == {"toolwire_invalid_call_index": {"c1": 0}}
    (back,) = from_langchain_messages([lc_ai])
    assert back == ai and [c["id"] for c in assistant_calls(back)] == ["c1", "c2"]
    assert [r.tool_call_id for r in ToolExecutor([delete_files]).execute(lc_ai)] == ["c1", "c2"]
    from langchain_core.messages import messages_from_dict, messages_to_dict

    assert message_from_dict(messages_to_dict([lc_ai])[0]) == ai  # LangChain's dict form too
    assert from_langchain_messages(messages_from_dict(messages_to_dict([lc_ai]))) == [ai]
    assert AIMessage("", tool_calls=ai.tool_calls, invalid_tool_calls=lc_ai.invalid_tool_calls,
                     additional_kwargs=lc_ai.additional_kwargs) == ai


def test_a_call_whose_arguments_are_not_an_object_keeps_its_place_through_langchain() -> None:
    pytest.importorskip("langchain_core")
    from toolwire.interop.langchain import from_langchain_messages, to_langchain_messages

    ai = AIMessage("", tool_calls=[{"name": "delete_files", "args": {"pattern": "a"}, "id": "c1"},
                                   {"name": "delete_files", "args": "not json", "id": "c2"},
                                   {"name": "delete_files", "args": {"pattern": "b"}, "id": "c3"}])
    (lc_ai,) = to_langchain_messages([ai])
    assert [c["id"] for c in lc_ai.invalid_tool_calls] == ["c2"]
    (back,) = from_langchain_messages([lc_ai])
    assert [c["id"] for c in assistant_calls(back)] == ["c1", "c2", "c3"]
    plain = AIMessage("", tool_calls=[{"name": "delete_files", "args": {}, "id": "c1"}])
    assert to_langchain_messages([plain])[0].additional_kwargs == {}  # nothing kept when nothing has a place


# -- 4: AIMessage's LangChain keywords ---------------------------------------------------------------------------


def test_additional_kwargs_merge_into_those_already_kept() -> None:
    message = AIMessage("a", additional_kwargs={"k": 1, "j": 3},
                        response_metadata={"finish_reason": "stop", "additional_kwargs": {"j": 2, "i": 0}})
    assert message.response_metadata == {"finish_reason": "stop", "additional_kwargs": {"i": 0, "j": 3, "k": 1}}


def test_usage_metadata_without_a_total_counts_input_plus_output() -> None:
    assert AIMessage("a", usage_metadata={"input_tokens": 1, "output_tokens": 2}).usage == {
        "input_tokens": 1, "output_tokens": 2, "total_tokens": 3}
    assert AIMessage("a", usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 7}).usage == {
        "input_tokens": 1, "output_tokens": 2, "total_tokens": 7}  # a total given is kept as it is


def test_a_refusal_goes_back_to_langchain_where_chat_openai_keeps_it() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    from toolwire.interop.langchain import from_langchain_messages, to_langchain_messages

    original = lc.AIMessage("", additional_kwargs={"refusal": "I can't help with that."})
    (tw,) = from_langchain_messages([original])
    assert tw.response_metadata == {"refusal": "I can't help with that."}
    (back,) = to_langchain_messages([tw])
    assert back.additional_kwargs == {"refusal": "I can't help with that."} and back.response_metadata == {}
    assert from_langchain_messages([back]) == [tw]


@pytest.mark.parametrize("make", [lambda kw: HumanMessage("hi", **kw), lambda kw: SystemMessage("be brief", **kw),
                                  lambda kw: ToolMessage("42", "c1", **kw)])
def test_other_messages_take_an_empty_additional_kwargs_and_refuse_data_in_one_sentence(make: Any) -> None:
    assert make({"additional_kwargs": {}}) == make({})
    assert make({"additional_kwargs": None}) == make({})
    with pytest.raises(UserError, match=r"has no additional_kwargs \('x'\): toolwire keeps only its content, id and "
                                        r"name, so put what the model should read in .*content") as caught:
        make({"additional_kwargs": {"x": 1}})
    assert str(caught.value).count(". ") == 0


# -- 3: a raw TypeError/AttributeError where the other entry points give "did you mean" ----------------------------


@tool
def double(x: int) -> int:
    """Double a number."""
    return 2 * x


_SPEC = {"name": "a", "description": "d", "parameters": {"type": "object"}}


def test_tool_constructors_refuse_a_misspelled_option_with_its_close_match() -> None:
    from toolwire.interop import tool_from_schema
    from toolwire.tools import Tool

    with pytest.raises(UserError, match=r"^Unknown tool_from_schema option 'timout': did you mean 'timeout'\?$"):
        tool_from_schema(_SPEC, lambda: 1, timout=3)
    with pytest.raises(UserError, match=r"^Unknown Tool.from_function option 'nmae': did you mean 'name'\?$"):
        Tool.from_function(lambda x: x, nmae="a")
    with pytest.raises(UserError, match=r"^Unknown Tool.from_schema option 'timout': did you mean 'timeout'\?$"):
        Tool.from_schema(lambda: 1, "a", "d", {"type": "object"}, timout=3)
    assert tool_from_schema(_SPEC, lambda: 1, timeout=3).timeout == 3  # the right spellings still work
    assert Tool.from_function(double.func, name="twice").name == "twice"


def test_the_langchain_tool_converters_refuse_a_typo_and_a_plain_function_in_one_sentence() -> None:
    lc_tools = pytest.importorskip("langchain_core.tools")
    from toolwire.interop.langchain import from_langchain_tool, to_langchain_tool

    @lc_tools.tool
    def lf(x: int) -> int:
        """LF."""
        return x

    with pytest.raises(UserError, match=r"^Unknown from_langchain_tool option 'injcted': did you mean 'injected'\?$"):
        from_langchain_tool(lf, injcted={})
    with pytest.raises(UserError, match=r"^from_langchain_tool takes a LangChain tool .* not a plain function: make a "
                                        r"toolwire tool of a function with @toolwire.tool or "
                                        r"toolwire.Tool.from_function\(func\)"):
        from_langchain_tool(lambda x: x)
    with pytest.raises(UserError, match=r"^to_langchain_tool\(\) takes only the tool, not nmae=: set the name"):
        to_langchain_tool(double, nmae="x")
    assert from_langchain_tool(lf).invoke({"x": 2}) == 2  # its value, as LangChain gives (review 163 #2)
    assert to_langchain_tool(double).invoke({"x": 2}) == 4


@pytest.mark.parametrize("method", ["invoke", "stream", "ainvoke", "astream"])
def test_agent_run_methods_refuse_langgraphs_config_saying_what_toolwire_uses(method: str) -> None:
    agent = Agent(ScriptedChatModel(["x"], cycle=True), [double])

    def run(*args: Any, **kwargs: Any) -> Any:
        made = getattr(agent, method)(*args, **kwargs)  # a stream is refused at once, before its first event
        return asyncio.run(made) if method == "ainvoke" else made

    with pytest.raises(UserError, match=rf"^Agent.{method}\(\) takes no config \(LangGraph's RunnableConfig\): set the "
                                        r"step limit with Agent\(model, tools, max_steps=2\) and continue"):
        run("q", config={"recursion_limit": 5})
    with pytest.raises(UserError, match=r"takes no config .*max_steps=10"):
        run("q", {"configurable": {"thread_id": "1"}})  # LangGraph's positional config
    with pytest.raises(UserError, match=r"takes only the input: max_steps is an option of the Agent"):
        run("q", max_steps=3)


def test_agent_invoke_still_takes_its_input_by_name() -> None:
    assert Agent(ScriptedChatModel(["x"]), [double]).invoke(input="q").output == "x"


def test_batch_refuses_langchains_positional_config_naming_the_keyword() -> None:
    model = ScriptedChatModel(["x"], cycle=True)
    with pytest.raises(UserError, match=r"^batch\(\) takes the inputs alone .* pass max_concurrency=2 as a keyword, "
                                        r"batch\(inputs, max_concurrency=2\)\.$"):
        model.batch(["a"], {"max_concurrency": 2})
    with pytest.raises(UserError, match=r"^abatch\(\) takes the inputs alone"):
        asyncio.run(model.abatch(["a"], {"max_concurrency": 2}))
    assert [a.content for a in model.batch(["a", "b"], max_concurrency=2)] == ["x", "x"]
