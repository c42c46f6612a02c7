"""A message written for people to read, in the layout of LangChain's ``pretty_repr`` (a title line of ``=``
80 characters wide, the name, the content, then an AI message's tool calls), so loops written for LangChain and
LangGraph tutorials (``for m in messages: m.pretty_print()``) print the same after a port."""

from __future__ import annotations

from typing import Any

from toolwire._printing import safe_text

__all__ = ["pretty_repr"]

WIDTH = 80  # characters of the title line


def _title(kind: str) -> str:
    """``=== Ai Message ===`` centred in :data:`WIDTH` characters (LangChain's ``get_msg_title_repr``)."""
    padded = f" {kind.title()} Message "
    side = (WIDTH - len(padded)) // 2
    return "=" * side + padded + "=" * (side + len(padded) % 2)


def _calls(title: str, calls: list[Any]) -> list[str]:
    lines = [f"{title}:"]
    for call in calls:
        lines.append(f"  {call.get('name')} ({call.get('id')})")
        lines.append(f" Call ID: {call.get('id')}")
        if error := call.get("error"):
            lines.append(f"  Error: {error}")
        args = call.get("args")
        lines.append("  Args:")
        if isinstance(args, dict):
            lines.extend(f"    {key}: {safe_text(value, str)}" for key, value in args.items())
        elif isinstance(args, str):
            lines.append(f"    {args}")
    return lines


def pretty_repr(message: Any) -> str:
    """The message as LangChain's ``BaseMessage.pretty_repr()`` writes it.

    Args:
        message: a toolwire message (its ``type`` is ``"ai"``, ``"human"``, ``"system"`` or ``"tool"``) or an
            :class:`~toolwire.chunks.AIMessageChunk` (``"AIMessageChunk"``).

    Returns:
        The title line, ``Name: ...`` when the message has a name, a blank line and the content (a list of blocks as
        Python shows it, as LangChain does); for an AI message, its ``Tool Calls:`` and ``Invalid Tool Calls:``, each
        call's name, id, error and arguments one per line (values as ``str`` shows them), the blank lines around
        trimmed. A chunk's calls are those of its ``to_message()``: a call whose streamed arguments cannot be read is
        among its invalid calls, with toolwire's error (LangChain's chunk lists it there too, without one).
    """
    head = _title(message.type) + (f"\nName: {message.name}" if message.name is not None else "")
    base = f"{head}\n\n{safe_text(message.content, str)}"
    if message.type not in ("ai", "AIMessageChunk"):
        return base
    # a chunk's own invalid_tool_calls leave out the calls its pieces make unreadable: read both as to_message() does
    valid, invalid = (message._read_calls() if message.type == "AIMessageChunk"  # (review 241 #5)
                      else (message.tool_calls, message.invalid_tool_calls))
    lines: list[str] = []
    for title, calls in (("Tool Calls", valid), ("Invalid Tool Calls", invalid)):
        if calls:
            lines.extend(_calls(title, calls))
    return (base.strip() + "\n" + "\n".join(lines)).strip()  # (an AI turn's blank lines trimmed, as LangChain's)
