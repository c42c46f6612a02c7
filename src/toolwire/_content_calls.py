"""Tool calls and results that a conversation holds only as Anthropic content blocks (review 195 #2).

Code moving from the ``anthropic`` SDK keeps its history in that SDK's form: an assistant turn's call is a
``{"type": "tool_use", "id", "name", "input"}`` block of its content, and its result a
``{"type": "tool_result", "tool_use_id", "content", "is_error"}`` block of the next user turn. LangChain's
``AIMessage`` keeps such a block in its content with an empty ``tool_calls`` too. Read as plain content, the call
was dropped from every request while its result was still sent, which every provider refuses (Anthropic: "Each
``tool_result`` block must have a corresponding ``tool_use`` block in the previous message").
:func:`read_content_calls` reads such blocks as the calls and :class:`~toolwire.messages.ToolMessage` results they
stand for, so every provider gets a valid conversation; :func:`~toolwire.messages.coerce_messages` runs it on every
input. An :class:`~toolwire.agent.Agent` reads each model reply's ``tool_use`` blocks with :func:`content_calls` too
(:func:`~toolwire._agent_input.read_reply`), so such a call runs and gets its ToolMessage, as the same reply given
back as input would (review 226 #4).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toolwire.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = ["assistant_results", "block_call_id", "content_calls", "content_results", "read_content_calls"]

def read_content_calls(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The conversation with its Anthropic ``tool_use`` and ``tool_result`` content blocks read as calls and results.

    An AI message whose content holds a ``tool_use`` block with no call of the same id in its ``tool_calls`` or
    ``invalid_tool_calls`` gets that call (:func:`content_calls`); a human message whose content holds
    ``tool_result`` blocks becomes one ToolMessage per block, then a human message with its other blocks
    (:func:`content_results`). A ``tool_result`` block kept in an AI message, after the ``tool_use`` it answers,
    is read as that call's ToolMessage, put right after the message, which keeps its other blocks
    (:func:`assistant_results`; review 201 #4). Other messages are kept as they are (not copied).

    Args:
        messages: toolwire messages, in order.

    Returns:
        A new list of messages.

    Raises:
        UserError: a ``tool_result`` block has no ``tool_use_id`` (see :func:`content_results`), or one in an AI
            message answers no call of that message (see :func:`assistant_results`).
    """
    out: list[BaseMessage] = []
    for message in messages:
        if not isinstance(message.content, list) or not any(
                isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result") for b in message.content):
            out.append(message)
        elif isinstance(message, AIMessage):
            out.extend(assistant_results(content_calls(message)))
        elif isinstance(message, HumanMessage):
            out.extend(content_results(message))
        else:
            out.append(message)
    return out


def content_calls(message: AIMessage) -> AIMessage:
    """``message`` with each ``tool_use`` block of its content that no call of it has read as a call.

    A block is read as a provider's call: ``name``, ``input`` (an object; missing is ``{}``) and ``id`` (a number as
    its text). A block without an id (none, ``""``, a bool...) gets one made from the block itself (its place in the
    content, name and input, and the message's ``id``: :func:`block_call_id`), the same on every reading, so a
    message read again (by :func:`~toolwire.messages.coerce_messages`, a model's request, the Agent, after
    ``from_langchain_messages``) gives the same one call, never another (review 201 #1). A block is one of the
    message's calls when its id (given or made) is one of theirs; an id-less block is also one when a call of the
    message that no block names by id has the same name and arguments (a call read from it with another id). A block
    without a name, or whose ``input`` is not an object, is an invalid call
    (:func:`~toolwire.parsing.arguments.tool_call_from_native`), answered with an error as every invalid call is.
    When the message has no calls the blocks' calls are in content order; else they follow its calls. The content is
    kept as it is (the Anthropic request sends the calls once, from the calls).

    Args:
        message: an AI message.

    Returns:
        ``message`` itself when every ``tool_use`` block is one of its calls, else a new AIMessage.
    """
    from toolwire._call_records import in_reply_order, split_in_order
    from toolwire.parsing.arguments import tool_call_from_native

    records = [c for c in (*message.tool_calls, *message.invalid_tool_calls) if isinstance(c, dict)]
    have = {str(c.get("id")) for c in records}
    blocks = [(position, block) for position, block in enumerate(message.content)
              if isinstance(block, dict) and block.get("type") == "tool_use"] if isinstance(message.content,
                                                                                          list) else []
    named = {_given_id(block) for _, block in blocks} - {None}
    unclaimed = [c for c in records if str(c.get("id")) not in named]  # calls no block names by its own id
    found: list[Any] = []
    for position, block in blocks:
        block_id = _given_id(block)
        made = block_id is None
        if made:
            block_id = block_call_id(message, position, block)
        if block_id in have:
            continue
        name = block.get("name")
        call = tool_call_from_native(name if isinstance(name, str) else None, block.get("input"), block_id,
                                     require_name=True)
        if made:
            same = next((c for c in unclaimed if _same_call(c, call)), None)
            if same is not None:  # read before with another id (a LangChain call given one): not a second call
                unclaimed.remove(same)
                continue
        found.append(call)
        have.add(block_id)
    if not found:
        return message
    calls = in_reply_order(message.tool_calls, message.invalid_tool_calls, message.invalid_tool_calls)
    valid, invalid = split_in_order([*calls, *found])
    return message.model_copy(update={"tool_calls": valid, "invalid_tool_calls": invalid})  # type: ignore[return-value]


def block_call_id(message: AIMessage, position: int, block: dict[str, Any]) -> str:
    """The id of the call an id-less ``tool_use`` block of ``message`` is read as: ``"call_"`` and 24 hex digits of
    a hash of the block's ``position`` in the content, its ``name`` and ``input`` and the message's ``id`` (when
    text), so every reading of the same block gives the same id (review 201 #1). Never raises."""
    import hashlib

    from toolwire._printing import json_text

    key = [position, block.get("name"), block.get("input"), message.id if isinstance(message.id, str) else None]
    try:
        text = json.dumps(key, sort_keys=True, ensure_ascii=False, default=repr)
    except Exception:  # (keys that cannot be sorted, a circular input: still one text per block)
        text = json_text(key)
    return "call_" + hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:24]


def _given_id(block: dict[str, Any]) -> str | None:
    """A ``tool_use`` block's own id as text: a non-empty string, or a number as its text; None for anything else
    (missing, ``""``, a bool...)."""
    block_id = block.get("id")
    if isinstance(block_id, str | int) and not isinstance(block_id, bool):
        return str(block_id) or None
    return None


def _same_call(record: dict[str, Any], call: dict[str, Any]) -> bool:
    """Whether the call record ``record`` has the name and arguments of ``call`` (read from a block). Never raises."""
    try:
        return bool(record.get("name") == call.get("name") and record.get("type") == call.get("type")
                    and record.get("args") == call.get("args"))
    except Exception:  # (arguments whose == raises: not the same)
        return False


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
    if not isinstance(message.content, list):
        return [message]
    results: list[BaseMessage] = []
    rest: list[Any] = []
    for block in message.content:
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            rest.append(block)
            continue
        results.append(_result_message(block))
    if not results:
        return [message]
    if rest:
        results.append(HumanMessage(rest, id=message.id, name=message.name))
    return results


def assistant_results(message: AIMessage) -> list[BaseMessage]:
    """An AI message, then its ``tool_result`` content blocks as ToolMessages (review 201 #4).

    Anthropic puts a call's ``tool_result`` in the next user turn; a history that keeps it in the assistant turn,
    after its ``tool_use``, still holds the result, so it is read as that call's answer (as
    :func:`content_results` reads one: its ``content``, ``is_error`` and ``cache_control``), put right after the
    message, which keeps its other blocks, rather than dropped from every request with the call answered "was not
    run". Read after :func:`content_calls`, so the turn's ``tool_use`` blocks are among its calls.

    Args:
        message: an AI message.

    Returns:
        ``[message]`` when its content holds no ``tool_result`` block, else a new AIMessage without those blocks
        followed by one ToolMessage per block, in content order.

    Raises:
        UserError: a ``tool_result`` block has no ``tool_use_id``, or its id is none of the message's calls (the
            result belongs in the turn after the assistant turn that made its call).
    """
    from toolwire.errors import UserError

    if not isinstance(message.content, list) or not any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in message.content):
        return [message]
    ids = {str(c.get("id")) for c in (*message.tool_calls, *message.invalid_tool_calls) if isinstance(c, dict)}
    results: list[BaseMessage] = []
    rest: list[Any] = []
    for block in message.content:
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            rest.append(block)
            continue
        result = _result_message(block)
        if result.tool_call_id not in ids:
            raise UserError(f"An assistant message holds a tool_result block {_shown(block)} that answers none of "
                            "its tool calls; move it into the user message (or a ToolMessage) right after the "
                            "assistant message whose tool_use it answers.")
        results.append(result)
    return [message.model_copy(update={"content": rest}), *results]


def _result_message(block: dict[str, Any]) -> ToolMessage:
    """The ToolMessage a ``tool_result`` block stands for: ``ToolMessage(content, tool_call_id=tool_use_id,
    status="error" if is_error)``, its ``content`` (missing is ``""``) with a ``cache_control`` on its last text block.

    Raises:
        UserError: the block has no ``tool_use_id`` (a non-empty string or a number).
    """
    from toolwire.errors import UserError

    call_id = block.get("tool_use_id")
    if not isinstance(call_id, str | int) or isinstance(call_id, bool) or call_id == "":
        raise UserError(f"A tool_result block {_shown(block)} has no 'tool_use_id'; add the id of the tool_use "
                        "block (the call) it answers.")
    content = block.get("content")
    content = "" if content is None else content
    cache = block.get("cache_control")
    if cache is not None:
        content = _with_cache_control(content, cache)
    return ToolMessage(content, tool_call_id=str(call_id), status="error" if block.get("is_error") else "success")


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
