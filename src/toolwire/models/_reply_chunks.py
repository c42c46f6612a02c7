"""A whole reply as stream chunks and back: :func:`message_to_chunks` (the stream of a model without native streaming)
and :func:`read_as_streamed` (its whole reply read as that stream reads). Re-exported by :mod:`toolwire.models.base`
(:func:`message_to_chunks` was there until that module neared 600 lines)."""

from __future__ import annotations

import json
from collections.abc import Collection

from toolwire._call_records import _copy_containers
from toolwire.messages import AIMessage, AIMessageChunk, merge_chunks

__all__ = ["message_to_chunks", "read_as_streamed"]


def message_to_chunks(message: AIMessage, *, pieces: int = 1) -> list[AIMessageChunk]:
    """Split a complete message into chunks that :func:`~toolwire.messages.merge_chunks` adds back up.

    Used by providers (and test models) without native streaming: ``merge_chunks(chunks).to_message()``
    equals ``message``, every field, for a message as a provider reads one (else it is what
    :func:`read_as_streamed` gives: a call's name stripped, a call with no name invalid). Text content streams as
    text fragments; list content (text and image blocks) goes whole in the first chunk; each tool call streams as
    its arguments' JSON text (so the arguments must be JSON values, as a provider's are; others are sent as their
    ``str``); invalid calls, usage, metadata and provider data go in the last chunk. Every chunk carries the message
    ``id`` and ``name``. ``pieces`` > 1 cuts each text and argument string into about that many parts, to exercise
    merging.

    Args:
        message: the reply to stream.
        pieces: about how many parts to cut each string into (1: whole).

    Returns:
        The chunks, in stream order; the list is never empty.
    """

    def cut(text: str) -> list[str]:
        if pieces <= 1 or len(text) <= 1:
            return [text] if text else []
        step = max(1, len(text) // pieces)
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


def read_as_streamed(message: AIMessage, tool_names: Collection[str] | None = None, *, pieces: int = 1) -> AIMessage:
    """``message`` read as its stream reads: :func:`message_to_chunks` merged back with ``tool_names``
    (:func:`~toolwire.messages.merge_chunks`), so each call's name is stripped, a ``{"name", "arguments"}`` wrapper
    unwrapped, a call left without a name made invalid (:meth:`~toolwire.messages.AIMessageChunk.to_message`).

    Used where a model's stream is made of its whole reply (a model that implements only :meth:`BaseChatModel._generate`
    or ``_agenerate``, and :class:`~toolwire.testing.ScriptedChatModel`), so that ``invoke`` and ``stream`` give one
    reply (review 194 #1, review 236 #1).

    Args:
        message: the whole reply.
        tool_names: the bound tools' names (``ChatRequest.tool_parameters``), for an unreadable call's error.
        pieces: as for :func:`message_to_chunks`.

    Returns:
        A new :class:`~toolwire.messages.AIMessage`.
    """
    return merge_chunks(message_to_chunks(message, pieces=pieces), as_chunk=False,  # type: ignore[return-value]
                        tool_names=tool_names)
