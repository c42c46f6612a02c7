"""Review 141: small defects.

#6: an argument whose ``repr()`` raises (or an int too long for text) no longer breaks argument validation: the call
gets the usual "Invalid arguments" error, not the exception of its ``repr`` worded as the tool's own failure.

#8: ``StrictSchemaWarning`` (named in docs/providers.md) lives in ``toolwire.errors`` beside the other warnings; its
old import path, ``toolwire.models.lowering.openai``, gives the same class.

#4: the docstring of ``toolwire.models.grammar``, which README calls "the full list" of the keywords the grammar does
not hold, names each keyword the grammar leaves out (``minLength``/``maxLength`` were missing).

#3: ``toolwire.models.to_tool_spec``, ``toolwire.mcp.MCPToolList`` and ``toolwire.mcp.convert_call_result`` say
their arguments, returns and errors; what is not an MCP result gets a ``TypeError`` in one sentence, not
``AttributeError: 'int' object has no attribute 'model_dump'``.
"""

from __future__ import annotations

import warnings

import pytest
from pydantic import BaseModel

from toolwire import AIMessage, ToolExecutor, tool
from toolwire.errors import ToolValidationError


class _Unprintable:
    """An object whose repr and str raise (an ORM row whose session is closed)."""

    def __repr__(self) -> str:
        raise RuntimeError("session is closed")

    def __str__(self) -> str:
        raise RuntimeError("session is closed")


class _Point(BaseModel):
    x: int


_ran: list[object] = []


@tool
def add(a: int, b: int = 0, items: list[int] | None = None, point: _Point | None = None) -> int:
    """Add two integers."""
    _ran.append(a)
    return a + b


@pytest.mark.parametrize(("args", "where"), [
    ({"a": _Unprintable()}, "'a': Input should be a valid integer (got <_Unprintable>)"),
    ({"a": 1, "zz": _Unprintable()}, "'zz' is not a parameter of this tool (got <_Unprintable>)"),
    ({"a": 1, "items": [1, _Unprintable()]}, "'items.1': Input should be a valid integer (got <_Unprintable>)"),
    ({"a": 1, "point": {"x": 1, "y": _Unprintable()}},
     "'point.y' is not an allowed field of 'point' (got <_Unprintable>)"),
    ({"a": 1, "items": 10**5000}, "(got <int>)"),
])
def test_an_unprintable_argument_gets_the_validation_error(args: dict, where: str) -> None:
    _ran.clear()
    with pytest.raises(ToolValidationError) as caught:
        add.invoke(args)
    assert str(caught.value).startswith("Invalid arguments for tool 'add': ")
    assert where in str(caught.value)
    call = {"name": "add", "args": args, "id": "c1", "type": "tool_call"}
    answer = add.invoke(call)
    assert answer.status == "error" and "Invalid arguments for tool 'add'" in answer.content
    [answer] = ToolExecutor([add]).execute(AIMessage("", tool_calls=[{**call, "id": "c2"}]))
    assert answer.status == "error" and answer.tool_call_id == "c2"
    assert "Invalid arguments for tool 'add'" in answer.content and "raised" not in answer.content
    assert _ran == []


def test_the_strict_warning_is_importable_from_errors() -> None:
    import toolwire.errors
    from toolwire.models import ChatOpenAI
    from toolwire.models.lowering import openai

    assert "StrictSchemaWarning" in toolwire.errors.__all__
    assert openai.StrictSchemaWarning is toolwire.errors.StrictSchemaWarning
    assert issubclass(toolwire.errors.StrictSchemaWarning, UserWarning)

    @tool
    def lookup(data: dict) -> str:
        """Look up a free-form record."""
        return "x"

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ChatOpenAI("gpt-4o", api_key="k").bind_tools([lookup], strict=True)
    assert [w.category for w in caught] == [toolwire.errors.StrictSchemaWarning]


@pytest.mark.parametrize(("keyword", "schema"), [
    ("minLength", {"type": "string", "minLength": 3}),
    ("maxLength", {"type": "string", "maxLength": 5}),
    ("minProperties", {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 1}),
    ("maxProperties", {"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 2}),
    ("minItems", {"type": "array", "items": {"type": "integer"}, "minItems": 2}),
    ("multipleOf", {"type": "integer", "multipleOf": 5}),
    ("uniqueItems", {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
])
def test_the_grammar_docstring_names_each_keyword_it_does_not_hold(keyword: str, schema: dict) -> None:
    from toolwire.models import grammar

    def text(value: dict) -> str:
        rules = grammar.Rules()
        return rules.text(grammar.value_rule(value, rules))

    assert text(schema) == text({k: v for k, v in schema.items() if k != keyword})  # not held
    assert f"``{keyword}``" in (grammar.__doc__ or "")


def test_public_docstrings_give_arguments_returns_and_errors() -> None:
    import inspect

    from toolwire.mcp import MCPToolList, convert_call_result
    from toolwire.models import to_tool_spec

    for name, doc, sections in [
        ("to_tool_spec", inspect.getdoc(to_tool_spec), ("Args:", "Returns:", "Raises:")),
        ("MCPToolList", inspect.getdoc(MCPToolList), ("Args:", "Raises:")),
        ("convert_call_result", inspect.getdoc(convert_call_result), ("Args:", "Returns:", "Raises:")),
    ]:
        assert all(section in (doc or "") for section in sections), name
    assert "30 seconds" in (inspect.getdoc(MCPToolList.close) or "")


@pytest.mark.parametrize("result", [5, None, "text", {"content": 5}, {"content": ["a"]},
                                    {"content": [], "structuredContent": {"x": object()}}])
def test_convert_call_result_refuses_what_is_not_an_mcp_result_in_one_sentence(result: object) -> None:
    from toolwire.mcp import convert_call_result

    with pytest.raises(TypeError, match=r"CallToolResult .*; pass .*ClientSession\.call_tool returned"):
        convert_call_result(result)


def test_convert_call_result_still_reads_a_result() -> None:
    from toolwire.mcp import convert_call_result

    assert convert_call_result({"content": [{"type": "text", "text": "hi"}], "isError": True}) == (
        "hi", {"structured_content": None, "content": [{"type": "text", "text": "hi"}]}, True)
    assert convert_call_result({"structuredContent": {"x": 1}})[0] == '{"x": 1}'


def test_mcp_tool_list_refuses_what_is_not_a_client() -> None:
    from toolwire.mcp import MCPToolList

    with pytest.raises(TypeError, match=r"^MCPToolList takes an MCPClient, not list; use load_tools\(server\)"):
        MCPToolList([add])  # type: ignore[arg-type]


# --------------------------------------------------------------------------- #6 for tools made from a JSON Schema


class _Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("session is closed")

    def __str__(self) -> str:
        raise RuntimeError("str closed")


@pytest.mark.parametrize("args", [{"a": _Unprintable()}, {"a": 1, "z": _Unprintable()}, {"a": [10**5000]},
                                  {"a": 1, _Unprintable(): 1}], ids=["value", "extra key", "long int", "key"])
def test_a_schema_tool_refuses_an_unprintable_argument_as_invalid(args: dict) -> None:
    from toolwire.errors import ToolValidationError as _Invalid
    from toolwire.interop.openai_tools import tool_from_schema

    ran: list[object] = []
    schema_tool = tool_from_schema({"type": "function", "function": {
        "name": "f", "description": "d", "parameters": {
            "type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
            "additionalProperties": False}}}, lambda **kwargs: ran.append(kwargs))
    with pytest.raises(_Invalid, match="Invalid arguments for tool 'f'"):
        schema_tool.invoke(args)
    message = schema_tool.invoke({"name": "f", "args": args, "id": "c1", "type": "tool_call"})
    assert message.status == "error" and "Invalid arguments for tool 'f'" in message.content
    assert ran == []
