"""Review 157 #2: ToolExecutor's execute/aexecute/call/acall docstrings give the order the answers really come in:
every call in the reply's order, an invalid call with an ``index`` in its place (not all invalid calls last)."""

from __future__ import annotations

import asyncio

import pytest

from toolwire import AIMessage, ToolExecutor, tool
from toolwire.parsing import parse_tool_calls


@tool
def get_weather(city: str) -> str:
    """Get the weather.

    Args:
        city: the city.
    """
    return f"sunny in {city}"


def test_an_invalid_call_with_an_index_is_answered_in_its_place() -> None:
    parsed = parse_tool_calls('[get_weather(city="A", city=), get_weather(city="B")]', ["get_weather"])
    msg = AIMessage(parsed.content, tool_calls=parsed.tool_calls, invalid_tool_calls=parsed.invalid_tool_calls)
    assert msg.invalid_tool_calls[0].get("index") == 0
    wanted = [msg.invalid_tool_calls[0]["id"], msg.tool_calls[0]["id"]]
    ex = ToolExecutor([get_weather])
    assert [m.tool_call_id for m in ex.execute(msg)] == wanted
    assert [m.tool_call_id for m in asyncio.run(ex.aexecute(msg))] == wanted
    assert [m.tool_call_id for m in ex.call(msg.tool_calls, msg.invalid_tool_calls)] == wanted


@pytest.mark.parametrize("name", ["execute", "aexecute", "call", "acall"])
def test_the_docstrings_say_that_order(name: str) -> None:
    doc = " ".join((getattr(ToolExecutor, name).__doc__ or "").split())
    assert "then one per invalid" not in doc and "then each ``invalid``" not in doc
    returns = doc.split("Returns:")[1].split("Raises:")[0]
    assert "``index``" in returns and ("in its place" in returns or "in that place" in returns), returns
