"""Review 168 #3: tool_from_schema refuses OpenAI's custom (free-form text) tool as bind_tools does, in both its forms,
instead of making a tool without parameters (or saying the nested form has no name)."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import UserError
from toolwire.interop.openai_tools import tool_from_schema

FLAT = {"type": "custom", "name": "code_exec", "description": "Executes Python code.",
        "format": {"type": "grammar", "syntax": "lark", "definition": "start: /.+/"}}


def _run(code: str) -> str:
    return code


@pytest.mark.parametrize("definition", [FLAT, {"type": "custom", "custom": {k: v for k, v in FLAT.items()
                                                                             if k != "type"}}])
def test_tool_from_schema_refuses_an_openai_custom_tool(definition: dict[str, Any]) -> None:
    with pytest.raises(UserError, match="'code_exec' is an OpenAI custom"):
        tool_from_schema(definition, _run)


def test_an_anthropic_custom_tool_with_a_schema_is_still_read() -> None:
    made = tool_from_schema({"type": "custom", "name": "run", "description": "Run code.",
                             "input_schema": {"type": "object", "properties": {"code": {"type": "string"}}}}, _run)
    assert made.parameters["properties"] == {"code": {"type": "string"}}
