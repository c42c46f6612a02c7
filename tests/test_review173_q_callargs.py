"""Review 173 #2: a from_langchain_tool tool's public call_args, called inside another tool's call, returns only the
checked arguments (not the private call-id key with the outer call's id); its own calls still give an
InjectedToolCallId parameter their id, through invoke, ainvoke and ToolExecutor, with and without arguments."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.tools import InjectedToolCallId
from langchain_core.tools import tool as lc_tool

from toolwire import ToolExecutor, tool
from toolwire.interop.langchain import from_langchain_tool
from toolwire.messages import AIMessage


def _call(name: str, args: dict[str, Any] | None, call_id: str) -> dict[str, Any]:
    call: dict[str, Any] = {"name": name, "id": call_id, "type": "tool_call"}
    if args is not None:
        call["args"] = args
    return call


def _inner(ids: list[str]) -> Any:
    @lc_tool
    def lookup(city: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Look a city up."""
        ids.append(tool_call_id)
        return f"{city} for {tool_call_id}"

    return from_langchain_tool(lookup)


def test_call_args_inside_another_tools_call_returns_only_the_arguments() -> None:
    ids: list[str] = []
    inner = _inner(ids)
    seen: list[dict[str, Any]] = []

    @tool
    def plan(city: str) -> str:
        """Plan a trip.

        Args:
            city: The city.
        """
        checked = inner.call_args({"city": city})
        seen.append(checked)
        return str(inner.invoke(checked))

    answer = plan.invoke(_call("plan", {"city": "Paris"}, "call_PLAN"))
    assert seen == [{"city": "Paris"}]
    assert answer.status == "success"
    assert ids and ids[0] != "call_PLAN"
    reply = AIMessage(content="", tool_calls=[_call("plan", {"city": "Oslo"}, "call_P2")])
    for executor in (ToolExecutor([plan]), ToolExecutor([plan], handle_errors=False)):
        assert executor.execute(reply)[0].status == "success"
        assert asyncio.run(executor.aexecute(reply))[0].status == "success"
    assert seen[1:] == [{"city": "Oslo"}] * 4
    assert "call_P2" not in ids


def test_own_calls_still_get_their_id() -> None:
    ids: list[str] = []
    inner = _inner(ids)
    assert inner.invoke(_call("lookup", {"city": "A"}, "c1")).content == "A for c1"
    assert asyncio.run(inner.ainvoke(_call("lookup", {"city": "B"}, "c2"))).content == "B for c2"
    reply = AIMessage(content="", tool_calls=[_call("lookup", {"city": "C"}, "c3")])
    for executor in (ToolExecutor([inner]), ToolExecutor([inner], handle_errors=False)):
        assert executor.execute(reply)[0].content == "C for c3"
        assert asyncio.run(executor.aexecute(reply))[0].content == "C for c3"


def test_a_call_without_arguments_still_gets_its_id() -> None:
    ids: list[str] = []

    @lc_tool
    def now(tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """The time."""
        ids.append(tool_call_id)
        return f"noon for {tool_call_id}"

    converted = from_langchain_tool(now)
    assert converted.invoke(_call("now", None, "n1")).content == "noon for n1"
    assert asyncio.run(converted.ainvoke(_call("now", None, "n2"))).content == "noon for n2"
    reply = AIMessage(content="", tool_calls=[_call("now", None, "n3")])
    assert ToolExecutor([converted]).execute(reply)[0].content == "noon for n3"
    assert ids == ["n1", "n2", "n3"]
