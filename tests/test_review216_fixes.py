"""Review 216: Anthropic's code execution ``container`` is kept and sent back while its tool uses wait (#1); a
Responses API message item's ``phase`` is kept and sent back (#2)."""

from __future__ import annotations

import copy
import json
from typing import Any

from toolwire import HumanMessage, ToolMessage
from toolwire.chunks import merge_chunks
from toolwire.messages import AIMessage
from toolwire.models.base import ChatRequest
from toolwire.models.lowering import anthropic, openai
from toolwire.models.lowering._openai_replies import ResponsesStreamState

CONTAINER = {"id": "container_011CWxyz", "expires_at": "2026-12-07T06:00:00Z"}

REPLY: dict[str, Any] = {
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "container": CONTAINER,
    "content": [{"type": "text", "text": "I'll query the database."},
                {"type": "server_tool_use", "id": "srvtoolu_01", "name": "code_execution",
                 "input": {"code": "print(await query_db(sql='select 1'))"}},
                {"type": "tool_use", "id": "toolu_01", "name": "query_db", "input": {"sql": "select 1"},
                 "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_01"}}],
    "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5}}


def _events(reply: dict[str, Any], container_in: str = "delta") -> list[dict[str, Any]]:
    """The Messages API stream of ``reply``; its container in ``message_delta`` (``"delta"``) or ``message_start``."""
    start = {k: v for k, v in reply.items() if k not in ("content", "container")}
    if container_in == "start":
        start["container"] = reply["container"]
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {**start, "content": [],
                                                                          "stop_reason": None}}]
    for n, block in enumerate(reply["content"]):
        if block["type"] == "text":
            events += [{"type": "content_block_start", "index": n, "content_block": {"type": "text", "text": ""}},
                       {"type": "content_block_delta", "index": n,
                        "delta": {"type": "text_delta", "text": block["text"]}}]
        else:
            events += [{"type": "content_block_start", "index": n, "content_block": {**block, "input": {}}},
                       {"type": "content_block_delta", "index": n,
                        "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}}]
        events.append({"type": "content_block_stop", "index": n})
    delta: dict[str, Any] = {"stop_reason": reply["stop_reason"], "stop_sequence": None}
    if container_in == "delta":
        delta["container"] = reply["container"]
    events += [{"type": "message_delta", "delta": delta, "usage": {"output_tokens": 5}},
               {"type": "message_stop"}]
    return events


def _streamed(events: list[dict[str, Any]]) -> AIMessage:
    state = anthropic.StreamState()
    chunks = [c for c in map(state.feed, events) if c is not None]
    return merge_chunks([*chunks, state.finish()], as_chunk=False)  # type: ignore[return-value]


def _second_request(ai: AIMessage, **options: Any) -> dict[str, Any]:
    messages = [HumanMessage("How many rows?"), ai, ToolMessage("[[1]]", tool_call_id="toolu_01")]
    return anthropic.lower_request(ChatRequest(messages=messages, options=options), "claude-sonnet-4-5")


def test_anthropic_reply_keeps_its_container() -> None:
    ai = anthropic.parse_response(copy.deepcopy(REPLY))
    assert ai.response_metadata["container"] == CONTAINER
    assert ai.provider_data["anthropic"]["container"] == CONTAINER


def test_anthropic_container_goes_back_while_its_tool_uses_wait() -> None:
    body = _second_request(anthropic.parse_response(copy.deepcopy(REPLY)))
    assert body["container"] == "container_011CWxyz"
    assert body["messages"][-1]["content"][0]["type"] == "tool_result"


def test_anthropic_streamed_container_goes_back_from_delta_or_start() -> None:
    for where in ("delta", "start"):
        ai = _streamed(_events(copy.deepcopy(REPLY), where))
        assert ai.response_metadata["container"] == CONTAINER, where
        assert ai.provider_data == anthropic.parse_response(copy.deepcopy(REPLY)).provider_data, where
        assert _second_request(ai)["container"] == "container_011CWxyz", where


def test_anthropic_container_of_a_text_only_reply_is_kept_without_other_data() -> None:
    reply = {**copy.deepcopy(REPLY), "content": [{"type": "text", "text": "done"}], "stop_reason": "end_turn"}
    ai = anthropic.parse_response(reply)
    assert ai.provider_data == {"anthropic": {"container": CONTAINER}}
    streamed = _streamed(_events(copy.deepcopy(reply)))
    assert streamed.provider_data == ai.provider_data
    # no calls wait: a later request does not send the container
    body = anthropic.lower_request(ChatRequest(messages=[HumanMessage("hi"), ai, HumanMessage("more")]), "m")
    assert "container" not in body


def test_anthropic_container_option_wins_and_none_is_added_without_a_container() -> None:
    ai = anthropic.parse_response(copy.deepcopy(REPLY))
    assert _second_request(ai, container="container_mine")["container"] == "container_mine"
    plain = anthropic.parse_response({k: v for k, v in copy.deepcopy(REPLY).items() if k != "container"})
    assert "container" not in plain.response_metadata
    assert "container" not in plain.provider_data["anthropic"]
    assert "container" not in _second_request(plain)


def test_anthropic_only_the_last_assistant_turn_counts() -> None:
    first = anthropic.parse_response(copy.deepcopy(REPLY))
    later = anthropic.parse_response({**copy.deepcopy(REPLY), "id": "msg_2", "container": None,
                                      "content": [{"type": "tool_use", "id": "toolu_02", "name": "query_db",
                                                   "input": {"sql": "select 2"}}]})
    messages = [HumanMessage("q"), first, ToolMessage("[[1]]", tool_call_id="toolu_01"), later,
                ToolMessage("[[2]]", tool_call_id="toolu_02")]
    assert "container" not in anthropic.lower_request(ChatRequest(messages=messages), "m")


PREAMBLE = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "phase": "commentary",
            "content": [{"type": "output_text", "text": "Checking the weather first.", "annotations": []}]}
CALL = {"type": "function_call", "id": "fc_1", "call_id": "call_A", "name": "get_weather",
        "arguments": "{\"city\":\"Paris\"}", "status": "completed"}


def _response(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "model": "gpt-5.4", "status": "completed",
            "output": copy.deepcopy(output), "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}


def _assistant_items(ai: AIMessage) -> list[dict[str, Any]]:
    items = openai.lower_responses_messages([HumanMessage("Weather in Paris?"), ai,
                                             ToolMessage("Sunny", tool_call_id="call_A")])
    return [i for i in items if i.get("role") == "assistant" or i.get("type") == "message"]


def _streamed_responses(reply: dict[str, Any]) -> AIMessage:
    state = ResponsesStreamState()
    events = [{"type": "response.created", "response": {**reply, "output": [], "status": "in_progress"}},
              {"type": "response.completed", "response": reply}]
    chunks = [c for c in map(state.feed, events) if c is not None]
    return merge_chunks([*chunks, state.finish()], as_chunk=False)  # type: ignore[return-value]


def test_responses_phase_goes_back_with_reasoning() -> None:
    reply = _response([{"type": "reasoning", "id": "rs_1", "summary": []}, PREAMBLE, CALL])
    for ai in (openai.parse_responses_response(copy.deepcopy(reply)), _streamed_responses(copy.deepcopy(reply))):
        (item,) = _assistant_items(ai)
        assert item["phase"] == "commentary"
        assert item["id"] == "msg_1"


def test_responses_phase_goes_back_without_reasoning() -> None:
    reply = _response([PREAMBLE, CALL])
    for ai in (openai.parse_responses_response(copy.deepcopy(reply)), _streamed_responses(copy.deepcopy(reply))):
        assert _assistant_items(ai) == [{"role": "assistant", "content": "Checking the weather first.",
                                         "phase": "commentary"}]


def test_responses_without_phase_sends_what_it_sent_before() -> None:
    plain = {k: v for k, v in PREAMBLE.items() if k != "phase"}
    ai = openai.parse_responses_response(_response([plain, CALL]))
    assert ai.provider_data is None
    assert _assistant_items(ai) == [{"role": "assistant", "content": "Checking the weather first."}]


def test_responses_phases_of_several_messages_and_an_edited_text() -> None:
    final = {**PREAMBLE, "id": "msg_2", "phase": "final_answer",
             "content": [{"type": "output_text", "text": " Done.", "annotations": []}]}
    ai = openai.parse_responses_response(_response([PREAMBLE, final]))
    assert _assistant_items(ai) == [
        {"role": "assistant", "content": "Checking the weather first.", "phase": "commentary"},
        {"role": "assistant", "content": " Done.", "phase": "final_answer"}]
    edited = ai.model_copy(update={"content": "Edited."})
    assert _assistant_items(edited) == [{"role": "assistant", "content": "Edited."}]
    one = openai.parse_responses_response(_response([PREAMBLE, CALL]))
    assert _assistant_items(one.model_copy(update={"content": "Edited."})) == [
        {"role": "assistant", "content": "Edited.", "phase": "commentary"}]
