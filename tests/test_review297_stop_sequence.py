"""Review 297 #5: the stop sequence that ended an Anthropic reply (the Messages API's ``stop_sequence``) is kept in
``response_metadata["stop_sequence"]``, and the stop reason is also ``response_metadata["stop_reason"]`` (beside
toolwire's ``finish_reason``), as langchain-anthropic gives them, through ``invoke`` and ``stream`` alike."""

from __future__ import annotations

from toolwire.messages import merge_chunks
from toolwire.models.lowering.anthropic import StreamState, parse_response


def _reply(stop_reason: str, stop_sequence: str | None) -> dict:
    return {"id": "msg_1", "model": "claude-x", "content": [{"type": "text", "text": "<answer>42"}],
            "stop_reason": stop_reason, "stop_sequence": stop_sequence,
            "usage": {"input_tokens": 3, "output_tokens": 4}}


def _streamed(stop_reason: str, stop_sequence: str | None) -> object:
    state = StreamState()
    events = [{"type": "message_start", "message": {"id": "msg_1", "model": "claude-x", "stop_sequence": None,
                                                    "usage": {"input_tokens": 3}}},
              {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
              {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "<answer>42"}},
              {"type": "content_block_stop", "index": 0},
              {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": stop_sequence},
               "usage": {"output_tokens": 4}},
              {"type": "message_stop"}]
    chunks = [c for c in map(state.feed, events) if c is not None] + [state.finish()]
    return merge_chunks(chunks, as_chunk=False)


def test_the_stop_sequence_and_stop_reason_are_kept() -> None:
    reply = parse_response(_reply("stop_sequence", "</final>"))
    assert reply.response_metadata == {"model": "claude-x", "model_name": "claude-x", "finish_reason": "stop_sequence",
                                       "stop_reason": "stop_sequence", "stop_sequence": "</final>"}
    assert _streamed("stop_sequence", "</final>") == reply


def test_a_reply_that_ended_otherwise_has_a_stop_reason_and_no_stop_sequence() -> None:
    reply = parse_response(_reply("end_turn", None))
    assert reply.response_metadata == {"model": "claude-x", "model_name": "claude-x", "finish_reason": "end_turn",
                                       "stop_reason": "end_turn"}
    assert _streamed("end_turn", None) == reply
