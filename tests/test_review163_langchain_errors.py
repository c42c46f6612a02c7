"""Review 163 #3: a LangChain tool's own error answer (an error ToolMessage it builds, its handle_tool_error text)
answers the call as written, as toolwire's own tool's ToolMessage does: content list, status and artifact kept, no
"Error: " prefix, not raised under handle_errors=False. A LangChain tool that raises still fails."""

from __future__ import annotations

import asyncio
from typing import Annotated

import pytest

pytest.importorskip("langchain_core")

from langchain_core.messages import ToolMessage as LCToolMessage
from langchain_core.tools import InjectedToolCallId, StructuredTool, ToolException
from langchain_core.tools import tool as lc_tool_decorator

from toolwire import AIMessage, ToolExecutor
from toolwire.interop.langchain import from_langchain_tool

BLOCKS = [{"type": "text", "text": "Record 1 not found."}, {"type": "text", "text": " Try ids 2-9."}]


@lc_tool_decorator
def lookup(record: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> LCToolMessage:
    """Look a record up."""
    return LCToolMessage(content=BLOCKS, tool_call_id=tool_call_id, status="error", artifact={"record": record})


def _boom(x: int) -> str:
    raise ToolException("boom")


handled = StructuredTool.from_function(_boom, name="handled", description="Fails.",
                                       handle_tool_error=lambda e: "The service is down; answer without it.")


def _raises(x: int) -> str:
    raise RuntimeError("broken")


raising = StructuredTool.from_function(_raises, name="raising", description="Raises.")


def _calls(*names: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": n, "args": {"record": 1} if n == "lookup" else {"x": 1}, "id": f"c{i}",
                                      "type": "tool_call"} for i, n in enumerate(names)])


@pytest.mark.parametrize("handle_errors", [True, False])
def test_an_error_answer_is_kept_as_written(handle_errors: bool) -> None:
    executor = ToolExecutor([lookup, handled], handle_errors=handle_errors)
    first, second = executor.execute(_calls("lookup", "handled"))
    assert (first.content, first.status, first.artifact, first.tool_call_id) == (BLOCKS, "error", {"record": 1}, "c0")
    assert (second.content, second.status, second.tool_call_id) == (
        "The service is down; answer without it.", "error", "c1")
    again = asyncio.run(executor.aexecute(_calls("lookup")))[0]
    assert (again.content, again.status) == (BLOCKS, "error")


def test_a_raising_tool_still_fails() -> None:
    (answer,) = ToolExecutor([raising]).execute(_calls("raising"))
    assert answer.status == "error" and "broken" in str(answer.content)
    with pytest.raises(RuntimeError, match="broken"):
        ToolExecutor([raising], handle_errors=False).execute(_calls("raising"))
    converted = from_langchain_tool(lookup).invoke({"name": "lookup", "args": {"record": 2}, "id": "c7",
                                                     "type": "tool_call"})
    assert (converted.content, converted.status, converted.artifact) == (BLOCKS, "error", {"record": 2})
