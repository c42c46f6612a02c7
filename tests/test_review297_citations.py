"""Review 297 #1: the citations of a reply that holds only text blocks (document citations) are kept in
``provider_data`` by ``invoke`` and ``stream`` alike, and sent back in the next turn (docs/providers.md: "Anthropic's
citations are blocks kept in provider_data, sent back as it requires")."""

from __future__ import annotations

from toolwire.messages import HumanMessage, merge_chunks
from toolwire.models.lowering.anthropic import StreamState, lower_messages, parse_response

CITATION = {"type": "char_location", "cited_text": "The grass is green.", "document_index": 0,
            "document_title": "Facts", "start_char_index": 0, "end_char_index": 19}
BLOCKS = [{"type": "text", "text": "According to the document, "},
          {"type": "text", "text": "the grass is green", "citations": [CITATION]},
          {"type": "text", "text": "."}]
REPLY = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x", "content": BLOCKS,
         "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5}}


def _events() -> list[dict]:
    def start(i: int) -> dict:
        return {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}

    def delta(i: int, d: dict) -> dict:
        return {"type": "content_block_delta", "index": i, "delta": d}

    return [
        {"type": "message_start", "message": {"id": "msg_1", "model": "claude-x", "usage": {"input_tokens": 10}}},
        start(0), delta(0, {"type": "text_delta", "text": "According to the document, "}),
        {"type": "content_block_stop", "index": 0},
        start(1), delta(1, {"type": "citations_delta", "citation": CITATION}),
        delta(1, {"type": "text_delta", "text": "the grass is green"}), {"type": "content_block_stop", "index": 1},
        start(2), delta(2, {"type": "text_delta", "text": "."}), {"type": "content_block_stop", "index": 2},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
         "usage": {"output_tokens": 5}},
        {"type": "message_stop"},
    ]


def test_citations_of_a_text_only_reply_are_kept_by_invoke() -> None:
    reply = parse_response(REPLY)
    assert reply.text == "According to the document, the grass is green."
    assert reply.provider_data == {"anthropic": {"content": BLOCKS}}


def test_citations_of_a_text_only_reply_are_kept_by_stream_as_by_invoke() -> None:
    state = StreamState()
    chunks = [c for c in map(state.feed, _events()) if c is not None] + [state.finish()]
    streamed = merge_chunks(chunks, as_chunk=False)
    assert streamed == parse_response(REPLY)
    assert streamed.provider_data == {"anthropic": {"content": BLOCKS}}


def test_citations_are_sent_back_in_the_next_turn() -> None:
    reply = parse_response(REPLY)
    _, turns = lower_messages([HumanMessage("What colour is the grass?"), reply, HumanMessage("And the sky?")])
    assert turns[1] == {"role": "assistant", "content": BLOCKS}


def test_a_text_only_reply_without_citations_keeps_no_provider_data() -> None:
    plain = {**REPLY, "content": [{"type": "text", "text": "Hi."}, {"type": "text", "text": "x", "citations": None}]}
    assert parse_response(plain).provider_data is None
    state = StreamState()
    events = [e for e in _events() if e.get("delta", {}).get("type") != "citations_delta"]
    chunks = [c for c in map(state.feed, events) if c is not None] + [state.finish()]
    assert merge_chunks(chunks, as_chunk=False).provider_data is None


def test_an_empty_citations_list_of_a_streamed_start_is_left_out_as_invoke_leaves_none_out() -> None:
    events = _events()
    for event in events:
        if event["type"] == "content_block_start":
            event["content_block"]["citations"] = []
    state = StreamState()
    chunks = [c for c in map(state.feed, events) if c is not None] + [state.finish()]
    whole = parse_response({**REPLY, "content": [{**BLOCKS[0], "citations": None}, BLOCKS[1], BLOCKS[2]]})
    assert merge_chunks(chunks, as_chunk=False) == whole
    assert whole.provider_data == {"anthropic": {"content": BLOCKS}}
