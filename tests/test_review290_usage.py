"""Review 290 #3: OpenAI's reasoning token count (Responses ``output_tokens_details.reasoning_tokens``, Chat
Completions ``completion_tokens_details.reasoning_tokens``) is ``usage["output_token_details"]["reasoning"]``, as
langchain-openai maps it, in invoke and stream alike."""

from __future__ import annotations

from typing import Any

from toolwire.chunks import merge_chunks
from toolwire.models.lowering import openai
from toolwire.models.lowering._openai_replies import ResponsesStreamState

RESPONSES_USAGE = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 4}, "output_tokens": 20,
                   "output_tokens_details": {"reasoning_tokens": 12}, "total_tokens": 30}


def _response(usage: dict[str, Any]) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5-mini",
            "output": [{"type": "reasoning", "id": "rs_1", "summary": []},
                       {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                        "content": [{"type": "output_text", "text": "Hi.", "annotations": []}]}],
            "usage": usage}


def test_responses_reasoning_tokens_reach_output_token_details() -> None:
    reply = openai.parse_responses_response(_response(RESPONSES_USAGE))
    assert reply.usage == {"input_tokens": 10, "output_tokens": 20, "total_tokens": 30, "cached_tokens": 4,
                           "output_token_details": {"reasoning": 12}}
    assert reply.usage_metadata["output_token_details"] == {"reasoning": 12}
    assert reply.usage_metadata["input_token_details"] == {"cache_read": 4}


def test_responses_stream_has_the_same_reasoning_tokens() -> None:
    state = ResponsesStreamState()
    whole = _response(RESPONSES_USAGE)
    chunks = [state.feed({"type": "response.created", "response": {**whole, "output": [], "usage": None}}),
              state.feed({"type": "response.completed", "response": whole})]
    merged = merge_chunks([*(c for c in chunks if c is not None), state.finish()], as_chunk=False)
    assert merged.usage == openai.parse_responses_response(whole).usage


def test_no_reasoning_tokens_adds_no_details() -> None:
    plain = {**RESPONSES_USAGE, "output_tokens_details": {"reasoning_tokens": 0}}
    assert "output_token_details" not in openai.parse_responses_response(_response(plain)).usage


def _chat(usage: dict[str, Any]) -> dict[str, Any]:
    return {"id": "c1", "object": "chat.completion", "model": "o4-mini",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hi."}}],
            "usage": usage}


CHAT_USAGE = {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30,
              "prompt_tokens_details": {"cached_tokens": 4}, "completion_tokens_details": {"reasoning_tokens": 12}}


def test_chat_reasoning_tokens_reach_output_token_details() -> None:
    reply = openai.parse_response(_chat(CHAT_USAGE))
    assert reply.usage == {"input_tokens": 10, "output_tokens": 20, "total_tokens": 30, "cached_tokens": 4,
                           "output_token_details": {"reasoning": 12}}


def test_chat_stream_has_the_same_reasoning_tokens() -> None:
    state = openai.StreamState()
    events = [{"id": "c1", "object": "chat.completion.chunk", "model": "o4-mini",
               "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hi."}, "finish_reason": None}]},
              {"id": "c1", "object": "chat.completion.chunk", "model": "o4-mini",
               "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
              {"id": "c1", "object": "chat.completion.chunk", "model": "o4-mini", "choices": [], "usage": CHAT_USAGE}]
    chunks = [c for c in map(state.feed, events) if c is not None]
    merged = merge_chunks([*chunks, state.finish()], as_chunk=False)
    assert merged.usage == openai.parse_response(_chat(CHAT_USAGE)).usage
