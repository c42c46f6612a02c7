"""Review 280: #2, ``Agent.stream``/``astream`` overloads on ``stream_mode`` (the README's ``for token, metadata in
agent.stream(..., stream_mode="messages")`` failed under mypy and pyright: each item was ``AgentEvent | Any``);
#6(b), ``Agent(max_steps=np.int64(3))`` was refused as "not a whole number", while ``max_concurrency`` takes it."""

from __future__ import annotations

import asyncio
import typing
from typing import Any

import numpy as np
import pytest

import toolwire.agent as agent_module
from toolwire import Agent, tool
from toolwire._agent_states import AsyncStateStream, StateStream
from toolwire._agent_stream import AgentStream, AsyncAgentStream
from toolwire.errors import UserError
from toolwire.messages import AIMessage
from toolwire.testing import ScriptedChatModel


@tool
def get_weather(city: str) -> str:
    """Weather of a city."""
    return f"sunny in {city}"


def _agent(**options: Any) -> Agent:
    call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}
    return Agent(ScriptedChatModel([AIMessage("", tool_calls=[call]), AIMessage("done")]), [get_weather], **options)


# -- 2: overloads ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["stream", "astream"])
def test_stream_has_overloads_on_stream_mode(name: str) -> None:
    overloads = typing.get_overloads(getattr(Agent, name))
    assert len(overloads) >= 2
    hints = [typing.get_type_hints(o, vars(agent_module)) for o in overloads]
    state = StateStream if name == "stream" else AsyncStateStream
    events = AgentStream if name == "stream" else AsyncAgentStream
    modes = [h for h in hints if "stream_mode" in h and h["return"] is state]
    assert modes and set(typing.get_args(modes[0]["stream_mode"])) == {"values", "updates", "messages"}
    assert any(h.get("stream_mode") is type(None) and h["return"] is events for h in hints)  # (left out)


def test_stream_returns_the_same_objects_at_run_time() -> None:
    assert isinstance(_agent().stream("q"), AgentStream)
    pairs = list(_agent().stream("q", stream_mode="messages"))
    assert all(isinstance(p, tuple) and len(p) == 2 for p in pairs)
    assert [p[1]["langgraph_node"] for p in pairs][-1] == "agent"
    states = list(_agent().stream("q", stream_mode="values"))
    assert states[-1]["messages"][-1].text == "done"
    with pytest.raises(UserError, match="stream_mode"):
        _agent().stream("q", stream_mode="debug")
    with pytest.raises(UserError, match="config"):
        _agent().stream("q", config={})

    async def run() -> list[Any]:
        return [pair async for pair in _agent().astream("q", stream_mode="messages")]

    assert isinstance(_agent().astream("q"), AsyncAgentStream)
    assert asyncio.run(run())[-1][1]["langgraph_node"] == "agent"
# -- 6(b): NumPy integers --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [np.int64(3), np.int32(3), np.uint8(3)])
def test_max_steps_takes_a_numpy_integer_kept_as_an_int(value: Any) -> None:
    agent = _agent(max_steps=value, max_concurrency=np.int64(2), max_result_chars=np.int64(500))
    assert agent.max_steps == 3 and type(agent.max_steps) is int
    assert agent.executor.max_concurrency == 2 and agent.executor.max_result_chars == 500
    assert agent.invoke("q").output == "done"


@pytest.mark.parametrize("value", [True, False, 3.0, "3", 0, np.int64(0), -1, None, np.float64(3)])
def test_max_steps_still_refuses_what_is_no_whole_number_of_at_least_1(value: Any) -> None:
    with pytest.raises(UserError, match="max_steps must be a whole number of at least 1"):
        _agent(max_steps=value)
