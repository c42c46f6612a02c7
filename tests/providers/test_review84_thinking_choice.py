"""Review 84 #8: Anthropic extended thinking with a forced ``tool_choice`` (``bind_tools(..., tool_choice="required")``
or a tool's name, and an ``Agent``'s) went out as ``{"type": "any"}``, which Anthropic refuses with a 400; it is now
sent as ``"auto"`` with a warning, as ``with_structured_output`` already did."""

from __future__ import annotations

import pytest

from toolwire import Agent, tool

from .conftest import build_model
from .scripted_http import Answer, ScriptedServer

REPLY = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
         "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
         "usage": {"input_tokens": 1, "output_tokens": 1}}
THINKING = {"thinking": {"type": "enabled", "budget_tokens": 1024}}


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return city


@pytest.mark.parametrize("choice", ["required", "get_weather"])
def test_a_forced_choice_with_thinking_is_sent_as_auto_with_a_warning(choice: str) -> None:
    with ScriptedServer() as server:
        server.push(Answer(body=REPLY), Answer(body=REPLY), Answer(body=REPLY))
        model = build_model("anthropic", server.url, model_kwargs=THINKING)
        with pytest.warns(UserWarning, match="Extended thinking cannot force a tool call"):
            bound = model.bind_tools([get_weather], tool_choice=choice)
        bound.invoke("hi")
        with pytest.warns(UserWarning, match="Extended thinking cannot force a tool call"):
            Agent(model, [get_weather], tool_choice=choice).invoke("hi")
        build_model("anthropic", server.url).bind_tools([get_weather], tool_choice=choice).invoke("hi")
    for request in server.requests[:2]:  # (was: {"type": "any"} / {"type": "tool"}, refused by Anthropic)
        assert request["tool_choice"]["type"] == "auto"
    assert server.requests[2]["tool_choice"]["type"] != "auto"  # without thinking the choice still forces



@pytest.mark.parametrize("choice", ["required", "get_weather"])
def test_thinking_turned_on_for_one_call_also_sends_auto(choice: str) -> None:
    """Review 86: thinking given per call (not on the model) with a forced choice still went out forced."""
    with ScriptedServer() as server:
        server.push(Answer(body=REPLY), Answer(body=REPLY))
        bound = build_model("anthropic", server.url).bind_tools([get_weather], tool_choice=choice)
        with pytest.warns(UserWarning, match="sent as 'auto' for this call"):
            bound.invoke("hi", **THINKING)
        bound.invoke("hi", thinking={"type": "disabled"})
    assert server.requests[0]["tool_choice"]["type"] == "auto"
    assert server.requests[0]["thinking"] == THINKING["thinking"]
    assert server.requests[1]["tool_choice"]["type"] != "auto"  # thinking off: the choice still forces
