"""Review 194: ScriptedChatModel reads a whole reply as a stream (#1), the loop breaker refuses a repeat of a
``repeat_calls`` tool (#2), and a run resumed after a ``return_direct`` result ends with it (#3)."""

from __future__ import annotations

import asyncio

import pytest

from toolwire import Agent, AIMessage, tool
from toolwire.messages import merge_chunks
from toolwire.testing import ScriptedChatModel


@tool
def get_weather(city: str) -> str:
    """Get the weather.

    Args:
        city: the city.
    """
    return f"sunny in {city}"


def _call(name: str, args: dict, call_id: str = "c1") -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])


# -- #1: invoke, ainvoke, stream and astream give one reply --------------------------------------------------------

SCRIPTED = [
    (" get_weather", {"city": "Paris"}),  # a name with a space
    ("get_weather", {"name": "get_weather", "arguments": {"city": "a"}}),  # wrapped arguments
    ("", {"name": "get_weather", "arguments": {"city": "a"}}),  # no name, wrapped call
    ("", {"city": "a"}),  # no name at all: an invalid call
]


@pytest.mark.parametrize(("name", "args"), SCRIPTED)
def test_scripted_invoke_reads_calls_as_stream(name: str, args: dict) -> None:
    model = ScriptedChatModel([_call(name, args)] * 4).bind_tools([get_weather])
    whole = model.invoke("q")
    streamed = merge_chunks(list(model.stream("q")), as_chunk=False, tool_names=["get_weather"])

    async def both() -> tuple[AIMessage, list]:
        return await model.ainvoke("q"), [chunk async for chunk in model.astream("q")]

    awhole, achunks = asyncio.run(both())
    astreamed = merge_chunks(achunks, as_chunk=False, tool_names=["get_weather"])
    for other in (streamed, awhole, astreamed):
        assert other.tool_calls == whole.tool_calls
        assert [(b.get("name"), b.get("args"), b.get("id")) for b in other.invalid_tool_calls] == \
            [(b.get("name"), b.get("args"), b.get("id")) for b in whole.invalid_tool_calls]


@pytest.mark.parametrize(("name", "args"), SCRIPTED)
def test_agent_run_same_under_invoke_and_stream_tokens(name: str, args: dict) -> None:
    answers = []
    for tokens in (False, True):
        agent = Agent(ScriptedChatModel([_call(name, args), "done"]), [get_weather])
        result = list(agent.stream("q", stream_tokens=tokens))[-1].data
        answers.append((result.messages[2].content, result.messages[2].status))
    assert answers[0] == answers[1]
    if name.strip() or "name" in args:
        assert answers[0][1] == "success"


def test_scripted_invoke_strips_name() -> None:
    model = ScriptedChatModel([_call(" get_weather", {"city": "Paris"})])
    assert model.invoke("q").tool_calls[0]["name"] == "get_weather"
