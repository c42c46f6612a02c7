"""Messages of a tool-calling conversation, and the tool-call records they carry.

The shapes follow the field's common form (OpenAI Chat Completions, LangChain core):

* :class:`ToolCall` is the plain dict ``{"name", "args", "id", "type": "tool_call"}``, in that key
  order, so ``print(ai_message.tool_calls)`` reads as in the book chapter this project started from.
* :class:`InvalidToolCall` is ``{"name", "args", "id", "error", "type": "invalid_tool_call"}`` where
  ``args`` is the raw argument *text* the model sent (kept so nothing is lost).
* Messages (:class:`SystemMessage`, :class:`HumanMessage`, :class:`AIMessage`, :class:`ToolMessage`)
  are immutable values: attributes cannot be reassigned (use :meth:`BaseMessage.copy`), they compare by
  value, and round-trip to JSON-ready dicts with :meth:`BaseMessage.to_dict` / :func:`message_from_dict`
  so a conversation can be saved and resumed. Lists inside a message (``tool_calls``) are plain lists
  for readability; treat them as read-only.
* Streaming replies arrive as :class:`AIMessageChunk`; ``chunk_a + chunk_b`` merges two, and
  :func:`merge_chunks` merges many in linear time. ``merge_chunks(chunks).to_message()`` equals what
  ``invoke`` returns.

Content is a string or a list of content blocks (``{"type": "text", "text": ...}``,
``{"type": "image", ...}``); :attr:`BaseMessage.text` gives the text of either.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal, NotRequired, TypedDict

from toolwire.results import json_ready

__all__ = [
    "AIMessage",
    "AIMessageChunk",
    "AnyMessage",
    "BaseMessage",
    "HumanMessage",
    "InvalidToolCall",
    "SystemMessage",
    "ToolCall",
    "ToolCallChunk",
    "ToolMessage",
    "Usage",
    "coerce_messages",
    "invalid_tool_call",
    "merge_chunks",
    "message_from_dict",
    "new_tool_call_id",
    "tool_call",
]

Content = str | list[Any]


class ToolCall(TypedDict):
    """A request from the model to run one tool: ``{"name", "args", "id", "type": "tool_call"}``.

    ``args`` is the parsed argument object (a dict); ``id`` pairs the call with its
    :class:`ToolMessage` (``tool_call_id``).
    """

    name: str
    args: dict[str, Any]
    id: str | None
    type: Literal["tool_call"]


class InvalidToolCall(TypedDict):
    """A tool call the model sent that could not be parsed or resolved.

    ``args`` keeps the raw argument text exactly as the model sent it; ``error`` says what was wrong.
    The executor still answers it with one ``status="error"`` :class:`ToolMessage`.
    """

    name: str | None
    args: str | None
    id: str | None
    error: str | None
    type: Literal["invalid_tool_call"]


class ToolCallChunk(TypedDict):
    """A streamed piece of a tool call: ``args`` is a fragment of the argument JSON text.

    Pieces with the same ``index`` (or, without an index, the same ``id``) belong to one call.
    """

    name: str | None
    args: str | None
    id: str | None
    index: int | None
    type: Literal["tool_call_chunk"]


class Usage(TypedDict):
    """Token counts of one model call (tokens, not characters)."""

    input_tokens: int
    output_tokens: int
    total_tokens: int
    cached_tokens: NotRequired[int]


_ids = itertools.count(1)
_id_prefix = os.urandom(4).hex()


def new_tool_call_id() -> str:
    """Return a new tool-call id, unique within this process (``"call_<8 hex><n>"``: a random prefix made once
    per process, then a counter)."""
    return f"call_{_id_prefix}{next(_ids)}"


def tool_call(name: str, args: dict[str, Any] | None = None, id: str | None = None) -> ToolCall:
    """Build a :class:`ToolCall` dict; a missing ``id`` is generated with :func:`new_tool_call_id`."""
    return {"name": name, "args": args if args is not None else {}, "id": id or new_tool_call_id(),
            "type": "tool_call"}


def invalid_tool_call(
    name: str | None, args: str | None, id: str | None = None, error: str | None = None
) -> InvalidToolCall:
    """Build an :class:`InvalidToolCall` dict; a missing ``id`` is generated."""
    return {"name": name, "args": args, "id": id or new_tool_call_id(), "error": error,
            "type": "invalid_tool_call"}


def _id_text(value: Any) -> str | None:
    """A call id as text: None for a missing or empty one (a new id is then made), else ``str(value)``."""
    return None if value is None or value == "" else str(value)


def _checked_invalid(bad: Any) -> InvalidToolCall:
    """A copy of an invalid tool call with the shape the rest of toolwire relies on: ``id`` a non-empty
    string (made when missing), ``name``, ``args`` and ``error`` strings or None (other values as text).

    Raises:
        UserError: ``bad`` is not a dict.
    """
    if not isinstance(bad, dict):
        from toolwire.errors import UserError

        raise UserError(f"Each invalid tool call must be a dict {{'name', 'args', 'id', 'error'}}; got {bad!r:.80}.")
    out = _copy_containers(bad)
    out["id"] = _id_text(bad.get("id")) or new_tool_call_id()
    for key in ("name", "args", "error"):
        value = bad.get(key)
        if value is not None and not isinstance(value, str):
            out[key] = json.dumps(value, ensure_ascii=False, default=str) if key == "args" else str(value)
        else:
            out[key] = value
    out["type"] = "invalid_tool_call"
    return out  # type: ignore[no-any-return]


_set = object.__setattr__
_MISSING: Any = object()


_JSON_CONTAINERS = (dict, list)


def _copy_containers(value: Any) -> Any:
    """Copy nested plain dicts and lists (the JSON containers); every other value, tuples and dict or
    list subclasses included, is shared as it is."""
    kind = type(value)
    if kind is dict:
        return {k: _copy_containers(v) if type(v) in _JSON_CONTAINERS else v for k, v in value.items()}
    if kind is list:
        return [_copy_containers(v) if type(v) in _JSON_CONTAINERS else v for v in value]
    return value


def content_text(content: Content, other: Callable[[Any], str] | None = None) -> str:
    """Return the text of a message content: the string itself, or its text blocks joined by newlines.

    Args:
        content: a string or a list of strings and blocks.
        other: what to write for a block that is not text (an image, a provider block...); None leaves
            such blocks out. A text block without text is always left out.
    """
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") in ("text", None) and "text" in block:
            parts.append(str(block["text"]))
        elif other is not None and not (isinstance(block, dict) and block.get("type") == "text"):
            parts.append(other(block))
    return "\n".join(parts)


class BaseMessage:
    """An immutable message value. Subclasses set ``type`` and their own fields.

    Attributes:
        content: a string, or a list of content blocks (dicts such as ``{"type": "text", "text": ...}``).
        id: an optional message id (a provider's, or the user's).
        name: an optional name of the speaker (for a ToolMessage, the tool's name).
    """

    __slots__ = ("content", "id", "name")
    type: ClassVar[str] = "base"
    _fields: ClassVar[tuple[tuple[str, Any], ...]] = (("content", _MISSING), ("id", None), ("name", None))
    _str_fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self, content: Content = "", *, id: str | None = None, name: str | None = None) -> None:
        if not isinstance(content, (str, list)):  # (a tuple is faster than a union here)
            raise TypeError(
                f"{type(self).__name__} content must be a string or a list of content blocks, "
                f"not {type(content).__name__}."
            )
        _set(self, "content", content)
        _set(self, "id", id)
        _set(self, "name", name)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; use .copy({key}=...) to change {key!r}.")

    def __delattr__(self, key: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable.")

    @property
    def text(self) -> str:
        """The message's text: ``content`` if a string, else its text blocks joined by newlines."""
        return content_text(self.content)

    def _values(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name, _ in self._fields}

    def copy(self, **changes: Any) -> BaseMessage:
        """Return a new message of the same class with ``changes`` applied (fields by name)."""
        values = self._values()
        unknown = set(changes) - set(values)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field(s) {sorted(unknown)}.")
        values.update(changes)
        content = values.pop("content")
        return type(self)(content, **values)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict: ``{"type": ..., "content": ..., <fields that are not default>}``.

        Its lists and dicts are new ones: changing the dict never changes the message.
        """
        return self._as_dict()

    def _as_dict(self) -> dict[str, Any]:
        """:meth:`to_dict` with every value as it is (pickling keeps a ToolMessage's artifact unchanged)."""
        out: dict[str, Any] = {"type": self.type, "content": _copy_containers(self.content)}
        for name, default in self._fields[1:]:
            value = getattr(self, name)
            if value != default and value is not _MISSING:
                out[name] = _copy_containers(value)
        return out

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        parts = [f"content={self.content!r}"]
        for name in self._str_fields:
            value = getattr(self, name)
            default = dict(self._fields).get(name)
            if value != default:
                parts.append(f"{name}={value!r}")
        return " ".join(parts)

    def __repr__(self) -> str:
        parts = [f"content={self.content!r}"]
        for name, default in self._fields[1:]:
            value = getattr(self, name)
            if value != default:
                parts.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (message_from_dict, (self._as_dict(),))


class SystemMessage(BaseMessage):
    """Instructions for the model (the ``system`` role)."""

    __slots__ = ()
    type: ClassVar[str] = "system"


class HumanMessage(BaseMessage):
    """A message from the user (the ``user`` role)."""

    __slots__ = ()
    type: ClassVar[str] = "human"


class AIMessage(BaseMessage):
    """A reply from the model: text, tool calls, or both.

    Args:
        content: the reply text (``""`` when the reply is only a tool-call request) or content blocks.
        tool_calls: list of :class:`ToolCall` dicts, in the order the model sent them.
        invalid_tool_calls: list of :class:`InvalidToolCall` dicts (raw text kept).
        usage: token counts (:class:`Usage`) of the call that produced this reply, if known.
        response_metadata: provider details (model name, finish reason, timings in seconds).
        provider_data: provider-opaque data (Gemini thought signatures, Anthropic thinking blocks)
            that must be sent back unchanged with the conversation.
        id, name: as in :class:`BaseMessage`.
    """

    __slots__ = ("invalid_tool_calls", "provider_data", "response_metadata", "tool_calls", "usage")
    type: ClassVar[str] = "ai"
    _fields: ClassVar[tuple[tuple[str, Any], ...]] = (
        *BaseMessage._fields,
        ("tool_calls", []),
        ("invalid_tool_calls", []),
        ("usage", None),
        ("response_metadata", {}),
        ("provider_data", None),
    )
    _str_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "invalid_tool_calls")

    tool_calls: list[ToolCall]
    invalid_tool_calls: list[InvalidToolCall]
    usage: Usage | None
    response_metadata: dict[str, Any]
    provider_data: dict[str, Any] | None

    def __init__(
        self,
        content: Content = "",
        *,
        tool_calls: Sequence[ToolCall] | None = None,
        invalid_tool_calls: Sequence[InvalidToolCall] | None = None,
        usage: Usage | None = None,
        response_metadata: dict[str, Any] | None = None,
        provider_data: dict[str, Any] | None = None,
        id: str | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(content, id=id, name=name)
        # the message keeps its own copies, so a later change to the caller's dicts does not reach it
        calls = []
        for call in tool_calls or ():
            if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                from toolwire.errors import UserError

                raise UserError(
                    "Each tool call must be a dict {'name': str, 'args': dict, 'id': str}; "
                    f"got {call!r:.80}."
                )
            call_id = call.get("id")
            if "type" not in call or not isinstance(call_id, str) or not call_id:
                # a missing or empty id is made; a number (some servers) is kept as its text
                call = tool_call(call["name"], call.get("args") or {}, _id_text(call_id))
            calls.append(_copy_containers(call))
        _set(self, "tool_calls", calls)
        _set(self, "invalid_tool_calls", [_checked_invalid(bad) for bad in invalid_tool_calls or ()])
        _set(self, "usage", usage)
        _set(self, "response_metadata", dict(response_metadata or {}))
        _set(self, "provider_data", provider_data)


class ToolMessage(BaseMessage):
    """The result of one tool call, sent back to the model.

    Args:
        content: the result as text (or content blocks); this is what the model sees.
        tool_call_id: the ``id`` of the :class:`ToolCall` this answers (required).
        status: ``"success"`` or ``"error"``.
        artifact: the full result object for the program (never sent to the model).
        name: the tool's name.
        id: an optional message id.

    ``print(msg)`` shows ``content=... tool_call_id=...`` (and ``status='error'`` when it is one).
    """

    __slots__ = ("artifact", "status", "tool_call_id")
    type: ClassVar[str] = "tool"
    _fields: ClassVar[tuple[tuple[str, Any], ...]] = (
        *BaseMessage._fields,
        ("tool_call_id", _MISSING),
        ("status", "success"),
        ("artifact", None),
    )
    _str_fields: ClassVar[tuple[str, ...]] = ("tool_call_id", "status")

    tool_call_id: str
    status: Literal["success", "error"]
    artifact: Any

    def __init__(
        self,
        content: Content = "",
        tool_call_id: str | None = None,
        *,
        status: Literal["success", "error"] = "success",
        artifact: Any = None,
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        if tool_call_id is None:
            raise TypeError("ToolMessage needs tool_call_id: pass the 'id' of the tool call it answers.")
        if status not in ("success", "error"):
            raise ValueError(f"ToolMessage status must be 'success' or 'error', not {status!r}.")
        super().__init__(content, id=id, name=name)
        _set(self, "tool_call_id", tool_call_id)
        _set(self, "status", status)
        _set(self, "artifact", artifact)

    @classmethod
    def _made(cls, content: Content, tool_call_id: str, name: str | None, status: str, artifact: Any) -> ToolMessage:
        """A message from values already checked (the tool-call path of ``Tool.invoke``: B1 times it)."""
        msg = object.__new__(cls)
        _set(msg, "content", content)
        _set(msg, "id", None)
        _set(msg, "name", name)
        _set(msg, "tool_call_id", tool_call_id)
        _set(msg, "status", status)
        _set(msg, "artifact", artifact)
        return msg

    def to_dict(self) -> dict[str, Any]:
        """As :meth:`BaseMessage.to_dict`; ``tool_call_id`` is always present. An ``artifact`` that is not
        JSON-ready is converted as tool results are (:func:`toolwire.results.json_ready`: dates and UUIDs
        to text, ``bytes`` to base64, sets and tuples to lists, pydantic models and dataclasses to dicts,
        NaN to None, other objects to their ``str()``); a JSON-ready artifact round-trips unchanged."""
        out = self._as_dict()
        if "artifact" in out:
            out["artifact"] = json_ready(self.artifact)
        return out

    def _as_dict(self) -> dict[str, Any]:
        out = super()._as_dict()
        out["tool_call_id"] = self.tool_call_id
        return out


AnyMessage = SystemMessage | HumanMessage | AIMessage | ToolMessage

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


# streamed replies live in their own module; imported last because it builds on the classes above
from toolwire.chunks import AIMessageChunk, merge_chunks  # noqa: E402
