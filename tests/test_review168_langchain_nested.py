"""Review 168 #1: a tool converted with from_langchain_tool, invoked with bare arguments inside another tool's call
(a composite tool), returns the value (a dict stays a dict), as at top level, and an InjectedToolCallId tool invoked
so gets a new call id, not the outer call's; its own tool calls still answer with the call's id and text."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.tools import InjectedToolCallId, ToolException
from langchain_core.tools import tool as lc_tool

from toolwire import ToolExecutor, tool
from toolwire.interop.langchain import from_langchain_tool, to_langchain_tool
from toolwire.messages import AIMessage, ToolMessage


@lc_tool
def get_weather(city: str) -> dict:
    """Get the weather of a city."""
    return {"city": city, "temp_c": 21}


@lc_tool
async def aget_weather(city: str) -> dict:
    """Get the weather of a city, async."""
    return {"city": city, "temp_c": 22}


def _call(name: str, args: dict[str, Any], call_id: str = "call_1") -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def _composite(inner: Any, seen: list[Any]) -> Any:
    @tool
    def trip_report(city: str) -> str:
        """Weather summary for a trip.

        Args:
            city: The city.
        """
        seen.append(inner.invoke({"city": city}))
        return "done"

    return trip_report


@pytest.mark.parametrize("lc", [get_weather, aget_weather])
def test_bare_invoke_inside_another_tools_call_returns_the_value(lc: Any) -> None:
    seen: list[Any] = []
    trip = _composite(from_langchain_tool(lc), seen)
    answer = trip.invoke(_call("trip_report", {"city": "Paris"}))
    assert answer.content == "done"
    assert isinstance(seen[0], dict) and seen[0]["city"] == "Paris"


def test_bare_invoke_inside_an_executor_run_returns_the_value_sync_and_async() -> None:
    seen: list[Any] = []
    trip = _composite(from_langchain_tool(get_weather), seen)
    reply = AIMessage(content="", tool_calls=[_call("trip_report", {"city": "Oslo"})])
    for handle_errors in (True, False):
        executor = ToolExecutor([trip], handle_errors=handle_errors)
        assert executor.execute(reply)[0].content == "done"
        assert asyncio.run(executor.aexecute(reply))[0].content == "done"
    assert seen == [{"city": "Oslo", "temp_c": 21}] * 4


def test_bare_ainvoke_inside_another_tools_call_returns_the_value() -> None:
    weather = from_langchain_tool(get_weather)
    seen: list[Any] = []

    @tool
    async def trip_report(city: str) -> str:
        """Weather summary for a trip.

        Args:
            city: The city.
        """
        seen.append(await weather.ainvoke({"city": city}))
        return "done"

    assert asyncio.run(trip_report.ainvoke(_call("trip_report", {"city": "Rome"}))).content == "done"
    assert seen == [{"city": "Rome", "temp_c": 21}]


def test_the_converted_tools_own_call_still_answers_with_the_call() -> None:
    weather = from_langchain_tool(get_weather)
    answer = weather.invoke(_call("get_weather", {"city": "Paris"}, "c7"))
    assert isinstance(answer, ToolMessage) and answer.tool_call_id == "c7"
    assert answer.content == '{"city": "Paris", "temp_c": 21}'
    reply = AIMessage(content="", tool_calls=[_call("get_weather", {"city": "Paris"}, "c8")])
    for executor in (ToolExecutor([weather]), ToolExecutor([weather], handle_errors=False)):
        assert executor.execute(reply)[0].content == '{"city": "Paris", "temp_c": 21}'
        assert asyncio.run(executor.aexecute(reply))[0].tool_call_id == "c8"


def test_an_injected_call_id_inside_another_tools_call_is_not_the_outer_calls() -> None:
    ids: list[str] = []

    @lc_tool
    def note(text: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Save a note."""
        ids.append(tool_call_id)
        return f"saved {text}"

    converted = from_langchain_tool(note)

    @tool
    def outer(text: str) -> str:
        """Outer tool.

        Args:
            text: The text.
        """
        return str(converted.invoke({"text": text}))

    assert outer.invoke(_call("outer", {"text": "a"}, "outer_id")).content == "saved a"
    assert converted.invoke(_call("note", {"text": "b"}, "own_id")).content == "saved b"
    assert ids[0] != "outer_id" and ids[0]
    assert ids[1] == "own_id"


def test_a_round_trip_through_to_langchain_tool_keeps_the_call() -> None:
    """to_langchain_tool(from_langchain_tool(lc)) run by a LangChain ToolCall is that tool's own call: the error
    answer keeps its status, an InjectedToolCallId gets LangChain's call id."""
    ids: list[str] = []

    @lc_tool
    def boom(x: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Boom."""
        ids.append(tool_call_id)
        raise ToolException("bad x")

    boom.handle_tool_error = True
    back = to_langchain_tool(from_langchain_tool(boom))
    answer = back.invoke(_call("boom", {"x": "bad"}, "lc_id"))
    assert answer.status == "error" and answer.content == "bad x" and answer.tool_call_id == "lc_id"
    assert ids == ["lc_id"]


def test_a_tool_with_both_sides_tells_its_own_call_from_a_nested_bare_one() -> None:
    from langchain_core.tools import StructuredTool

    def weather(city: str) -> dict:
        return {"city": city, "side": "sync"}

    async def aweather(city: str) -> dict:
        return {"city": city, "side": "async"}

    both = from_langchain_tool(StructuredTool.from_function(func=weather, coroutine=aweather, name="weather",
                                                            description="Weather."))
    seen: list[Any] = []
    trip = _composite(both, seen)
    reply = AIMessage(content="", tool_calls=[_call("trip_report", {"city": "Oslo"})])
    assert asyncio.run(ToolExecutor([trip]).aexecute(reply))[0].content == "done"
    assert seen == [{"city": "Oslo", "side": "sync"}]
    own = AIMessage(content="", tool_calls=[_call("weather", {"city": "Oslo"}, "w1")])
    answer = asyncio.run(ToolExecutor([both]).aexecute(own))[0]
    assert (answer.content, answer.tool_call_id) == ('{"city": "Oslo", "side": "async"}', "w1")
