"""Review 200: porting from Pydantic AI, the OpenAI Agents SDK and smolagents.

#1: an Agent with ``response_format`` resumed from a conversation that ends with its run's answer (the structured call
failed, or a stream stopped before ``"final"``) makes only the structured call, as the stopped run would have.
#2: ``retries=`` and the Agents SDK's ``@function_tool`` options on a tool's maker get advice that fits, never a
"did you mean" of an option that changes what the tool does.
#3: smolagents' ``additional_args=`` advice says the values go in the text the model reads.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire import Agent, AIMessage, HumanMessage, StructuredTool, Tool, tool
from toolwire._agent_response import ASK_STRUCTURED
from toolwire._keywords import check_keywords
from toolwire.errors import ProviderError, ToolCallParseError, UserError
from toolwire.testing import ScriptedChatModel


class Out(BaseModel):
    city: str
    celsius: float


@tool
def get_weather(city: str) -> str:
    """Weather in a city."""
    return "12 C"


def _call() -> AIMessage:
    call = {"name": "get_weather", "args": {"city": "Oslo"}, "id": "c1", "type": "tool_call"}
    return AIMessage("", tool_calls=[call])


def _out(celsius: Any, id: str = "o1") -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "Out", "args": {"city": "Oslo", "celsius": celsius}, "id": id,
                                      "type": "tool_call"}])


def _boom(messages: Any) -> AIMessage:
    raise ProviderError("HTTP 529 overloaded", provider="anthropic", status=529, retryable=True)


def _only_structured(model: ScriptedChatModel, first: int, answer: str) -> None:
    """The requests from ``first`` on: one, the structured call, sent the answer and then the user turn."""
    assert len(model.requests) == first + 1
    request = model.requests[first]
    assert request.tool_choice == "Out" and request.tools == ["Out"]
    assert isinstance(request.messages[-1], HumanMessage) and request.messages[-1].text == ASK_STRUCTURED
    assert isinstance(request.messages[-2], AIMessage) and request.messages[-2].text == answer


# -- #1: resuming the structured call ---------------------------------------------------------------------------------


def test_resume_after_structured_parse_error_makes_only_the_structured_call() -> None:
    model = ScriptedChatModel([_call(), "It is 12 C in Oslo.", _out("warm"), _out(12, "o2"), "unused"])
    agent = Agent(model, [get_weather], response_format=Out)
    with pytest.raises(ToolCallParseError) as info:
        agent.invoke("How warm is Oslo?")
    messages = info.value.messages  # type: ignore[attr-defined]
    assert messages[-1].text == "It is 12 C in Oslo."
    result = agent.invoke(messages)
    _only_structured(model, 3, "It is 12 C in Oslo.")
    assert result.structured_response == Out(city="Oslo", celsius=12)
    assert result.output == "It is 12 C in Oslo." and result.stop_reason == "answer" and result.steps == 1
    assert [m.text for m in result.messages] == [m.text for m in messages]  # no second answer


def test_async_resume_after_provider_error_in_structured_call() -> None:
    model = ScriptedChatModel(["It is 12 C.", _boom, _out(12), "unused"])
    agent = Agent(model, [], response_format=Out)

    async def main() -> Any:
        with pytest.raises(ProviderError) as info:
            await agent.ainvoke("How warm?")
        return await agent.ainvoke(info.value.messages)  # type: ignore[attr-defined]

    result = asyncio.run(main())
    _only_structured(model, 2, "It is 12 C.")
    assert [type(m).__name__ for m in result.messages] == ["HumanMessage", "AIMessage"]
    assert result.structured_response == Out(city="Oslo", celsius=12) and result.steps == 1


def test_resume_after_stream_stopped_before_final() -> None:
    model = ScriptedChatModel([_call(), "It is 12 C in Oslo.", _out(12), "unused"])
    agent = Agent(model, [get_weather], response_format=Out)
    stream = agent.stream("How warm is Oslo?")
    for event in stream:
        if event.type == "model_reply" and not event.data.tool_calls:
            break
    events = list(agent.stream(stream.messages))
    _only_structured(model, 2, "It is 12 C in Oslo.")
    assert [e.type for e in events] == ["final"]
    assert events[0].data.structured_response == Out(city="Oslo", celsius=12)


def test_async_stream_resume_after_failed_structured_call() -> None:
    model = ScriptedChatModel(["It is 12 C.", _boom, _out(12), "unused"])
    agent = Agent(model, [], response_format=Out)

    async def main() -> list[Any]:
        stream = agent.astream("How warm?")
        with pytest.raises(ProviderError):
            async for _ in stream:
                pass
        return [e async for e in agent.astream(stream.messages, stream_tokens=True)]

    events = asyncio.run(main())
    _only_structured(model, 2, "It is 12 C.")
    assert [e.type for e in events] == ["final"] and events[0].step == 1


def test_resume_after_max_steps_answer_keeps_its_stop_reason() -> None:
    model = ScriptedChatModel([_call(), "Out of steps: 12 C.", _boom, _out(12), "unused"])
    agent = Agent(model, [get_weather], response_format=Out, max_steps=1, on_max_steps="answer")
    with pytest.raises(ProviderError) as info:
        agent.invoke("How warm is Oslo?")
    result = agent.invoke(info.value.messages)  # type: ignore[attr-defined]
    _only_structured(model, 3, "Out of steps: 12 C.")
    assert result.stop_reason == "max_steps" and result.output == "Out of steps: 12 C."


def test_a_new_question_after_the_answer_still_asks_the_model() -> None:
    model = ScriptedChatModel(["It is 12 C.", _out(12), "It is 14 C.", _out(14, "o2")])
    agent = Agent(model, [get_weather], response_format=Out)
    first = agent.invoke("How warm is Oslo?")
    result = agent.invoke([*first.messages, "And tomorrow?"])
    assert len(model.requests) == 4 and model.requests[2].tool_choice == "auto"
    assert result.output == "It is 14 C." and result.structured_response == Out(city="Oslo", celsius=14)


@pytest.mark.parametrize("ending", [
    AIMessage("Sorry, I cannot.", response_metadata={"finish_reason": "refusal"}),
    AIMessage("It is 1", response_metadata={"finish_reason": "length"}),
])
def test_answers_the_structured_call_never_follows_are_left_as_before(ending: AIMessage) -> None:
    model = ScriptedChatModel(["It is 12 C.", _out(12)])
    agent = Agent(model, [get_weather], response_format=Out)
    agent.invoke([HumanMessage("How warm?"), ending])
    assert model.requests[0].tool_choice == "auto"  # the model is asked, as before


def test_without_response_format_or_question_the_model_is_asked() -> None:
    model = ScriptedChatModel(["Hello again."])
    Agent(model, [get_weather]).invoke([HumanMessage("Hi"), AIMessage("Hello.")])
    assert model.requests[0].tool_choice == "auto"
    model = ScriptedChatModel(["How can I help?", _out(1)])
    Agent(model, [get_weather], response_format=Out).invoke([AIMessage("Welcome.")])
    assert model.requests[0].tool_choice == "auto"


# -- #2: other libraries' tool options --------------------------------------------------------------------------------


def _get_user(name: str) -> int:
    """Get a user's id from their full name."""
    return 1


_MAKERS = [
    ("@tool", lambda **kw: tool(**kw)(_get_user)),
    ("Tool.from_function", lambda **kw: Tool.from_function(_get_user, **kw)),
    ("StructuredTool.from_function", lambda **kw: StructuredTool.from_function(_get_user, **kw)),
]


@pytest.mark.parametrize(("owner", "make"), _MAKERS)
@pytest.mark.parametrize(("option", "advice"), [
    ("retries", "the model reads and can call again"),
    ("max_retries", "the model reads and can call again"),
    ("failure_error_function", "hide_error_details=True"),
    ("strict_mode", "bind_tools([], strict=True)"),
    ("use_docstring_info", "parse_docstring=False"),
])
def test_other_libraries_tool_options_get_advice_that_fits(owner: str, make: Any, option: str, advice: str) -> None:
    with pytest.raises(UserError, match=f"Unknown {owner} option '{option}'") as caught:
        make(**{option: None})
    text = str(caught.value)
    assert advice in text and "did you mean" not in text


def test_failure_error_function_none_points_to_handle_errors_false() -> None:
    with pytest.raises(UserError, match=r"handle_errors=False raises the error instead"):
        tool(failure_error_function=None)(_get_user)


def test_name_override_is_named_as_name() -> None:
    with pytest.raises(UserError, match="did you mean 'name'"):
        tool(name_override="find_user")(_get_user)


@pytest.mark.parametrize(("key", "names"), [
    ("retries", ["return_direct", "timeout"]), ("api", ["api_key"]), ("descr", ["description"]),
])
def test_a_name_merely_alike_gets_no_did_you_mean(key: str, names: list[str]) -> None:
    with pytest.raises(UserError) as caught:
        check_keywords("thing", [key], names)
    assert "did you mean" not in str(caught.value) and "use one of" in str(caught.value)


@pytest.mark.parametrize(("key", "names", "meant"), [
    ("timout", ["timeout", "name"], "timeout"), ("nmae", ["name", "timeout"], "name"), ("prot", ["port"], "port"),
    ("max_step", ["max_steps"], "max_steps"), ("temprature", ["temperature"], "temperature"),
])
def test_misspellings_still_get_did_you_mean(key: str, names: list[str], meant: str) -> None:
    with pytest.raises(UserError, match=f"did you mean '{meant}'"):
        check_keywords("thing", [key], names)


def test_the_agent_method_hint_needs_a_real_likeness_too() -> None:
    with pytest.raises(UserError) as caught:
        Agent(ScriptedChatModel(["a"]), []).invoke("q", tool_calls=[])
    assert "repeat_calls" not in str(caught.value)  # (ratio 0.64: was "'repeat_calls' is an option of Agent(...)")


# -- #3: smolagents' additional_args ----------------------------------------------------------------------------------


def test_additional_args_advice_says_the_model_reads_them() -> None:
    agent = Agent(ScriptedChatModel(["ok"]), [])
    for call in (lambda: agent.invoke("q", additional_args={"url": "https://example.org/a.mp3"}),
                 lambda: Agent(ScriptedChatModel(["ok"]), [], additional_args={"x": 1})):
        with pytest.raises(UserError) as caught:
            call()
        text = str(caught.value)
        assert "task text the model reads" in text and "put them in the question" in text
        assert "system_prompt" in text and "functools.partial" not in text
