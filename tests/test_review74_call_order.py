"""Review 74, finding 5: a reply whose first call had broken arguments and whose second was fine was written back
and answered second-first; an AIMessage keeps valid and invalid calls in two lists, and now an invalid call that a
valid one follows keeps its place as ``index``, which every writer and the executor read."""

from __future__ import annotations

from typing import Any

from toolwire import Agent, AIMessage, ToolExecutor, ToolMessage, tool
from toolwire._call_records import in_reply_order, split_in_order
from toolwire.messages import merge_chunks
from toolwire.models.lowering import anthropic as anthropic_codec
from toolwire.models.lowering import openai as openai_codec
from toolwire.models.lowering._common import assistant_calls
from toolwire.parsing import parse_tool_calls
from toolwire.testing import ScriptedChatModel


@tool
def get_weather(city: str) -> str:
    """Weather."""
    return f"sunny in {city}"


def _reply(*calls: tuple[str, str]) -> dict[str, Any]:
    tool_calls = [{"id": i, "type": "function", "function": {"name": "get_weather", "arguments": args}}
                  for i, args in calls]
    return {"id": "x", "model": "m", "object": "chat.completion", "choices": [{
        "index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None,
                                                               "tool_calls": tool_calls}}]}


def test_split_and_rebuild_the_order() -> None:
    good = {"name": "f", "args": {}, "id": "g", "type": "tool_call"}
    bad = {"name": "f", "args": "{", "id": "b", "error": "e", "type": "invalid_tool_call"}
    valid, invalid = split_in_order([bad, good, {**bad, "id": "b2"}])
    assert [c["id"] for c in valid] == ["g"] and invalid == [{**bad, "index": 0}, {**bad, "id": "b2"}]  # last: no
    assert [c["id"] for c in in_reply_order(valid, invalid, invalid)] == ["b", "g", "b2"]
    assert in_reply_order([1, 2], ["x"], [{"index": 1}]) == [1, "x", 2]
    assert in_reply_order([1, 2], ["x"], [{}]) == [1, 2, "x"]  # no index: after the valid ones, as before
    assert in_reply_order([1], ["x"], [{"index": True}]) == [1, "x"]  # only an int is a place


def test_a_chat_completions_reply_is_written_back_and_answered_in_the_models_order() -> None:
    message = openai_codec.parse_response(_reply(("a", '{"city": Paris}'), ("b", '{"city": "Rome"}')),
                                          tool_names=["get_weather"])
    assert [c["id"] for c in message.tool_calls] == ["b"] and message.invalid_tool_calls[0]["index"] == 0
    assert [c["id"] for c in assistant_calls(message)] == ["a", "b"]
    sent = openai_codec.lower_messages([message, *ToolExecutor([get_weather]).execute(message)])
    assert [c["id"] for c in sent[0]["tool_calls"]] == ["a", "b"]
    assert [m["tool_call_id"] for m in sent[1:]] == ["a", "b"]
    assert sent[2]["content"] == "sunny in Rome" and "not valid JSON" in sent[1]["content"]
    blocks = anthropic_codec.lower_messages([message])[1][0]["content"]  # another provider: the same order
    assert [b["id"] for b in blocks if b.get("type") == "tool_use"] == ["a", "b"]


def test_a_streamed_reply_and_a_text_reply_keep_the_order() -> None:
    state = openai_codec.StreamState()
    chunks = []
    for index, (call_id, args) in enumerate((("a", '{"city": Paris}'), ("b", '{"city": "Rome"}'))):
        delta = {"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                 "function": {"name": "get_weather", "arguments": args}}]}
        chunk = state.feed({"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m",
                            "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        chunks.append(chunk)
    state.feed({"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    chunks.append(state.finish())
    merged = merge_chunks([c for c in chunks if c is not None], as_chunk=False, tool_names=["get_weather"])
    assert [c["id"] for c in assistant_calls(merged)] == ["a", "b"]
    parsed = parse_tool_calls('<tool_call>{"name": "nope", "arguments": {}}</tool_call>\n'
                              '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>',
                              ["get_weather"])
    text_reply = AIMessage("", tool_calls=parsed.tool_calls, invalid_tool_calls=parsed.invalid_tool_calls)
    assert [c["name"] for c in assistant_calls(text_reply)] == ["nope", "get_weather"]


def test_the_agent_runs_and_records_the_calls_in_the_models_order() -> None:
    first = openai_codec.parse_response(_reply(("a", '{"city": Paris}'), ("b", '{"city": "Rome"}'),
                                               ("c", '{"city": "Oslo"}')), tool_names=["get_weather"])
    model = ScriptedChatModel([first, "done"])
    events = list(Agent(model, [get_weather]).stream("q"))
    assert [e.data["id"] for e in events if e.type == "tool_call"] == ["a", "b", "c"]
    results = [e.data for e in events if e.type == "tool_result"]
    assert [r.tool_call_id for r in results] == ["a", "b", "c"] and results[0].status == "error"
    final = events[-1].data
    assert [m.tool_call_id for m in final.messages if isinstance(m, ToolMessage)] == ["a", "b", "c"]
    assert [c["id"] for c in assistant_calls(model.requests[-1].messages[1])] == ["a", "b", "c"]


def test_the_index_survives_a_dict_round_trip() -> None:
    from toolwire.messages import message_from_dict

    message = openai_codec.parse_response(_reply(("a", "{"), ("b", '{"city": "Rome"}')), tool_names=["get_weather"])
    back = message_from_dict(message.to_dict())
    assert back.invalid_tool_calls[0]["index"] == 0 and [c["id"] for c in assistant_calls(back)] == ["a", "b"]


def test_langchain_gets_the_invalid_call_without_the_index_it_has_no_field_for() -> None:
    import pytest

    pytest.importorskip("langchain_core")
    from toolwire.interop.langchain import to_langchain_messages

    message = openai_codec.parse_response(_reply(("a", "{"), ("b", '{"city": "Rome"}')), tool_names=["get_weather"])
    (lc_message,) = to_langchain_messages([message])
    assert [c["id"] for c in lc_message.invalid_tool_calls] == ["a"] and "index" not in lc_message.invalid_tool_calls[0]
    assert [c["id"] for c in lc_message.tool_calls] == ["b"]
