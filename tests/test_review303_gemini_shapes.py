"""Review 303 #2: an Agent takes a google-genai ``Tool(google_search=...)`` as it takes ``{"google_search": {}}``,
and ``tool_from_schema`` takes a google-genai ``FunctionDeclaration`` (or its dict, upper-case ``Schema`` types) as it
takes other tool dicts, so the declaration's arguments are checked before its function runs."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("google.genai")

from google.genai import types

from toolwire import Agent, tool
from toolwire.errors import ToolValidationError
from toolwire.interop import tool_from_schema
from toolwire.models.base import ServerTool

DECLARATION = types.FunctionDeclaration(name="find", description="Find.", parameters=types.Schema(
    type="OBJECT", properties={"q": types.Schema(type="STRING")}, required=["q"]))


@tool
def look(q: str) -> str:
    """Look."""
    return q


def _model() -> Any:
    from toolwire.models.google import ChatGoogleGenAI

    return ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-test-0123456789", base_url="http://127.0.0.1:9")


def test_an_agent_takes_a_genai_server_tool() -> None:
    agent = Agent(_model(), [look, types.Tool(google_search=types.GoogleSearch())])
    bound = agent.model.tools
    assert [t.name for t in bound if not isinstance(t, ServerTool)] == ["look"]
    assert [t.definition for t in bound if isinstance(t, ServerTool)] == [{"google_search": {}}]


@pytest.mark.parametrize("declaration", [
    DECLARATION, DECLARATION.model_dump(), DECLARATION.model_dump(mode="json", exclude_none=True),
    DECLARATION.model_dump(by_alias=True, exclude_none=True),
])
def test_tool_from_schema_takes_a_declaration_and_checks_its_arguments(declaration: Any) -> None:
    made = tool_from_schema(declaration, lambda q: "found " + q)
    assert (made.name, made.description) == ("find", "Find.")
    assert made.parameters["properties"] == {"q": {"type": "string"}}
    assert made.invoke({"q": "x"}) == "found x"
    with pytest.raises(ToolValidationError, match="not of type 'string'"):
        made.invoke({"q": 3})
