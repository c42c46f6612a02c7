"""Review 159: streamed replies whose closing chunk holds several pieces of one call (#1), and the count of the calls
a ``parallel_tool_calls=False`` stream drops (#2)."""

from __future__ import annotations

import functools
import operator
from typing import Any

from toolwire.messages import AIMessageChunk, merge_chunks
from toolwire.models.lowering.openai import StreamState


def _chunk(delta: dict[str, Any], finish: str | None = None, index: int = 0) -> dict[str, Any]:
    return {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": index, "delta": delta, "finish_reason": finish}]}


def _stream(events: list[dict[str, Any]]) -> list[AIMessageChunk]:
    state = StreamState(compatible=True)
    chunks = [c for c in (state.feed(e) for e in events) if c is not None]
    return [*chunks, state.finish()]


def _accumulated(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    return functools.reduce(operator.add, chunks)


def test_a_legacy_function_call_stream_reads_as_one_call_with_plus_and_alone() -> None:
    chunks = _stream([_chunk({"role": "assistant", "function_call": {"name": "get_weather", "arguments": ""}}),
                      _chunk({"function_call": {"arguments": '{"city": '}}),
                      _chunk({"function_call": {"arguments": '"Paris"}'}}),
                      _chunk({}, "function_call")])
    assert len(chunks) == 1 and len(chunks[0].tool_call_chunks) == 1  # one merged piece per call
    for message in (chunks[0].to_message(), _accumulated(chunks).to_message(),
                    merge_chunks(chunks, as_chunk=False)):
        assert [(c["name"], c["args"]) for c in message.tool_calls] == [("get_weather", {"city": "Paris"})]
        assert message.invalid_tool_calls == []


def test_a_stream_with_no_index_0_choice_reads_as_one_call() -> None:
    events = [_chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_a", "type": "function",
                                                            "function": {"name": "get_weather", "arguments": ""}}]},
                     index=1),
              _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": '}}]}, index=1),
              _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]}, index=1),
              _chunk({}, "tool_calls", index=1)]
    chunks = _stream(events)
    assert len(chunks[-1].tool_call_chunks) == 1
    for message in (_accumulated(chunks).to_message(), merge_chunks(chunks, as_chunk=False)):
        assert [(c["name"], c["args"], c["id"]) for c in message.tool_calls] == [
            ("get_weather", {"city": "Paris"}, "call_a")]
        assert message.invalid_tool_calls == []


def test_to_message_merges_a_chunks_own_pieces_of_one_call_as_merge_chunks_does() -> None:
    pieces = [{"name": "f", "args": "", "id": "call_1", "index": 0, "type": "tool_call_chunk"},
              {"name": None, "args": '{"a": ', "id": "call_1", "index": 0, "type": "tool_call_chunk"},
              {"name": None, "args": "1}", "id": "call_1", "index": 0, "type": "tool_call_chunk"},
              {"name": "g", "args": "{}", "id": "call_2", "index": 1, "type": "tool_call_chunk"}]
    chunk = AIMessageChunk("", tool_call_chunks=pieces)  # type: ignore[arg-type]
    message = chunk.to_message()
    assert [(c["name"], c["args"], c["id"]) for c in message.tool_calls] == [("f", {"a": 1}, "call_1"),
                                                                               ("g", {}, "call_2")]
    assert message.invalid_tool_calls == []
    assert chunk.tool_calls == merge_chunks([chunk], as_chunk=False).tool_calls
    # pieces without ids: one merged call, whose made id stays the same on every read
    bare = AIMessageChunk("", tool_call_chunks=[{"name": "f", "args": '{"a": ', "id": None, "index": 0},
                                                {"name": None, "args": "1}", "id": None, "index": 0}])  # type: ignore[list-item]
    first = bare.tool_calls
    assert [(c["name"], c["args"]) for c in first] == [("f", {"a": 1})] and bare.tool_calls == first


def _piece(name: str, args: str, call_id: str, index: int) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "index": index, "type": "tool_call_chunk"}


def test_parallel_tool_calls_false_counts_a_dropped_cut_call_once() -> None:
    from toolwire.models._one_call import one_call_stream
    from toolwire.models.lowering._calls import CUT_OFF

    cut = {"name": "f", "args": '{"city": "Os', "id": "call_b", "error": CUT_OFF, "type": "invalid_tool_call"}
    other = {"name": "g", "args": "[", "id": "call_c", "error": "not JSON", "type": "invalid_tool_call"}
    chunks = [AIMessageChunk("", tool_call_chunks=[_piece("f", '{"city": "Paris"}', "call_a", 0)]),  # type: ignore[list-item]
              AIMessageChunk("", tool_call_chunks=[_piece("f", '{"city": "Os', "call_b", 1)]),  # type: ignore[list-item]
              AIMessageChunk("", invalid_tool_calls=[cut], response_metadata={"finish_reason": "length"})]  # type: ignore[list-item]
    merged = merge_chunks(list(one_call_stream(iter(chunks))), as_chunk=False)
    assert [c["id"] for c in merged.tool_calls] == ["call_a"] and merged.invalid_tool_calls == []
    assert merged.response_metadata["dropped_tool_calls"] == 1  # the cut call is one call, as invoke counts it
    # an invalid call of its own (another id) is another call dropped
    chunks[-1] = AIMessageChunk("", invalid_tool_calls=[cut, other])  # type: ignore[list-item]
    assert merge_chunks(list(one_call_stream(iter(chunks)))).response_metadata["dropped_tool_calls"] == 2
