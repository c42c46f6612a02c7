"""Review 21 (a fresh reviewer driving the real SDKs against a scripted local server), the findings fixed in the
shared SDK driver and the Anthropic path: each test failed on the code before its fix."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from toolwire import Agent, tool
from toolwire.errors import ProviderError

from .conftest import KEY, build_model
from .scripted_http import Answer, ScriptedServer


@tool
def get_weather(city: str) -> str:
    """Get the weather of a city."""
    return f"sunny in {city}"


@tool
def delete_files(pattern: str = "*") -> str:
    """Delete the files matching a pattern."""
    raise AssertionError("a call cut off at max_tokens must not run")


def _message(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x", "content": content,
            "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 7}}


def _events(text: str, stop: str | None) -> list[Any]:
    """An Anthropic stream of one text block, cut before its ``message_delta`` when ``stop`` is None."""
    events: list[Any] = [
        ("message_start", {"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x", "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": text}})]
    if stop is not None:
        events += [("content_block_stop", {"type": "content_block_stop", "index": 0}),
                   ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                      "usage": {"output_tokens": 7}}),
                   ("message_stop", {"type": "message_stop"})]
    return events


# -- 1: a body that is not the provider's reply is one clear ProviderError, on every path -----------------------


@pytest.mark.parametrize("provider", ["openai-chat", "openai-responses", "anthropic", "gemini"])
@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
def test_a_proxy_page_with_status_200_is_a_provider_error(provider, how):
    page = Answer(body="<html>Please log in to the corporate proxy</html>", content_type="text/html")
    with ScriptedServer() as server:
        server.push(page)
        model = build_model(provider, server.url)
        with pytest.raises(ProviderError, match=r"not an? .* reply") as caught:
            model.invoke("hi") if how == "invoke" else asyncio.run(model.ainvoke("hi"))
    assert not caught.value.retryable and "base_url" in str(caught.value)


@pytest.mark.parametrize("provider", ["openai-chat", "anthropic", "gemini"])
def test_a_body_cut_off_mid_json_is_retried(provider):
    with ScriptedServer() as server:
        server.push(Answer(body='{"id": "x", "choi'), Answer(body='{"id": "x", "choi'))
        model = build_model(provider, server.url, max_retries=1)
        with pytest.raises(ProviderError, match=r"not an? .* reply") as caught:
            model.invoke("hi")
    assert caught.value.retryable and len(server.requests) == 2


# -- 2: an Anthropic stream cut before its stop reason is an error, not a finished answer -------------------------


@pytest.mark.parametrize("how", ["stream", "astream"])
def test_an_anthropic_stream_cut_short_is_a_retryable_error(how):
    with ScriptedServer() as server:
        server.push(Answer(events=_events("The weather in Oslo is sunny and the tem", None)))
        model = build_model("anthropic", server.url)

        async def drain() -> None:
            async for _ in model.astream("weather?"):
                pass

        with pytest.raises(ProviderError, match="ended before the reply was complete") as caught:
            list(model.stream("weather?")) if how == "stream" else asyncio.run(drain())
    assert caught.value.retryable


def test_a_whole_anthropic_stream_still_reads():
    with ScriptedServer() as server:
        server.push(Answer(events=_events("Sunny.", "end_turn")))
        reply = build_model("anthropic", server.url, streaming=True).invoke("weather?")
    assert reply.content == "Sunny." and reply.response_metadata["finish_reason"] == "end_turn"


# -- 3: a tool_use cut off at max_tokens is not run -----------------------------------------------------------------


def test_an_anthropic_call_cut_at_max_tokens_is_invalid_not_run():
    cut = _message([{"type": "text", "text": "I'll delete the temp files."},
                    {"type": "tool_use", "id": "t1", "name": "delete_files", "input": {}}], "max_tokens")
    with ScriptedServer() as server:
        server.push(Answer(body=cut))
        reply = build_model("anthropic", server.url).bind_tools([delete_files]).invoke("clean up")
    assert reply.tool_calls == [] and [c["name"] for c in reply.invalid_tool_calls] == ["delete_files"]
    assert "max_tokens" in reply.invalid_tool_calls[0]["error"]


# -- 6: an error event inside a 200 stream is read by its type, so an overload is retried ----------------------


def test_an_overloaded_error_event_is_retried():
    overloaded = ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    with ScriptedServer() as server:
        server.push(Answer(events=[overloaded]), Answer(events=_events("Sunny.", "end_turn")))
        chunks = list(build_model("anthropic", server.url, max_retries=2).stream("weather?"))
    assert "".join(c.text for c in chunks) == "Sunny." and len(server.requests) == 2


def test_an_error_event_that_is_not_retryable_says_so():
    invalid = ("error", {"type": "error", "error": {"type": "invalid_request_error", "message": "Bad field"}})
    with ScriptedServer() as server:
        server.push(Answer(events=[invalid]))
        with pytest.raises(ProviderError, match="Bad field") as caught:
            list(build_model("anthropic", server.url, max_retries=2).stream("weather?"))
    assert not caught.value.retryable and len(server.requests) == 1


# -- 10: a key a server echoes in its error body is masked ---------------------------------------------------------


@pytest.mark.parametrize("provider", ["openai-chat", "anthropic"])
def test_an_api_key_echoed_by_the_server_is_masked(provider):
    echoed = {"error": {"type": "authentication_error", "message": f"Incorrect API key provided: {KEY}"}}
    with ScriptedServer() as server:
        server.push(Answer(status=401, body=echoed))
        with pytest.raises(ProviderError) as caught:
            build_model(provider, server.url).invoke("hi")
    assert KEY not in str(caught.value) and "Incorrect API key provided: **********" in str(caught.value)


def test_the_agent_answers_through_a_whole_reply_after_the_fixes():
    call = _message([{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Oslo"}}], "tool_use")
    done = _message([{"type": "text", "text": "Sunny in Oslo."}], "end_turn")
    with ScriptedServer() as server:
        server.push(Answer(body=call), Answer(body=done))
        result = Agent(build_model("anthropic", server.url), [get_weather]).invoke("weather in Oslo?")
    assert result.output == "Sunny in Oslo."
    assert json.dumps(server.requests[1]).count("sunny in Oslo") == 1


# -- 5: results out of place are sent where each API wants them, and none is lost ------------------------------


def _conversation(case: str) -> list[Any]:
    from toolwire import AIMessage, HumanMessage, SystemMessage, ToolMessage

    call = AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Oslo"}, "id": "c1",
                                      "type": "tool_call"}])
    head = [HumanMessage("Como está o clima em Oslo?"), call]
    return {
        "user text before the result": [*head, HumanMessage("go ahead"), ToolMessage("sunny", tool_call_id="c1")],
        "a result for an unknown id": [*head, ToolMessage("sunny", tool_call_id="c1"),
                                       ToolMessage("stale-result", tool_call_id="old-9")],
        "a system message before the result": [*head, SystemMessage("Answer in French."),
                                               ToolMessage("sunny", tool_call_id="c1")],
    }[case]


@pytest.mark.parametrize("case", ["user text before the result", "a result for an unknown id",
                                  "a system message before the result"])
def test_results_out_of_place_go_where_each_api_wants_them(make_model, server, case):
    make_model().bind_tools([get_weather]).invoke(_conversation(case))
    sent = json.dumps(server.requests[-1].body, ensure_ascii=False)
    assert "sunny" in sent and ("stale-result" in sent) == (case == "a result for an unknown id")
    # (the server fixture fails the test if the request broke the API's ordering rules)
