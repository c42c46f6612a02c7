"""Faults a fresh user's review found (review 71), each kept fixed by a test here; no model is loaded.

1. ``tool.invoke(tool_call)`` with a call that has no ``"id"`` (or ``None``, ``""``) returned a ToolMessage with
   ``tool_call_id=""``, which providers refuse: it is now a UserError saying to give the call an id or pass the
   arguments alone.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire import AIMessage, ToolExecutor, ToolMessage, tool
from toolwire.errors import UserError


@tool
def add(a: int) -> int:
    """Add.

    Args:
        a: a number.
    """
    return a


# -- 1: a tool call without an id --------------------------------------------------------------------------


@pytest.mark.parametrize("call", [
    {"name": "add", "args": {"a": 1}, "type": "tool_call"},
    {"name": "add", "args": {"a": 1}, "id": None, "type": "tool_call"},
    {"name": "add", "args": {"a": 1}, "id": "", "type": "tool_call"},
])
def test_invoke_refuses_a_tool_call_without_an_id(call: dict[str, Any]) -> None:
    with pytest.raises(UserError, match='non-empty "id"'):
        add.invoke(call)
    with pytest.raises(UserError, match="arguments dict alone"):
        asyncio.run(add.ainvoke(call))


def test_invoke_still_answers_a_call_with_an_id_and_plain_arguments() -> None:
    assert add.invoke({"name": "add", "args": {"a": 1}, "id": 7, "type": "tool_call"}) == ToolMessage(
        "1", tool_call_id="7", name="add")
    assert add.invoke({"a": 1}) == 1


def test_the_executor_still_answers_calls_whose_id_was_empty() -> None:
    message = AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1}, "id": ""}])
    [answer] = ToolExecutor([add]).execute(message)
    assert answer.content == "1"
    assert answer.tool_call_id == message.tool_calls[0]["id"] != ""
