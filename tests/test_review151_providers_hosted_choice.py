"""Review 151 #1: forcing a bound Responses API built-in tool sent ``{"type": T}`` for any type, also for one the API
reference's hosted-tool choice (``ToolChoiceTypes``) does not list, such as the GA ``{"type": "web_search"}``; such a
tool is now forced with ``{"type": "allowed_tools", "mode": "required", "tools": [{"type": T}]}``. And every remote
MCP server was named ``"mcp"``, so two could not be bound together (a duplicate-name SchemaError); each is now named
``mcp:<server_label>`` and forced by its label (``{"type": "mcp", "server_label"}``)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("openai")

from providers.scripted_http import Answer, ScriptedServer
from toolwire import Agent, tool
from toolwire.errors import UserError
from toolwire.models import ChatOpenAI
from toolwire.models.lowering import openai as codec

RESPONSES_OK = {"id": "r", "object": "response", "created_at": 1, "model": "m", "status": "completed",
                "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                            "content": [{"type": "output_text", "text": "hi", "annotations": []}]}]}
KEY = "sk-test-0123456789abcdef"
DEEPWIKI = {"type": "mcp", "server_label": "deepwiki", "server_url": "https://mcp.deepwiki.com/mcp",
            "require_approval": "never"}
GITHUB = {"type": "mcp", "server_label": "github", "server_url": "https://api.githubcopilot.com/mcp/",
          "authorization": "ghp-secret"}


@tool
def get_weather(city: str) -> str:
    """Weather of a city.

    Args:
        city: the city.
    """
    return "sunny"


def _model(url: str = "http://127.0.0.1:9") -> ChatOpenAI:
    return ChatOpenAI("gpt-5-mini", api_key=KEY, base_url=url + "/v1", use_responses_api=True, max_retries=0)


def _sent(tools: list[Any], choice: Any) -> dict[str, Any]:
    with ScriptedServer() as server:
        server.push(Answer(body=RESPONSES_OK))
        _model(server.url).bind_tools(tools, tool_choice=choice).invoke("news today?")
        return server.requests[-1]  # type: ignore[no-any-return]


@pytest.mark.parametrize("choice", ["web_search", {"type": "web_search"}])
def test_a_built_in_tool_the_type_choice_does_not_list_is_forced_with_allowed_tools(choice: Any) -> None:
    body = _sent([{"type": "web_search", "user_location": {"type": "approximate", "country": "FR"}}, get_weather],
                 choice)
    assert body["tool_choice"] == {"type": "allowed_tools", "mode": "required", "tools": [{"type": "web_search"}]}
    assert body["tools"][0] == {"type": "web_search", "user_location": {"type": "approximate", "country": "FR"}}


@pytest.mark.parametrize("kind", ["web_search_preview", "image_generation", "file_search", "code_interpreter"])
def test_a_type_the_sdk_lists_is_still_forced_as_that_type(kind: str) -> None:
    assert _sent([{"type": kind}, get_weather], kind)["tool_choice"] == {"type": kind}


def test_the_listed_types_are_read_from_the_installed_sdk() -> None:
    from openai.types.responses.tool_choice_types import ToolChoiceTypes

    listed = set(ToolChoiceTypes.model_fields["type"].annotation.__args__)
    assert listed <= codec._hosted_choice_types() and "web_search" not in codec._hosted_choice_types()


def test_without_the_sdks_list_the_kept_one_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(name: str) -> Any:
        raise ImportError(name)

    codec._hosted_choice_types.cache_clear()
    monkeypatch.setattr(codec.importlib, "import_module", fail)
    try:
        assert codec._hosted_choice_types() == codec._HOSTED_CHOICE_TYPES
    finally:
        codec._hosted_choice_types.cache_clear()


@pytest.mark.parametrize(("choice", "label"), [
    ({"type": "mcp", "server_label": "github"}, "github"),
    ({"type": "mcp", "server_label": "deepwiki"}, "deepwiki"),
    ("mcp:github", "github"),
])
def test_two_mcp_servers_bind_together_and_either_is_forced_by_its_label(choice: Any, label: str) -> None:
    body = _sent([DEEPWIKI, GITHUB, get_weather], choice)  # (was: SchemaError "Two tools are named 'mcp'")
    assert body["tool_choice"] == {"type": "mcp", "server_label": label}
    assert body["tools"][:2] == [DEEPWIKI, GITHUB]


def test_mcp_servers_are_named_by_their_label() -> None:
    model = _model().bind_tools([DEEPWIKI, GITHUB])
    assert [t.name for t in model.tools] == ["mcp:deepwiki", "mcp:github"]


@pytest.mark.parametrize("choice", ["mcp", {"type": "mcp"}])
def test_the_old_name_mcp_still_forces_the_one_bound_server(choice: Any) -> None:
    assert _sent([GITHUB, get_weather], choice)["tool_choice"] == {"type": "mcp", "server_label": "github"}


def test_the_old_name_mcp_with_two_servers_is_refused_naming_both() -> None:
    with pytest.raises(UserError, match="mcp:deepwiki, mcp:github"):
        _model().bind_tools([DEEPWIKI, GITHUB], tool_choice="mcp")


def test_the_same_mcp_server_twice_is_still_refused() -> None:
    from toolwire.errors import SchemaError

    with pytest.raises(SchemaError, match="mcp:github"):
        _model().bind_tools([GITHUB, dict(GITHUB)])


def test_an_agent_takes_two_mcp_servers() -> None:
    agent = Agent(_model(), tools=[get_weather, DEEPWIKI, GITHUB])
    assert {t.name for t in agent.model.tools} == {"get_weather", "mcp:deepwiki", "mcp:github"}
