"""Review 146 #1: a whole reply body ``{"error": {...}}`` sent with HTTP 200 (OpenRouter's form for a failure after
the model started) was read as "not an OpenAI reply: check base_url", the server's message lost and the call not
retried. It is now read as the same error in a stream is: the message kept, its ``code`` read as the status,
retryable unless a client error status; Chat Completions and the Responses API, sync and async."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("openai")

from providers.scripted_http import Answer, ScriptedServer
from toolwire.errors import ProviderError
from toolwire.models import ChatOpenAI

ERROR = {"error": {"code": 502, "message": "Upstream provider returned an invalid response",
                   "metadata": {"provider_name": "X"}}}
CHAT_OK = {"id": "c", "object": "chat.completion", "created": 1, "model": "m",
           "choices": [{"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}]}
RESPONSES_OK = {"id": "r", "object": "response", "created_at": 1, "model": "m", "status": "completed",
                "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                            "content": [{"type": "output_text", "text": "hello", "annotations": []}]}]}


def _model(url: str, responses: bool, **kwargs: Any) -> ChatOpenAI:
    kwargs.setdefault("max_retries", 0)
    return ChatOpenAI("some/model", base_url=url + "/v1", api_key="sk-or-test-0123456789", retry_backoff=0.001,
                      use_responses_api=responses, **kwargs)


def _ok(responses: bool) -> dict[str, Any]:
    return RESPONSES_OK if responses else CHAT_OK


@pytest.mark.parametrize("responses", [False, True])
@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_server_error_body_is_retried_then_the_reply_is_read(responses: bool, asynchronous: bool) -> None:
    with ScriptedServer() as server:
        server.push(Answer(body=ERROR), Answer(body=_ok(responses)))
        model = _model(server.url, responses, max_retries=1)
        reply = asyncio.run(model.ainvoke("hi")) if asynchronous else model.invoke("hi")
        assert reply.text == "hello"
        assert len(server.requests) == 2  # (was: 1, a hard failure that said to check base_url)


@pytest.mark.parametrize("responses", [False, True])
def test_the_servers_message_and_code_make_the_error(responses: bool) -> None:
    with ScriptedServer() as server:
        server.push(Answer(body=ERROR))
        with pytest.raises(ProviderError) as caught:
            _model(server.url, responses).invoke("hi")
    error = caught.value
    assert error.args[0] == "Upstream provider returned an invalid response"
    assert error.status == 502 and error.retryable is True
    assert "base_url" not in (error.hint or "")


@pytest.mark.parametrize("responses", [False, True])
def test_a_client_error_code_is_not_retried(responses: bool) -> None:
    body = {"error": {"code": 400, "message": "This model does not support tools"}}
    with ScriptedServer() as server:
        server.push(Answer(body=body), Answer(body=_ok(responses)))
        with pytest.raises(ProviderError) as caught:
            _model(server.url, responses, max_retries=2).invoke("hi")
        assert len(server.requests) == 1
    assert caught.value.status == 400 and caught.value.retryable is False
    assert "does not support tools" in str(caught.value)


@pytest.mark.parametrize("body", [{"error": "CUDA out of memory"}, {"error": {"message": "CUDA out of memory"}}])
def test_an_error_without_a_code_is_retryable_and_keeps_its_text(body: dict[str, Any]) -> None:
    with ScriptedServer() as server:
        server.push(Answer(body=body))
        with pytest.raises(ProviderError) as caught:
            _model(server.url, False).invoke("hi")
    assert caught.value.args[0] == "CUDA out of memory"
    assert caught.value.status is None and caught.value.retryable is True


def test_invoke_and_stream_fail_the_same_way() -> None:
    with ScriptedServer() as server:
        server.push(Answer(body=ERROR), Answer(events=[ERROR]))
        model = _model(server.url, False)
        with pytest.raises(ProviderError) as whole:
            model.invoke("hi")
        with pytest.raises(ProviderError) as streamed:
            list(model.stream("hi"))
    for error in (whole.value, streamed.value):
        assert (error.args[0], error.status, error.retryable) == (
            "Upstream provider returned an invalid response", 502, True)


def test_a_body_with_neither_a_reply_nor_an_error_still_says_to_check_base_url() -> None:
    with ScriptedServer() as server:
        server.push(Answer(body={"status": "ok"}))
        with pytest.raises(ProviderError) as caught:
            _model(server.url, False).invoke("hi")
    assert "base_url" in (caught.value.hint or "") and caught.value.retryable is False
