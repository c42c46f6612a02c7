"""A tool invoked with bare arguments from inside another tool's call runs outside any tool call: it neither sees
the outer call in ``current_tool_call()`` nor takes its id for an ``InjectedToolCallId`` parameter (left open in
the fiftieth session: the inner tool answered with the outer call's id, which LangChain refuses)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest

from toolwire import current_tool_call, tool
from toolwire.errors import UserError

lc_tools = pytest.importorskip("langchain_core.tools")


def _tools() -> tuple[Any, Any, list[Any]]:
    seen: list[Any] = []

    @tool
    def inner(city: str, call_id: Annotated[str, lc_tools.InjectedToolCallId] = "none") -> str:
        """Look a city up."""
        seen.append((call_id, current_tool_call()))
        return city

    @tool
    def outer(city: str) -> str:
        """Look a city up through another tool."""
        before = current_tool_call()
        result = inner.invoke({"city": city})
        seen.append(("outer after", current_tool_call() == before))
        return result

    return inner, outer, seen


def test_bare_arguments_inside_a_call_get_no_call_id() -> None:
    _, outer, seen = _tools()
    answer = outer.invoke({"name": "outer", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"})
    assert answer.content == "Paris"
    assert seen == [("none", None), ("outer after", True)]


def test_bare_arguments_inside_a_call_async() -> None:
    inner, _, seen = _tools()

    @tool
    async def outer(city: str) -> str:
        """Look a city up through another tool."""
        return await inner.ainvoke({"city": city})

    answer = asyncio.run(outer.ainvoke({"name": "outer", "args": {"city": "Oslo"}, "id": "c2", "type": "tool_call"}))
    assert answer.content == "Oslo"
    assert seen == [("none", None)]


def test_without_a_default_the_inner_tool_refuses_bare_arguments_as_langchain_does() -> None:
    @tool
    def inner(city: str, call_id: Annotated[str, lc_tools.InjectedToolCallId]) -> str:
        """Look a city up."""
        return call_id

    @tool
    def outer(city: str) -> str:
        """Look a city up through another tool."""
        return inner.invoke({"city": city})

    answer = outer.invoke({"name": "outer", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"})
    assert answer.status == "error" and "InjectedToolCallId" in answer.content
    with pytest.raises(UserError):
        outer.invoke({"city": "Paris"})


def test_the_inner_tool_given_its_own_call_keeps_that_id() -> None:
    @tool
    def inner(city: str, call_id: Annotated[str, lc_tools.InjectedToolCallId]) -> str:
        """Look a city up."""
        return call_id

    @tool
    def outer(city: str) -> str:
        """Look a city up through another tool."""
        return inner.invoke({"name": "inner", "args": {"city": city}, "id": "own", "type": "tool_call"}).content

    assert outer.invoke({"name": "outer", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"}).content == "own"
