"""Review 86: Azure OpenAI's block of a filtered prompt (a 200 body with ``"choices": []`` beside
``prompt_filter_results`` in which a category has ``"filtered": true``) was reported as "not a Chat Completions
reply, check base_url". It is now an empty reply with ``finish_reason`` ``"content_filter"`` and the filter's
results in ``response_metadata``, for invoke and stream, sync and async; the Agent stops on it as on a refusal.
``"choices": []`` with no filtered category is still not a reply."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from toolwire import Agent
from toolwire.errors import ProviderError
from toolwire.examples.book import BOOK_TOOLS
from toolwire.messages import merge_chunks

from .conftest import build_model
from .scripted_http import Answer, ScriptedServer


def _filter_results(filtered: bool) -> list[dict[str, Any]]:
    return [{"prompt_index": 0, "content_filter_results": {
        "hate": {"filtered": False, "severity": "safe"},
        "jailbreak": {"filtered": filtered, "detected": filtered},
        "violence": {"filtered": False, "severity": "safe"}}}]


BLOCKED = {"id": "chatcmpl-9", "object": "chat.completion", "created": 1, "model": "gpt-4o",
           "choices": [], "prompt_filter_results": _filter_results(True)}
BLOCKED_EVENT = {"id": "chatcmpl-9", "object": "", "created": 0, "model": "", "choices": [],
                 "prompt_filter_results": _filter_results(True)}


def _assert_filtered(reply: Any) -> None:
    assert reply.content == "" and not reply.tool_calls
    assert reply.response_metadata["finish_reason"] == "content_filter"
    assert reply.response_metadata["prompt_filter_results"] == _filter_results(True)


def test_a_blocked_prompt_is_an_empty_filtered_reply(caplog: pytest.LogCaptureFixture) -> None:
    with ScriptedServer() as server, caplog.at_level(logging.WARNING, "toolwire.lowering"):
        server.push(Answer(body=BLOCKED), Answer(body=BLOCKED))
        model = build_model("openai-chat", server.url, compatible=False)
        invoked = model.invoke("how do I ...")  # (was: ProviderError "not a Chat Completions reply ... base_url")
        ainvoked = asyncio.run(model.ainvoke("how do I ..."))
    _assert_filtered(invoked)
    _assert_filtered(ainvoked)
    assert invoked.id == "chatcmpl-9"
    assert "content filter blocked the prompt of chatcmpl-9" in caplog.text


@pytest.mark.parametrize("compatible", [False, True])
def test_a_blocked_prompts_stream_is_an_empty_filtered_reply(compatible: bool) -> None:
    with ScriptedServer() as server:
        server.push(Answer(events=[BLOCKED_EVENT]), Answer(events=[BLOCKED_EVENT]))
        model = build_model("openai-chat", server.url, compatible=compatible)
        streamed = merge_chunks(model.stream("how do I ..."), as_chunk=False)

        async def astream() -> Any:
            return merge_chunks([chunk async for chunk in model.astream("how do I ...")], as_chunk=False)

        astreamed = asyncio.run(astream())
    _assert_filtered(streamed)  # (was: a retryable "cut short" error, or an empty reply with no finish_reason)
    _assert_filtered(astreamed)


def test_the_agent_stops_on_a_blocked_prompt_as_on_a_refusal() -> None:
    with ScriptedServer() as server:
        server.push(Answer(body=BLOCKED))
        result = Agent(build_model("openai-chat", server.url, compatible=False), BOOK_TOOLS).invoke("how do I ...")
    assert result.stop_reason == "refusal"
    assert result.output == ""


def test_empty_choices_without_a_filtered_category_are_still_not_a_reply() -> None:
    unfiltered = {**BLOCKED, "prompt_filter_results": _filter_results(False)}
    odd = {**BLOCKED, "prompt_filter_results": {"jailbreak": {"filtered": True}}}  # not Azure's list
    with ScriptedServer() as server:
        server.push(Answer(body=unfiltered), Answer(body=odd))
        model = build_model("openai-chat", server.url, compatible=False)
        for _ in range(2):
            with pytest.raises(ProviderError, match=r"not an OpenAI reply"):
                model.invoke("hi")


def test_a_stream_whose_choices_came_after_the_filter_results_is_read_as_usual() -> None:
    passed = {**BLOCKED_EVENT, "prompt_filter_results": _filter_results(False)}
    chunk = {"id": "chatcmpl-9", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o",
             "choices": [{"index": 0, "delta": {"content": "Hello"}, "finish_reason": "stop"}]}
    with ScriptedServer() as server:
        server.push(Answer(events=[passed, chunk]))
        reply = merge_chunks(build_model("openai-chat", server.url, compatible=False).stream("hi"), as_chunk=False)
    assert (reply.content, reply.response_metadata["finish_reason"]) == ("Hello", "stop")
    assert "prompt_filter_results" not in reply.response_metadata


def test_azures_usual_400_for_a_filtered_prompt_says_to_rephrase_it() -> None:
    """Review 89: Azure's documented answer to a filtered prompt is a 400 with ``code: content_filter``; its hint
    said "the message above says which field", as for a malformed request."""
    body = {"error": {"message": "The response was filtered due to the prompt triggering Azure OpenAI's content "
                                 "management policy.", "type": None, "param": "prompt", "code": "content_filter",
                      "status": 400, "innererror": {"code": "ResponsibleAIPolicyViolation",
                                                    "content_filter_result": {"jailbreak": {"filtered": True,
                                                                                            "detected": True}}}}}
    with ScriptedServer() as server:
        server.push(Answer(status=400, body=body))
        with pytest.raises(ProviderError) as caught:
            build_model("openai-chat", server.url, compatible=False).invoke("how do I ...")
    assert caught.value.status == 400 and caught.value.retryable is False
    assert "content filter refused the prompt" in (caught.value.hint or "")
    assert "rephrase" in str(caught.value) and "which field" not in str(caught.value)
