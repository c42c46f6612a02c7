"""Review 191 #6: ``bind_tools`` refuses OpenAI's other ``response_format`` dicts, ``{"type": "json_object"}`` and
``{"type": "text"}``, as response formats rather than taking them for built-in tools, on every provider and in an
Agent, before any request; the Responses API's ``text.format`` shape is named by its top-level ``name``."""

from __future__ import annotations

import pytest

from test_review187_bind import _models
from toolwire import Agent
from toolwire.errors import SchemaError
from toolwire.models.base import to_tool
from toolwire.testing import ScriptedChatModel


@pytest.mark.parametrize("kind", ["json_object", "text"])
@pytest.mark.parametrize("index", range(5))
def test_bind_tools_refuses_a_response_format_dict_as_one(index: int, kind: str) -> None:
    with pytest.raises(SchemaError) as info:
        _models()[index].bind_tools([{"type": kind}])
    message = str(info.value)
    assert f"Tool {{'type': {kind!r}}} is OpenAI's response_format, not a tool" in message
    assert "with_structured_output" in message and "Responses API" not in message


def test_an_agent_refuses_it_too() -> None:
    with pytest.raises(SchemaError, match="response_format, not a tool"):
        Agent(ScriptedChatModel([]), tools=[{"type": "json_object"}])


def test_the_responses_text_format_shape_is_named_by_its_name() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    with pytest.raises(SchemaError) as info:
        to_tool({"type": "json_schema", "name": "Answer", "schema": schema})
    assert str(info.value).startswith("Tool 'Answer' has its schema under 'schema'")
