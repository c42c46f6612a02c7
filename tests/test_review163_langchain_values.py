"""Review 163 #2: a converted tool invoked with bare arguments returns the function's value, as LangChain's tool and
toolwire's own do; through a tool call the answer is still a ToolMessage with text content."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langchain_core")

from langchain_core.tools import tool as lc_tool_decorator

import toolwire
from toolwire.interop.langchain import from_langchain_tool, to_langchain_tool

ARGS = {"values": [1, 2]}
VALUE = {"mean": 1.5, "n": 2}


@lc_tool_decorator
def lc_stats(values: list[float]) -> dict:
    """Mean and count of some numbers."""
    return {"mean": sum(values) / len(values), "n": len(values)}


@toolwire.tool
def tw_stats(values: list[float]) -> dict:
    """Mean and count of some numbers."""
    return {"mean": sum(values) / len(values), "n": len(values)}


@toolwire.tool(response_format="content_and_artifact")
def tw_pair(values: list[float]) -> tuple[dict, list[float]]:
    """Mean of some numbers, with the numbers."""
    return {"mean": sum(values) / len(values)}, values


@lc_tool_decorator(response_format="content_and_artifact")
def lc_pair(values: list[float]) -> tuple[str, list[float]]:
    """Mean of some numbers, with the numbers."""
    return f"mean {sum(values) / len(values)}", values


def test_from_langchain_tool_bare_arguments_give_the_value() -> None:
    converted = from_langchain_tool(lc_stats)
    assert lc_stats.invoke(ARGS) == VALUE
    assert converted.invoke(ARGS) == VALUE
    assert asyncio.run(converted.ainvoke(ARGS)) == VALUE
    message = converted.invoke({"name": "lc_stats", "args": ARGS, "id": "c1", "type": "tool_call"})
    assert message.tool_call_id == "c1" and message.content == '{"mean": 1.5, "n": 2}'
    # the pair of a content_and_artifact tool is still given back
    assert from_langchain_tool(lc_pair).invoke(ARGS) == ("mean 1.5", [1, 2])


def test_to_langchain_tool_bare_arguments_give_the_value() -> None:
    converted = to_langchain_tool(tw_stats)
    assert tw_stats.invoke(ARGS) == VALUE
    assert converted.invoke(ARGS) == VALUE
    assert asyncio.run(converted.ainvoke(ARGS)) == VALUE
    message = converted.invoke({"name": "tw_stats", "args": ARGS, "id": "c1", "type": "tool_call"})
    assert message.tool_call_id == "c1" and message.content == '{"mean": 1.5, "n": 2}'
    # LangChain gives a content_and_artifact tool's content with bare arguments, its own value
    pair = to_langchain_tool(tw_pair)
    assert pair.invoke(ARGS) == {"mean": 1.5}
    message = pair.invoke({"name": "tw_pair", "args": ARGS, "id": "c2", "type": "tool_call"})
    assert message.content == '{"mean": 1.5}' and message.artifact == [1, 2]
