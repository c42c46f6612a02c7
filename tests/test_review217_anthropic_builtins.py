"""OpenAI's Responses API built-in tools bound to ChatAnthropic are refused at bind time (review 217 #4)."""

from __future__ import annotations

import pytest

from toolwire.errors import UserError
from toolwire.models import ChatAnthropic

OPENAI_BUILTINS = [{"type": "web_search"}, {"type": "file_search", "vector_store_ids": ["vs_1"]},
                   {"type": "code_interpreter", "container": {"type": "auto"}},
                   {"type": "mcp", "server_label": "deepwiki", "server_url": "https://mcp.deepwiki.com/mcp"}]


@pytest.mark.parametrize("definition", OPENAI_BUILTINS, ids=lambda d: d["type"])
def test_openai_builtin_tool_is_refused_by_chat_anthropic(definition: dict) -> None:
    model = ChatAnthropic("claude-sonnet-4-5", api_key="fake")
    with pytest.raises(UserError, match=r"OpenAI's Responses API \(ChatOpenAI\(use_responses_api=True\)\)"):
        model.bind_tools([definition])


def test_anthropic_server_tools_are_still_sent() -> None:
    model = ChatAnthropic("claude-sonnet-4-5", api_key="fake")
    bound = model.bind_tools([{"type": "web_search_20250305", "name": "web_search", "max_uses": 2}])
    body = bound._lower(bound._request("hi", {}))
    assert body["tools"] == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 2}]
