"""Review 297 #2: Anthropic's prompt-cache writes (``cache_creation_input_tokens``) are reported as
``input_token_details["cache_creation"]``, as langchain-anthropic reports them; ``input_tokens`` stays the sum of
plain input, cache reads and cache writes (langchain-anthropic's sum too)."""

from __future__ import annotations

from toolwire.messages import merge_chunks
from toolwire.models.lowering.anthropic import StreamState, parse_response

USAGE = {"input_tokens": 12, "output_tokens": 5, "cache_creation_input_tokens": 2000, "cache_read_input_tokens": 300}
REPLY = {"id": "msg_1", "model": "claude-x", "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",
         "usage": USAGE}


def _streamed(usage: dict) -> object:
    state = StreamState()
    start_usage = {k: v for k, v in usage.items() if k != "output_tokens"}
    events = [{"type": "message_start", "message": {"id": "msg_1", "model": "claude-x", "usage": start_usage}},
              {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
              {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
              {"type": "content_block_stop", "index": 0},
              {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
               "usage": {"output_tokens": usage["output_tokens"]}}]
    chunks = [c for c in map(state.feed, events) if c is not None] + [state.finish()]
    return merge_chunks(chunks, as_chunk=False)


def test_cache_writes_are_reported_as_cache_creation() -> None:
    reply = parse_response(REPLY)
    assert reply.usage == {"input_tokens": 2312, "output_tokens": 5, "total_tokens": 2317, "cached_tokens": 300,
                           "input_token_details": {"cache_creation": 2000}}
    assert reply.usage_metadata["input_token_details"] == {"cache_read": 300, "cache_creation": 2000}
    assert _streamed(USAGE) == reply


def test_no_cache_writes_give_no_details() -> None:
    usage = {"input_tokens": 12, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    reply = parse_response({**REPLY, "usage": usage})
    assert reply.usage == {"input_tokens": 12, "output_tokens": 5, "total_tokens": 17}
    assert _streamed(usage) == reply


def test_cache_writes_alone() -> None:
    usage = {"input_tokens": 12, "output_tokens": 5, "cache_creation_input_tokens": 2000}
    reply = parse_response({**REPLY, "usage": usage})
    assert reply.usage_metadata == {"input_tokens": 2012, "output_tokens": 5, "total_tokens": 2017,
                                    "input_token_details": {"cache_creation": 2000}}
    assert _streamed(usage) == reply
