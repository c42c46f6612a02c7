"""Review 179: Gemini replies beyond the simple case.

#2 the sources of a grounded answer (``groundingMetadata``...) reach ``response_metadata``, invoke and stream alike,
and are not sent back; #3 requested logprobs reach ``response_metadata["logprobs"]``; #4 ``toolUsePromptTokenCount``
counts as input; #5 a Gemini reply with no candidate is a retryable error from Gemini, not "not a Gemini reply".

Driven through the google-genai SDK against a small local server that answers with queued bodies (JSON, or one
server-sent event per body for a stream) and records what came.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from _queued_http import QueuedServer, serving
from toolwire import Agent, HumanMessage, ProviderError, tool
from toolwire.chunks import merge_chunks
from toolwire.models.google import ChatGoogleGenAI
from toolwire.models.lowering import gemini as codec


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    with serving('') as found:
        yield found


def model(server: QueuedServer, **kwargs: Any) -> ChatGoogleGenAI:
    kwargs.setdefault("max_retries", 0)
    return ChatGoogleGenAI("gemini-2.5-flash", api_key="test-key-123456", base_url=server.url, retry_backoff=0.001,
                           **kwargs)


def read(chat: Any, streaming: bool) -> Any:
    return merge_chunks(chat.stream("Weather in Paris?"), as_chunk=False) if streaming else chat.invoke(
        "Weather in Paris?")


GROUNDING = {"webSearchQueries": ["paris weather today"],
             "searchEntryPoint": {"renderedContent": "<div class=\"container\">paris weather</div>"},
             "groundingChunks": [{"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC",
                                          "title": "weather.com"}}],
             "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 21, "text": "Paris is sunny today."},
                                    "groundingChunkIndices": [0]}]}


def reply(text: str, **candidate: Any) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP",
                            "index": 0, **candidate}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": "gemini-2.5-flash"}


@tool
def get_weather(city: str) -> str:
    """Get the weather of a city."""
    return f"Sunny in {city}"


# --------------------------------------------------------------------------- #2: grounding sources

@pytest.mark.parametrize("streaming", [False, True])
def test_grounding_sources_and_search_suggestions_reach_the_message(server, streaming):
    server.queue = [reply("Paris is sunny today.", groundingMetadata=GROUNDING)]
    message = read(model(server).bind_tools([{"google_search": {}}]), streaming)
    grounding = message.response_metadata["grounding_metadata"]
    assert grounding["grounding_chunks"][0]["web"]["uri"].endswith("grounding-api-redirect/AbC")
    assert grounding["search_entry_point"]["rendered_content"] == GROUNDING["searchEntryPoint"]["renderedContent"]
    assert grounding["web_search_queries"] == ["paris weather today"]
    assert grounding["grounding_supports"][0]["grounding_chunk_indices"] == [0]
    assert message.text == "Paris is sunny today."


def test_grounding_is_the_same_from_rest_json_and_the_sdk_form_and_in_a_stream():
    rest = reply("Paris is sunny today.", groundingMetadata=GROUNDING)
    invoked = codec.parse_response(rest).response_metadata
    state = codec.StreamState()
    chunks = [state.feed(rest), state.finish()]
    streamed = merge_chunks([c for c in chunks if c is not None], as_chunk=False).response_metadata
    assert invoked["grounding_metadata"] == streamed["grounding_metadata"]
    assert "renderedContent" not in json.dumps(invoked)


def test_grounding_is_not_sent_back_to_gemini(server):
    server.queue = [reply("Paris is sunny today.", groundingMetadata=GROUNDING), reply("Still sunny.")]
    chat = model(server).bind_tools([{"google_search": {}}])
    first = chat.invoke("Weather in Paris?")
    chat.invoke([HumanMessage("Weather in Paris?"), first, HumanMessage("And now?")])
    sent = json.dumps(server.requests[1])
    assert "grounding" not in sent.lower() and "rendered" not in sent.lower()


# --------------------------------------------------------------------------- #3: logprobs

LOGPROBS = {"topCandidates": [{"candidates": [{"token": "Hi", "logProbability": -0.01}]}],
            "chosenCandidates": [{"token": "Hi", "logProbability": -0.01}]}


@pytest.mark.parametrize("streaming", [False, True])
def test_requested_logprobs_reach_response_metadata(server, streaming):
    server.queue = [reply("Hi", avgLogprobs=-0.01, logprobsResult=LOGPROBS)]
    message = read(model(server, model_kwargs={"response_logprobs": True, "logprobs": 1}), streaming)
    logprobs = message.response_metadata["logprobs"]
    assert logprobs["avg_logprobs"] == -0.01
    assert logprobs["logprobs_result"]["chosen_candidates"] == [{"token": "Hi", "log_probability": -0.01}]
    assert logprobs["logprobs_result"]["top_candidates"][0]["candidates"][0]["token"] == "Hi"


def test_a_streams_logprobs_are_joined_in_order():
    first = {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]}, "index": 0, "avgLogprobs": -1.0,
                             "logprobsResult": {"chosenCandidates": [{"token": "Hi", "logProbability": -1.0}]}}]}
    tokens = [{"token": " the", "logProbability": -3.0}, {"token": "re", "logProbability": -1.0}]
    second = {"candidates": [{"content": {"role": "model", "parts": [{"text": " there"}]}, "index": 0,
                              "finishReason": "STOP", "avgLogprobs": -2.0,
                              "logprobsResult": {"chosenCandidates": tokens}}]}
    state = codec.StreamState()
    chunks = [state.feed(first), state.feed(second), state.finish()]
    logprobs = merge_chunks([c for c in chunks if c is not None], as_chunk=False).response_metadata["logprobs"]
    assert [t["token"] for t in logprobs["logprobs_result"]["chosen_candidates"]] == ["Hi", " the", "re"]
    assert logprobs["avg_logprobs"] == pytest.approx(-5.0 / 3)


def test_no_logprobs_no_sources_no_keys():
    metadata = codec.parse_response(reply("Hi")).response_metadata
    assert not {"logprobs", "grounding_metadata", "url_context_metadata", "citation_metadata"} & set(metadata)


# --------------------------------------------------------------------------- #4: tool-use prompt tokens

@pytest.mark.parametrize("streaming", [False, True])
def test_tool_use_prompt_tokens_count_as_input(server, streaming):
    body = reply("Sunny in Paris.")
    body["usageMetadata"] = {"promptTokenCount": 100, "toolUsePromptTokenCount": 400, "candidatesTokenCount": 20,
                             "thoughtsTokenCount": 30, "totalTokenCount": 550}
    server.queue = [body]
    usage = read(model(server).bind_tools([{"google_search": {}}]), streaming).usage
    assert usage["input_tokens"] == 500 and usage["output_tokens"] == 50
    assert usage["input_tokens"] + usage["output_tokens"] == usage["total_tokens"] == 550


def test_usage_without_tool_use_tokens_is_unchanged():
    body = reply("Hi")
    assert codec.parse_response(body).usage == {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}


# --------------------------------------------------------------------------- #5: no candidate

NO_CANDIDATE = {"usageMetadata": {"promptTokenCount": 57, "totalTokenCount": 57}, "modelVersion": "gemini-2.5-flash",
                "responseId": "9n4yaO3GMbSJ1dkPqJ6x4Q8"}


def test_a_gemini_reply_without_candidates_is_retried(server):
    server.queue = [NO_CANDIDATE, reply("Hello")]
    assert model(server, max_retries=2).invoke("hi").text == "Hello"
    assert len(server.requests) == 2


def test_a_gemini_reply_without_candidates_says_gemini_gave_none(server):
    server.queue = [NO_CANDIDATE]
    with pytest.raises(ProviderError) as caught:
        model(server).invoke("hi")
    assert caught.value.retryable and caught.value.provider == "google"
    assert "no candidate" in str(caught.value) and "proxy" not in str(caught.value)


def test_a_body_that_is_not_geminis_still_names_base_url(server):
    server.queue = [{"status": "ok"}]
    with pytest.raises(ProviderError) as caught:
        model(server).invoke("hi")
    assert "base_url" in str(caught.value) and not caught.value.retryable


def test_an_agent_gets_its_answer_after_an_empty_reply(server):
    server.queue = [NO_CANDIDATE, reply("Sunny.")]
    assert Agent(model(server, max_retries=1), [get_weather]).invoke("Weather in Paris?").output == "Sunny."
