"""Review 151 #4: a 200 body ``{"error": {...}}`` answering a stream request (``stream``/``astream``, Chat
Completions and the Responses API) was "not an OpenAI reply ... check base_url", the server's message lost and the call
not retried. It is now the same ProviderError as for ``invoke`` (review 146 #1): the server's message, its code as
the status, retried unless a client error status. The message for a body that is no stream says "an
application/json body" (was "a application/json")."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("openai")

from providers.scripted_http import Answer, ScriptedServer
from toolwire.errors import ProviderError
from toolwire.models import ChatOpenAI

KEY = "sk-or-test-0123456789"
ERROR = {"error": {"code": 502, "message": "Upstream provider returned an invalid response"}}
CHAT_OK = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
           "choices": [{"index": 0, "delta": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}]}
RESPONSES_OK = [
    {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0,
     "delta": "hello", "sequence_number": 1},
    {"type": "response.completed", "sequence_number": 2,
     "response": {"id": "r", "object": "response", "created_at": 1, "model": "m", "status": "completed",
                  "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                              "content": [{"type": "output_text", "text": "hello", "annotations": []}]}]}},
]


def _model(url: str, responses: bool, **kwargs: Any) -> ChatOpenAI:
    kwargs.setdefault("max_retries", 0)
    return ChatOpenAI("some/model", base_url=url + "/v1", api_key=KEY, retry_backoff=0.001,
                      use_responses_api=responses, **kwargs)


def _streamed(model: ChatOpenAI, asynchronous: bool) -> str:
    if not asynchronous:
        return "".join(chunk.text for chunk in model.stream("hi"))

    async def read() -> str:
        return "".join([chunk.text async for chunk in model.astream("hi")])

    return asyncio.run(read())


@pytest.mark.parametrize("responses", [False, True])
@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_stream_answered_by_an_error_body_keeps_the_servers_message_and_code(responses: bool,
                                                                               asynchronous: bool) -> None:
    with ScriptedServer() as server:
        server.push(Answer(body=ERROR))
        with pytest.raises(ProviderError) as caught:
            _streamed(_model(server.url, responses), asynchronous)
    error = caught.value
    assert error.args[0] == "Upstream provider returned an invalid response"  # (was: not an OpenAI reply)
    assert error.status == 502 and error.retryable is True
    assert "base_url" not in (error.hint or "")


@pytest.mark.parametrize("responses", [False, True])
@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_stream_answered_by_an_error_body_is_retried(responses: bool, asynchronous: bool) -> None:
    ok = Answer(events=RESPONSES_OK) if responses else Answer(events=[CHAT_OK])
    with ScriptedServer() as server:
        server.push(Answer(body=ERROR), ok)
        assert _streamed(_model(server.url, responses, max_retries=1), asynchronous) == "hello"
        assert len(server.requests) == 2  # (was: 1, a hard failure)


def test_a_client_error_code_in_a_stream_request_is_not_retried() -> None:
    body = {"error": {"code": 400, "message": "This model does not support tools"}}
    with ScriptedServer() as server:
        server.push(Answer(body=body), Answer(events=[CHAT_OK]))
        with pytest.raises(ProviderError) as caught:
            list(_model(server.url, False, max_retries=2).stream("hi"))
        assert len(server.requests) == 1
    assert caught.value.status == 400 and caught.value.retryable is False
    assert "does not support tools" in str(caught.value)


def test_the_api_key_in_the_servers_message_is_masked() -> None:
    body = {"error": {"code": 401, "message": f"Invalid key {KEY}"}}
    with ScriptedServer() as server:
        server.push(Answer(body=body))
        with pytest.raises(ProviderError) as caught:
            list(_model(server.url, False).stream("hi"))
    assert KEY not in str(caught.value) and "Invalid key" in str(caught.value)


def test_a_json_body_with_no_error_still_says_to_check_base_url_with_an() -> None:
    with ScriptedServer() as server:
        server.push(Answer(body={"status": "ok"}))
        with pytest.raises(ProviderError) as caught:
            list(_model(server.url, False, max_retries=2).stream("hi"))
        assert len(server.requests) == 1
    assert "an application/json body where a stream" in str(caught.value)  # (was: "a application/json")
    assert "base_url" in (caught.value.hint or "") and caught.value.retryable is False
