"""Review 313 #3 and review 306 #3 (concurrent), #4, #5: the identity a ToolExecutionError raised for a tool call under
``handle_errors=False`` carries (``tool_name``, ``tool_call_id``).

* An error of an inner tool run with plain arguments (no call, no id) names the model's call, both attributes; its
  message still names the inner tool.
* One error object caught inside one call and raised by the tool itself in a later call with the same id names that
  later call, not the inner call of the first one.
* One error object of an inner call with a fixed id keeps that inner call's identity in concurrent outer calls too.
* Inner calls made on another thread keep their identity when the thread runs in a copy of the caller's context
  (``asyncio.to_thread``, ``contextvars.copy_context().run``); without it they are named for the outer call.
"""

from __future__ import annotations

import asyncio

import pytest

from toolwire import ToolExecutor, tool
from toolwire._failed_calls import identified
from toolwire.errors import ToolExecutionError, ToolResultError, ToolValidationError
from toolwire.messages import AIMessage


def call(call_id: str, name: str, args: object) -> dict:
    return {"id": call_id, "name": name, "args": args, "type": "tool_call"}


@tool
def inner(n: int) -> int:
    """Inner."""
    return n


@tool
def outer(q: str) -> str:
    """Calls inner with plain (bad) arguments."""
    return str(inner.invoke({"n": "not a number"}))


@tool
async def aouter(q: str) -> str:
    """Calls inner with plain (bad) arguments, awaited."""
    return str(await inner.ainvoke({"n": "not a number"}))


def _reply(name: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[call("call_A", name, {"q": "a"}), call("call_B", name, {"q": "b"})])


# -- review 313 #3: an inner call with plain arguments ----------------------------------------------------------------

@pytest.mark.parametrize("how", ["execute", "aexecute"])
@pytest.mark.parametrize("outer_tool", [outer, aouter])
def test_inner_plain_call_error_names_the_model_call(outer_tool, how: str) -> None:
    executor = ToolExecutor([outer_tool, inner], handle_errors=False)
    with pytest.raises(ToolValidationError) as caught:
        if how == "execute":
            executor.execute(_reply(outer_tool.name))
        else:
            asyncio.run(executor.aexecute(_reply(outer_tool.name)))
    assert (caught.value.tool_name, caught.value.tool_call_id) == (outer_tool.name, "call_A")
    assert "inner" in str(caught.value)  # (the message still says which tool refused the arguments)


def test_inner_plain_call_error_through_tool_invoke_names_the_call() -> None:
    strict_outer = tool(handle_errors=False)(outer.func)
    with pytest.raises(ToolValidationError) as caught:
        strict_outer.invoke(call("call_B", "outer", {"q": "b"}))
    assert (caught.value.tool_name, caught.value.tool_call_id) == ("outer", "call_B")


def test_error_naming_a_tool_but_no_call_is_named_for_the_call_message_kept() -> None:
    exc = ToolResultError("The tool returned bytes that are not UTF-8 text.", tool_name="inner")
    assert identified(exc, "outer", "c1", None) is exc
    assert (exc.tool_name, exc.tool_call_id) == ("outer", "c1")
    assert str(exc).startswith("Tool 'inner' returned bytes")  # (the tool that returned them)


def test_error_naming_its_own_call_keeps_it() -> None:
    exc = ToolExecutionError("no such tool", "ghost", "ghost_1")
    assert identified(exc, "outer", "c1", None) is exc
    assert (exc.tool_name, exc.tool_call_id) == ("ghost", "ghost_1")
