"""A tool calling ``sys.exit(obj)`` whose ``repr()`` raises is still "tried to exit the program" (review 176 #3).

toolwire's own ``repr()`` of the exit code raised, and that error replaced the ``SystemExit``: the model read "raised
RuntimeError: proxy target is gone", and with ``handle_errors=False`` a bare RuntimeError escaped.
"""

from __future__ import annotations

import asyncio
import sys

import pytest

from toolwire import ToolExecutor, tool
from toolwire.errors import ToolExecutionError


class Status:
    """An exit status whose repr and str fail (a proxy whose target is gone)."""

    def __repr__(self) -> str:
        raise RuntimeError("proxy target is gone")

    __str__ = __repr__


@tool
def shutdown() -> str:
    """Stop the worker."""
    sys.exit(Status())


@tool
async def ashutdown() -> str:
    """Stop the worker, async."""
    sys.exit(Status())


@tool
def shutdown_ok() -> str:
    """Stop the worker with a printable code."""
    sys.exit(3)


def _call(name: str) -> dict[str, object]:
    return {"name": name, "args": {}, "id": "c1", "type": "tool_call"}


def _text(name: str) -> str:
    return f"Error: tool '{name}' failed: Tool '{name}' tried to exit the program (sys.exit(<Status>)); it was stopped."


@pytest.mark.parametrize("timeout", [None, 5.0])
@pytest.mark.parametrize("exiting", [shutdown, ashutdown], ids=["sync", "async"])
def test_model_is_told_the_tool_tried_to_exit(exiting: object, timeout: float | None) -> None:
    name = exiting.name  # type: ignore[attr-defined]
    executor = ToolExecutor([exiting], timeout=timeout)  # type: ignore[list-item]
    assert executor.execute([_call(name)])[0].content == _text(name)
    assert asyncio.run(executor.aexecute([_call(name)]))[0].content == _text(name)
    assert exiting.invoke(_call(name)).content == _text(name)  # type: ignore[attr-defined]


@pytest.mark.parametrize("exiting", [shutdown, ashutdown], ids=["sync", "async"])
def test_handle_errors_false_raises_what_a_printable_exit_raises(exiting: object) -> None:
    with pytest.raises(ToolExecutionError) as plain:
        ToolExecutor([shutdown_ok], handle_errors=False).execute([_call("shutdown_ok")])
    name = exiting.name  # type: ignore[attr-defined]
    with pytest.raises(type(plain.value)) as info:
        ToolExecutor([exiting], handle_errors=False).execute([_call(name)])  # type: ignore[list-item]
    assert type(info.value) is type(plain.value)
    assert "tried to exit the program" in str(info.value) and "it was stopped" in str(info.value)
    with pytest.raises(ToolExecutionError, match="tried to exit the program"):
        exiting.invoke({})  # type: ignore[attr-defined]


def test_printable_exit_code_is_unchanged() -> None:
    assert shutdown_ok.invoke(_call("shutdown_ok")).content == (
        "Error: tool 'shutdown_ok' failed: Tool 'shutdown_ok' tried to exit the program (sys.exit(3)); it was stopped.")
