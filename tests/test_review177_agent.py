"""Review 177 #4: a reply with no tool call to a request that forced one (a server that ignores tool_choice) is not
taken silently as the answer: it is marked response_metadata["tool_choice_ignored"] and a warning is logged."""

from __future__ import annotations

import asyncio
import logging

import pytest

from toolwire import Agent, AIMessage
from toolwire._agent_requests import CHOICE_IGNORED
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel


def get_weather(city: str) -> str:
    """Get the weather.

    Args:
        city: the city.
    """
    return f"sunny in {city}"


def get_time(tz: str) -> str:
    """Get the time.

    Args:
        tz: the time zone.
    """
    return "noon"


@pytest.mark.parametrize(("choice", "marked"), [("required", "required"), ("any", "required"),
                                                ("get_weather", "get_weather"),
                                                ({"type": "function", "function": {"name": "get_weather"}},
                                                 "get_weather")])
def test_forced_choice_answered_in_text_is_marked(choice: object, marked: str,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    agent = Agent(ScriptedChatModel(["It is probably sunny."]), [get_weather, get_time], tool_choice=choice)
    with caplog.at_level(logging.WARNING, logger="toolwire.agent"):
        result = agent.invoke("Weather in Paris?")
    assert result.output == "It is probably sunny."
    assert result.messages[-1].response_metadata[CHOICE_IGNORED] == marked
    assert any("without the tool call its request forced" in r.getMessage() for r in caplog.records)


def test_async_and_stream_mark_alike() -> None:
    agent = Agent(ScriptedChatModel(["It is sunny."], cycle=True), [get_weather], tool_choice="required")
    result = asyncio.run(agent.ainvoke("Weather?"))
    assert result.messages[-1].response_metadata[CHOICE_IGNORED] == "required"
    events = list(agent.stream("Weather?"))
    reply = next(e.data for e in events if e.type == "model_reply")
    assert reply.response_metadata[CHOICE_IGNORED] == "required"
    assert events[-1].data.messages[-1] is reply


def test_not_marked_when_nothing_was_forced_or_a_call_came(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolwire.agent"):
        result = Agent(ScriptedChatModel(["Sunny."]), [get_weather]).invoke("Weather?")
        assert CHOICE_IGNORED not in result.messages[-1].response_metadata
        # forced first call obeyed, then "auto" after the tools: the text answer is a real one
        model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("get_weather", {"city": "Oslo"}, "c1")]),
                                   "Sunny in Oslo."])
        result = Agent(model, [get_weather], tool_choice="required").invoke("Weather in Oslo?")
    assert result.output == "Sunny in Oslo."
    assert all(CHOICE_IGNORED not in m.response_metadata for m in result.messages if isinstance(m, AIMessage))
    assert not any("forced" in r.getMessage() for r in caplog.records)
