"""Review 84 #3: ``invoke()`` of a ``streaming=True`` model was not retried when the stream broke after its first
content, though ``invoke`` hands nothing to the caller before the reply is complete; it is now retried as a reply
without a stream is, under the same ``max_retries``, sync and async."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire.errors import ProviderError

from .conftest import build_model
from .scripted_http import Answer, ScriptedServer


def _chat(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-5-mini",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _anthropic(*pieces: Any) -> list[Any]:
    start = {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude-x",
             "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
    events: list[Any] = [("message_start", {"type": "message_start", "message": start}),
                         ("content_block_start", {"type": "content_block_start", "index": 0,
                                                  "content_block": {"type": "text", "text": ""}})]
    events += [("content_block_delta", {"type": "content_block_delta", "index": 0,
                                        "delta": {"type": "text_delta", "text": p}}) for p in pieces]
    return events


def _gemini(text: str, finish: str | None = None) -> dict[str, Any]:
    candidate = {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0,
                 **({"finishReason": finish} if finish else {})}
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash"}


CUT = {"openai-chat": [_chat({"content": "Hello"})],  # (the connection closes: no finish_reason came)
       "anthropic": _anthropic("Hello"),
       "gemini": [_gemini("Hello")]}
WHOLE = {"openai-chat": [_chat({"content": "Hello"}), _chat({"content": " world"}), _chat({}, "stop")],
         "anthropic": [*_anthropic("Hello", " world"),
                       ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                       ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                                          "usage": {"output_tokens": 2}}),
                       ("message_stop", {"type": "message_stop"})],
         "gemini": [_gemini("Hello"), _gemini(" world", "STOP")]}
OPTIONS = {"openai-chat": {"compatible": False}, "anthropic": {}, "gemini": {}}


@pytest.mark.parametrize("provider", ["openai-chat", "anthropic", "gemini"])
def test_a_stream_cut_after_content_is_retried_by_invoke(provider: str) -> None:
    with ScriptedServer() as server:
        server.push(*(Answer(events=e) for e in (CUT[provider], WHOLE[provider], CUT[provider], WHOLE[provider])))
        model = build_model(provider, server.url, streaming=True, max_retries=1, **OPTIONS[provider])
        assert model.invoke("hi").content == "Hello world"  # (was: ProviderError after 1 attempt)
        assert asyncio.run(model.ainvoke("hi")).content == "Hello world"
        assert len(server.requests) == 4


def test_max_retries_bounds_invoke_through_a_stream_as_without_one() -> None:
    with ScriptedServer() as server:
        server.push(*(Answer(events=CUT["anthropic"]) for _ in range(3)))
        model = build_model("anthropic", server.url, streaming=True, max_retries=2)
        with pytest.raises(ProviderError) as caught:
            model.invoke("hi")
        assert len(server.requests) == 3  # (was: 1)
    assert caught.value.retryable
