"""Review 163 #4: OpenAI's custom (free-form text) tool dict is refused at bind_tools with one clear UserError instead
of being bound as a function with no parameters; Anthropic's custom tool (with an input_schema) is still a tool."""

from __future__ import annotations

import pytest

from toolwire.errors import UserError
from toolwire.models.base import to_tool_spec
from toolwire.testing import ScriptedChatModel

CUSTOM = {"type": "custom", "name": "code_exec", "description": "Executes arbitrary Python code.",
          "format": {"type": "grammar", "syntax": "regex", "definition": "^print\\(.*\\)$"}}
MESSAGE = (r"^Tool 'code_exec' is an OpenAI custom \(free-form text\) tool, which toolwire does not support: give a "
           r"function tool with a JSON Schema of its arguments instead")


@pytest.mark.parametrize("tool", [CUSTOM, {"type": "custom", "name": "code_exec", "description": "Runs code."},
                                  {"type": "custom", "custom": {"name": "code_exec", "description": "Runs code."}}])
def test_a_free_form_custom_tool_is_refused(tool: dict) -> None:
    with pytest.raises(UserError, match=MESSAGE):
        ScriptedChatModel([]).bind_tools([tool])
    with pytest.raises(UserError, match=MESSAGE):
        to_tool_spec(tool)


def test_anthropic_custom_tool_with_a_schema_is_kept() -> None:
    schema = {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}
    spec = to_tool_spec({"type": "custom", "name": "code_exec", "description": "Runs code.", "input_schema": schema})
    assert (spec.name, spec.parameters) == ("code_exec", schema)
