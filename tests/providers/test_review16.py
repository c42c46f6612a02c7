"""Review 16 regressions: ``model_kwargs={"tools": [...]}`` is added after the bound tools on OpenAI too (Chat
Completions and Responses), never in their place, as on Anthropic and Gemini.

Shapes follow the OpenAI API reference (Chat Completions "tools"; Responses "tools", function and built-in
tools such as ``{"type": "web_search"}``).
"""

from __future__ import annotations

import pytest

from toolwire import HumanMessage, UserError
from toolwire.examples.book import calculate, get_weather
from toolwire.models.base import ChatRequest, to_tool
from toolwire.models.lowering.openai import lower_request, lower_responses_request

WEB_SEARCH = {"type": "web_search"}


def _request() -> ChatRequest:
    return ChatRequest([HumanMessage("hi")], (to_tool(get_weather).spec,), "auto")


def test_chat_completions_tools_option_comes_after_the_bound_tools():
    other = {"type": "function", "function": {"name": "other", "parameters": {"type": "object", "properties": {}}}}
    body = lower_request(_request(), "m", {"tools": [other, calculate]})
    assert [t["function"]["name"] for t in body["tools"]] == ["get_weather", "other", "calculate"]
    assert body["tools"][1] == other and body["tools"][1] is not other  # sent as given, not shared
    assert body["tool_choice"] == "auto"
    # without bound tools the option's tools are the tools
    alone = lower_request(ChatRequest([HumanMessage("hi")]), "m", {"tools": [other]})
    assert alone["tools"] == [other]


def test_responses_tools_option_comes_after_the_bound_tools():
    body = lower_responses_request(_request(), "m", {"tools": [WEB_SEARCH, calculate]})
    assert [t.get("name", t["type"]) for t in body["tools"]] == ["get_weather", "web_search", "calculate"]
    assert body["tools"][1] == WEB_SEARCH
    # a Chat Completions function dict is turned into the Responses form
    chat_form = {"type": "function", "function": {"name": "other", "parameters": {"type": "object"}}}
    body = lower_responses_request(_request(), "m", {"tools": [chat_form]})
    assert body["tools"][1]["name"] == "other" and "function" not in body["tools"][1]


@pytest.mark.parametrize("lower", [lower_request, lower_responses_request])
def test_tools_option_that_repeats_a_bound_name_or_is_not_a_list_is_a_user_error(lower):
    with pytest.raises(UserError, match="'get_weather'"):
        lower(_request(), "m", {"tools": [get_weather]})
    with pytest.raises(UserError, match="must be a list"):
        lower(_request(), "m", {"tools": WEB_SEARCH})
