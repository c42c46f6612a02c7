"""Review 76: a $ref chain, an external $ref, a Unicode-class pattern, and arguments an application builds deeper
than Python recurses."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from toolwire import Agent, AIMessage, ToolExecutor, tool
from toolwire.errors import SchemaError
from toolwire.interop import tool_from_schema
from toolwire.testing import ScriptedChatModel


def _spec(parameters: dict[str, Any], name: str = "t") -> dict[str, Any]:
    return {"name": name, "description": "d", "parameters": parameters}


def test_a_long_chain_of_refs_is_a_schema_error_not_a_recursion_error() -> None:
    defs: dict[str, Any] = {f"D{i}": {"$ref": f"#/$defs/D{i + 1}"} for i in range(2000)}
    defs["D2000"] = {"type": "integer"}
    chain = {"type": "object", "properties": {"v": {"$ref": "#/$defs/D0"}}, "$defs": defs}
    with pytest.raises(SchemaError, match="nests more than 64 levels of schemas once its \\$ref references"):
        tool_from_schema(_spec(chain), lambda v: v)
    short = {**chain, "$defs": {**{f"D{i}": {"$ref": f"#/$defs/D{i + 1}"} for i in range(10)},
                                "D10": {"type": "integer"}}}
    assert tool_from_schema(_spec(short), lambda v: v).parameters["properties"]["v"] == {"type": "integer"}


def test_an_external_ref_is_refused_when_the_tool_is_defined() -> None:
    external = {"type": "object", "properties": {"v": {"$ref": "https://example.com/schemas/v.json"}}}
    with pytest.raises(SchemaError, match=r"refers to 'https://example.com/schemas/v.json', another document, which "
                                          r"toolwire does not fetch: copy that schema into \$defs"):
        tool_from_schema(_spec(external), lambda v: v)


def test_a_unicode_class_pattern_is_a_regex_and_is_checked() -> None:
    letters = {"type": "object", "properties": {"n": {"type": "string", "pattern": "^\\p{L}+$"}}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # read by the linear-time engine: checked, nothing to warn about
        t = tool_from_schema(_spec(letters, "greet"), lambda n: f"hi {n}")
    assert t.invoke({"n": "José"}) == "hi José"
    message = t.invoke({"name": "greet", "args": {"n": "J0sé"}, "id": "c1", "type": "tool_call"})
    assert message.status == "error" and "does not match" in message.content
    broken = {"type": "object", "properties": {"n": {"type": "string", "pattern": "([a-"}}}
    with pytest.raises(SchemaError, match=r"'\(\[a-' is not a 'regex'"):
        tool_from_schema(_spec(broken), lambda n: n)


def test_arguments_built_deeper_than_python_recurses_are_an_error_result_not_a_crash() -> None:
    @tool
    def h(data: Any = None) -> str:
        """H."""
        return "ran"

    deep: Any = 1
    for _ in range(3000):
        deep = {"a": deep}
    reply = AIMessage("", tool_calls=[{"name": "h", "args": {"data": deep}, "id": "c1"}])
    (answer,) = ToolExecutor([h]).execute(reply)
    assert answer.status == "error" and "nested too deeply to read" in answer.content
    assert "RecursionError" not in answer.content
    result = Agent(ScriptedChatModel([reply, "done"]), [h]).invoke("q")  # (the repeat check wrote its key: crashed)
    assert result.output == "done" and "nested too deeply" in result.messages[2].content
