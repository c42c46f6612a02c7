"""Review 303 #3, the Gemini provider: ``toolConfig.retrievalConfig`` (the user's location, for the ``google_maps``
server tool) can be sent, as ``model_kwargs={"tool_config": {"retrieval_config": {...}}}`` or a call's ``tool_config``
option, merged with the function calling config toolwire writes (before: the whole of ``tool_config`` was refused,
the advice pointing to ``tool_choice``). A ``function_calling_config`` there is still refused with that advice."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import tool
from toolwire.errors import UserError
from toolwire.messages import HumanMessage
from toolwire.models.base import ChatRequest

PLACE = {"lat_lng": {"latitude": 48.85, "longitude": 2.35}, "language_code": "fr"}


@tool
def find(q: str) -> str:
    """Find."""
    return q


def _model(**kwargs: Any) -> Any:
    from toolwire.models.google import ChatGoogleGenAI

    return ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-test-0123456789", base_url="http://127.0.0.1:9",
                           **kwargs)


def _config(bound: Any, **options: Any) -> Any:
    request = ChatRequest(messages=[HumanMessage("cafes near me")], tools=bound.tools, tool_choice=bound.tool_choice,
                          options=options)
    return bound._lower(request)["config"]


def test_a_location_in_model_kwargs_is_sent_alone_or_with_the_function_calling_config() -> None:
    model = _model(model_kwargs={"tool_config": {"retrieval_config": PLACE}})
    config = _config(model.bind_tools([{"google_maps": {}}]))
    assert config["tool_config"] == {"retrieval_config": PLACE}
    assert config["tools"] == [{"google_maps": {}}]
    config = _config(model.bind_tools([find, {"google_maps": {}}], tool_choice="find"))
    assert config["tool_config"] == {"retrieval_config": PLACE, "function_calling_config": {
        "mode": "ANY", "allowed_function_names": ["find"]}}


def test_a_location_as_a_call_option_is_sent() -> None:
    config = _config(_model().bind_tools([find, {"google_maps": {}}]), tool_config={"retrievalConfig": PLACE})
    assert config["tool_config"] == {"retrievalConfig": PLACE, "function_calling_config": {"mode": "AUTO"}}


@pytest.mark.parametrize("tool_config", [
    {"function_calling_config": {"mode": "ANY"}},
    {"retrieval_config": PLACE, "functionCallingConfig": {"mode": "ANY"}},
])
def test_a_function_calling_config_is_still_refused_with_the_tool_choice_advice(tool_config: Any) -> None:
    with pytest.raises(UserError, match=r"cannot set 'tool_config'.*function_calling_config.*tool_choice"):
        _model(model_kwargs={"tool_config": tool_config})
    with pytest.raises(UserError, match=r"cannot set 'tool_config'.*function_calling_config.*tool_choice"):
        _model().bind_tools([find]).invoke("hi", tool_config=tool_config)


@pytest.mark.parametrize("tool_config", [{"include_server_side_tool_invocations": True}, "here", {}])
def test_other_tool_config_keys_are_refused_naming_retrieval_config(tool_config: Any) -> None:
    with pytest.raises(UserError, match=r"retrieval_config"):
        _model(model_kwargs={"tool_config": tool_config})


def test_other_providers_still_refuse_tool_config() -> None:
    from toolwire.models.openai import ChatOpenAI

    with pytest.raises(UserError, match=r"cannot set 'tool_config'"):
        ChatOpenAI(model="gpt-4o-mini", api_key="sk-test", model_kwargs={"tool_config": {"retrieval_config": PLACE}})
