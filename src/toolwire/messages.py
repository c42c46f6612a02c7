"""Messages of a tool-calling conversation and the tool-call records they carry, in the field's common form (OpenAI
Chat Completions, LangChain core):

* :class:`ToolCall` is the plain dict ``{"name", "args", "id", "type": "tool_call"}``, in that key order, so
  ``print(ai_message.tool_calls)`` reads as in the book chapter this project started from.
* :class:`InvalidToolCall` is ``{"name", "args", "id", "error", "type": "invalid_tool_call"}`` where ``args`` is the
  raw argument *text* the model sent (kept so nothing is lost).
* Messages (:class:`SystemMessage`, :class:`HumanMessage`, :class:`AIMessage`, :class:`ToolMessage`) are immutable
  values: attributes cannot be reassigned (use :meth:`BaseMessage.copy`), they compare by value, and round-trip to
  JSON-ready dicts with :meth:`BaseMessage.to_dict` / :func:`message_from_dict` so a conversation can be saved and
  resumed; LangChain's ``model_copy``, ``model_dump`` and ``content_blocks`` work too (:mod:`toolwire._message_compat`).
  Lists inside a message (``tool_calls``) are plain lists for readability; treat them as read-only.
* Streaming replies arrive as :class:`AIMessageChunk`; ``chunk_a + chunk_b`` merges two, and :func:`merge_chunks`
  merges many in linear time. ``merge_chunks(chunks).to_message()`` equals what ``invoke`` returns.

Content is a string or a list of content blocks (``{"type": "text", "text": ...}``, ``{"type": "image", ...}``);
:attr:`BaseMessage.text` gives the text of either. A :class:`ToolMessage` takes any value as content and makes it
text as a tool's result is written (a number, a dict...), as LangChain's does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, ClassVar, Literal

from toolwire._call_records import (
    InvalidToolCall,
    ToolCall,
    ToolCallChunk,
    Usage,
    _checked_calls,
    _copy_containers,
    invalid_tool_call,
    new_tool_call_id,
    tool_call,
)
from toolwire._message_compat import LangChainMessageAPI
from toolwire._message_keywords import checked_usage, langchain_keys
from toolwire._message_pydantic import AnyMessageSchema
from toolwire._printing import safe_text
from toolwire._tool_message_content import _tool_content
from toolwire.results import (
    json_ready,
    valid_blocks,
    valid_strings,
    valid_text,
)

__all__ = [
    "AIMessage",
    "AIMessageChunk",
    "AnyMessage",
    "BaseMessage",
    "HumanMessage",
    "InvalidToolCall",
    "MessageText",
    "SystemMessage",
    "ToolCall",
    "ToolCallChunk",
    "ToolMessage",
    "Usage",
    "coerce_messages",
    "invalid_tool_call",
    "merge_chunks",
    "message_from_dict",
    "message_to_dict",
    "messages_from_dict",
    "messages_to_dict",
    "new_tool_call_id",
    "tool_call",
]

Content = str | list[Any]


_set = object.__setattr__
_MISSING: Any = object()
_type = type  # (the constructors take LangChain's ``type`` keyword, which hides the builtin there)


def _is_default(value: Any, default: Any) -> bool:
    """Whether a field holds its default: ``None`` by identity (an artifact such as a numpy array does not
    compare to None as a bool), other defaults (``[]``, ``{}``, ``"success"``) by value."""
    if default is None:
        return value is None
    return value is _MISSING or value == default


def _ascii(value: Any) -> bool:
    """Whether every string of ``value`` (JSON-like: dicts, lists), keys included, is ASCII: the quick test before
    :func:`~toolwire.results.valid_strings` (which holds for any other value). Never raises."""
    kind = type(value)
    if kind is str:
        return value.isascii()  # type: ignore[no-any-return]
    if kind is dict:
        for key, item in value.items():
            if (type(key) is str and not key.isascii()) or (type(item) not in _SCALARS and not _ascii(item)):
                return False
    elif kind is list:
        for item in value:
            if type(item) not in _SCALARS and not _ascii(item):
                return False
    return True


_SCALARS = frozenset({int, float, bool, type(None)})


def is_text_block(item: Any) -> bool:
    """Whether ``item`` is a text content block: a dict of ``"type": "text"`` whose ``"text"`` is a string (other keys,
    such as ``cache_control``, allowed), or Gemini's and Bedrock Converse's one-key ``{"text": str}``, as
    langchain-core reads them. Any other dict with a ``"text"`` key (a tool's record ``{"url", "title", "text"}``,
    a ``"text"`` that is None or a number) is data, not text (review 229 #1)."""
    if not isinstance(item, dict) or not isinstance(item.get("text"), str):
        return False
    return item.get("type") == "text" or ("type" not in item and len(item) == 1)


def content_text(content: Content, other: Callable[[Any], str] | None = None, sep: str = "") -> str:
    """Return the text of a message content: the string itself, or its text blocks joined by ``sep``.

    Args:
        content: a string or a list of strings and blocks.
        other: what to write for a block that is not text (:func:`is_text_block`: an image, a provider block, a
            tool's record that has a ``"text"`` key among others...); None leaves such blocks out, as LangChain's
            ``.text`` does.
        sep: what goes between the parts: nothing by default, as LangChain's ``.text`` and the providers' own
            readers (OpenAI's ``output_text``, google-genai's ``response.text``) join text blocks, since a block
            may end mid-sentence (Anthropic's text around a citation, a streamed block); a newline where the parts
            are separate items (a local model's prompt with a note for an image).
    """
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif is_text_block(block):
            parts.append(block["text"])
        elif other is not None:
            parts.append(other(block))
    return sep.join(parts)


class MessageText(str):
    """A message's text (a ``str``), also callable as LangChain's older ``message.text()`` method was: calling it
    returns the same text as a plain ``str``, so code written for either form runs unchanged."""

    __slots__ = ()

    def __call__(self) -> str:
        """Return the text as a plain ``str``."""
        return str(self)


class BaseMessage(LangChainMessageAPI):
    """An immutable message value. Subclasses set ``type`` and their own fields.

    Attributes:
        content: a string, or a list of content blocks (dicts such as ``{"type": "text", "text": ...}``). A string
            holding a lone surrogate (text decoded from bytes that were not UTF-8, with ``surrogateescape``: a file
            name from ``os.listdir``, ``sys.argv``) has it replaced by U+FFFD (:func:`toolwire.results.valid_text`),
            as such text cannot be encoded as UTF-8 to be sent or saved; so has the text of a text block in a list.
            An image, audio, file or video block's data given as ``bytes`` is kept as standard base64 text.
        id: an optional message id (a provider's, or the user's; another value, such as an integer database key,
            is kept as its text).
        name: an optional name of the speaker (for a ToolMessage, the tool's name; kept as text, U+FFFD for a lone
            surrogate, as in content).
        additional_kwargs: LangChain's keyword, taken when empty (``{}`` or None), as LangChain code passes it
            (:class:`AIMessage` keeps its values; see there); ``response_metadata`` likewise.
        type: LangChain's keyword, taken when it is the class's own :attr:`type` (``"human"``...) or None, so a
            message is rebuilt from its own ``model_dump()`` as LangChain rebuilds one: ``cls(**data)``.

    Raises:
        TypeError: ``content`` is neither a string nor a list, or a list holding an item that is neither text nor a
            content-block dict.
        UserError: a non-empty ``additional_kwargs`` or ``response_metadata`` (a system, user or tool message has no
            place for it: the message says where such data goes), or a ``type`` other than the class's own.
    """

    __slots__ = ("content", "id", "name")
    content: Content  # (annotations only, set through _set: declared so type checkers know them, review 166 #1)
    id: str | None
    name: str | None
    type: ClassVar[str] = "base"
    _fields: ClassVar[tuple[tuple[str, Any], ...]] = (("content", _MISSING), ("id", None), ("name", None))
    _str_fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self, content: Content = "", *, id: str | None = None, name: str | None = None,
                 additional_kwargs: dict[str, Any] | None = None, response_metadata: dict[str, Any] | None = None,
                 type: str | None = None) -> None:
        if additional_kwargs or response_metadata or type is not None:  # (review 195 #5: model_dump's keys)
            langchain_keys(self, type, additional_kwargs, response_metadata)
        if not isinstance(content, (str, list)):  # (a tuple is faster than a union here)
            raise TypeError(
                f"{_type(self).__name__} content must be a string or a list of content blocks, "
                f"not {_type(content).__name__}."
            )
        if _type(content) is str:
            if not content.isascii():
                content = valid_text(content)  # a lone surrogate (bytes that were not UTF-8) could never be sent
        else:
            for block in content:
                if not isinstance(block, str | dict):  # (a provider would silently drop it: the 42 in
                    raise TypeError(  # HumanMessage(["The order number is", 42]), review 37)
                        f"{_type(self).__name__} content items must be text or content-block dicts, not "
                        f"{_type(block).__name__} ({safe_text(block):.40}): write it as text.")
            content = valid_blocks(content)
        if id is not None and _type(id) is not str:  # an integer database key, a UUID: kept as its text, so the
            id = safe_text(id, str)  # message can be saved, copied and read back (review 36)
        if name is not None and (_type(name) is not str or not name.isascii()):  # (a lone surrogate: U+FFFD, as in
            name = valid_text(name if _type(name) is str else safe_text(name, str))  # content; review 246 #2)
        _set(self, "content", content)
        _set(self, "id", id)
        _set(self, "name", name)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; use .copy({key}=...) or LangChain's "
                             f".model_copy(update={{{key!r}: ...}}) to change {key!r}.")

    def __delattr__(self, key: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable.")

    @property
    def text(self) -> MessageText:
        """The message's text (a ``str``): ``content`` if a string, else its text blocks joined with nothing
        between them, as LangChain joins them (:func:`content_text`). ``message.text()`` gives the same text."""
        return MessageText(content_text(self.content))

    def _values(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name, _ in self._fields}

    def copy(self, **changes: Any) -> BaseMessage:
        """Return a new message of the same class with ``changes`` applied (fields by name).

        ``copy(update={...}, deep=...)``, pydantic v1's spelling that LangChain's messages inherit, is taken as
        :meth:`model_copy` is, with a ``DeprecationWarning`` naming ``model_copy`` (as pydantic 2 warns there); see
        :func:`toolwire._message_compat.v1_copy`.

        Args:
            **changes: new field values by name (``content=``, ``id=``, ``tool_calls=``...); others are kept.

        Raises:
            TypeError: a name in ``changes`` is not a field of this class, or ``update=``/``deep=`` come with
                field keywords.
        """
        if "update" in changes or "deep" in changes:  # (no message has such a field)
            from toolwire._message_compat import v1_copy

            return v1_copy(self, changes)  # type: ignore[no-any-return]
        values = self._values()
        unknown = set(changes) - set(values)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field(s) {sorted(unknown)}.")
        values.update(changes)
        content = values.pop("content")
        return type(self)(content, **values)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict: ``{"type": ..., "content": ..., <fields that are not default>}``.

        ``json.dumps`` can write every value: values JSON already holds are kept as they are (equal, non-finite
        floats included), and the others are converted as tool results are: dates, times and UUIDs to
        ISO/text, pydantic models and dataclasses to their JSON form, ``bytes`` to standard base64 text, tuples
        and sets to lists, dict keys to strings (a dict two of whose keys are one text, ``1`` and ``"1"``, to the
        list of its ``[key, value]`` pairs), any other object to its ``str()``. :func:`message_from_dict` reads
        the dict back into an equal message when every value was already JSON (converted values come back in their
        JSON form). Its lists and dicts are new ones: changing the dict never changes the message.

        Returns:
            A new dict of strings, numbers, bools, None, lists and dicts.
        """
        return self._as_dict(as_json=True)

    def _as_dict(self, as_json: bool = False) -> dict[str, Any]:
        """:meth:`to_dict` (``as_json``; an ``artifact`` is made JSON-ready by :func:`json_ready`), or, with
        ``as_json`` False, every value as it is, containers copied (pickling keeps an artifact unchanged)."""
        convert = _json_value if as_json else _copy_containers
        out: dict[str, Any] = {"type": self.type, "content": convert(self.content)}
        for name, default in self._fields[1:]:
            value = getattr(self, name)
            if not _is_default(value, default):
                out[name] = json_ready(value) if as_json and name == "artifact" else convert(value)
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
            if not _is_default(value, dict(self._fields).get(name)):
                parts.append(f"{name}={value!r}")
        return " ".join(parts)

    def __repr__(self) -> str:
        parts = [f"content={self.content!r}"]
        for name, default in self._fields[1:]:
            value = getattr(self, name)
            if not _is_default(value, default):
                parts.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (message_from_dict, (self._as_dict(),))

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """Messages as pydantic fields (``messages: list[BaseMessage]``, ``AnyMessage``, ``AIMessage``), as
        LangChain's are: read from messages and the dicts :func:`message_from_dict` reads (a field of one class also
        from a dict without ``type``, wherever the class is used: give the ``type`` in a union), written as
        :meth:`model_dump`, with a JSON Schema that requires what validation needs (see
        :mod:`toolwire._message_pydantic`; review 312 #6, review 319 #1, #2, review 324 #1).
        ``AIMessageChunk`` is not a message class and cannot be a field."""
        from toolwire._message_pydantic import message_core_schema

        return message_core_schema(cls)

    def pretty_repr(self) -> str:
        """The message laid out for people, as LangChain's ``pretty_repr()`` lays it out (a title line of
        ``=``, the name, the content, an AI message's tool calls with their arguments one per line)."""
        from toolwire._pretty import pretty_repr

        return pretty_repr(self)

    def pretty_print(self) -> None:
        """Print :meth:`pretty_repr` (LangChain's ``pretty_print()``, used in tutorials' message loops)."""
        print(self.pretty_repr())


class SystemMessage(BaseMessage):
    """Instructions for the model (the ``system`` role).

    Args:
        content, id, name, additional_kwargs, response_metadata, type: as :class:`BaseMessage` takes them: text or
            content blocks, an optional id and name (kept as text), LangChain's ``additional_kwargs`` and
            ``response_metadata`` only when empty, and its ``type`` only when ``"system"``.
    Raises:
        TypeError: ``content`` is neither a string nor a list of text and content-block dicts.
        UserError: a non-empty ``additional_kwargs`` or ``response_metadata`` (the message says where such data
            goes), or another ``type``."""

    __slots__ = ()
    type: ClassVar[str] = "system"


class HumanMessage(BaseMessage):
    """A message from the user (the ``user`` role).

    Args:
        content, id, name, additional_kwargs, response_metadata, type: as :class:`SystemMessage` takes them (``type``
            only when ``"human"``).
    Raises:
        TypeError, UserError: as :class:`SystemMessage` raises them (bad content; a non-empty ``additional_kwargs``
            or ``response_metadata``; another ``type``)."""

    __slots__ = ()
    type: ClassVar[str] = "human"


class AIMessage(BaseMessage):
    """A reply from the model: text, tool calls, or both.

    Args:
        content: the reply text (``""`` when the reply is only a tool-call request) or content blocks.
        tool_calls: list of :class:`ToolCall` dicts, in the order the model sent them. A call's arguments under
            another library's key (``arguments``, Anthropic's ``input``, Llama's ``parameters``) are read as its
            ``args``; a call giving different arguments under two of these keys becomes an invalid call.
        invalid_tool_calls: list of :class:`InvalidToolCall` dicts (raw text kept).
        usage: token counts (:class:`Usage`) of the call that produced this reply, if known (kept as a copy, read as
            ``usage_metadata`` is: a missing ``total_tokens`` is the sum, ``input_token_details["cache_read"]`` is
            ``cached_tokens``, an empty details dict is left out, so the message's dumps read back equal); also read
            as :attr:`usage_metadata`.
        response_metadata: provider details (model name, finish reason, timings in seconds).
        provider_data: provider-opaque data (Gemini thought signatures, Anthropic thinking blocks)
            that must be sent back unchanged with the conversation.
        id, name: as in :class:`BaseMessage`.
        usage_metadata: LangChain's keyword for ``usage`` (give one of them): its token counts (a missing
            ``total_tokens`` is ``input_tokens + output_tokens``), and ``input_token_details["cache_read"]`` as
            ``cached_tokens``; its other details (``cache_creation``, ``reasoning``...) are kept in ``usage``'s
            ``input_token_details``/``output_token_details``.
        additional_kwargs: LangChain's keyword for the provider's extra reply fields, kept where
            :func:`~toolwire.interop.langchain.from_langchain_messages` keeps them:
            ``response_metadata["additional_kwargs"]`` (merged into a dict already there; ``None`` values left out;
            given back by ``to_langchain_messages``), a ``refusal`` in ``response_metadata["refusal"]``,
            ``toolwire_provider_data`` as ``provider_data`` when that is not given, ``toolwire_invalid_call_index``
            (``{call id: index}``, written by ``to_langchain_messages``) as the invalid calls' ``index``; OpenAI-format
            ``tool_calls`` there are read as the calls when ``tool_calls`` is not given (as LangChain reads them), else
            dropped; with neither, an OpenAI legacy ``function_call`` there is the one call (its id derived from it
            and ``id``, the same on every reading: review 304 #1).
        type: LangChain's keyword, taken when ``"ai"`` (or None), so ``AIMessage(**message.model_dump())`` works.

    Raises:
        UserError: a ``type`` other than ``"ai"``; a ``tool_calls`` item is not a dict with a text ``name``, or an
            ``invalid_tool_calls`` item is not a dict, or either is one call (a dict) rather than a list of them; both
            ``usage`` and a different
            ``usage_metadata``; a ``usage``, ``usage_metadata`` or ``additional_kwargs`` that is not a dict, or a token
            count in the first two that is not a whole number of 0 or more.
        TypeError: ``content`` is neither text nor a list of content blocks (as :class:`BaseMessage`).
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
        usage_metadata: Usage | dict[str, Any] | None = None,
        additional_kwargs: dict[str, Any] | None = None,
        type: str | None = None,
    ) -> None:
        super().__init__(content, id=id, name=name, type=type)
        if usage is not None:  # (a missing total is the sum, as for usage_metadata: review 280 #5)
            usage = checked_usage(usage)
        if usage_metadata is not None or additional_kwargs is not None:  # LangChain's keywords (review 74)
            from toolwire._message_dicts import langchain_keywords

            tool_calls, invalid_tool_calls, usage, response_metadata, provider_data = langchain_keywords(
                tool_calls, invalid_tool_calls, usage, response_metadata, provider_data, usage_metadata,
                additional_kwargs, message_id=self.id)
        # the message keeps its own copies, so a later change to the caller's dicts does not reach it
        # (a call whose args are no object moves to the invalid calls, in its place: _checked_calls)
        calls, invalid = _checked_calls(tool_calls, invalid_tool_calls)  # (a lone surrogate in them, an argument's
        _set(self, "tool_calls", calls if _ascii(calls) else valid_strings(calls))  # key or value included, is
        _set(self, "invalid_tool_calls", invalid if _ascii(invalid) else valid_strings(invalid))  # U+FFFD, as in
        # content, so the calls can be sent: review 246 #2)
        _set(self, "usage", usage)
        _set(self, "response_metadata", dict(response_metadata or {}))
        _set(self, "provider_data", provider_data)

    @property
    def usage_metadata(self) -> Usage | None:
        """LangChain's name for :attr:`usage`, in LangChain's ``UsageMetadata`` shape: ``input_tokens``,
        ``output_tokens`` and ``total_tokens`` read alike; when the provider counted cached prompt tokens, a copy
        that also has them as ``input_token_details["cache_read"]`` (beside toolwire's ``cached_tokens``), else
        :attr:`usage` itself (None when there is none)."""
        return langchain_usage(self.usage)


class ToolMessage(BaseMessage):
    """The result of one tool call, sent back to the model.

    Args:
        content: the result: any value, made message content as LangChain's ``ToolMessage`` coerces its
            content (so ``ToolMessage(content=calculate(...), tool_call_id=...)`` works for a tool that returns
            a number), in the form toolwire writes a tool's result (:func:`toolwire.results.result_to_content`).
            A string stays as it is. A list stays a list: its strings and dicts as they are (a dict that is no
            content block, such as a record ``{"url": ..., "text": ...}``, is sent whole as its JSON text), each
            other item as its text, as below (``[1, None]`` gives ``["1", "null"]``; a nested list of content blocks
            gives its blocks). One image, audio, file or document block given as a dict becomes the list of it.
            Anything else becomes text: numbers, ``None``, other dicts, tuples,
            pydantic models and dataclasses their JSON text (``56088`` gives ``"56088"``, ``{"a": 1}`` gives
            ``'{"a": 1}'``), NaN and infinite floats the JSON strings ``"NaN"``, ``"Infinity"``,
            ``"-Infinity"``, other objects their JSON form or ``str()``. LangChain writes ``str(value)``
            instead (``"None"``, ``"{'a': 1}"``); toolwire's JSON text is what the model would see had the
            tool been run by toolwire.
        tool_call_id: the ``id`` of the :class:`ToolCall` this answers (required; a number as its text; a lone
            surrogate becomes U+FFFD, as in the AIMessage's call ids, so the two still match).
        status: ``"success"`` or ``"error"``.
        artifact: the full result object for the program (never sent to the model).
        name, id: the tool's name; an optional message id.
        additional_kwargs, response_metadata: LangChain's keywords, taken when empty (see :class:`BaseMessage`).
        type: LangChain's keyword, taken when ``"tool"`` (or None), so ``ToolMessage(**message.model_dump())`` works.

    ``print(msg)`` shows ``content=... tool_call_id=...`` (and ``status='error'`` when it is one).

    Raises:
        TypeError: no ``tool_call_id``, or ``content`` is (or a list of it holds) ``bytes``, which a model cannot
            read: decode them, or give a content block.
        ValueError: ``status`` is neither ``"success"`` nor ``"error"``.
        UserError: a non-empty ``additional_kwargs`` or ``response_metadata`` (the message says to use ``content``
            or ``artifact``), or a ``type`` other than ``"tool"``.
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
        content: Any = "",
        tool_call_id: str | None = None,
        *,
        status: Literal["success", "error"] = "success",
        artifact: Any = None,
        name: str | None = None,
        id: str | None = None,
        additional_kwargs: dict[str, Any] | None = None,
        response_metadata: dict[str, Any] | None = None,
        type: str | None = None,
    ) -> None:
        if additional_kwargs or response_metadata or type is not None:  # (review 195 #5: model_dump's keys)
            langchain_keys(self, type, additional_kwargs, response_metadata)
        if tool_call_id is None:
            raise TypeError("ToolMessage needs tool_call_id: pass the 'id' of the tool call it answers.")
        if status not in ("success", "error"):
            raise ValueError(f"ToolMessage status must be 'success' or 'error', not {status!r}.")
        if _type(content) is not str:
            content = _tool_content(content)
        super().__init__(content, id=id, name=name)
        # a number (some servers' call ids) as its text, as AIMessage keeps the call's id
        if not isinstance(tool_call_id, str):
            tool_call_id = str(tool_call_id)
        _set(self, "tool_call_id", tool_call_id if tool_call_id.isascii() else valid_text(tool_call_id))
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
        NaN to None, other objects to their ``str()``); a JSON-ready artifact round-trips unchanged. An artifact
        that holds itself (a circular reference, which JSON cannot write) is saved as its ``str()``, so the
        message can still be saved (it reads back with that text as its artifact).

        Returns:
            A new JSON-ready dict.
        """
        return self._as_dict(as_json=True)

    def _as_dict(self, as_json: bool = False) -> dict[str, Any]:
        out = super()._as_dict(as_json)
        out["tool_call_id"] = self.tool_call_id
        return out


# LangChain's AnyMessage is an Annotated union too; its own validator needs the type (review 324 #1)
AnyMessage = Annotated[SystemMessage | HumanMessage | AIMessage | ToolMessage, AnyMessageSchema()]


# reading messages back (from dicts and the other input shapes) and streamed replies live in their own modules,
# which build on the classes above: imported last
from toolwire._message_dicts import coerce_messages, message_from_dict  # noqa: E402
from toolwire._message_history import (  # noqa: E402
    _json_value,
    langchain_usage,
    message_to_dict,
    messages_from_dict,
    messages_to_dict,
)
from toolwire.chunks import AIMessageChunk, merge_chunks  # noqa: E402
