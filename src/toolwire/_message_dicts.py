"""Reading messages back: :func:`message_from_dict` (the inverse of :meth:`~toolwire.messages.BaseMessage.to_dict`,
and OpenAI-style ``role`` dicts) and :func:`coerce_messages` (every input shape a model or an Agent accepts).

Both are exported from :mod:`toolwire.messages`, where the message classes live.
"""

from __future__ import annotations

from typing import Any

from toolwire.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    InvalidToolCall,
    SystemMessage,
    ToolMessage,
)

__all__ = ["coerce_messages", "message_from_dict"]


_BY_TYPE: dict[str, type[BaseMessage]] = {
    "system": SystemMessage,
    "human": HumanMessage,
    "user": HumanMessage,
    "ai": AIMessage,
    "assistant": AIMessage,
    "tool": ToolMessage,
}


_FIELD_KINDS: dict[str, tuple[tuple[type, ...], str]] = {
    "id": ((str,), "a string"),
    "name": ((str,), "a string"),
    "tool_calls": ((list, tuple), "a list"),
    "invalid_tool_calls": ((list, tuple), "a list"),
    "usage": ((dict,), "a dict"),
    "response_metadata": ((dict,), "a dict"),
    "provider_data": ((dict,), "a dict"),
    "tool_call_id": ((str,), "a string"),
}


def message_from_dict(data: dict[str, Any]) -> BaseMessage:
    """Rebuild a message from :meth:`BaseMessage.to_dict` output (or an OpenAI-style ``role`` dict).

    The keys read are ``type`` (or ``role``), ``content`` and the message class's own fields: ``id`` and
    ``name``; for an AI message ``tool_calls``, ``invalid_tool_calls``, ``usage``, ``response_metadata`` and
    ``provider_data``; for a tool message ``tool_call_id``, ``status`` and ``artifact``. An AI message's
    ``tool_calls`` may be toolwire's ``{"name", "args", "id"}`` or OpenAI's ``{"id", "type": "function",
    "function": {"name", "arguments"}}``; an OpenAI call whose arguments are not a JSON object (or that has no
    name) becomes an :class:`InvalidToolCall` keeping the raw text. OpenAI's ``refusal`` text is kept in
    ``response_metadata["refusal"]``, as a provider reply gives it. Other keys (such as ``annotations`` and
    ``audio`` of an OpenAI SDK message dump) are ignored, and a field whose value is ``None`` takes its default.
    ``content`` is kept as it is (an empty list stays an empty list); a missing or ``None`` content is ``""``.

    Raises:
        UserError: ``data`` is not a dict, has no known ``type``/``role``, has a field of the wrong type (such
            as a ``content`` that is neither a string nor a list), is a tool message without ``tool_call_id``,
            or holds an OpenAI legacy ``function_call``.
    """
    from toolwire.errors import UserError

    if not isinstance(data, dict):
        raise UserError(
            f"Cannot read a message from {type(data).__name__}; give a dict such as "
            "{'role': 'user', 'content': 'hi'}."
        )
    kind = data.get("type") or data.get("role")
    cls = _BY_TYPE.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise UserError(f"Cannot read a message of type {kind!r}; use one of {sorted(set(_BY_TYPE))}.")
    content = data.get("content")
    if content is None:
        content = ""
    if not isinstance(content, str | list):
        raise UserError(
            f"Cannot read a saved {kind!r} message whose content is {type(content).__name__}; "
            "the content must be a string or a list of content blocks."
        )
    names = {name for name, _ in cls._fields if name != "content"}
    fields = {k: v for k, v in data.items() if k in names and v is not None}
    for key, value in fields.items():
        kinds, expected = _FIELD_KINDS.get(key, ((object,), ""))
        if not isinstance(value, kinds):
            raise UserError(
                f"Cannot read a saved {kind!r} message: {key!r} must be {expected}, not "
                f"{type(value).__name__}; fix or remove that key."
            )
    if cls is ToolMessage:
        if "tool_call_id" not in fields:
            raise UserError(
                f"Cannot read a saved {kind!r} message without 'tool_call_id'; add the id of the tool call it answers."
            )
        if fields.get("status", "success") not in ("success", "error"):
            raise UserError(
                f"Cannot read a saved {kind!r} message whose status is {fields['status']!r}; "
                "use 'success' or 'error'."
            )
    if cls is AIMessage:
        if data.get("function_call"):
            raise UserError(
                "Cannot read an OpenAI legacy 'function_call' message; give the call as 'tool_calls' "
                "[{'id', 'type': 'function', 'function': {'name', 'arguments'}}] instead."
            )
        if any(not isinstance(bad, dict) for bad in fields.get("invalid_tool_calls", ())):
            raise UserError(
                f"Cannot read a saved {kind!r} message: each item of 'invalid_tool_calls' must be a dict "
                "{'name', 'args', 'id', 'error'}; fix or remove that key."
            )
        if "tool_calls" in fields:
            calls, invalid = _read_calls(fields["tool_calls"])
            fields["tool_calls"] = calls
            if invalid:
                fields["invalid_tool_calls"] = [*(fields.get("invalid_tool_calls") or ()), *invalid]
        if data.get("refusal"):
            fields["response_metadata"] = {**(fields.get("response_metadata") or {}), "refusal": data["refusal"]}
    try:
        return cls(content, **fields)
    except (TypeError, ValueError) as exc:  # a backstop: the checks above should leave nothing for these
        raise UserError(f"Cannot read a saved {kind!r} message ({exc}); fix the saved data.") from None


def _read_calls(raw_calls: Any) -> tuple[list[Any], list[InvalidToolCall]]:
    """Split saved ``tool_calls`` into calls and invalid calls: OpenAI-format calls are read like a provider's
    reply (unreadable arguments or no name make an :class:`InvalidToolCall`); other items are kept as they
    are, for :class:`AIMessage` to check."""
    from toolwire.parsing.arguments import tool_call_from_native

    calls: list[Any] = []
    invalid: list[InvalidToolCall] = []
    for tc in raw_calls or ():
        fn = tc.get("function") if isinstance(tc, dict) and "args" not in tc else None
        if not isinstance(fn, dict):
            calls.append(tc)
            continue
        call = tool_call_from_native(fn.get("name"), fn.get("arguments"), tc.get("id"), require_name=True)
        if call["type"] == "tool_call":
            calls.append(call)
        else:
            invalid.append(call)  # type: ignore[arg-type]
    return calls, invalid


_ROLE_ALIASES = {"user": HumanMessage, "human": HumanMessage, "system": SystemMessage,
                 "assistant": AIMessage, "ai": AIMessage}


def _is_role_pair(value: Any) -> bool:
    """Whether ``value`` is a ``(role, text)`` tuple with a role toolwire knows."""
    return isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) and value[0] in _ROLE_ALIASES


def _from_role_pair(pair: tuple[Any, ...]) -> BaseMessage:
    """Build the message of a ``(role, text)`` tuple, or raise a UserError that says what is wrong with it."""
    from toolwire.errors import UserError

    role, content = pair
    if not isinstance(role, str) or role not in _ROLE_ALIASES:
        raise UserError(
            f"Cannot read the role {role!r} of a (role, text) tuple; use 'system', 'user' or 'assistant' "
            "(or 'human', 'ai')."
        )
    if not isinstance(content, str | list):
        raise UserError(
            f"The text of a ({role!r}, text) tuple is {type(content).__name__}; give a string or a list of "
            "content blocks."
        )
    return _ROLE_ALIASES[role](content)


def coerce_messages(value: Any) -> list[BaseMessage]:
    """Turn what a user passes to ``invoke`` into a list of messages.

    Accepts a string (one :class:`HumanMessage`), a message, a single ``(role, text)`` tuple such as
    ``("user", "hi")`` (one message), or a list of messages, strings, ``(role, text)`` tuples and
    ``{"role"|"type", "content", ...}`` dicts (read by :func:`message_from_dict`, which says which keys it reads;
    an OpenAI SDK message's ``model_dump()`` is accepted). The roles of a tuple are ``"system"``, ``"user"``
    (or ``"human"``) and ``"assistant"`` (or ``"ai"``). A tuple of two items whose first is one of these roles
    is one message; any other tuple is a sequence of messages, as a list is.

    Raises:
        UserError: an item is none of these, a tuple names an unknown role, or a dict cannot be read.
    """
    from toolwire.errors import UserError

    if isinstance(value, str):
        return [HumanMessage(value)]
    if isinstance(value, BaseMessage):
        return [value]
    if _is_role_pair(value):
        return [_from_role_pair(value)]
    if not isinstance(value, list | tuple) or not value:
        raise UserError(
            "Pass a question (a string), a message, or a non-empty list of messages; "
            f"got {type(value).__name__ if value is not None else 'None'}{' (empty)' if value == [] else ''}."
        )
    out: list[BaseMessage] = []
    for item in value:
        if isinstance(item, BaseMessage):
            out.append(item)
        elif isinstance(item, str):
            out.append(HumanMessage(item))
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
            out.append(_from_role_pair(item))
        elif isinstance(item, dict):
            out.append(message_from_dict(item))
        else:
            raise UserError(
                f"Cannot use {type(item).__name__} as a message; pass strings, messages, "
                "(role, text) tuples or {'role', 'content'} dicts."
            )
    return out
