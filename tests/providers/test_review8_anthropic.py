"""Review 8 regressions on the Anthropic side (findings 5, 6, 7, 9), at the codec and ``bind_tools`` level.

Shapes follow the Anthropic API reference ("Messages", "Streaming Messages"), the web-search tool guide
(``server_tool_use``, ``web_search_tool_result``, ``citations_delta``) and the prompt-caching guide
(``cache_control``).
"""

from __future__ import annotations

import logging

import pytest

from toolwire import AIMessage, HumanMessage, SystemMessage, ToolMessage, UserError
from toolwire.examples.book import calculate, get_weather
from toolwire.messages import merge_chunks
from toolwire.models.base import BaseChatModel, ChatRequest, ServerTool, to_tool
from toolwire.models.lowering.anthropic import StreamState, convert_to_anthropic_tool, lower_request, parse_response

WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
CACHE = {"type": "ephemeral"}
RESULT = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
          "content": [{"type": "web_search_result", "url": "https://x.org", "title": "X", "encrypted_content": "E"}]}
CITATION = {"type": "web_search_result_location", "url": "https://x.org", "title": "X", "encrypted_index": "EI",
            "cited_text": "sunny"}


class _Claude(BaseChatModel):
    provider = "anthropic"
    server_tools = ("anthropic", None)


class _Other(BaseChatModel):
    provider = "openai"


# -- finding 5: a stream keeps server_tool_use input and citations, as the whole reply does -------------------

def _start(i: int, block: dict) -> dict:
    return {"type": "content_block_start", "index": i, "content_block": block}


def _delta(i: int, delta: dict) -> dict:
    return {"type": "content_block_delta", "index": i, "delta": delta}


def test_stream_keeps_server_tool_input_and_citations_like_invoke():
    events = [
        {"type": "message_start",
         "message": {"id": "msg_1", "model": "claude-sonnet-4-5", "usage": {"input_tokens": 9}}},
        _start(0, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}),
        _delta(0, {"type": "input_json_delta", "partial_json": '{"query": "paris wea'}),
        _delta(0, {"type": "input_json_delta", "partial_json": 'ther"}'}),
        {"type": "content_block_stop", "index": 0},
        _start(1, RESULT), {"type": "content_block_stop", "index": 1},
        _start(2, {"type": "text", "text": ""}),
        _delta(2, {"type": "text_delta", "text": "Paris is sunny"}),
        _delta(2, {"type": "citations_delta", "citation": CITATION}),
        {"type": "content_block_stop", "index": 2},
        _start(3, {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}),
        _delta(3, {"type": "input_json_delta", "partial_json": '{"city": "Paris"}'}),
        {"type": "content_block_stop", "index": 3},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 20}},
    ]
    state = StreamState()
    chunks = [c for c in map(state.feed, events) if c is not None] + [state.finish()]
    streamed = merge_chunks(chunks, as_chunk=False)
    whole = parse_response({
        "id": "msg_1", "model": "claude-sonnet-4-5", "stop_reason": "tool_use",
        "usage": {"input_tokens": 9, "output_tokens": 20},
        "content": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                     "input": {"query": "paris weather"}}, RESULT,
                    {"type": "text", "text": "Paris is sunny", "citations": [CITATION]},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]})
    assert streamed == whole
    # only the client tool_use is a call: the server tool is never run locally nor answered by a ToolMessage
    assert [c["name"] for c in streamed.tool_calls] == ["get_weather"]
    results = [ToolMessage("sunny", tool_call_id="toolu_1")]
    sent = lower_request(ChatRequest([HumanMessage("weather?"), streamed, *results]), "m")["messages"][1]["content"]
    assert sent[0]["input"] == {"query": "paris weather"} and sent[2]["citations"] == [CITATION]


# -- finding 6: server tools pass through unchanged; model_kwargs tools are added, not swapped in ---------------

def test_server_tool_dict_is_sent_unchanged_not_as_a_client_tool():
    assert isinstance(to_tool(WEB_SEARCH), ServerTool)
    assert convert_to_anthropic_tool(WEB_SEARCH) == WEB_SEARCH
    bound = _Claude().bind_tools([get_weather, WEB_SEARCH, {"type": "code_execution_20250825",
                                                             "name": "code_execution"}])
    body = lower_request(ChatRequest([HumanMessage("hi")], bound.tool_specs, bound.tool_choice), "m")
    assert [t.get("input_schema") is not None for t in body["tools"]] == [True, False, False]
    assert body["tools"][1:] == [WEB_SEARCH, {"type": "code_execution_20250825", "name": "code_execution"}]


def test_a_server_tool_of_another_provider_is_refused_clearly():
    with pytest.raises(UserError, match="server tool of Anthropic"):
        _Other().bind_tools([get_weather, WEB_SEARCH])
    with pytest.raises(UserError, match="server tool of Gemini"):
        _Claude().bind_tools([{"google_search": {}}])
    with pytest.raises(UserError, match="Gemini server tool"):
        convert_to_anthropic_tool({"google_search": {}})


def test_model_kwargs_tools_are_added_after_the_bound_tools():
    request = ChatRequest([HumanMessage("hi")], (to_tool(get_weather).spec,), "auto")
    body = lower_request(request, "m", {"tools": [WEB_SEARCH]})
    assert [t["name"] for t in body["tools"]] == ["get_weather", "web_search"]
    assert body["tools"][1] == WEB_SEARCH and body["tool_choice"] == {"type": "auto"}
    with pytest.raises(UserError, match="'get_weather'"):
        lower_request(request, "m", {"tools": [get_weather]})


def test_server_tool_use_is_not_a_tool_call():
    reply = parse_response({"id": "m", "stop_reason": "end_turn", "content": [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}}, RESULT,
        {"type": "text", "text": "Found it."}]})
    assert reply.tool_calls == [] and reply.invalid_tool_calls == []
    assert reply.provider_data["anthropic"]["content"][0]["type"] == "server_tool_use"


# -- finding 7: cache_control reaches Anthropic; system blocks stay blocks -------------------------------------

def test_cache_control_kept_on_system_user_result_and_tool(caplog):
    messages = [SystemMessage([{"type": "text", "text": "long system prompt", "cache_control": CACHE}]),
                SystemMessage("second rule"),
                HumanMessage([{"type": "text", "text": "big doc", "cache_control": CACHE, "id": "lc-1"},
                              {"type": "text", "text": "q"}]),
                AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "1"}, "id": "t1"}]),
                ToolMessage([{"type": "text", "text": "1", "cache_control": CACHE}], tool_call_id="t1")]
    tool = {"name": "lookup", "description": "Look up.", "cache_control": CACHE,
            "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}
    request = ChatRequest(messages, (to_tool(calculate).spec, to_tool(tool)))
    with caplog.at_level(logging.WARNING, logger="toolwire.lowering"):
        body = lower_request(request, "m")
    assert not caplog.records
    assert body["system"] == [{"type": "text", "text": "long system prompt", "cache_control": CACHE},
                              {"type": "text", "text": "second rule"}]
    assert body["messages"][0]["content"][0] == {"type": "text", "text": "big doc", "cache_control": CACHE}
    assert body["messages"][2]["content"][0]["content"] == [{"type": "text", "text": "1", "cache_control": CACHE}]
    assert body["tools"][1]["cache_control"] == CACHE and "cache_control" not in body["tools"][0]


def test_plain_system_messages_stay_one_string_and_a_late_one_is_logged(caplog):
    messages = [SystemMessage("a"), HumanMessage("hi"), SystemMessage("b")]
    with caplog.at_level(logging.WARNING, logger="toolwire.lowering"):
        body = lower_request(ChatRequest(messages), "m")
    assert body["system"] == "a\n\nb"
    assert "after the conversation started" in caplog.text


# -- finding 9: Anthropic and OpenAI tool_choice dicts -----------------------------------------------------------

@pytest.mark.parametrize(("choice", "expected"), [
    ({"type": "any"}, "required"), ({"type": "auto"}, "auto"), ({"type": "none"}, "none"),
    ({"type": "tool", "name": "get_weather"}, "get_weather"),
    ({"type": "function", "function": {"name": "get_weather"}}, "get_weather"),
    ({"type": "function", "name": "get_weather"}, "get_weather"),
])
def test_tool_choice_dicts(choice, expected):
    assert _Claude().bind_tools([get_weather], tool_choice=choice).tool_choice == expected


def test_tool_choice_dict_disable_parallel_and_refusal_shows_the_value():
    model = _Claude().bind_tools([get_weather], tool_choice={"type": "any", "disable_parallel_tool_use": True})
    assert model.parallel_tool_calls is False
    with pytest.raises(UserError, match=r"\{'type': 'anything'\}"):
        _Claude().bind_tools([get_weather], tool_choice={"type": "anything"})
