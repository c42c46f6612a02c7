"""Review 325: a streamed Anthropic reply's server-side ``compaction`` block.

The block's summary (``content``) and ``encrypted_content`` arrive in a ``compaction_delta`` event after a
``content_block_start`` whose ``content`` is null (as the Anthropic SDK's own stream accumulator reads them). The
stream reader ignored that event, so a streamed reply's block went back as ``{"type": "compaction"}``, which the API
treats as a failed compaction (a no-op): the summary was lost. Streamed, the block now equals the one ``invoke``
gives for the same reply, and goes back the same.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx2 as httpx

from toolwire import HumanMessage, merge_chunks
from toolwire.models.lowering._anthropic_replies import StreamState, parse_response

SUMMARY = "Summary: the user asked about Paris weather; it was 21C."
COMPACTION = {"type": "compaction", "content": SUMMARY, "encrypted_content": "opaque-1"}
REPLY: dict[str, Any] = {
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-4-6",
    "content": [COMPACTION, {"type": "text", "text": "It is 21C."}],
    "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}


def _events(*, lose_start: bool = False) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": dict(REPLY, content=[], stop_reason=None)},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "compaction", "content": None}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "compaction_delta", "content": SUMMARY, "encrypted_content": "opaque-1"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "It is 21C."}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
         "usage": {"output_tokens": 1}},
        {"type": "message_stop"}]
    return [e for e in events if not (lose_start and e["type"] == "content_block_start" and e["index"] == 0)]


def _streamed(events: list[dict[str, Any]]) -> Any:
    state = StreamState()
    chunks = [c for c in (state.feed(e) for e in events) if c is not None]
    return merge_chunks([*chunks, state.finish()])


def test_a_streamed_compaction_block_keeps_its_summary() -> None:
    invoked = parse_response(REPLY)
    streamed = _streamed(_events())
    assert invoked.provider_data["anthropic"]["content"][0] == COMPACTION
    assert streamed.provider_data["anthropic"]["content"] == invoked.provider_data["anthropic"]["content"]


def test_a_compaction_delta_whose_start_was_lost_still_keeps_the_block() -> None:
    streamed = _streamed(_events(lose_start=True))
    assert streamed.provider_data["anthropic"]["content"][0] == COMPACTION


def test_the_streamed_reply_is_sent_back_as_the_invoked_one() -> None:
    from toolwire.models.anthropic import ChatAnthropic

    sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in _events()).encode()
    bodies: list[dict[str, Any]] = []

    def server(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        bodies.append(body)
        if body.get("stream"):
            return httpx.Response(200, content=sse, headers={"content-type": "text/event-stream"})
        return httpx.Response(200, json=REPLY)

    model = ChatAnthropic("claude-opus-4-6", api_key="k", max_retries=0)
    model._clients.sync = anthropic.Anthropic(api_key="k", max_retries=0,
                                              http_client=httpx.Client(transport=httpx.MockTransport(server)))
    question = [HumanMessage("weather?")]
    invoked = model.invoke(question)
    model.invoke([*question, invoked, HumanMessage("and tomorrow?")])
    sent_invoked = bodies[-1]["messages"]
    streamed = merge_chunks(list(model.stream(question)))
    model.invoke([*question, streamed, HumanMessage("and tomorrow?")])
    sent_streamed = bodies[-1]["messages"]
    assert sent_invoked[1]["content"][0] == COMPACTION
    assert sent_streamed == sent_invoked
