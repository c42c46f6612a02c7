"""Review 290 #1: OpenAI's ``error.param`` names the field a 400 is about; the error says it when its message does
not, and the hint claims that the message says which field only when it does (Chat Completions and Responses bodies,
the Responses API's ``error`` events)."""

from __future__ import annotations

from typing import Any

import pytest

from _queued_http import serving
from toolwire.errors import ProviderError
from toolwire.models._status_hints import status_hint
from toolwire.models.lowering._openai_replies import ResponsesStreamState

KEY = "sk-test-0123456789"
VALUE = "Invalid value: 'xhigh'. Supported values are: 'low', 'medium', and 'high'."
BODY = {"error": {"message": VALUE, "type": "invalid_request_error", "param": "reasoning.effort",
                  "code": "invalid_value"}}


def _failure(run: Any) -> ProviderError:
    with pytest.raises(ProviderError) as failed:
        run()
    return failed.value


@pytest.mark.parametrize("responses", [False, True])
def test_a_400_names_the_field_its_param_gives(responses: bool) -> None:
    from toolwire.models import ChatOpenAI

    with serving("/v1") as server:
        server.queue.append((400, BODY))
        model = ChatOpenAI("gpt-5", api_key=KEY, base_url=server.url, max_retries=0, compatible=False,
                           use_responses_api=responses)
        error = _failure(lambda: model.invoke("hi"))
    assert error.status == 400 and not error.retryable
    assert "(field: reasoning.effort)" in str(error) and VALUE.rstrip(".") in str(error)
    assert error.hint and "says which field" in error.hint


def test_a_param_the_message_names_already_is_not_repeated() -> None:
    from toolwire.models import ChatOpenAI

    said = "Invalid 'messages[1].content': string too long."
    body = {"error": {"message": said, "type": "invalid_request_error", "param": "messages[1].content",
                      "code": "string_above_max_length"}}
    with serving("/v1") as server:
        server.queue.append((400, body))
        model = ChatOpenAI("gpt-4o", api_key=KEY, base_url=server.url, max_retries=0, compatible=False)
        error = _failure(lambda: model.invoke("hi"))
    assert error.args[0] == said and "(field:" not in str(error)
    assert "says which field" in (error.hint or "")


def test_without_a_param_the_hint_does_not_claim_the_message_names_a_field() -> None:
    from toolwire.models import ChatOpenAI

    body = {"error": {**BODY["error"], "param": None}}
    with serving("/v1") as server:
        server.queue.append((400, body))
        model = ChatOpenAI("gpt-5", api_key=KEY, base_url=server.url, max_retries=0, compatible=False)
        error = _failure(lambda: model.invoke("hi"))
    assert "(field:" not in str(error)
    assert error.hint and "says which field" not in error.hint and "rejected the request" in error.hint


@pytest.mark.parametrize("message", [
    "Unknown parameter: 'foo'.", "Missing required parameter: 'messages[0].role'.",
    "Invalid 'tools[0].function.name': string does not match pattern.", "messages.0.content: Field required",
    "body.parallel_tool_calls: Extra inputs are not permitted", "Invalid value at 'contents' (type.googleapis.com)",
    "Invalid type for 'temperature': expected a decimal, but got a string instead.", "messages: too long",
    "Tool call id was {bad}: unknown tool.",
])
def test_messages_that_name_a_field_keep_the_hint(message: str) -> None:
    assert "says which field" in (status_hint(400, "", message) or "")


@pytest.mark.parametrize("message", [VALUE, "Error: the request could not be read.", "Bad request"])
def test_messages_that_name_no_field_get_a_hint_that_does_not_claim_it(message: str) -> None:
    assert "says which field" not in (status_hint(400, "", message) or "")


def test_a_responses_error_event_names_its_param() -> None:
    state = ResponsesStreamState()
    event = {"type": "error", "code": "invalid_value", "message": VALUE, "param": "reasoning.effort",
             "sequence_number": 1}
    with pytest.raises(ProviderError) as failed:
        state.feed(event)
    assert "(field: reasoning.effort)" in str(failed.value)


def test_an_error_event_in_a_stream_names_its_param() -> None:
    """The Responses stream's ``error`` event as the SDK raises it (an ``APIError`` whose body is the error)."""
    from toolwire.models import ChatOpenAI

    events = [{"type": "response.created", "sequence_number": 0,
               "response": {"id": "resp_1", "object": "response", "status": "in_progress", "model": "gpt-5",
                            "output": []}},
              {"type": "error", "code": "invalid_value", "message": VALUE, "param": "reasoning.effort",
               "sequence_number": 1}]
    with serving("/v1") as server:
        server.queue.append(events)
        model = ChatOpenAI("gpt-5", api_key=KEY, base_url=server.url, max_retries=0, compatible=False,
                           use_responses_api=True)
        error = _failure(lambda: list(model.stream("hi")))
    assert "(field: reasoning.effort)" in str(error)


def test_an_anthropic_error_is_unchanged() -> None:
    from toolwire.models._retry import body_message

    body = {"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: Field required"}}
    assert body_message(body) == "max_tokens: Field required"
