"""Review 157 #4's rule (a blank description is refused) where the description is not the user's own: an MCP server's
blank description falls back to the title or a sentence naming the tool; a LangChain tool without one is refused
with an error about the LangChain tool, not about a description= the user never passed."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import UserError
from toolwire.mcp._listing import build_tools


def _function(mcp_name: str, tool_name: str) -> Any:
    async def call(**kwargs: Any) -> str:
        return "ok"

    return call


@pytest.mark.parametrize(("item", "expected"), [
    ({"description": "   "}, "The 'echo' tool of the MCP server srv."),
    ({"description": "\n", "title": "Echo a text"}, "Echo a text"),
    ({"description": " ", "title": "  "}, "The 'echo' tool of the MCP server srv."),  # (review 165 #4)
    ({"title": 7, "annotations": {"title": " Echo "}}, "Echo"),
])
def test_an_mcp_tool_with_a_blank_description_loads_with_a_fallback(item: dict[str, Any], expected: str) -> None:
    listed = [{"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}, **item}]
    tools = build_tools(listed, prefix="", label="srv", timeout=None, function=_function)
    assert [(t.name, t.description) for t in tools] == [("echo", expected)]


@pytest.mark.parametrize("description", ["", "  \n"])
def test_a_langchain_tool_without_a_description_is_refused_naming_it(description: str) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.tools import StructuredTool

    from toolwire.interop.langchain import from_langchain_tool

    def shout(text: str) -> str:
        return text.upper()

    lc_tool = StructuredTool.from_function(shout, name="shout", description=description or "x")
    lc_tool.description = description
    with pytest.raises(UserError, match="LangChain tool 'shout' has no description"):
        from_langchain_tool(lc_tool)
