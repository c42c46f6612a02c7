"""Review 303 #4, the Gemini provider's own ``tool_choice`` forms: one string for ``allowed_function_names`` is one
name (before: read letter by letter, so ``"sss"`` sent ``["s"]``), a dumped ``ToolConfig`` / ``FunctionCallingConfig``
(its ``None`` keys) is read, and a ``ToolConfig`` holding a location says where that goes."""
from __future__ import annotations

from typing import Any

import pytest

from toolwire import tool
from toolwire.errors import UserError
from toolwire.messages import HumanMessage
from toolwire.models.base import ChatRequest
from toolwire.models.lowering import gemini as codec


def _named(name: str) -> Any:
    @tool(name)
    def run(q: str) -> str:
        """Do it."""
        return q

    return run


@tool
def other(q: str) -> str:
    """Other."""
    return q


@tool
def search(q: str) -> str:
    """Search."""
    return q


def _model() -> Any:
    from toolwire.models.google import ChatGoogleGenAI

    return ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-test-0123456789", base_url="http://127.0.0.1:9")


def _sent(bound: Any) -> Any:
    request = ChatRequest(messages=[HumanMessage("hi")], tools=bound.tools, tool_choice=bound.tool_choice)
    return codec.lower_request(request, "gemini-2.5-flash")["config"].get("tool_config")


@pytest.mark.parametrize("key", ["allowed_function_names", "allowedFunctionNames"])
def test_one_string_of_names_is_one_name(key: str) -> None:
    assert _model().bind_tools([search, other], tool_choice={"mode": "ANY", key: "search"}).tool_choice == "search"
    with pytest.raises(UserError, match=r"names 'sss', which is not a bound function tool"):
        _model().bind_tools([_named("s")], tool_choice={"mode": "ANY", key: "sss"})


def test_a_dumped_tool_config_is_read() -> None:
    from google.genai import types

    calling = types.FunctionCallingConfig(mode="ANY", allowed_function_names=["search"])
    for dumped in (types.ToolConfig(function_calling_config=calling).model_dump(),
                   types.ToolConfig(function_calling_config=calling).model_dump(mode="json"),
                   calling.model_dump(), types.ToolConfig(
                       function_calling_config=types.FunctionCallingConfig(mode="AUTO")).model_dump()):
        assert _model().bind_tools([search, other], tool_choice=dumped).tool_choice in ("search", "auto")


def test_a_tool_config_with_a_location_is_refused_with_where_it_goes() -> None:
    given = {"function_calling_config": {"mode": "ANY"},
             "retrieval_config": {"lat_lng": {"latitude": 1.0, "longitude": 2.0}}}
    with pytest.raises(UserError, match=r"model_kwargs=\{'tool_config': \{'retrieval_config'"):
        _model().bind_tools([search], tool_choice=given)
