"""Review 84 #2: the error of a streamed call's malformed arguments showed the fixed example ``{"city": "Paris"}``
(``toolwire.parsing.arguments.EXAMPLE``) where ``invoke`` shows the called tool's own shape: ``merge_chunks(
model.stream(...), as_chunk=False)`` now equals ``model.invoke(...)`` there too, sync and async."""

from __future__ import annotations

import asyncio
from typing import Any

from toolwire import tool
from toolwire.messages import AIMessage, merge_chunks

from .conftest import build_model
from .scripted_http import Answer, ScriptedServer
from .wire_raw import Raw, chunk, completion

BAD = '{"path": "a.txt" "text": "hi"}'


@tool
def write_file(path: str, text: str) -> str:
    """Write a text file."""
    return path


def _errors(message: AIMessage) -> list[str]:
    return [str(call.get("error")) for call in message.invalid_tool_calls]


def test_a_streamed_chat_call_shows_its_tools_shape_as_invoke_does(raw, make):
    call = {"id": "c1", "type": "function", "function": {"name": "write_file", "arguments": BAD}}
    whole = Raw(body=completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"))
    streamed = Raw(events=[chunk({"tool_calls": [{"index": 0, **call}]}), chunk({}, "tool_calls"), "[DONE]"])
    raw.queue(whole, streamed, streamed)
    model = make().bind_tools([write_file])
    invoked = model.invoke("write it")
    merged = merge_chunks(model.stream("write it"), as_chunk=False)

    async def amerged() -> Any:
        return merge_chunks([c async for c in model.astream("write it")], as_chunk=False)

    for message in (merged, asyncio.run(amerged())):
        assert _errors(message) == _errors(invoked)
    assert '{"path": <text>, "text": <text>}' in _errors(merged)[0]  # (was: such as {"city": "Paris"})
    assert "city" not in _errors(merged)[0]


def test_a_streamed_anthropic_call_shows_its_tools_shape():
    start = {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude-x",
             "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
    events = [("message_start", {"type": "message_start", "message": start}),
              ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
                  "type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}}),
              ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
                  "type": "input_json_delta", "partial_json": BAD}}),
              ("content_block_stop", {"type": "content_block_stop", "index": 0}),
              ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
                                 "usage": {"output_tokens": 1}}),
              ("message_stop", {"type": "message_stop"})]
    with ScriptedServer() as server:
        server.push(Answer(events=events))
        model = build_model("anthropic", server.url).bind_tools([write_file])
        merged = merge_chunks(model.stream("write it"), as_chunk=False)
    assert len(_errors(merged)) == 1
    assert '{"path": <text>, "text": <text>}' in _errors(merged)[0] and "city" not in _errors(merged)[0]
