"""Review 76 (interop): LangChain chunks cut mid-arguments, an invalid call's place across a LangChain round trip,
keyword typos at the entry points, AIMessage's LangChain keywords, and batch with an exception that reads as False."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire import AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolExecutor, ToolMessage, tool
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
