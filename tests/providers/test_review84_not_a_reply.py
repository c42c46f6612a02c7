"""Review 84 #1: a 200 body (or stream) of JSON that is not the provider's reply at all (``{}``, a gateway's
``{"status": "ok"}``, another API's reply, Chat Completions ``"choices": []``) was read as an empty AIMessage with no
error; it is now the one ProviderError that says to check ``base_url``, for invoke and stream, sync and async. A real
reply with empty content and a finish reason is still read as it is."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire.errors import ProviderError
from toolwire.messages import merge_chunks

from .conftest import PROVIDERS, build_model
from .scripted_http import Answer, ScriptedServer

GATEWAY = {"status": "ok", "message": "Welcome to the API gateway"}
OPENAI_REPLY = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-5-mini",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "hello"},
                             "finish_reason": "stop"}]}
ANTHROPIC_REPLY = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
                   "content": [{"type": "text", "text": "hello"}], "stop_reason": "end_turn",
                   "usage": {"input_tokens": 1, "output_tokens": 1}}
OTHER_API = {"openai-chat": ANTHROPIC_REPLY, "openai-responses": OPENAI_REPLY, "anthropic": OPENAI_REPLY,
             "gemini": ANTHROPIC_REPLY}


def _assert_not_a_reply(error: ProviderError) -> None:
    assert "not" in str(error) and "reply" in str(error)
    assert "base_url" in (error.hint or "")
    assert error.retryable is False


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("body", ["empty", "gateway", "other api"])
def test_json_of_another_shape_is_a_provider_error(provider: str, body: str) -> None:
    answer = {"empty": {}, "gateway": GATEWAY, "other api": OTHER_API[provider]}[body]
    with ScriptedServer() as server:
        server.push(Answer(body=answer))
        model = build_model(provider, server.url)
        with pytest.raises(ProviderError) as caught:
            model.invoke("hi")
    _assert_not_a_reply(caught.value)  # (was: AIMessage(content='') with no error)
    assert "sk-wire-test" not in str(caught.value)


@pytest.mark.parametrize("compatible", [False, True])
def test_chat_completions_without_choices_is_a_provider_error_async_too(compatible: bool) -> None:
    empty_choices = {**OPENAI_REPLY, "choices": []}
    with ScriptedServer() as server:
        server.push(Answer(body=empty_choices), Answer(body=GATEWAY))
        model = build_model("openai-chat", server.url, compatible=compatible)
        with pytest.raises(ProviderError) as first:
            model.invoke("hi")
        with pytest.raises(ProviderError) as second:
            asyncio.run(model.ainvoke("hi"))
    _assert_not_a_reply(first.value)
    assert "'choices'" in str(first.value)
    _assert_not_a_reply(second.value)


ANTHROPIC_EVENTS: list[Any] = [
    ("message_start", {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                                                           "content": [], "model": "claude-x", "stop_reason": None,
                                                           "usage": {"input_tokens": 1, "output_tokens": 1}}}),
    ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text",
                                                                                         "text": ""}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 0,
                             "delta": {"type": "text_delta", "text": "Hello"}}),
    ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 1}}),
    ("message_stop", {"type": "message_stop"}),
]


@pytest.mark.parametrize("events", ["gateway", "anthropic"])
def test_a_compatible_servers_stream_of_other_events_is_a_provider_error(events: str) -> None:
    sent = [GATEWAY, GATEWAY] if events == "gateway" else ANTHROPIC_EVENTS
    with ScriptedServer() as server:
        server.push(Answer(events=sent), Answer(events=sent), Answer(events=sent))
        model = build_model("openai-chat", server.url)
        with pytest.raises(ProviderError) as streamed:
            merge_chunks(model.stream("hi"))

        async def astream() -> None:
            async for _ in model.astream("hi"):
                pass

        with pytest.raises(ProviderError) as astreamed:
            asyncio.run(astream())
        with pytest.raises(ProviderError) as invoked:
            build_model("openai-chat", server.url, streaming=True).invoke("hi")
    for caught in (streamed, astreamed, invoked):  # (was: content='' with a finish_reason warning only)
        _assert_not_a_reply(caught.value)


def test_only_json_of_another_shape_is_refused_not_an_empty_reply() -> None:
    empty_chat = {**OPENAI_REPLY, "choices": [{"index": 0, "message": {"role": "assistant", "content": ""},
                                               "finish_reason": "stop"}]}
    empty_anthropic = {**ANTHROPIC_REPLY, "content": []}
    blocked_gemini = {"promptFeedback": {"blockReason": "SAFETY"}}
    with ScriptedServer() as server:
        server.push(Answer(body={**OPENAI_REPLY, "choices": []}), Answer(body=empty_chat),
                    Answer(body=empty_anthropic), Answer(body=blocked_gemini),
                    Answer(events=[{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                                    "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]))
        with pytest.raises(ProviderError):  # (was: the same empty AIMessage as the real empty reply below)
            build_model("openai-chat", server.url, compatible=False).invoke("hi")
        chat = build_model("openai-chat", server.url, compatible=False).invoke("hi")
        anthropic = build_model("anthropic", server.url).invoke("hi")
        gemini = build_model("gemini", server.url).invoke("hi")
        streamed = merge_chunks(build_model("openai-chat", server.url).stream("hi"), as_chunk=False)
    assert (chat.content, chat.response_metadata["finish_reason"]) == ("", "stop")
    assert (anthropic.content, anthropic.response_metadata["finish_reason"]) == ("", "end_turn")
    assert gemini.content == "" and gemini.response_metadata["block_reason"] == "SAFETY"
    assert (streamed.content, streamed.response_metadata["finish_reason"]) == ("", "stop")
