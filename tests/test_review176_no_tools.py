"""A call of an unknown tool when no tools are available tells the model to answer without one (review 176 #2).

The text was "Available tools: none. Call one of them by its exact name.": an instruction to call one of zero tools,
which a model that obeys follows by calling again.
"""

from __future__ import annotations

import asyncio

import pytest

from toolwire import Agent, AIMessage, ToolExecutor, tool
from toolwire.errors import UnknownToolError
from toolwire.testing import ScriptedChatModel

CALL = {"name": "search", "args": {"q": "x"}, "id": "1", "type": "tool_call"}
NO_TOOLS = "Error: There is no tool named 'search': no tools are available. Answer without calling a tool."


@tool
def ping() -> str:
    """Ping."""
    return "pong"


def test_executor_without_tools() -> None:
    assert ToolExecutor([]).execute([CALL])[0].content == NO_TOOLS
    assert asyncio.run(ToolExecutor([]).aexecute([CALL]))[0].content == NO_TOOLS


def test_agent_without_tools() -> None:
    result = Agent(ScriptedChatModel([AIMessage("", tool_calls=[CALL]), "ok"]), []).invoke("q")
    assert [m.content for m in result.messages if m.type == "tool"] == [NO_TOOLS]


def test_handle_errors_false_raises_the_same_text() -> None:
    with pytest.raises(UnknownToolError) as info:
        ToolExecutor([], handle_errors=False).execute([CALL])
    assert "Error: " + str(info.value) == NO_TOOLS


def test_text_with_tools_is_unchanged() -> None:
    assert ToolExecutor([ping]).execute([CALL])[0].content == (
        "Error: There is no tool named 'search'. Available tools: ping. Call one of them by its exact name.")
