"""OpenAI's legacy ``function_call`` (``{"name", "arguments"}``, with no id), which LangChain keeps in an AI message's
``additional_kwargs``, read as the message's one tool call with an id derived from it (review 304 #1): by
:class:`~toolwire.messages.AIMessage`'s ``additional_kwargs=``, :meth:`~toolwire.chunks.AIMessageChunk.to_message` and
:func:`~toolwire._message_dicts.message_from_dict`."""

from __future__ import annotations

from typing import Any

__all__ = ["is_legacy_call", "legacy_call", "legacy_call_id"]


def legacy_call_id(legacy: Any, message_id: Any = None) -> str:
    """The id of the tool call an OpenAI legacy ``function_call`` (``{"name", "arguments"}``, which has none) is read
    as: ``"call_"`` and 24 hex digits of a hash of its name and arguments and the message's ``id`` (when text), so
    every reading of the same message gives the same id (review 304 #1). Never raises."""
    import hashlib
    import json

    key = [legacy.get("name"), legacy.get("arguments"), message_id if isinstance(message_id, str) else None] \
        if isinstance(legacy, dict) else [repr(legacy), message_id if isinstance(message_id, str) else None]
    try:
        text = json.dumps(key, sort_keys=True, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):  # (keys that cannot be sorted, a circular value: still one text per call)
        text = repr(key)
    return "call_" + hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:24]


def is_legacy_call(value: Any) -> bool:
    """Whether ``value`` (``additional_kwargs["function_call"]``) is an OpenAI legacy call: a dict with a ``name``
    or ``arguments`` (any other value there is kept as an extra field)."""
    return isinstance(value, dict) and ("name" in value or "arguments" in value)


def legacy_call(extra: Any, message_id: Any = None) -> tuple[list[Any], list[Any]] | None:
    """The ``(calls, invalid_calls)`` of an OpenAI legacy ``function_call`` kept in ``extra`` (LangChain's
    ``additional_kwargs``): its one call, read as a provider's native call (arguments that are not a JSON object, or
    no name, make an invalid call keeping the text), with the id of :func:`legacy_call_id`; None when ``extra`` holds
    no such call (:func:`is_legacy_call`). The caller removes the key and reads it only when the message has no
    other calls."""
    legacy = extra.get("function_call") if isinstance(extra, dict) else None
    if not is_legacy_call(legacy):
        return None
    from toolwire._message_dicts import _read_calls

    return _read_calls([{"type": "function", "function": legacy, "id": legacy_call_id(legacy, message_id)}])
