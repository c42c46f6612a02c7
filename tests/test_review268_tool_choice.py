"""Review 268, the Agent and ``tool_choice``: one call at a time asked in the Agent's ``tool_choice`` dict
(Anthropic's ``"disable_parallel_tool_use": True``) holds on every step, after the forced choice is reset to
``"auto"`` too (#1); a forced ``tool_choice`` kept on every call (``reset_tool_choice=False``) with no
``return_direct`` tool warns when the Agent is made, and its ``MaxStepsExceeded`` says why more steps cannot help
(#2); ``with_structured_output`` of a schema named like a ``tool_choice`` mode (``none``, ``auto``, ``required``,
``any``) forces its tool, on every provider (#3); ``Agent(..., parallel_tool_calls=False)`` and ``strict=True``
are refused with the way that works, binding them on the model first (#4)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire import Agent, tool
from toolwire.errors import MaxStepsExceeded, UserError
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


# ---- 2: forced on every call with no return_direct tool ----

def _forcing_model() -> ScriptedChatModel:
    cities = iter(["Paris", "Rome", "Oslo", "Lima", "Kyiv", "Nice"] * 3)
    return ScriptedChatModel([lambda messages: _calls(next(cities))], cycle=True)


@pytest.mark.parametrize("choice", ["required", "get_weather", {"type": "any"}])
def test_forced_on_every_call_without_a_return_direct_tool_warns_when_made(choice: Any) -> None:
    with pytest.warns(UserWarning, match="reset_tool_choice=False") as caught:
        Agent(_forcing_model(), [get_weather], tool_choice=choice, reset_tool_choice=False)
    message = str(caught[0].message)
    assert "return_direct" in message and "on_max_steps='answer'" in message
    assert caught[0].filename == __file__  # at the user's line


@pytest.mark.parametrize("tools, choice, reset", [
    ([get_weather, final_answer], "required", False),  # the model can end the run by calling final_answer
    ([get_weather, final_answer], "final_answer", False),
    ([get_weather], "required", True),
    ([get_weather], "auto", False),
    ([get_weather], None, False),
])
def test_no_warning_when_the_run_can_end(tools: list[Any], choice: Any, reset: bool) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Agent(_forcing_model(), tools, tool_choice=choice, reset_tool_choice=reset)


def test_a_forced_run_that_answers_at_its_limit_does_not_warn() -> None:
    with warnings.catch_warnings():  # (ends with a tools-off answer after max_steps: a run of that many rounds)
        warnings.simplefilter("error")
        agent = Agent(_forcing_model(), [get_weather], tool_choice="required", reset_tool_choice=False, max_steps=2,
                      on_max_steps="answer")
    assert agent._answer_model.tool_choice == "none"


def test_a_forced_tool_with_a_return_direct_tool_forced_after_repeats_does_not_warn() -> None:
    with warnings.catch_warnings():  # (review 109: the one return_direct tool is forced after repeated calls)
        warnings.simplefilter("error")
        Agent(_forcing_model(), [get_weather, final_answer], tool_choice="get_weather", reset_tool_choice=False)


def test_max_steps_exceeded_of_a_forced_run_says_the_real_cause() -> None:
    with pytest.warns(UserWarning):
        agent = Agent(_forcing_model(), [get_weather], tool_choice="required", reset_tool_choice=False, max_steps=3)
    with pytest.raises(MaxStepsExceeded) as caught:
        agent.invoke("weather?")
    message = str(caught.value)
    assert "raise max_steps" not in message
    assert "reset_tool_choice" in message and "return_direct" in message and "on_max_steps='answer'" in message
    assert len(caught.value.messages) == 7  # the question, three replies, three results


def test_max_steps_exceeded_of_a_run_that_could_end_keeps_its_advice() -> None:
    agent = Agent(ScriptedChatModel([_calls("Paris")], cycle=True), [get_weather], max_steps=2,
                  repeat_calls="run")
    with pytest.raises(MaxStepsExceeded, match="raise max_steps"):
        agent.invoke("weather?")


# ---- 3: with_structured_output of a schema named like a tool_choice mode ----

_MODES = ["none", "auto", "required", "any"]


def _schema(title: str) -> dict[str, Any]:
    return {"title": title, "type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


@pytest.mark.parametrize("title", _MODES)
def test_a_schema_titled_as_a_mode_forces_its_tool(title: str) -> None:
    model = ScriptedChatModel([lambda messages: AIMessage("", tool_calls=[
        {"name": model.requests[-1].tools[0], "args": {"ok": True}, "id": "c1"}])])
    assert model.with_structured_output(_schema(title)).invoke("ok?") == {"ok": True}
    sent = model.requests[-1]
    assert sent.tool_choice == sent.tools[0] and sent.tool_choice not in _MODES
    assert sent.tool_choice.startswith(title)


def test_a_pydantic_class_named_as_a_mode_forces_its_tool() -> None:
    class none(BaseModel):  # (the class name is the point)
        ok: bool

    model = ScriptedChatModel([lambda messages: AIMessage("", tool_calls=[
        {"name": model.requests[-1].tool_choice, "args": {"ok": True}, "id": "c1"}])])
    assert model.with_structured_output(none).invoke("ok?") == none(ok=True)
    assert model.requests[-1].tool_choice not in _MODES


@pytest.mark.parametrize("title", _MODES)
def test_a_tool_dict_named_as_a_mode_forces_its_tool(title: str) -> None:
    parameters = {key: value for key, value in _schema(title).items() if key != "title"}
    spec = {"type": "function", "function": {"name": title, "description": "Answer.", "parameters": parameters}}
    bound = ScriptedChatModel(["x"]).with_structured_output(spec).model
    assert bound.tool_choice == bound.tools[0].name and bound.tool_choice not in _MODES


@pytest.mark.parametrize("title", _MODES)
def test_anthropic_sends_the_schema_tool_forced(title: str) -> None:
    llm = ChatAnthropic("claude-sonnet-4-5", api_key="x")
    bound = llm.with_structured_output(_schema(title)).model
    body = bound._lower(bound._request("ok?", {}))
    assert body["tool_choice"] == {"type": "tool", "name": body["tools"][0]["name"], "disable_parallel_tool_use": True}


@pytest.mark.parametrize("responses", [False, True])
@pytest.mark.parametrize("title", _MODES)
def test_openai_sends_the_schema_tool_forced(title: str, responses: bool) -> None:
    llm = ChatOpenAI("gpt-4o", api_key="sk-x", use_responses_api=responses)
    bound = llm.with_structured_output(_schema(title)).model
    body = bound._lower(bound._request("ok?", {}))
    name = bound.tools[0].name
    assert body["tool_choice"] in ({"type": "function", "function": {"name": name}}, {"type": "function", "name": name})


def test_a_schema_with_an_ordinary_title_keeps_its_name() -> None:
    bound = ScriptedChatModel(["x"]).with_structured_output(_schema("Decision")).model
    assert bound.tool_choice == "Decision" == bound.tools[0].name


# ---- 4: Agent(parallel_tool_calls=...) / Agent(strict=...) name the way that works ----

@pytest.mark.parametrize("option, value", [("parallel_tool_calls", False), ("strict", True)])
def test_agent_refuses_a_binding_setting_with_the_way_that_works(option: str, value: bool) -> None:
    with pytest.raises(UserError) as caught:
        Agent(ScriptedChatModel(["x"]), [get_weather], **{option: value})
    message = str(caught.value)
    assert f"Agent(model.bind_tools([], {option}={value}), tools)" in message
    assert "use one of" not in message and message.count(". ") == 0
