"""Tool results of LangChain's and LangGraph's kinds, read without importing either library.

A function written for LangChain may return LangChain's own ``ToolMessage`` (its documented ``InjectedToolCallId``
pattern) or a LangGraph ``Command`` (a state update for a LangGraph ``ToolNode``). Each is recognised only when its
library is already imported (it is in ``sys.modules``: an object of its class cannot exist otherwise), so toolwire
never imports LangChain for this.
"""

from __future__ import annotations

import sys
from typing import Any

from toolwire.errors import ToolExecutionError

__all__ = ["command_error", "foreign_answer", "is_foreign_answer"]


def _lc_tool_message(result: Any) -> bool:
    lc = sys.modules.get("langchain_core.messages")
    return lc is not None and isinstance(result, getattr(lc, "ToolMessage", ()))


def _lg_command(result: Any) -> bool:
    lg = sys.modules.get("langgraph.types")
    return lg is not None and isinstance(result, getattr(lg, "Command", ()))


def is_foreign_answer(result: Any) -> bool:
    """Whether ``result`` is a LangChain ``ToolMessage`` or a LangGraph ``Command`` (no import of either)."""
    return _lc_tool_message(result) or _lg_command(result)


def command_error(tool_name: str) -> ToolExecutionError:
    """The error for a tool that returned a LangGraph ``Command``, which toolwire's executor does not apply.

    Returns:
        A :class:`~toolwire.errors.ToolExecutionError` (one sentence, starting ``"Error:"`` as written for the model,
        saying what to do), for its caller to raise: the call is then answered with one ``status="error"``
        ToolMessage of that text.
    """
    return ToolExecutionError(
        f"Error: tool {tool_name!r} ran but returned a LangGraph Command (a graph state update), which toolwire's "
        "executor does not apply, so the update was not made: make the tool return the text the model should read "
        "(or a ToolMessage), or run it in a LangGraph graph's ToolNode.",
        tool_name)


def foreign_answer(result: Any, tool_name: str) -> Any:
    """``result`` as toolwire reads a tool's answer: a LangChain ``ToolMessage`` becomes toolwire's own
    :class:`~toolwire.messages.ToolMessage` (content, ``tool_call_id``, status and artifact kept; LangChain's
    ``additional_kwargs``/``response_metadata`` have no place in a tool result); anything else is returned as is.

    Args:
        result: what a tool's function returned.
        tool_name: the tool's name, for the error.

    Raises:
        ToolExecutionError: ``result`` is a LangGraph ``Command`` (see :func:`command_error`).
    """
    if _lc_tool_message(result):
        from toolwire.messages import ToolMessage

        content = result.content if isinstance(result.content, str | list) else str(result.content)
        status = result.status if result.status in ("success", "error") else "success"
        return ToolMessage(content, str(result.tool_call_id or ""), status=status, artifact=result.artifact)
    if _lg_command(result):
        raise command_error(tool_name)
    return result
