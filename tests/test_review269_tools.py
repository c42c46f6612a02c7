"""Review 269 #1-#3.

#1: a sync ``functools.wraps`` wrapper that runs an ``async def`` itself and returns its value (asgiref's
``async_to_sync``, asyncer's ``syncify``, a hand-written "run this coroutine" decorator) is a sync tool, as
``inspect.iscoroutinefunction`` says; a plain wrapper that returns the coroutine of the ``async def`` it wraps is
still awaited, and a value that is not awaitable is never awaited.
#2: un-awaited coroutines inside a sync tool's result (a list or dict of them) or as its artifact, and a generator-based
``@types.coroutine`` awaitable, are refused with the sentence a top-level awaitable gets, the coroutines closed.
#3: ``tool.invoke(tool_call)`` whose arguments are a Python list or number answers as ``ToolExecutor`` does.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire import ToolExecutor, tool


def _call(args: Any, name: str = "get_time", call_id: str = "c1") -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


# -- #3 ------------------------------------------------------------------------------------------------------------

@tool
def get_time(tz: str) -> str:
    """Time in a zone."""
    return "12:00 " + tz


@pytest.mark.parametrize("args", [[1, 2], 42, 3.5, True, (1, 2)])
def test_invoke_answers_arguments_that_are_no_object_as_the_executor_does(args: Any) -> None:
    expected = ToolExecutor([get_time]).execute([_call(args)])[0]
    assert expected.status == "error" and "Send the call again" in expected.content
    for got in (get_time.invoke(_call(args)), asyncio.run(get_time.ainvoke(_call(args))),
                get_time.batch([_call(args)])[0], asyncio.run(get_time.abatch([_call(args)]))[0]):
        assert (got.content, got.status, got.tool_call_id, got.name) == (expected.content, "error", "c1", "get_time")


def test_bare_arguments_that_are_no_object_keep_their_error() -> None:
    from toolwire.errors import ToolValidationError

    with pytest.raises(ToolValidationError, match="expected a JSON object of named arguments, got list"):
        get_time.invoke([1, 2])
