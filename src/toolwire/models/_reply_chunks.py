"""A whole reply as stream chunks and back: :func:`message_to_chunks` (the stream of a model without native streaming)
and :func:`calls_as_streamed` (its whole reply's calls read as that stream reads them). Re-exported by
:mod:`toolwire.models.base` (:func:`message_to_chunks` was there until that module neared 600 lines)."""

from __future__ import annotations

import json
from collections.abc import Collection

from toolwire._call_records import _copy_containers
from toolwire.messages import AIMessage, AIMessageChunk, merge_chunks

__all__ = ["calls_as_streamed", "message_to_chunks"]


def message_to_chunks(message: AIMessage, *, pieces: int = 1) -> list[AIMessageChunk]:
    """Split a complete message into chunks that :func:`~toolwire.messages.merge_chunks` adds back up.

    Used by providers (and test models) without native streaming: ``merge_chunks(chunks).to_message()``
    equals ``message``, every field, for a message as a provider reads one (else it is what
    :func:`calls_as_streamed` gives: a call's name stripped, a call with no name invalid; and content blocks that
    share an ``index`` are merged, as blocks streamed in parts are). Text content streams as
    text fragments; list content (text and image blocks) goes whole in the first chunk; each tool call streams as
    its arguments' JSON text (so the arguments must be JSON values, as a provider's are; others are sent as their
    ``str``); invalid calls, usage, metadata and provider data go in the last chunk. Every chunk carries the message
    ``id`` and ``name``. ``pieces`` > 1 cuts each text and argument string into that many parts (fewer for a string
    shorter than that: one character each), to exercise merging.

    Args:
        message: the reply to stream.
        pieces: how many parts to cut each string into (1: whole).

    Returns:
        The chunks, in stream order; the list is never empty.
    """

    def cut(text: str) -> list[str]:
        if pieces <= 1 or len(text) <= 1:
            return [text] if text else []
        step = -(-len(text) // pieces)  # (rounded up: at most ``pieces`` parts, review 309 #1)
        return [text[i:i + step] for i in range(0, len(text), step)]

    ids = {"id": message.id, "name": message.name}
    if isinstance(message.content, list):
        chunks = [AIMessageChunk(_copy_containers(message.content), **ids)]
    else:
        chunks = [AIMessageChunk(part, **ids) for part in cut(message.content)]
    for index, call in enumerate(message.tool_calls):
        args = json.dumps(call["args"], ensure_ascii=False, default=str)
        parts = cut(args) or [""]
        for n, part in enumerate(parts):
            chunks.append(AIMessageChunk(tool_call_chunks=[{
                "name": call["name"] if n == 0 else None, "args": part, "id": call["id"] if n == 0 else None,
                "index": index, "type": "tool_call_chunk"}], **ids))
    # invalid calls travel whole, with their error, so the merged message equals the original
    chunks.append(AIMessageChunk(invalid_tool_calls=_copy_containers(message.invalid_tool_calls),
                                 usage=_copy_containers(message.usage),
                                 response_metadata=_copy_containers(message.response_metadata),
                                 provider_data=_copy_containers(message.provider_data), **ids))
    return chunks


def calls_as_streamed(message: AIMessage, tool_names: Collection[str] | None = None) -> AIMessage:
    """``message`` with its tool calls read as its stream (:func:`message_to_chunks` merged with
    :func:`~toolwire.messages.merge_chunks`) reads them: each call's name stripped, a ``{"name", "arguments"}``
    wrapper unwrapped, a call left without a name (or with arguments JSON cannot carry) made invalid
    (:meth:`~toolwire.messages.AIMessageChunk.to_message`), so that ``invoke`` and ``stream`` of a model whose stream is
    made of its whole reply give the same calls (review 236 #1). Nothing else is read again: the content (its blocks
    as they are, even two that share an ``index``), usage, metadata and the message's class are kept (review 241 #4,
    #6).

    Args:
        message: the whole reply.
        tool_names: the bound tools' names (``ChatRequest.tool_parameters``), for an unreadable call's error.

    Returns:
        ``message`` itself when its stream reads the same calls (the common case); else a copy of it, of its class
        (:meth:`~toolwire.messages.BaseMessage.copy`, with any other attribute a subclass sets), with the calls as
        read. ``message`` is never changed.
    """
    if not message.tool_calls and not message.invalid_tool_calls:
        return message
    calls_only = AIMessage("", tool_calls=message.tool_calls, invalid_tool_calls=message.invalid_tool_calls,
                           response_metadata=message.response_metadata, id=message.id)  # (its finish_reason counts)
    read = merge_chunks(message_to_chunks(calls_only), as_chunk=False, tool_names=tool_names)
    if read.tool_calls == message.tool_calls and read.invalid_tool_calls == message.invalid_tool_calls:  # type: ignore[union-attr]
        return message
    new = message.copy(tool_calls=read.tool_calls, invalid_tool_calls=read.invalid_tool_calls)  # type: ignore[union-attr]
    _carry_other_attributes(message, new)
    return new  # type: ignore[return-value]


def _carry_other_attributes(old: AIMessage, new: AIMessage) -> None:
    """Set on ``new`` the attributes of ``old`` that are no message field (a subclass's own slots or ``__dict__``),
    which :meth:`~toolwire.messages.BaseMessage.copy` does not carry."""
    fields = {name for name, _ in old._fields}
    slots = {slot for cls in type(old).__mro__ for slot in getattr(cls, "__slots__", ())
             if isinstance(slot, str) and slot not in fields and not slot.startswith("__")}
    for name in slots:
        try:
            value = object.__getattribute__(old, name)
        except AttributeError:  # (a slot never set)
            continue
        object.__setattr__(new, name, value)
    for name, value in getattr(old, "__dict__", {}).items():
        object.__setattr__(new, name, value)
