"""LangChain's functions for saving a conversation as JSON-ready dicts and reading it back.

``messages_to_dict`` / ``messages_from_dict`` are how LangChain's chat-history code stores messages
(``langchain_core.messages.utils``): each message as ``{"type": <its type>, "data": <its model_dump()>}``. toolwire
writes the same dicts from its own messages (:meth:`~toolwire.messages.BaseMessage.model_dump` gives LangChain's
fields) and reads them, or LangChain's own, with :func:`~toolwire.messages.message_from_dict` (review 99: a porting
user found neither function). :meth:`~toolwire.messages.BaseMessage.to_dict` stays toolwire's own, shorter form.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from toolwire.errors import UserError

__all__ = ["message_to_dict", "messages_from_dict", "messages_to_dict"]


def message_to_dict(message: Any) -> dict[str, Any]:
    """One message as LangChain's ``message_to_dict`` writes it.

    Args:
        message: a toolwire message, or a streamed :class:`~toolwire.chunks.AIMessageChunk` (written with LangChain's
            type ``"AIMessageChunk"``).

    Returns:
        ``{"type": "human" | "ai" | "system" | "tool" | "AIMessageChunk", "data": message.model_dump(mode="json")}``:
        JSON-ready, so ``json.dumps`` always writes it, as LangChain's chat message histories do with it (an artifact
        holding a ``date`` gives its ISO text, as :meth:`~toolwire.messages.BaseMessage.to_dict` writes it; review
        101: LangChain's own ``model_dump()`` keeps the ``date``, and ``json.dumps`` then fails on the first one).

    Raises:
        UserError: ``message`` is not a toolwire message or chunk.
    """
    from toolwire.chunks import AIMessageChunk
    from toolwire.messages import BaseMessage

    if isinstance(message, AIMessageChunk):
        return {"type": "AIMessageChunk", "data": message.model_dump(mode="json")}
    if not isinstance(message, BaseMessage):
        raise UserError(f"message_to_dict() takes a toolwire message, not {type(message).__name__}: convert a "
                        "LangChain message with toolwire.interop.langchain.from_langchain_messages first.")
    return {"type": message.type, "data": message.model_dump(mode="json")}


def messages_to_dict(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """The messages as LangChain's ``messages_to_dict`` writes them, in order (see :func:`message_to_dict`).

    Raises:
        UserError: an item is not a toolwire message or chunk.
    """
    return [message_to_dict(m) for m in messages]


def messages_from_dict(messages: Iterable[dict[str, Any]]) -> list[Any]:
    """Read back a list of message dicts: LangChain's ``{"type", "data"}`` form (written by either library), or any
    other form :func:`~toolwire.messages.message_from_dict` reads (toolwire's ``to_dict``, OpenAI ``role`` dicts).

    Returns:
        New toolwire messages, in order (a LangChain ``AIMessageChunk`` dict as an
        :class:`~toolwire.messages.AIMessage`).

    Raises:
        UserError: an item cannot be read (the message says which field, as :func:`message_from_dict` does).
    """
    from toolwire.messages import message_from_dict

    return [message_from_dict(d) for d in messages]
