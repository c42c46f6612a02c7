"""Review 250 #1: a schema-given tool whose object schema is open (no ``additionalProperties``, or ``true``) takes the
keys it does not name, as JSON Schema (and ``jsonschema``) does, and passes them on: an MCP server gets them and
decides. A Python function that cannot take such a key (no ``**kwargs``) has it refused before the call, with the
"is not a parameter" wording; ``additionalProperties: false`` keeps refusing, and the published schema is unchanged."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from toolwire.interop.openai_tools import tool_from_schema
from toolwire.mcp._listing import build_tools
from toolwire.tools import Tool


def _call(tool: Tool, args: dict[str, Any]) -> Any:
    return tool.invoke({"name": tool.name, "args": args, "id": "1", "type": "tool_call"})


def _mcp_tools(*schemas: dict[str, Any]) -> list[Tool]:
    """MCP tools listed with ``schemas`` (``t0``, ``t1``...), each calling a fake server echoing its arguments."""
    def function(mcp_name: str, tool_name: str) -> Any:
        async def call_mcp_tool(**arguments: Any) -> tuple[Any, dict[str, Any]]:
            return "server got " + json.dumps(arguments, sort_keys=True), {}
        return call_mcp_tool

    listed = [{"name": f"t{i}", "description": "Echo.", "inputSchema": schema} for i, schema in enumerate(schemas)]
    return build_tools(listed, prefix="", label="fake", timeout=None, function=function)


BARE = {"type": "object"}
PROPS = {"type": "object", "properties": {"q": {"type": "string"}}}
CLOSED = {"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": False}


def test_an_mcp_tool_with_an_open_schema_passes_the_keys_it_does_not_name_to_the_server() -> None:
    bare, props, draft7 = _mcp_tools(BARE, PROPS, {**PROPS, "$schema": "http://json-schema.org/draft-07/schema#"})
    message = _call(bare, {"color": "red"})
    assert (message.status, message.text) == ("success", 'server got {"color": "red"}')
    for tool in (props, draft7):
        message = _call(tool, {"q": "x", "color": "red"})
        assert (message.status, message.text) == ("success", 'server got {"color": "red", "q": "x"}')
    # what it names is still checked, and the published schema is the server's, as before (no key added)
    message = _call(props, {"q": 3})
    assert message.status == "error" and "'q': 3 is not of type 'string'" in message.text
    assert bare.parameters == {"type": "object", "properties": {}}
    assert props.parameters == PROPS


def test_an_mcp_tool_whose_schema_is_closed_still_refuses_other_keys() -> None:
    closed, typed = _mcp_tools(CLOSED, {"type": "object", "additionalProperties": {"type": "string"}})
    message = _call(closed, {"q": "x", "color": "red"})
    assert message.status == "error"
    assert "'color' is not a parameter of this tool (got 'red'). Its parameters are: q." in message.text
    assert _call(typed, {"color": "red"}).text == 'server got {"color": "red"}'
    message = _call(typed, {"color": 1})
    assert message.status == "error" and "It takes no arguments" not in message.text


def test_a_function_that_cannot_take_a_key_the_open_schema_lets_through_refuses_it_before_the_call() -> None:
    calls = []

    def find(q: str) -> str:
        """Find."""
        calls.append(q)
        return q

    made = Tool.from_schema(find, "find", "Find.", {**PROPS, "additionalProperties": True})
    message = _call(made, {"q": "x", "color": "red"})
    assert message.status == "error" and calls == []
    assert message.text == ("Error: Invalid arguments for tool 'find': 'color' is not a parameter of this tool "
                            "(got 'red'). Its parameters are: q.")
    assert _call(made, {"q": "x"}).text == "x"


def test_a_function_with_kwargs_gets_the_keys_an_open_schema_lets_through() -> None:
    def find(q: str, **more: Any) -> str:
        """Find."""
        return json.dumps({"q": q, **more}, sort_keys=True)

    made = Tool.from_schema(find, "find", "Find.", {**PROPS, "additionalProperties": True})
    assert _call(made, {"q": "x", "color": "red"}).text == '{"color": "red", "q": "x"}'


def test_an_open_schema_does_not_let_a_call_set_an_argument_bound_with_partial() -> None:
    def find(q: str, token: str) -> str:
        """Find."""
        return token

    made = Tool.from_schema(functools.partial(find, token="s3cr3t"), "find", "Find.",
                            {**PROPS, "additionalProperties": True})
    message = _call(made, {"q": "x", "token": "mine"})
    assert message.status == "error" and "'token' is not a parameter of this tool (got 'mine')" in message.text
    assert "s3cr3t" not in message.text


def test_an_open_schema_does_not_let_a_call_set_an_injected_argument() -> None:
    pytest.importorskip("langchain_core")
    from typing import Annotated

    from langchain_core.tools import InjectedToolCallId

    def find(q: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Find."""
        return call_id

    # (the hints as objects: this module's postponed ones name what was imported in this function)
    find.__annotations__ = {"q": str, "call_id": Annotated[str, InjectedToolCallId], "return": str}
    made = Tool.from_schema(find, "find", "Find.", {**PROPS, "additionalProperties": True})
    message = _call(made, {"q": "x", "call_id": "forged"})
    assert message.status == "error" and "'call_id' is not an argument a call may set" in message.text


def test_tool_from_schema_refuses_a_key_its_function_cannot_take_with_the_parameters_named() -> None:
    def find(q: str) -> str:
        """Find."""
        return q

    message = _call(tool_from_schema(PROPS, find), {"q": "x", "color": "red"})
    assert message.status == "error"
    assert "'color' is not a parameter of this tool (got 'red'). Its parameters are: q." in message.text


def test_tool_from_schema_keeps_its_documented_closed_reading_of_an_open_schema() -> None:
    # docs/interop.md: for a schema tool the program wrote, keys the schema does not declare are refused unless it
    # says otherwise (an MCP server's schema is read as JSON Schema reads it: the server decides)
    def anything(**given: Any) -> str:
        """Take anything."""
        return json.dumps(given, sort_keys=True)

    message = _call(tool_from_schema(PROPS, anything), {"q": "x", "color": "red"})
    assert message.status == "error" and "'color' is not a parameter" in message.text
    explicit = tool_from_schema({**PROPS, "additionalProperties": True}, anything)
    assert _call(explicit, {"q": "x", "color": "red"}).text == '{"color": "red", "q": "x"}'
