"""Review 179: OpenAI replies beyond the simple case (Responses API and Chat Completions).

#2 ``url_citation``
annotations reach ``response_metadata["annotations"]`` (Responses with or without reasoning, Chat Completions'
``message.annotations``); #3 requested logprobs reach ``response_metadata["logprobs"]``, invoke and stream alike.

Driven through the openai SDK against a small local server that answers each request with what a function of its
body returns (a dict as JSON, or a list of events as server-sent events) and records the bodies; #1 (``store=False``)
is in ``test_review179_store.py``, which uses this file's server and replies.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from _queued_http import QueuedServer, serving
from toolwire import tool
from toolwire.chunks import merge_chunks
from toolwire.messages import HumanMessage
from toolwire.models import ChatOpenAI
from toolwire.models.lowering import openai as codec


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    with serving('/v1', done=True) as found:
        yield found


def model(server: QueuedServer, name: str = "o4-mini", **kwargs: Any) -> ChatOpenAI:
    kwargs.setdefault("max_retries", 0)
    return ChatOpenAI(name, api_key="sk-test", base_url=server.url, compatible=False, **kwargs)


@tool
def get_weather(city: str) -> str:
    """Get the weather of a city."""
    return f"Sunny in {city}"


# --------------------------------------------------------------------------- Responses API replies

def response(output: list[dict[str, Any]], model_name: str = "o4-mini") -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "created_at": 1, "model": model_name, "status": "completed",
            "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                      "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}}


def events(reply: dict[str, Any]) -> list[dict[str, Any]]:
    """The Responses stream of ``reply``: created, each item added / its text or arguments / done, completed."""
    out: list[dict[str, Any]] = [{"type": "response.created", "sequence_number": 0,
                                  "response": {**reply, "status": "in_progress", "output": [], "usage": None}}]
    for i, item in enumerate(reply["output"]):
        if item["type"] == "function_call":
            out.append({"type": "response.output_item.added", "output_index": i, "sequence_number": 1,
                        "item": {**item, "arguments": "", "status": "in_progress"}})
            out.append({"type": "response.function_call_arguments.delta", "output_index": i, "item_id": item["id"],
                        "sequence_number": 2, "delta": item["arguments"]})
        elif item["type"] == "message":
            out.append({"type": "response.output_item.added", "output_index": i, "sequence_number": 1,
                        "item": {**item, "content": [], "status": "in_progress"}})
            out.extend({"type": "response.output_text.delta", "output_index": i, "content_index": j,
                        "item_id": item["id"], "sequence_number": 2, "delta": part["text"], "logprobs": []}
                       for j, part in enumerate(item["content"]))
        out.append({"type": "response.output_item.done", "output_index": i, "sequence_number": 4, "item": item})
    out.append({"type": "response.completed", "sequence_number": 9, "response": reply})
    return out


def reasoning(n: int, encrypted: str | None) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "reasoning", "id": f"rs_{n}", "summary": []}
    if encrypted is not None:
        item["encrypted_content"] = encrypted
    return item


CALL = {"type": "function_call", "id": "fc_1", "call_id": "call_A", "name": "get_weather",
        "arguments": "{\"city\":\"Paris\"}", "status": "completed"}


def message_item(text: str, **part: Any) -> dict[str, Any]:
    return {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": [], **part}]}


# --------------------------------------------------------------------------- #2, #3: Responses annotations, logprobs

CITATION = {"type": "url_citation", "start_index": 0, "end_index": 21, "url": "https://weather.com/paris",
            "title": "Paris weather"}
SEARCH = {"type": "web_search_call", "id": "ws_1", "status": "completed",
          "action": {"type": "search", "query": "paris weather"}}
TOKENS = [{"token": "Hi", "logprob": -0.01, "bytes": [72, 105], "top_logprobs": []}]


@pytest.mark.parametrize("streaming", [False, True])
@pytest.mark.parametrize("with_reasoning", [False, True])
def test_responses_url_citations_reach_response_metadata(server, streaming, with_reasoning):
    output = [reasoning(1, None)] if with_reasoning else []
    reply = response([*output, SEARCH, message_item("Paris is sunny today.", annotations=[CITATION])], "gpt-4.1")
    server.queue = [events(reply) if streaming else reply]
    chat = model(server, "gpt-4.1", use_responses_api=True).bind_tools([{"type": "web_search"}])
    message = merge_chunks(chat.stream("Weather?"), as_chunk=False) if streaming else chat.invoke("Weather?")
    assert message.response_metadata["annotations"] == [CITATION]
    assert message.text == "Paris is sunny today."


@pytest.mark.parametrize("streaming", [False, True])
def test_responses_logprobs_reach_response_metadata(server, streaming):
    reply = response([message_item("Hi", logprobs=TOKENS)], "gpt-4.1")
    server.queue = [events(reply) if streaming else reply]
    chat = model(server, "gpt-4.1", use_responses_api=True,
                 model_kwargs={"include": ["message.output_text.logprobs"], "top_logprobs": 1})
    message = merge_chunks(chat.stream("hi"), as_chunk=False) if streaming else chat.invoke("hi")
    assert message.response_metadata["logprobs"] == TOKENS


def test_a_plain_responses_reply_has_no_annotations_or_logprobs():
    metadata = codec.parse_responses_response(response([message_item("Hi")])).response_metadata
    assert "annotations" not in metadata and "logprobs" not in metadata


# --------------------------------------------------------------------------- #2, #3: Chat Completions

def completion(message: dict[str, Any], **choice: Any) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop", **choice}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}}


def chunk(delta: dict[str, Any], finish: str | None = None, **choice: Any) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, **choice}]}


CHAT_TOKENS = [{"token": "Hi", "logprob": -0.01, "bytes": [72, 105], "top_logprobs": []},
               {"token": "!", "logprob": -0.5, "bytes": [33], "top_logprobs": []}]


@pytest.mark.parametrize("streaming", [False, True])
def test_chat_logprobs_reach_response_metadata(server, streaming):
    if streaming:
        server.queue = [[chunk({"role": "assistant", "content": "Hi"}, logprobs={"content": CHAT_TOKENS[:1]}),
                         chunk({"content": "!"}, logprobs={"content": CHAT_TOKENS[1:], "refusal": None}),
                         chunk({}, "stop")]]
    else:
        server.queue = [completion({"content": "Hi!"}, logprobs={"content": CHAT_TOKENS, "refusal": None})]
    chat = model(server, "gpt-4o", model_kwargs={"logprobs": True, "top_logprobs": 1})
    message = merge_chunks(chat.stream("hi"), as_chunk=False) if streaming else chat.invoke("hi")
    assert message.response_metadata["logprobs"] == {"content": CHAT_TOKENS}
    assert server.requests[0]["logprobs"] is True


CHAT_CITATION = {"type": "url_citation", "url_citation": {"start_index": 0, "end_index": 21,
                                                          "url": "https://weather.com/paris", "title": "Paris weather"}}


@pytest.mark.parametrize("streaming", [False, True])
def test_chat_search_annotations_reach_response_metadata(server, streaming):
    if streaming:
        server.queue = [[chunk({"role": "assistant", "content": "Paris is sunny today."}),
                         chunk({"annotations": [CHAT_CITATION]}), chunk({}, "stop")]]
    else:
        server.queue = [completion({"content": "Paris is sunny today.", "annotations": [CHAT_CITATION]})]
    chat = model(server, "gpt-4o-search-preview")
    message = merge_chunks(chat.stream("Weather?"), as_chunk=False) if streaming else chat.invoke("Weather?")
    assert message.response_metadata["annotations"] == [CHAT_CITATION]


def test_chat_annotations_are_not_sent_back(server):
    server.queue = [completion({"content": "Paris is sunny today.", "annotations": [CHAT_CITATION]}),
                    completion({"content": "Still sunny."})]
    chat = model(server, "gpt-4o-search-preview")
    first = chat.invoke("Weather?")
    chat.invoke([HumanMessage("Weather?"), first, HumanMessage("And now?")])
    assert "url_citation" not in json.dumps(server.requests[1])
