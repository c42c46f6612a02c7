"""Review 299 #2: ``Tool.invoke``/``ainvoke`` of a tool call with more keys (a stream's ``index``, arguments under
``arguments``) names the call on the error it raises with ``handle_errors=False``, as for the exact call shape, and
logs a call it answers with an error result once at DEBUG."""

from __future__ import annotations

import asyncio
import logging

import pytest

from toolwire import tool
from toolwire.errors import ToolExecutionError, ToolResultError, ToolTimeoutError, ToolValidationError


@tool(handle_errors=False)
def ok(x: int) -> int:
    """Echo x."""
    return x


@tool(handle_errors=False)
def raw(x: int) -> bytes:
    """Bytes that are not text."""
    return b"\xff\xfe"


@tool(handle_errors=False, timeout=0.01)
async def slow(x: int) -> int:
    """Wait past the timeout."""
    await asyncio.sleep(5)
    return x


SHAPES = {
    "index": lambda name, args: {"id": "call_7", "name": name, "args": args, "type": "tool_call", "index": 0},
    "arguments": lambda name, args: {"id": "call_7", "name": name, "arguments": args, "type": "tool_call"},
}


def _invoke(the_tool, call: dict, how: str):
    return the_tool.invoke(call) if how == "invoke" else asyncio.run(the_tool.ainvoke(call))


@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize(("the_tool", "args", "kind"), [(ok, {"x": "nope"}, ToolValidationError),
                                                        (raw, {"x": 1}, ToolResultError),
                                                        (slow, {"x": 1}, ToolTimeoutError)])
def test_raised_error_names_the_call(the_tool, args, kind, shape: str, how: str) -> None:
    with pytest.raises(kind) as caught:
        _invoke(the_tool, SHAPES[shape](the_tool.name, args), how)
    assert (caught.value.tool_name, caught.value.tool_call_id) == (the_tool.name, "call_7")
    if kind is ToolResultError:
        assert str(caught.value).startswith("Tool 'raw' returned bytes")


def test_shared_error_object_is_named_per_call() -> None:
    shared = ToolExecutionError("down")

    @tool(handle_errors=False)
    def down(x: int) -> int:
        """Raises one error object."""
        raise shared

    seen = []
    for call_id in ("a", "b"):
        with pytest.raises(ToolExecutionError) as caught:
            down.invoke({"id": call_id, "name": "down", "args": {"x": 1}, "type": "tool_call", "index": 0})
        seen.append(caught.value.tool_call_id)
    assert seen == ["a", "b"]


@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
def test_error_result_is_logged_once(how: str, caplog: pytest.LogCaptureFixture) -> None:
    @tool
    def echo(x: int) -> int:
        """Echo x."""
        return x

    with caplog.at_level(logging.DEBUG, logger="toolwire.tools"):
        message = _invoke(echo, SHAPES["index"]("echo", {"x": "nope"}), how)
        assert _invoke(echo, SHAPES["index"]("echo", {"x": 1}), how).status == "success"
    assert message.status == "error"
    records = [r for r in caplog.records if r.name == "toolwire.tools"]
    assert [(r.levelno, r.tool_name, r.tool_call_id) for r in records] == [(logging.DEBUG, "echo", "call_7")]


def test_error_of_a_nested_call_with_more_keys_keeps_the_inner_call() -> None:
    from toolwire import ToolExecutor

    @tool
    def export(n: int) -> str:
        """Calls raw with a call that has an index."""
        return raw.invoke(SHAPES["index"]("raw", {"x": n})).content

    with pytest.raises(ToolResultError) as caught:
        ToolExecutor([export], handle_errors=False).execute(
            [{"id": "outer_1", "name": "export", "args": {"n": 1}, "type": "tool_call"}])
    assert (caught.value.tool_name, caught.value.tool_call_id) == ("raw", "call_7")
    assert str(caught.value).startswith("Tool 'raw' returned bytes")
