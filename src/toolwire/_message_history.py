"""LangChain's functions for saving a conversation as JSON-ready dicts and reading it back.

``messages_to_dict`` / ``messages_from_dict`` are how LangChain's chat-history code stores messages
(``langchain_core.messages.utils``): each message as ``{"type": <its type>, "data": <its model_dump()>}``. toolwire
writes the same dicts from its own messages (:meth:`~toolwire.messages.BaseMessage.model_dump` gives LangChain's
fields) and reads them, or LangChain's own, with :func:`~toolwire.messages.message_from_dict` (review 99: a porting
user found neither function). :meth:`~toolwire.messages.BaseMessage.to_dict` stays toolwire's own, shorter form.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from pydantic_core import to_jsonable_python

from toolwire._result_json import distinct_keys
from toolwire.errors import UserError
from toolwire.results import json_fallback, valid_strings, valid_text

if TYPE_CHECKING:
    from toolwire._call_records import Usage

__all__ = ["langchain_usage", "message_to_dict", "messages_from_dict", "messages_to_dict"]


def message_to_dict(message: Any) -> dict[str, Any]:
    """One message as LangChain's ``message_to_dict`` writes it.

    Args:
        message: a toolwire message, or a streamed :class:`~toolwire.chunks.AIMessageChunk` (written with LangChain's
            type ``"AIMessageChunk"``, its calls as :meth:`~toolwire.chunks.AIMessageChunk.to_message` reads them: a
            call whose arguments the stream cut off is in ``invalid_tool_calls`` with its error, and
            ``tool_call_chunks`` is empty, so that neither library reads the cut call as a valid one when the dict
            is loaded back; review 142 #3).

    Returns:
        ``{"type": "human" | "ai" | "system" | "tool" | "AIMessageChunk", "data": message.model_dump(mode="json")}``
        (a chunk's ``data`` is its message's, with ``type`` ``"AIMessageChunk"``, ``tool_call_chunks`` ``[]`` and
        ``chunk_position`` None): JSON-ready, so ``json.dumps`` always writes it, as LangChain's chat message
        histories do with it (an artifact holding a ``date`` gives its ISO text, as
        :meth:`~toolwire.messages.BaseMessage.to_dict` writes it; review 101: LangChain's own ``model_dump()`` keeps
        the ``date``, and ``json.dumps`` then fails on the first one).

    Raises:
        UserError: ``message`` is not a toolwire message or chunk, or is a chunk whose content or invalid calls
            cannot make an AI message.
    """
    from toolwire.chunks import AIMessageChunk
    from toolwire.messages import BaseMessage

    if isinstance(message, AIMessageChunk):
        return {"type": "AIMessageChunk", "data": _chunk_data(message)}
    if not isinstance(message, BaseMessage):
        raise UserError(f"message_to_dict() takes a toolwire message, not {type(message).__name__}: convert a "
                        "LangChain message with toolwire.interop.langchain.from_langchain_messages first.")
    return {"type": message.type, "data": message.model_dump(mode="json")}


def _chunk_data(chunk: Any) -> dict[str, Any]:
    """The ``data`` of a saved chunk: its message's LangChain dump as the chunk's (see :func:`message_to_dict`).

    LangChain's ``AIMessageChunk`` re-reads ``tool_calls`` from non-empty ``tool_call_chunks`` as partial JSON (a cut
    call becomes a valid one without its cut arguments), and keeps the ``tool_calls`` and ``invalid_tool_calls`` it
    is given when they are empty; so none are written.

    Raises:
        UserError: the chunk cannot make an AI message.
    """
    try:
        message = chunk.to_message()
    except (TypeError, ValueError) as exc:
        if isinstance(exc, UserError):
            raise
        raise UserError(f"Cannot save this AIMessageChunk ({exc}); fix its content or invalid calls first.") from None
    data = message.model_dump(mode="json")
    data.update(type="AIMessageChunk", tool_call_chunks=[], chunk_position=None)
    return data


def messages_to_dict(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """The messages as LangChain's ``messages_to_dict`` writes them, in order (see :func:`message_to_dict`).

    Args:
        messages: toolwire messages and streamed :class:`~toolwire.chunks.AIMessageChunk` s, in order.

    Returns:
        A new list with one ``{"type", "data"}`` dict per message, JSON-ready (as :func:`message_to_dict` writes
        each; a chunk's cut-off calls are in its ``invalid_tool_calls``).

    Raises:
        UserError: ``messages`` is one message (or a string, a dict, a value that is not iterable) rather than a
            list of them (the message says to pass it in a list, or to write one with :func:`message_to_dict`;
            review 211 #2), an item is not a toolwire message or chunk, or a chunk cannot make an AI message.
    """
    _check_list(messages, "messages_to_dict")
    return [message_to_dict(m) for m in messages]


def messages_from_dict(messages: Iterable[dict[str, Any]]) -> list[Any]:
    """Read back a list of message dicts: LangChain's ``{"type", "data"}`` form (written by either library), or any
    other form :func:`~toolwire.messages.message_from_dict` reads (toolwire's ``to_dict``, OpenAI ``role`` dicts).

    An ``"AIMessageChunk"`` dict with ``tool_call_chunks`` (LangChain's dump of its chunk, or toolwire's before review
    142) has its calls read from those raw chunks, as
    :func:`~toolwire.interop.langchain.from_langchain_messages` reads a LangChain chunk, not from the ``tool_calls``
    LangChain parsed from them as partial JSON: a call whose arguments the stream cut off
    (``'{"pattern": "*.tmp", "dry_run": fa'``) is an invalid call answered with an error, never run without the cut
    arguments (review 142 #3).

    Args:
        messages: the dicts, in order (a list, or any other iterable except a string or a dict).

    Returns:
        New toolwire messages, in order (a LangChain ``AIMessageChunk`` dict as an
        :class:`~toolwire.messages.AIMessage`).

    Raises:
        UserError: ``messages`` is one dict (or a message, a string, a value that is not iterable) rather than a
            list of them (the message says to pass it in a list, or to read one with :func:`message_from_dict`;
            review 211 #2), or an item cannot be read (the message says which field, as :func:`message_from_dict`
            does).
    """
    from toolwire.messages import message_from_dict

    _check_list(messages, "messages_from_dict")

    return [message_from_dict(d) for d in messages]  # (a saved chunk's calls: _chunk_calls_read, there)


def _check_list(value: Any, function: str) -> None:
    """Refuse a ``value`` that is one item, or no list at all, where ``function`` (``"messages_to_dict"`` or
    ``"messages_from_dict"``) takes a list: a dict or a string was walked by its keys or characters (a misleading
    error about a ``str``), and one message escaped as a raw ``TypeError`` (review 211 #2).

    Raises:
        UserError: ``value`` is a dict, a string or bytes, a toolwire or LangChain message or chunk, an object or
            dict holding the list under ``messages`` (an ``AgentResult``, a LangGraph state), or not iterable; the
            message says what to pass instead.
    """
    from toolwire._printing import type_label
    from toolwire.chunks import AIMessageChunk
    from toolwire.messages import BaseMessage

    writes = function == "messages_to_dict"
    items = "messages" if writes else "message dicts"
    held = value.get("messages") if isinstance(value, Mapping) else getattr(value, "messages", None)
    if isinstance(held, list | tuple) and not isinstance(value, BaseMessage | AIMessageChunk):
        # an AgentResult (result.messages) or a LangGraph-style state dict ({"messages": [...]}): the slip of
        # leaving out .messages / ["messages"] (review 218 #6)
        name, where = ("dict", '["messages"]') if isinstance(value, Mapping) else (type_label(value), ".messages")
        raise UserError(f"{function}() takes a list of {items}, not a {name} holding them: pass its "
                        f"{where} (such as {function}(result{where})).")
    langchain = (type(value).__module__ or "").split(".")[0].startswith("langchain")
    if isinstance(value, BaseMessage | AIMessageChunk) or langchain:
        kind = type_label(value) if langchain else type(value).__name__
        advice = ("messages need no reading back; pass the dicts that messages_to_dict() wrote" if not writes
                  else "convert it with toolwire.interop.langchain.from_langchain_messages([message]) first"
                  if langchain else "pass it in a list ([message]), or write one message with message_to_dict(message)")
    elif isinstance(value, Mapping):
        kind = "dict"
        advice = ("pass it in a list ([d]), or read one dict with message_from_dict(d)" if not writes
                  else "read saved dicts back with messages_from_dict(), and pass messages here")
    elif isinstance(value, str | bytes | bytearray):
        kind = type(value).__name__
        advice = ("read saved JSON text with json.loads() first" if not writes
                  else "pass messages, such as [HumanMessage(text)]")
    elif not isinstance(value, Iterable):
        raise UserError(f"{function}() takes a list of {items}, not {'None' if value is None else type_label(value)}.")
    else:
        return
    one = "one " if isinstance(value, Mapping | BaseMessage | AIMessageChunk) else ""
    raise UserError(f"{function}() takes a list of {items}, not {one}{kind}: {advice}.")


def _chunk_calls_read(dump: Any) -> Any:
    """``dump`` with the calls of a saved ``AIMessageChunk`` read from its ``tool_call_chunks`` (see
    :func:`messages_from_dict`) into ``tool_calls`` and ``invalid_tool_calls``; any other value as it is.

    Raises:
        UserError: ``tool_call_chunks`` or ``invalid_tool_calls`` is not a list of dicts, or the pieces cannot be
            read as calls.
    """
    if not (isinstance(dump, dict) and dump.get("type") == "AIMessageChunk" and "content" not in dump
            and "role" not in dump and isinstance(data := dump.get("data"), dict) and data.get("tool_call_chunks")):
        return dump
    from types import SimpleNamespace

    from toolwire.interop._langchain_messages import _chunk_calls

    pieces, invalid = data["tool_call_chunks"], data.get("invalid_tool_calls") or []
    for key, value in (("tool_call_chunks", pieces), ("invalid_tool_calls", invalid)):
        if not isinstance(value, list | tuple) or not all(isinstance(item, dict) for item in value):
            raise UserError(f"Cannot read a saved 'AIMessageChunk' message: {key!r} must be a list of dicts; fix or "
                            "remove that key.")
    metadata = data.get("response_metadata")
    chunk = SimpleNamespace(tool_call_chunks=pieces, invalid_tool_calls=invalid,
                            response_metadata=metadata if isinstance(metadata, dict) else {})
    try:
        calls, invalid = _chunk_calls(chunk)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        if isinstance(exc, UserError):
            raise
        raise UserError(f"Cannot read a saved 'AIMessageChunk' message whose tool_call_chunks are not tool-call "
                        f"pieces ({exc}); fix or remove that key.") from None
    extra = data.get("additional_kwargs")
    if isinstance(extra, dict):  # OpenAI's raw form of the same calls (a chunk reads them only without the pieces)
        extra = {k: v for k, v in extra.items() if k != "tool_calls"}
    return {**dump, "data": {**data, "tool_calls": calls, "invalid_tool_calls": invalid, "tool_call_chunks": [],
                             "additional_kwargs": extra}}


def langchain_usage(usage: Usage | None) -> Usage | None:
    """``usage`` as LangChain's ``UsageMetadata`` gives it: a copy with ``input_token_details["cache_read"]`` when
    it has ``cached_tokens``, its other ``input_token_details`` keys (``cache_creation``, ``audio``...) kept beside it
    (review 285 #3: they were dropped, and a run's summed usage lost them), else ``usage`` itself (moved here from
    :mod:`toolwire.messages`, which re-exports it)."""
    if not usage or "cached_tokens" not in usage:
        return usage
    details = usage.get("input_token_details")
    merged = {**details} if isinstance(details, dict) else {}
    merged["cache_read"] = usage["cached_tokens"]
    return {**usage, "input_token_details": merged}


def _json_value(value: Any) -> Any:
    """A JSON-ready copy of a message field: JSON values come back equal (non-finite floats stay floats, as
    ``json.dumps`` writes them); dates and UUIDs become text, pydantic models and dataclasses their JSON form,
    ``bytes`` standard base64 text, tuples and sets lists, dict keys strings (``[key, value]`` pairs where two are
    one text: :func:`~toolwire._result_json.distinct_keys`), an array or number type with ``tolist()``
    (numpy's) its Python value, any other object its ``str()``; a lone surrogate in text, a dict key included,
    becomes U+FFFD (:func:`~toolwire.results.valid_strings`), so the dict can be written as UTF-8. (Moved here from
    :mod:`toolwire.messages`, which re-exports it.)"""
    kind = type(value)
    if kind is str:
        return value if value.isascii() else valid_text(value)
    if kind is int or kind is bool or value is None:
        return value
    with suppress(RecursionError):  # (nested too deeply: left to pydantic, as before)
        value = distinct_keys(value, saved=True)  # (keys as in a tool's result, no entry lost; standard base64)
    try:
        ready = to_jsonable_python(value, fallback=json_fallback, bytes_mode="base64", inf_nan_mode="constants")
    except UnicodeEncodeError:  # a dict key with a lone surrogate (an argument's, at any depth): pydantic cannot
        ready = to_jsonable_python(valid_strings(value), fallback=json_fallback, bytes_mode="base64",  # write it
                                   inf_nan_mode="constants")
    return valid_strings(ready)
