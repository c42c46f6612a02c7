"""Reading messages back: :func:`message_from_dict` (the inverse of :meth:`~toolwire.messages.BaseMessage.to_dict`,
and OpenAI-style ``role`` dicts) and :func:`coerce_messages` (every input shape a model or an Agent accepts).

Both are exported from :mod:`toolwire.messages`, where the message classes live.
"""

from __future__ import annotations

from typing import Any

from toolwire._legacy_calls import is_legacy_call, legacy_call, legacy_call_id
from toolwire._message_keywords import usage_from_langchain
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
    "developer": SystemMessage,  # OpenAI's name for the system role of its reasoning models
}

# LangChain's ``messages_to_dict`` form, ``{"type": ..., "data": <the message's model_dump()>}``: its types
_LC_TYPES = {"human": "human", "ai": "ai", "system": "system", "tool": "tool", "HumanMessageChunk": "human",
             "AIMessageChunk": "ai", "SystemMessageChunk": "system", "ToolMessageChunk": "tool"}
_LC_CHAT_TYPES = ("chat", "ChatMessageChunk")  # the role is in ``data["role"]``
_LC_SKIPPED = frozenset({"type", "role", "example", "tool_call_chunks", "additional_kwargs", "usage_metadata",
                         "response_metadata", "lc_attributes"})
_PROVIDER_DATA_KEY = "toolwire_provider_data"  # where toolwire.interop.langchain keeps provider_data
# where it keeps each invalid call's place in the reply, {call id: index}: LangChain's invalid_tool_call has no "index"
INDEX_KEY = "toolwire_invalid_call_index"
# an AI message's LangChain keywords, read from a flat dict (LangChain's model_dump()) as AIMessage takes them
_LC_AI_KEYWORDS = frozenset({"usage_metadata", "additional_kwargs"})
# keys read besides the message class's fields (the other keys of an OpenAI SDK dump are ignored)
_READ_KEYS = frozenset({"type", "role", "content", "function_call", "refusal"})


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
    """Rebuild a message from :meth:`BaseMessage.to_dict` output, an OpenAI-style ``role`` dict, or LangChain's
    ``messages_to_dict`` form.

    The keys read are ``type`` (or ``role``), ``content`` and the message class's own fields: ``id`` and
    ``name``; for an AI message ``tool_calls``, ``invalid_tool_calls``, ``usage``, ``response_metadata`` and
    ``provider_data``; for a tool message ``tool_call_id``, ``status`` and ``artifact``. An AI message's
    ``tool_calls`` may be toolwire's ``{"name", "args", "id"}`` or OpenAI's ``{"id", "type": "function",
    "function": {"name", "arguments"}}``; an OpenAI call whose arguments are not a JSON object (or that has no
    name) becomes an :class:`InvalidToolCall` keeping the raw text. OpenAI's ``refusal`` text is kept in
    ``response_metadata["refusal"]``, as a provider reply gives it. The ``tool_use`` content blocks (the Anthropic
    SDK's form of a call) of a ``role`` dict of an assistant message that none of its calls has are read as calls
    (:func:`toolwire._content_calls.content_calls`); a ``type`` dict (:meth:`~toolwire.messages.BaseMessage.to_dict`'s,
    LangChain's) keeps its calls as saved, as a copy or pickle does, so a call the program removed from
    ``tool_calls`` does not come back from a block left in the content (review 246 #3; :func:`coerce_messages` still
    reads such blocks, as it reads every model's input); a user message's ``tool_result`` blocks stay content here,
    and :func:`coerce_messages` reads them as ToolMessages. Other keys (such as ``annotations`` and
    ``audio`` of an OpenAI SDK message dump) are ignored, and a field whose value is ``None`` takes its default.
    An AI message's LangChain keys ``usage_metadata`` and ``additional_kwargs`` (in LangChain's flat
    ``message.model_dump()``, which :meth:`~toolwire.messages.BaseMessage.model_dump` writes too) are read as
    :class:`~toolwire.messages.AIMessage` takes those keywords, with its checks, and an OpenAI legacy
    ``function_call`` kept in ``additional_kwargs`` as the message's one tool call, as in the ``{"type", "data"}``
    form below (review 160 #4: they were dropped); other messages' are ignored, as there.
    ``content`` is kept as it is (an empty list stays an empty list); a missing or ``None`` content is ``""``,
    but a dict without ``content`` that has keys this function does not read (such as ``{"role": "user",
    "text": "hi"}``) is refused rather than read as an empty message. A tool message's content may be any
    value, made text as :class:`ToolMessage` makes it. The roles are ``system`` (and OpenAI's ``developer``,
    its name for the system role of reasoning models), ``user``/``human``, ``assistant``/``ai`` and ``tool``.

    LangChain's ``messages_to_dict`` form, ``{"type": "ai", "data": {"content", "tool_calls", "id", ...}}``
    (types ``human``, ``ai``, ``system``, ``tool``, their ``...MessageChunk`` forms, and ``chat`` with one of
    the roles above), is read as LangChain's message: ``content``, ``id``, ``name``, ``tool_calls`` and
    ``invalid_tool_calls`` (or, from older LangChain, OpenAI-format calls in ``additional_kwargs["tool_calls"]``),
    ``usage_metadata`` as ``usage`` (``input_token_details["cache_read"]`` as ``cached_tokens``),
    ``response_metadata``, and a tool message's ``tool_call_id``, ``status`` and ``artifact``. An AI message's
    ``additional_kwargs`` are kept: ``toolwire_provider_data`` (written by :mod:`toolwire.interop.langchain`)
    as ``provider_data``, ``toolwire_invalid_call_index`` (written there too) as the invalid calls' ``index``,
    ``refusal`` in ``response_metadata["refusal"]``, the others (except the raw
    ``tool_calls``) in ``response_metadata["additional_kwargs"]``; other messages' ``additional_kwargs`` and
    ``response_metadata`` are ignored, as :func:`toolwire.interop.langchain.from_langchain_messages` does.

    Args:
        data: the dict.

    Returns:
        A new :class:`SystemMessage`, :class:`HumanMessage`, :class:`AIMessage` or :class:`ToolMessage`.

    Raises:
        UserError: ``data`` is not a dict, has no known ``type``/``role``, has a field of the wrong type (such
            as a ``content`` that is neither a string nor a list), has no ``content`` but keys that are not
            read, is a tool message without ``tool_call_id``, holds an OpenAI legacy ``function_call`` that is not a
            dict or stands beside ``tool_calls`` (alone, it is read as the message's one tool call), or is
            a LangChain ``{"type", "data"}`` dict whose ``data`` is not a dict of a message toolwire has
            (LangChain's ``function`` and ``remove`` messages have none); and as :class:`AIMessage` raises for a
            ``usage_metadata`` or ``additional_kwargs`` (not a dict, a token count that is no whole number, a
            ``usage`` beside a different ``usage_metadata``).
    """
    from toolwire.errors import UserError

    if not isinstance(data, dict):
        raise UserError(
            f"Cannot read a message from {type(data).__name__}; give a dict such as "
            "{'role': 'user', 'content': 'hi'}."
        )
    if "data" in data and "content" not in data and "role" not in data:
        from toolwire._message_history import _chunk_calls_read  # (a saved chunk's calls from its raw pieces)

        data = _from_langchain_dump(_chunk_calls_read(data))  # (review 142 #3: a cut call is no valid one)
    kind = data.get("type") or data.get("role")
    cls = _BY_TYPE.get(kind) if isinstance(kind, str) else None
    if cls is None:
        known = ", ".join(sorted(_BY_TYPE))  # (a plain list, and the key the dict has: review 170 #7)
        if data.get("type"):
            raise UserError(f"Cannot read a message of type {kind!r}; use one of {known}.")
        if "role" in data:
            raise UserError(f"Cannot read a message with the role {kind!r}; use one of {known}.")
        raise UserError("Cannot read a message without a 'role'; add one, such as {'role': 'user', 'content': 'hi'}.")
    names = {name for name, _ in cls._fields if name != "content"}
    if cls is AIMessage:  # LangChain's keywords, as its flat model_dump() writes them (review 160 #4)
        names |= _LC_AI_KEYWORDS
    if "content" not in data:
        unread = sorted(str(key) for key in data if key not in names and key not in _READ_KEYS)
        if unread:
            raise UserError(
                f"Cannot read a {kind!r} message without 'content' that has the key(s) {unread}; "
                "put the message's text in 'content'."
            )
    content = data.get("content")
    if content is None:
        content = ""
    if not isinstance(content, str | list) and cls is not ToolMessage:  # a ToolMessage makes any value text
        raise UserError(
            f"Cannot read a saved {kind!r} message whose content is {type(content).__name__}; "
            "the content must be a string or a list of content blocks."
        )
    fields = {k: v for k, v in data.items() if k in names and v is not None}
    for key in ("id", "tool_call_id"):  # a number (some servers' call ids, a database key) as its text, as the
        value = fields.get(key)  # message classes take it (review 36)
        if isinstance(value, int) and not isinstance(value, bool):
            fields[key] = str(value)
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
        legacy = data.get("function_call")
        extra = fields.get("additional_kwargs")
        if not legacy and not fields.get("tool_calls") and isinstance(extra, dict) and is_legacy_call(
                extra.get("function_call")):  # where LangChain keeps it: read as the {"type", "data"} form reads it
            fields["additional_kwargs"] = {k: v for k, v in extra.items() if k != "function_call"}  # (beside calls,
            legacy = extra["function_call"]  # or no call's shape, kept there, as AIMessage keeps it: review 304 #1)
        if legacy:  # OpenAI's legacy call: read as its one tool call (review 95)
            if not isinstance(legacy, dict) or fields.get("tool_calls"):
                raise UserError(
                    "Cannot read an OpenAI legacy 'function_call' that is not a dict or stands beside 'tool_calls'; "
                    "give the call as 'tool_calls' [{'id', 'type': 'function', 'function': {'name', 'arguments'}}].")
            fields["tool_calls"] = [{"type": "function", "function": legacy,
                                     "id": legacy_call_id(legacy, fields.get("id"))}]
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
        message = cls(content, **fields)
    except (TypeError, ValueError) as exc:  # a backstop: the checks above should leave nothing for these
        raise UserError(f"Cannot read a saved {kind!r} message ({exc}); fix the saved data.") from None
    if isinstance(message, AIMessage) and not data.get("type"):  # the Anthropic SDK's form: a call only as a
        from toolwire._content_calls import content_calls  # tool_use block (review 195 #2; not a saved message's)

        return content_calls(message)
    return message


def _from_langchain_dump(dump: dict[str, Any]) -> dict[str, Any]:
    """The toolwire dict of LangChain's ``{"type", "data"}`` form of a message (see :func:`message_from_dict`).

    Raises:
        UserError: ``data`` is not a dict, or the type is not one of a message toolwire has.
    """
    from toolwire.errors import UserError

    kind, data = dump.get("type"), dump.get("data")
    if not isinstance(data, dict):
        raise UserError(
            f"Cannot read a LangChain message dict whose 'data' is {type(data).__name__}; give the dict "
            "messages_to_dict wrote, {'type': 'ai', 'data': {'content': ...}}."
        )
    if not isinstance(kind, str):
        kind = None  # (an unhashable type is refused below, as any unknown one)
    if kind in _LC_CHAT_TYPES:
        kind = data.get("role")
        if not isinstance(kind, str) or kind not in _BY_TYPE or kind == "tool":
            raise UserError(
                f"Cannot read a LangChain chat message with the role {kind!r}; use 'system', 'user' or 'assistant'."
            )
    elif kind not in _LC_TYPES:
        raise UserError(
            f"Cannot read a LangChain message of type {dump.get('type')!r}; toolwire reads the types "
            f"{', '.join(sorted({*_LC_TYPES, *_LC_CHAT_TYPES}))}."
        )
    else:
        kind = _LC_TYPES[kind]
    out = {k: v for k, v in data.items() if k not in _LC_SKIPPED}
    out["type"] = kind
    out.setdefault("content", "")
    if kind != "ai":
        return out
    extra = data.get("additional_kwargs")
    extra = dict(extra) if isinstance(extra, dict) else {}
    metadata = data.get("response_metadata")
    metadata = dict(metadata) if isinstance(metadata, dict) else metadata  # (not a dict: refused as a field)
    raw_calls = extra.pop("tool_calls", None)
    if not out.get("tool_calls") and raw_calls:  # older LangChain kept only the OpenAI-format calls here
        out["tool_calls"] = raw_calls
    if extra.get("function_call"):
        out["function_call"] = extra.pop("function_call")  # read as the legacy form it is
    if _PROVIDER_DATA_KEY in extra:
        out["provider_data"] = extra.pop(_PROVIDER_DATA_KEY)
    places = extra.pop(INDEX_KEY, None)  # each invalid call's place, kept by toolwire.interop.langchain (review 76)
    if places is not None and isinstance(out.get("invalid_tool_calls"), list | tuple):
        out["invalid_tool_calls"] = placed_invalid_calls(out["invalid_tool_calls"], places)
    if extra.get("refusal"):
        out["refusal"] = extra.pop("refusal")
    if isinstance(metadata, dict | None):
        metadata = kept_additional_kwargs(extra, metadata)
    if metadata is not None:
        out["response_metadata"] = metadata
    usage = data.get("usage_metadata")
    if usage is not None:
        out["usage"] = usage_from_langchain(usage)
    return out


def kept_additional_kwargs(extra: dict[str, Any], metadata: dict[str, Any] | None) -> dict[str, Any] | None:
    """``metadata`` (a LangChain AI message's ``response_metadata``) with the ``additional_kwargs`` toolwire has no
    field for (``reasoning_content``...) kept under ``"additional_kwargs"``, their ``None`` values left out;
    ``metadata`` itself when none is left. ``extra`` must no longer hold the keys read into fields (the raw
    ``tool_calls``, ``toolwire_provider_data``, a ``refusal``). Shared by :func:`message_from_dict` and
    :func:`toolwire.interop.langchain.from_langchain_messages`, so both keep the same data. ``metadata`` that
    already holds an ``"additional_kwargs"`` dict keeps its keys: ``extra`` is merged into it, its values winning
    (review 76: it replaced them).

    Returns:
        A new dict, or ``metadata`` unchanged (None stays None when nothing is kept).
    """
    extra = {k: v for k, v in extra.items() if v is not None}
    if not extra:
        return metadata
    kept = (metadata or {}).get("additional_kwargs")
    return {**(metadata or {}), "additional_kwargs": {**kept, **extra} if isinstance(kept, dict) else extra}


def placed_invalid_calls(invalid_calls: Any, places: Any) -> Any:
    """``invalid_calls`` with each one's ``index`` (its place among the reply's calls, see
    :class:`~toolwire.messages.InvalidToolCall`) read back from ``places``, the ``{call id: index}`` that
    :func:`toolwire.interop.langchain.to_langchain_messages` keeps in
    ``additional_kwargs["toolwire_invalid_call_index"]``, because LangChain's invalid_tool_call has no such field.

    Args:
        invalid_calls: the invalid calls (dicts; other items are left for AIMessage to refuse).
        places: the kept ``{id: index}``; anything else (the key edited by hand) places nothing.

    Returns:
        A new list: a call whose id ``places`` gives a whole number for is a new dict with that ``index``.
    """
    if not isinstance(places, dict):
        return list(invalid_calls or ())
    out = []
    for bad in invalid_calls or ():
        index = places.get(bad.get("id")) if isinstance(bad, dict) and isinstance(bad.get("id"), str) else None
        out.append({**bad, "index": index} if type(index) is int and index >= 0 else bad)
    return out


def langchain_keywords(tool_calls: Any, invalid_tool_calls: Any, usage: Any, response_metadata: Any,
                       provider_data: Any, usage_metadata: Any, additional_kwargs: Any, owner: str = "AIMessage",
                       message_id: Any = None) -> tuple[Any, Any, Any, Any, Any]:
    """:class:`~toolwire.messages.AIMessage`'s ``tool_calls``, ``invalid_tool_calls``, ``usage``,
    ``response_metadata`` and ``provider_data`` with LangChain's keywords ``usage_metadata`` and
    ``additional_kwargs`` read into them, as :func:`message_from_dict` reads LangChain's dump of a message (see
    AIMessage's docstring). ``owner`` is the class the messages name (``"AIMessageChunk"`` for a chunk). On an
    AIMessage, an OpenAI legacy ``function_call`` dict in ``additional_kwargs``, when no ``tool_calls`` are given
    (either way), is read as the message's one call (:func:`legacy_call`, its id derived from it and ``message_id``,
    review 304 #1) and leaves ``additional_kwargs``; a chunk keeps it there, to merge with later pieces, and
    :meth:`~toolwire.chunks.AIMessageChunk.to_message` reads it.

    Returns:
        The five values, in that order (new containers where something was added).

    Raises:
        UserError: ``usage`` and a different ``usage_metadata`` both given, either keyword is not a dict, or a
            token count is not a whole number of 0 or more.
    """
    from toolwire.errors import UserError

    if usage_metadata is not None:
        if not isinstance(usage_metadata, dict):
            raise UserError(f"{owner} usage_metadata must be a dict of token counts such as {{'input_tokens': 10, "
                            f"'output_tokens': 5, 'total_tokens': 15}}, not {type(usage_metadata).__name__}.")
        read = usage_from_langchain(usage_metadata)  # (a toolwire-style cached_tokens too: review 304 #3)
        if usage is not None and usage != read:
            raise UserError(f"{owner} takes the token counts once: pass usage= or usage_metadata= (LangChain's "
                            "name for it), not both.")
        usage = read
    if additional_kwargs is None:
        return tool_calls, invalid_tool_calls, usage, response_metadata, provider_data
    if not isinstance(additional_kwargs, dict):
        raise UserError(f"{owner} additional_kwargs must be a dict, not {type(additional_kwargs).__name__}.")
    extra = dict(additional_kwargs)
    raw_calls = extra.pop("tool_calls", None)
    if not tool_calls and raw_calls:  # OpenAI-format calls, as LangChain reads them when tool_calls is not given
        calls, invalid = _read_calls(raw_calls)
        tool_calls, invalid_tool_calls = calls, [*(invalid_tool_calls or ()), *invalid]
    if owner == "AIMessage" and not tool_calls and (read := legacy_call(extra, message_id)) is not None:
        del extra["function_call"]  # (OpenAI's legacy call: the message's one call, as message_from_dict reads it)
        tool_calls, invalid_tool_calls = read[0], [*(invalid_tool_calls or ()), *read[1]]
    found = extra.pop(_PROVIDER_DATA_KEY, None)
    provider_data = found if provider_data is None else provider_data
    if INDEX_KEY in extra:  # where to_langchain_messages keeps the invalid calls' places (review 76)
        invalid_tool_calls = placed_invalid_calls(invalid_tool_calls, extra.pop(INDEX_KEY))
    metadata = dict(response_metadata or {})
    if extra.get("refusal"):
        metadata["refusal"] = extra.pop("refusal")
    return tool_calls, invalid_tool_calls, usage, kept_additional_kwargs(extra, metadata), provider_data


def _read_calls(raw_calls: Any) -> tuple[list[Any], list[InvalidToolCall]]:
    """Split saved ``tool_calls`` into calls and invalid calls: OpenAI-format calls are read like a provider's
    reply (unreadable arguments or no name make an :class:`InvalidToolCall`, which a later call gives its place as
    ``index``, as :func:`~toolwire._call_records.split_in_order` does); other items are kept as they are, for
    :class:`AIMessage` to check."""
    from toolwire.parsing.arguments import tool_call_from_native

    calls: list[Any] = []
    invalid: list[tuple[int, InvalidToolCall]] = []
    last_valid = -1
    for position, tc in enumerate(raw_calls or ()):
        fn = tc.get("function") if isinstance(tc, dict) and "args" not in tc else None
        call = tc if not isinstance(fn, dict) else tool_call_from_native(
            fn.get("name"), fn.get("arguments"), tc.get("id"), require_name=True)
        if isinstance(fn, dict) and call["type"] != "tool_call":
            invalid.append((position, call))
        else:
            calls.append(call)
            last_valid = position
    return calls, [{**bad, "index": position} if position < last_valid else bad for position, bad in invalid]


_ROLE_ALIASES = {"user": HumanMessage, "human": HumanMessage, "system": SystemMessage,
                 "assistant": AIMessage, "ai": AIMessage,
                 "developer": SystemMessage}  # OpenAI's name for the system role, as in a dict (review 143 #5)


def _is_role_pair(value: Any) -> bool:
    """Whether ``value`` is a ``(role, text)`` tuple with a role toolwire knows."""
    return isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) and value[0] in _ROLE_ALIASES


def _from_role_pair(pair: tuple[Any, ...]) -> BaseMessage:
    """Build the message of a ``(role, text)`` tuple, or raise a UserError that says what is wrong with it."""
    from toolwire.errors import UserError

    role, content = pair
    if role in ("tool", "function"):  # (review 279 #2: a user turn instead would leave the call unanswered)
        raise UserError(
            f"A ({role!r}, text) tuple cannot answer a tool call, which needs its id; give "
            "ToolMessage(text, tool_call_id=...) or {'role': 'tool', 'content': text, 'tool_call_id': ...} instead."
        )
    if not isinstance(role, str) or role not in _ROLE_ALIASES:
        raise UserError(
            f"Cannot read the role {role!r} of a (role, text) tuple; use 'system', 'user' or 'assistant' "
            "(or 'human', 'ai', 'developer')."
        )
    if not isinstance(content, str | list):
        raise UserError(
            f"The text of a ({role!r}, text) tuple is {type(content).__name__}; give a string or a list of "
            "content blocks."
        )
    return _ROLE_ALIASES[role](content)


def coerce_messages(value: Any) -> list[BaseMessage]:
    """Turn what a user passes to ``invoke`` into a list of messages.

    Accepts a string (one :class:`HumanMessage`), a message (a streamed reply's merged
    :class:`~toolwire.chunks.AIMessageChunk` too, read as its ``to_message()``), a single ``(role, text)`` tuple
    such as ``("user", "hi")`` (one message), or a list of messages, strings, ``(role, text)`` tuples and
    ``{"role"|"type", "content", ...}`` dicts (read by :func:`message_from_dict`, which says which keys it reads;
    an OpenAI SDK message's ``model_dump()`` is accepted). The roles of a tuple are ``"system"`` (or OpenAI's
    ``"developer"``), ``"user"`` (or ``"human"``) and ``"assistant"`` (or ``"ai"``). A tuple of two items whose first is
    one of these roles is one message; any other tuple is a sequence of messages, as a list is. LangChain's message
    objects (``langchain_core.messages``: ``HumanMessage``, ``AIMessage`` and its chunks, ``SystemMessage``,
    ``ToolMessage``, a ``ChatMessage`` of one of these roles), alone or in a list, are converted as
    :func:`toolwire.interop.langchain.from_langchain_messages` converts them (see :func:`langchain_message`); a
    LangChain prompt value (``ChatPromptTemplate.invoke(...)``) is read as its ``to_messages()``.

    A conversation in the Anthropic SDK's form is read as the calls and results it holds (review 195 #2,
    :func:`toolwire._content_calls.read_content_calls`): an AI message's ``tool_use`` content block that none of its
    calls has (by id) becomes one of its calls, and a user message's ``tool_result`` blocks become ToolMessages
    (before a user message with the rest of its content), so every provider sends the call with its result.

    Args:
        value: the input, in any of the forms above.

    Returns:
        A new list of messages, in the given order (the messages themselves are not copied, except an AI message
        given a call from its content, and a user message split into its results and the rest).

    Raises:
        UserError: ``value`` is None, empty or of another type, an item is none of these (the message names its
            type with its package: ``a LangChain FunctionMessage``), a tuple names an unknown role, a dict cannot
            be read, or a ``tool_result`` block has no ``tool_use_id``.
    """
    from toolwire._content_calls import read_content_calls

    return read_content_calls(_coerced(value))


def _coerced(value: Any) -> list[BaseMessage]:
    """:func:`coerce_messages` before its content blocks are read as calls and results."""
    from toolwire._printing import type_label
    from toolwire.errors import UserError

    if isinstance(value, str):
        return [HumanMessage(value)]
    if isinstance(value, BaseMessage):
        return [value]
    if _is_role_pair(value):
        return [_from_role_pair(value)]
    if not isinstance(value, list | tuple) or not value:
        if (message := other_message(value)) is not None:
            return [message]
        if _is_prompt_value(value):  # a LangChain prompt's output, read as LangChain's chat models read it
            return _coerced(value.to_messages())
        if type(value).__name__ == "AgentResult" and type(value).__module__.startswith("toolwire"):  # (Pydantic AI and
            # the Agents SDK continue from their result object: review 101; only toolwire's, review 102)
            raise UserError(
                "Pass a question (a string), a message, or a non-empty list of messages, not a run's result "
                f"({type(value).__name__}): to continue its conversation, pass result.messages + [question].")
        raise UserError(
            "Pass a question (a string), a message, or a non-empty list of messages; "
            f"got {type_label(value) if value is not None else 'None'}{' (empty)' if value == [] else ''}."
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
        elif (message := other_message(item)) is not None:
            out.append(message)
        else:
            raise UserError(
                f"Cannot use {type_label(item)} as a message; pass strings, toolwire or LangChain messages, "
                "(role, text) tuples or {'role', 'content'} dicts."
            )
    return out


def _is_prompt_value(value: Any) -> bool:
    """Whether ``value`` is a LangChain prompt value (``ChatPromptTemplate.invoke(...)``'s ``ChatPromptValue``, a
    ``StringPromptValue``: a class of ``langchain_core.prompt_values``, found by its module), whose
    ``to_messages()`` gives the conversation."""
    return any(getattr(cls, "__module__", "") == "langchain_core.prompt_values" for cls in type(value).__mro__[:-1]) \
        and callable(getattr(value, "to_messages", None))


def other_message(value: Any) -> BaseMessage | None:
    """The toolwire message of a value that stands for one without being one: a streamed reply's (merged)
    :class:`~toolwire.chunks.AIMessageChunk` (its ``to_message()``, as LangChain takes a chunk wherever it takes a
    message, review 26) or a LangChain message object (:func:`langchain_message`); None for anything else.

    Raises:
        UserError: a LangChain message that toolwire has no message for (see :func:`langchain_message`).
    """
    from toolwire.chunks import AIMessageChunk

    if isinstance(value, AIMessageChunk):
        return value.to_message()
    return langchain_message(value)


_LC_MODULE = "langchain_core.messages"
_LC_ADVICE = {
    "FunctionMessage": "it answers OpenAI's legacy function_call, which toolwire does not have; send the result as a "
                       "ToolMessage with the tool_call_id of the call it answers",
    "RemoveMessage": "it tells LangGraph to delete a message from its state and is never sent to a model; leave it out",
}


def langchain_message(value: Any) -> BaseMessage | None:
    """The toolwire message of a LangChain message object (a class of ``langchain_core.messages``, found by its
    module, so LangChain is never imported for it), converted by
    :func:`toolwire.interop.langchain.from_langchain_messages`: content, id, name, tool calls, invalid tool calls,
    usage, response metadata, ``tool_call_id``, ``status`` and ``artifact`` are kept (langchain-core stays an optional
    dependency: only a LangChain object, whose package is then loaded, leads here).

    Args:
        value: anything.

    Returns:
        A new toolwire message, or None when ``value`` is not a LangChain message.

    Raises:
        UserError: ``value`` is a LangChain message of a kind toolwire has none of (a ``FunctionMessage``, a
            LangGraph ``RemoveMessage``, a ``ChatMessage`` of another role); the message says what to pass instead.
    """
    if not any(getattr(cls, "__module__", "").startswith(_LC_MODULE) for cls in type(value).__mro__[:-1]):
        return None
    kind = getattr(value, "type", None)
    if kind in _LC_TYPES or (kind in _LC_CHAT_TYPES and getattr(value, "role", None) in _ROLE_ALIASES):
        from toolwire.interop.langchain import from_langchain_messages

        return from_langchain_messages([value])[0]
    raise unconvertible_langchain(value)


def unconvertible_langchain(value: Any) -> Exception:
    """The :class:`~toolwire.errors.UserError` for a LangChain message toolwire has no message for (a
    ``FunctionMessage``, a LangGraph ``RemoveMessage``, a ``ChatMessage`` of another role), saying what to pass
    instead; shared by :func:`langchain_message` and :func:`toolwire.interop.langchain.from_langchain_messages`
    (review 97 #6)."""
    from toolwire.errors import UserError

    name = type(value).__name__
    if getattr(value, "type", None) in _LC_CHAT_TYPES:
        return UserError(f"Cannot use a LangChain {name} with the role {getattr(value, 'role', None)!r} as a message: "
                         "give it the role 'system', 'user' or 'assistant', or send a tool's result as a ToolMessage.")
    advice = _LC_ADVICE.get(name.removesuffix("Chunk"), "toolwire has no message of that kind; convert it to a "
                            "HumanMessage, AIMessage, SystemMessage or ToolMessage")
    return UserError(f"Cannot use a LangChain {name} as a message: {advice}.")
