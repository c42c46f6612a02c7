"""Tool calls and results that a conversation holds only as Anthropic content blocks (review 195 #2).

Code moving from the ``anthropic`` SDK keeps its history in that SDK's form: an assistant turn's call is a
``{"type": "tool_use", "id", "name", "input"}`` block of its content, and its result a
``{"type": "tool_result", "tool_use_id", "content", "is_error"}`` block of the next user turn. LangChain's
``AIMessage`` keeps such a block in its content with an empty ``tool_calls`` too. Read as plain content, the call
was dropped from every request while its result was still sent, which every provider refuses (Anthropic: "Each
``tool_result`` block must have a corresponding ``tool_use`` block in the previous message").
:func:`read_content_calls` reads such blocks as the calls and :class:`~toolwire.messages.ToolMessage` results they
stand for, so every provider gets a valid conversation; :func:`~toolwire.messages.coerce_messages` runs it on every
input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolwire.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = ["content_calls", "content_results", "read_content_calls"]

def read_content_calls(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The conversation with its Anthropic ``tool_use`` and ``tool_result`` content blocks read as calls and results.

    An AI message whose content holds a ``tool_use`` block with no call of the same id in its ``tool_calls`` or
    ``invalid_tool_calls`` gets that call (:func:`content_calls`); a human message whose content holds
    ``tool_result`` blocks becomes one ToolMessage per block, then a human message with its other blocks
    (:func:`content_results`). Other messages are kept as they are (not copied).

    Args:
        messages: toolwire messages, in order.

    Returns:
        A new list of messages.

    Raises:
        UserError: a ``tool_result`` block has no ``tool_use_id`` (see :func:`content_results`).
    """
    out: list[BaseMessage] = []
    for message in messages:
        if not isinstance(message.content, list) or not any(
                isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result") for b in message.content):
            out.append(message)
        elif isinstance(message, AIMessage):
            out.append(content_calls(message))
        elif isinstance(message, HumanMessage):
            out.extend(content_results(message))
        else:
            out.append(message)
    return out


def content_calls(message: AIMessage) -> AIMessage:
    """``message`` with each ``tool_use`` block of its content that no call of it has (by id) read as a call.

    A block is read as a provider's call: ``name``, ``input`` (an object; missing is ``{}``) and ``id`` (a number as
    its text; missing gets a new one). A block without a name, or whose ``input`` is not an object, is an invalid
    call (:func:`~toolwire.parsing.arguments.tool_call_from_native`), answered with an error as every invalid call
    is. When the message has no calls the blocks' calls are in content order; else they follow its calls. The
    content is kept as it is (the Anthropic request sends the calls once, from the calls).

    Args:
        message: an AI message.

    Returns:
        ``message`` itself when every ``tool_use`` block is one of its calls, else a new AIMessage.
    """
    from toolwire._call_records import in_reply_order, split_in_order
    from toolwire.parsing.arguments import tool_call_from_native

    have = {str(c.get("id")) for c in (*message.tool_calls, *message.invalid_tool_calls)}
    found: list[Any] = []
    for block in message.content if isinstance(message.content, list) else ():
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            continue
        block_id = block.get("id")
        block_id = str(block_id) if isinstance(block_id, str | int) and not isinstance(block_id, bool) else None
        if block_id and block_id in have:
            continue
        name = block.get("name")
        found.append(tool_call_from_native(name if isinstance(name, str) else None, block.get("input"),
                                           block_id or None, require_name=True))
        if block_id:
            have.add(block_id)
    if not found:
        return message
    calls = in_reply_order(message.tool_calls, message.invalid_tool_calls, message.invalid_tool_calls)
    valid, invalid = split_in_order([*calls, *found])
    return message.model_copy(update={"tool_calls": valid, "invalid_tool_calls": invalid})  # type: ignore[return-value]


def content_results(message: HumanMessage) -> list[BaseMessage]:
    """A human message's ``tool_result`` blocks as ToolMessages, then the message with its other blocks.

    Each block gives ``ToolMessage(content, tool_call_id=tool_use_id, status="error" if is_error)``: its
    ``content`` (text or a list of blocks; missing is ``""``) as the result, a ``cache_control`` on its last text
    block (a text content becomes one text block), so the Anthropic request keeps it. The ToolMessages come first,
    as Anthropic puts ``tool_result`` blocks first in a user turn; the message's other blocks follow as one human
    message with its ``id`` and ``name`` (none when no other block is left). A result that answers no call is sent
    as user text that says so, as any such ToolMessage is, never as a ``tool_result`` without its ``tool_use``.

    Args:
        message: a human message.

    Returns:
        A new list of messages (``[message]`` when its content holds no ``tool_result`` block).

    Raises:
        UserError: a ``tool_result`` block has no ``tool_use_id`` (a string or a number).
    """
    from toolwire.errors import UserError

    if not isinstance(message.content, list):
        return [message]
    results: list[BaseMessage] = []
    rest: list[Any] = []
    for block in message.content:
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            rest.append(block)
            continue
        call_id = block.get("tool_use_id")
        if not isinstance(call_id, str | int) or isinstance(call_id, bool) or call_id == "":
            raise UserError(f"A tool_result block {_shown(block)} has no 'tool_use_id'; add the id of the tool_use "
                            "block (the call) it answers.")
        content = block.get("content")
        content = "" if content is None else content
        cache = block.get("cache_control")
        if cache is not None:
            content = _with_cache_control(content, cache)
        results.append(ToolMessage(content, tool_call_id=str(call_id),
                                   status="error" if block.get("is_error") else "success"))
    if not results:
        return [message]
    if rest:
        results.append(HumanMessage(rest, id=message.id, name=message.name))
    return results


def _with_cache_control(content: Any, cache: Any) -> Any:
    """``content`` with ``cache_control`` on its last text block (a text content as one text block); unchanged when
    it has no text block."""
    if isinstance(content, str):
        return [{"type": "text", "text": content, "cache_control": cache}]
    if not isinstance(content, list):
        return content
    blocks = list(content)
    for n in range(len(blocks) - 1, -1, -1):
        if isinstance(blocks[n], dict) and blocks[n].get("type") == "text":
            blocks[n] = {**blocks[n], "cache_control": cache}
            break
    return blocks


def _shown(block: dict[str, Any]) -> str:
    text = repr(block)
    return text if len(text) <= 80 else f"{text[:77]}..."
