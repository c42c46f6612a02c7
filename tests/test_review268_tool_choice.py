"""Review 268, the Agent and ``tool_choice``: one call at a time asked in the Agent's ``tool_choice`` dict
(Anthropic's ``"disable_parallel_tool_use": True``) holds on every step, after the forced choice is reset to
``"auto"`` too (#1); a forced ``tool_choice`` kept on every call (``reset_tool_choice=False``) with no
``return_direct`` tool warns when the Agent is made, and its ``MaxStepsExceeded`` says why more steps cannot help
(#2); ``with_structured_output`` of a schema named like a ``tool_choice`` mode (``none``, ``auto``, ``required``,
``any``) forces its tool, on every provider (#3); ``Agent(..., parallel_tool_calls=False)`` and ``strict=True``
are refused with the way that works, binding them on the model first (#4)."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import Agent, tool
from toolwire.messages import AIMessage, ToolMessage
from toolwire.models import ChatAnthropic, ChatOpenAI
from toolwire.testing import ScriptedChatModel


@tool
def get_weather(city: str) -> str:
    """Weather of a city."""
    return f"sunny in {city}"


@tool(return_direct=True)
def final_answer(text: str) -> str:
    """Give the final answer."""
    return text


def _calls(*cities: str, name: str = "get_weather") -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": {"city": c}, "id": f"c{i}"}
                                     for i, c in enumerate(cities)])


_ONE_AT_A_TIME = {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": True}


# ---- 1: disable_parallel_tool_use in the Agent's tool_choice holds after the reset to auto ----

def test_one_call_at_a_time_of_the_choice_dict_holds_on_every_step() -> None:
    model = ScriptedChatModel([_calls("Paris"), _calls("Rome", "Oslo"), "done"])
    result = Agent(model, [get_weather], tool_choice=_ONE_AT_A_TIME).invoke("weather in Paris, Rome, Oslo")
    assert [r.tool_choice for r in model.requests] == ["get_weather", "auto", "auto"]
    assert [r.parallel_tool_calls for r in model.requests] == [False, False, False]
    ran = [m.content for m in result.messages if isinstance(m, ToolMessage)]
    assert ran == ["sunny in Paris", "sunny in Rome"]  # the second reply's second call is dropped, not run


def test_one_call_at_a_time_of_the_choice_dict_holds_in_the_tools_off_call() -> None:
    model = ScriptedChatModel([_calls("Paris"), _calls("Rome"), "done"])
    agent = Agent(model, [get_weather], tool_choice=_ONE_AT_A_TIME, max_steps=2, on_max_steps="answer")
    assert agent.invoke("weather?").output == "done"
    assert [r.parallel_tool_calls for r in model.requests] == [False, False, False]
    assert model.requests[-1].tool_choice == "none"


def test_one_call_at_a_time_kept_with_reset_off_and_the_finish_model() -> None:
    agent = Agent(ScriptedChatModel(["x"]), [get_weather, final_answer], tool_choice=_ONE_AT_A_TIME,
                  reset_tool_choice=False)
    assert agent._finish_model is not None and agent._finish_model.parallel_tool_calls is False
    assert agent.model.parallel_tool_calls is False and agent._answer_model.parallel_tool_calls is False


@pytest.mark.parametrize("make, sent", [
    (lambda: ChatAnthropic("claude-sonnet-4-5", api_key="x"),
     lambda body: body["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}),
    (lambda: ChatOpenAI("gpt-4o", api_key="sk-x"), lambda body: body["parallel_tool_calls"] is False),
    (lambda: ChatOpenAI("gpt-4o", api_key="sk-x", use_responses_api=True),
     lambda body: body["parallel_tool_calls"] is False),
])
def test_the_request_after_tools_asks_for_one_call_on_the_wire(make: Any, sent: Any) -> None:
    agent = Agent(make(), [get_weather], tool_choice=_ONE_AT_A_TIME)
    after = agent._after_tools_model
    assert after.tool_choice == "auto"
    assert sent(after._lower(after._request("weather?", {})))


def test_a_parallel_setting_of_the_model_still_wins_over_nothing_in_the_choice() -> None:
    model = ScriptedChatModel([_calls("Paris"), _calls("Rome", "Oslo"), "done"])
    bound = model.bind_tools([], parallel_tool_calls=False)
    Agent(bound, [get_weather], tool_choice="required").invoke("weather?")
    assert [r.parallel_tool_calls for r in model.requests] == [False, False, False]
