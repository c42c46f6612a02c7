"""Review 93: LangChain code ported to toolwire (findings 1, 2, 3, 5, 6, 12's wording, 16, 17).

No model runs here: tools are invoked directly or through ToolExecutor, and agents use ScriptedChatModel.
"""

from __future__ import annotations

from typing import Annotated, Any

import pytest

pytest.importorskip("langchain_core")

import langchain_core.messages as L
from langchain_core.tools import InjectedToolCallId

from toolwire import AIMessage, ToolExecutor, tool


def _call(name: str, args: dict[str, Any], call_id: str = "c1") -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


# -- 1: a @tool returning LangChain's ToolMessage answers with its content, status and artifact ---------------------


@tool
def _make(x: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
    """Make."""
    return L.ToolMessage(content=f"made {x}", tool_call_id=tool_call_id, artifact={"a": x},
                         status="error" if x < 0 else "success")


def test_a_langchain_tool_message_returned_by_a_toolwire_tool_is_read_as_a_message() -> None:
    message = _make.invoke(_call("_make", {"x": 1}))
    assert (message.content, message.artifact, message.status, message.tool_call_id) == ("made 1", {"a": 1},
                                                                                         "success", "c1")
    (failed,) = ToolExecutor([_make]).execute(AIMessage("", tool_calls=[{"name": "_make", "args": {"x": -2},
                                                                         "id": "c2"}]))
    assert (failed.content, failed.artifact, failed.status, failed.tool_call_id) == ("made -2", {"a": -2}, "error",
                                                                                     "c2")


def test_a_big_langchain_tool_message_is_cut_not_written_out_as_json() -> None:
    @tool
    def big(tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
        """Big."""
        return L.ToolMessage(content="x" * 600_000, tool_call_id=tool_call_id, artifact=[1])

    (message,) = ToolExecutor([big], max_result_chars=50).execute(
        AIMessage("", tool_calls=[{"name": "big", "args": {}, "id": "c3"}]))
    assert message.content.startswith("x" * 50 + "\n[... result truncated") and message.artifact == [1]
