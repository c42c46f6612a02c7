"""Review 146 #2: a built-in (server) tool named as ``tool_choice`` was sent as a function name (Responses API,
Gemini) or dropped without a word (Gemini). The Responses API now gets OpenAI's own form ``{"type": "<hosted tool
type>"}``, which ``bind_tools`` takes too; Gemini, whose function calling config governs function tools only,
refuses a choice that would force a server tool and warns that ``"none"`` cannot turn its server tools off."""

from __future__ import annotations

import logging
from typing import Any

import pytest

pytest.importorskip("openai")
pytest.importorskip("google.genai")

from providers.scripted_http import Answer, ScriptedServer
from toolwire import Agent, tool
from toolwire.errors import UserError
from toolwire.models import ChatOpenAI
from toolwire.models.google import ChatGoogleGenAI

RESPONSES_OK = {"id": "r", "object": "response", "created_at": 1, "model": "m", "status": "completed",
                "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                            "content": [{"type": "output_text", "text": "hi", "annotations": []}]}]}
GEMINI_OK = {"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP"}]}
KEY = "sk-test-0123456789abcdef"


@tool
def get_weather(city: str) -> str:
    """Weather of a city.

    Args:
        city: the city.
    """
    return "sunny"


def _sent_responses(tools: list[Any], choice: Any) -> dict[str, Any]:
    with ScriptedServer() as server:
        server.push(Answer(body=RESPONSES_OK))
        model = ChatOpenAI("gpt-5-mini", api_key=KEY, base_url=server.url + "/v1", use_responses_api=True,
                           max_retries=0)
        model.bind_tools(tools, tool_choice=choice).invoke("search the web for today's news")
        return server.requests[-1]  # type: ignore[no-any-return]


@pytest.mark.parametrize(("tool_dict", "choice", "expected"), [
    ({"type": "web_search_preview"}, "web_search_preview", {"type": "web_search_preview"}),
    ({"type": "code_interpreter", "container": {"type": "auto"}}, "code_interpreter", {"type": "code_interpreter"}),
    ({"type": "web_search_preview"}, {"type": "web_search_preview"}, {"type": "web_search_preview"}),
    ({"type": "mcp", "server_label": "docs", "server_url": "https://example.invalid/mcp"},
     {"type": "mcp", "server_label": "docs"}, {"type": "mcp", "server_label": "docs"}),
])
def test_responses_api_forces_a_built_in_tool_in_openais_form(tool_dict: dict[str, Any], choice: Any,
                                                                expected: dict[str, Any]) -> None:
    body = _sent_responses([tool_dict, get_weather], choice)
    assert body["tool_choice"] == expected  # (was {"type": "function", "name": ...}, or refused by bind_tools)


def test_responses_api_still_forces_a_function_by_name() -> None:
    body = _sent_responses([{"type": "web_search_preview"}, get_weather], "get_weather")
    assert body["tool_choice"] == {"type": "function", "name": "get_weather"}


def test_a_hosted_choice_dict_for_a_tool_not_bound_is_refused() -> None:
    model = ChatOpenAI("gpt-5-mini", api_key=KEY, use_responses_api=True)
    with pytest.raises(UserError):
        model.bind_tools([get_weather], tool_choice={"type": "web_search_preview"})


def _gemini(url: str = "http://127.0.0.1:9") -> ChatGoogleGenAI:
    return ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-test-0123456789", base_url=url, max_retries=0)


@pytest.mark.parametrize("tools", [[get_weather, {"google_search": {}}], [{"google_search": {}}]])
def test_gemini_refuses_to_force_a_server_tool_by_name(tools: list[Any]) -> None:
    with pytest.raises(UserError, match="cannot force its server tool 'google_search'"):
        _gemini().bind_tools(tools, tool_choice="google_search")  # (was: allowedFunctionNames ["google_search"])


def test_gemini_refuses_required_with_only_server_tools() -> None:
    with pytest.raises(UserError, match="tool_choice='required'"):
        _gemini().bind_tools([{"google_search": {}}], tool_choice="required")  # (was: dropped without a word)


def test_gemini_required_with_a_function_tool_too_is_sent() -> None:
    with ScriptedServer() as server:
        server.push(Answer(body=GEMINI_OK))
        _gemini(server.url).bind_tools([get_weather, {"google_search": {}}], tool_choice="required").invoke("hi")
        sent = server.requests[-1]
    assert sent["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}


def test_gemini_none_with_only_server_tools_warns(caplog: pytest.LogCaptureFixture) -> None:
    with ScriptedServer() as server:
        server.push(Answer(body=GEMINI_OK))
        with caplog.at_level(logging.WARNING, logger="toolwire.lowering"):
            _gemini(server.url).bind_tools([{"google_search": {}}], tool_choice="none").invoke("hi")
        sent = server.requests[-1]
    assert "toolConfig" not in sent  # (Gemini refuses a function calling config without declarations)
    assert any("tool_choice='none'" in r.getMessage() and "google_search" in r.getMessage() for r in caplog.records)


def test_an_agent_with_only_gemini_server_tools_still_builds() -> None:
    agent = Agent(_gemini(), tools=[{"google_search": {}}])  # (it binds tool_choice="none" for its last answer)
    assert agent.model.tool_choice == "auto"
