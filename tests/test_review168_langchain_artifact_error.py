"""Review 168 #5: a converted content_and_artifact LangChain tool that handles its own error, invoked with bare
arguments, returns the error text (as LangChain's invoke(args) does), not a ToolMessage with a made-up call id; its
tool calls still get the error ToolMessage under the call's id."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.tools import StructuredTool, ToolException

from toolwire import ToolExecutor, tool
from toolwire.interop.langchain import from_langchain_tool
from toolwire.messages import AIMessage, ToolMessage


def _boom(x: str) -> tuple[str, dict[str, int]]:
    if x == "bad":
        raise ToolException("bad x")
    return "ok", {"raw": 1}


def _lc() -> Any:
    return StructuredTool.from_function(_boom, name="boom", description="Boom.", handle_tool_error=True,
                                        response_format="content_and_artifact")


def test_bare_arguments_give_the_error_text_as_langchain_does() -> None:
    lc = _lc()
    converted = from_langchain_tool(lc)
    assert lc.invoke({"x": "bad"}) == "bad x"
    assert converted.invoke({"x": "bad"}) == "bad x"
    assert asyncio.run(converted.ainvoke({"x": "bad"})) == "bad x"
    assert converted.invoke({"x": "good"}) == ("ok", {"raw": 1})


def test_bare_arguments_inside_another_tools_call_give_the_error_text() -> None:
    converted = from_langchain_tool(_lc())
    seen: list[Any] = []

    @tool
    def outer(x: str) -> str:
        """Outer tool.

        Args:
            x: The input.
        """
        seen.append(converted.invoke({"x": x}))
        return "done"

    assert outer.invoke({"name": "outer", "args": {"x": "bad"}, "id": "o1", "type": "tool_call"}).content == "done"
    assert seen == ["bad x"]


def test_a_tool_call_still_gets_the_error_message_under_its_id() -> None:
    converted = from_langchain_tool(_lc())
    call = {"name": "boom", "args": {"x": "bad"}, "id": "c3", "type": "tool_call"}
    answer = converted.invoke(call)
    assert isinstance(answer, ToolMessage)
    assert (answer.content, answer.tool_call_id, answer.status) == ("bad x", "c3", "error")
    reply = AIMessage(content="", tool_calls=[call])
    for handle_errors in (True, False):
        executor = ToolExecutor([converted], handle_errors=handle_errors)
        for got in (executor.execute(reply)[0], asyncio.run(executor.aexecute(reply))[0]):
            assert (got.content, got.tool_call_id, got.status) == ("bad x", "c3", "error")
