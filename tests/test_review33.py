"""Review 33: the streaming paths (merged chunks, provider stream codecs, Agent events).

Found, and fixed (each test failed before its fix): (1) an Anthropic stream that stops at ``max_tokens`` on a
``tool_use`` block kept that call valid, where the whole reply marks it invalid (now the closing chunk declares it
invalid and the merged message leaves it out); (2) the input of a ``tool_use`` that comes whole in its start block
was lost in a stream; (3) a merged chunk's call without an id got a new id on every read.
"""

from __future__ import annotations

from typing import Any

from toolwire import Agent, HumanMessage, tool
from toolwire.execution import ToolExecutor
from toolwire.messages import AIMessageChunk, merge_chunks
from toolwire.models.lowering import anthropic as anthropic_codec
from toolwire.testing import ScriptedChatModel

# -- 1: an Anthropic tool_use cut off at max_tokens is a valid call in a stream (invoke: invalid, never run) ------


def _anthropic_stream(blocks: list[dict[str, Any]], deltas: dict[int, list[str]], stop: str) -> list[dict[str, Any]]:
    """The events of a Messages API stream: each block started as given, its ``input_json_delta`` pieces."""
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x", "content": [],
        "usage": {"input_tokens": 5, "output_tokens": 1}}}]
    for index, block in enumerate(blocks):
        events.append({"type": "content_block_start", "index": index, "content_block": block})
        if block["type"] == "text":
            events.append({"type": "content_block_delta", "index": index,
                           "delta": {"type": "text_delta", "text": "I'll delete the temp files."}})
        for piece in deltas.get(index, ()):
            events.append({"type": "content_block_delta", "index": index,
                           "delta": {"type": "input_json_delta", "partial_json": piece}})
        events.append({"type": "content_block_stop", "index": index})
    events += [{"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 7}},
               {"type": "message_stop"}]
    return events


def _streamed(events: list[dict[str, Any]]) -> Any:
    state = anthropic_codec.StreamState()
    chunks = [chunk for event in events if (chunk := state.feed(event)) is not None]
    return merge_chunks([*chunks, state.finish()], as_chunk=False)


def test_an_anthropic_stream_cut_at_max_tokens_makes_its_last_call_invalid() -> None:
    text = {"type": "text", "text": ""}
    call = {"type": "tool_use", "id": "t1", "name": "delete_files", "input": {}}
    whole = anthropic_codec.parse_response({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x", "stop_reason": "max_tokens",
        "content": [{"type": "text", "text": "I'll delete the temp files."}, call],
        "usage": {"input_tokens": 5, "output_tokens": 7}})
    assert whole.tool_calls == [] and "max_tokens" in whole.invalid_tool_calls[0]["error"]  # invoke: never run
    streamed = _streamed(_anthropic_stream([text, dict(call)], {}, "max_tokens"))
    assert streamed.tool_calls == []  # now: [{'name': 'delete_files', 'args': {}, ...}], which an Agent runs
    assert streamed == whole


def test_an_anthropic_tool_use_whose_input_comes_in_its_start_block_keeps_it() -> None:
    call = {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}}
    whole = anthropic_codec.parse_response({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x", "stop_reason": "tool_use",
        "content": [call], "usage": {"input_tokens": 5, "output_tokens": 7}})
    streamed = _streamed(_anthropic_stream([dict(call)], {}, "tool_use"))
    assert streamed.tool_calls == whole.tool_calls == [
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "t1", "type": "tool_call"}]  # now: args {}


# -- 2: a merged chunk whose call came without an id gets a new id on every read -----------------------------------


runs: list[int] = []


@tool
def record(x: int) -> str:
    """Record x."""
    runs.append(x)
    return f"recorded {x}"


def _chunk_without_id() -> AIMessageChunk:
    return merge_chunks([AIMessageChunk(tool_call_chunks=[
        {"name": "record", "args": '{"x": 1}', "id": None, "index": 0, "type": "tool_call_chunk"}])])


def test_the_calls_of_a_merged_chunk_keep_one_id() -> None:
    chunk = _chunk_without_id()
    assert chunk.tool_calls[0]["id"] == chunk.tool_calls[0]["id"] == chunk.to_message().tool_calls[0]["id"]


def test_a_chunk_in_the_conversation_is_not_run_again_after_its_results() -> None:
    runs.clear()
    chunk = _chunk_without_id()
    results = ToolExecutor([record]).execute(chunk)  # the docs: execute() and Agent take the chunk as it is
    model = ScriptedChatModel(["done"])
    result = Agent(model, [record]).invoke([HumanMessage("q"), chunk, *results])
    assert result.output == "done"
    assert runs == [1]  # now [1, 1]: the call ran again, and the first result is sent to the model for no call
    sent = model.requests[0].messages
    assert [m.tool_call_id for m in sent[2:]] == [c["id"] for c in sent[1].tool_calls]
