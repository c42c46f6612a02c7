"""Messages as fields of pydantic models (review 312 #6), as LangChain's messages are: the pydantic-core schema that
:meth:`toolwire.messages.BaseMessage.__get_pydantic_core_schema__` returns for a message class.

A field typed ``BaseMessage``, one message class (``AIMessage``), ``toolwire.messages.AnyMessage`` or a list of them
takes the class's messages, the dicts :func:`~toolwire.message_from_dict` reads (toolwire's ``to_dict()``, LangChain's
flat ``model_dump()`` and ``messages_to_dict`` entries, OpenAI ``role`` dicts), a streamed ``AIMessageChunk`` (its
``to_message()``) and LangChain message objects (converted). A field of one class (``h: HumanMessage``) reads a dict
without ``type`` or ``role`` as that class wherever the class is used, as LangChain's classes do (their ``type`` has a
default; review 319 #1, review 324 #1); a ``BaseMessage`` field and ``toolwire.messages.AnyMessage`` (its own
validator, :class:`AnyMessageSchema`) need the ``type`` (or ``role``); a union of classes the user writes
(``HumanMessage | AIMessage``) takes the first member that reads the value, as pydantic's smart union does with
LangChain's classes, so such a dict is read as the first class: give the ``type`` in a union. It is written as
LangChain's pydantic field is: the message's ``model_dump()`` (``mode="json"`` in ``model_dump_json()`` and
``model_dump(mode="json")``), which is the ``data`` of a :func:`~toolwire.messages_to_dict` entry and reads back as an
equal message. Its JSON Schema (a FastAPI OpenAPI body, a ``@tool`` parameter's schema sent to a model) requires what
validation needs: ``content``, a tool message's ``tool_call_id``, and the ``type`` where the class cannot be guessed
(review 319 #2).
"""

from __future__ import annotations

from typing import Any

from pydantic_core import core_schema

from toolwire.errors import UserError

__all__ = ["AnyMessageSchema", "message_core_schema"]

_TYPES = ("system", "human", "ai", "tool")
_CLASSES = ("SystemMessage", "HumanMessage", "AIMessage", "ToolMessage")


def message_core_schema(cls: type) -> core_schema.CoreSchema:
    """The pydantic-core schema of a field of message class ``cls`` (``BaseMessage`` or a subclass).

    Validation returns a message of ``cls`` (an instance as it is; the values listed in the module docstring read
    into a new one; a dict without ``type``/``role`` read as ``cls`` when ``cls`` is one concrete class, not
    ``BaseMessage``) or raises ``ValueError`` (pydantic's ``ValidationError``) with a sentence
    saying what the field takes: a value of another kind, a dict :func:`~toolwire.message_from_dict` refuses (its
    own sentence), or a message of another class. Serialisation writes ``message.model_dump(...)`` (a dict) with
    pydantic's ``mode`` and the ``include``/``exclude`` selection that reaches the field (``{"messages": {"__all__":
    {"content"}}}``), and ``exclude_none``, as on a LangChain message field. Called once per field when pydantic
    builds a model's schema (not when it validates).
    """
    kind = getattr(cls, "type", None)
    default = kind if kind in _TYPES else None

    def validate(value: Any) -> Any:
        if isinstance(value, cls):
            return value
        if default is not None and isinstance(value, dict) and "type" not in value and "role" not in value:
            value = {**value, "type": default}
        message = _read(value)
        if not isinstance(message, cls):
            raise ValueError(f"This field takes {_a(cls.__name__)}, not {_a(type(message).__name__)} "
                             f"(type {message.type!r}).")
        return message

    return core_schema.no_info_plain_validator_function(
        validate, json_schema_input_schema=_json_shape(cls, default is None),
        serialization=core_schema.plain_serializer_function_ser_schema(
            _dump, info_arg=True, return_schema=_json_shape(cls, default is None, written=True)))


def _dump(value: Any, info: core_schema.SerializationInfo) -> Any:
    from toolwire.messages import BaseMessage

    if not isinstance(value, BaseMessage):  # (a value set without validation: pydantic's own handling)
        return value
    return value.model_dump(mode="json" if info.mode_is_json() else "python", include=info.include,
                            exclude=info.exclude, exclude_none=info.exclude_none)


class AnyMessageSchema:
    """The pydantic hook of ``toolwire.messages.AnyMessage`` (``Annotated[SystemMessage | HumanMessage | AIMessage |
    ToolMessage, AnyMessageSchema()]``): the field reads as a ``BaseMessage`` field does, so a dict needs its
    ``type`` (or ``role``), as LangChain's ``AnyMessage`` needs it, and gives a message of the class it names."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> core_schema.CoreSchema:
        """The schema of a ``BaseMessage`` field (``source``, ``handler`` unused; see :func:`message_core_schema`)."""
        from toolwire.messages import BaseMessage

        return message_core_schema(BaseMessage)

    def __repr__(self) -> str:
        return "AnyMessageSchema()"


def _read(value: Any) -> Any:
    """The toolwire message ``value`` stands for (see :func:`message_core_schema`).

    Raises:
        ValueError: ``value`` is none of those, or cannot be read (the reader's sentence).
    """
    from toolwire._message_dicts import message_from_dict, other_message
    from toolwire.messages import BaseMessage

    if isinstance(value, BaseMessage):
        return value
    try:
        if isinstance(value, dict):
            return message_from_dict(value)
        message = other_message(value)
    except UserError as exc:
        raise ValueError(str(exc)) from None
    if message is None:
        raise ValueError("A message field takes a toolwire message or a dict such as {'type': 'human', 'content': "
                         f"'hi'}} (as message_from_dict reads it), not {type(value).__name__}.")
    return message


def _a(name: str) -> str:
    return f"an {name}" if name[0] in "AEIOU" else f"a {name}"


def _json_shape(cls: type, typed: bool, written: bool = False) -> core_schema.CoreSchema:
    """The JSON Schema of a message of ``cls``, read and written, as LangChain's ``model_json_schema()`` gives its
    messages: the ``model_dump()`` keys that say what it is (``type``, ``content``, ``id``, ``name``, a tool
    message's ``tool_call_id``), other keys allowed; ``content`` and ``tool_call_id`` required, ``type`` required
    when ``typed`` (``BaseMessage`` and ``AnyMessage``: the class is not known without it) and otherwise defaulting to
    the class's own. ``BaseMessage`` is the union of the four classes' typed shapes. ``written``: the shape of a
    dump, where nothing is required (an ``exclude`` may leave any key out; pydantic-core checks a dump against it)."""
    kind = getattr(cls, "type", None)
    if kind not in _TYPES:
        return core_schema.union_schema(
            [_class_shape(name, each, True, written) for name, each in zip(_CLASSES, _TYPES, strict=True)],
            ref=f"{cls.__module__}.{cls.__qualname__}{'-Output' if written else ''}")
    return _class_shape(cls.__name__, kind, typed, written)


def _class_shape(name: str, kind: str, typed: bool, written: bool) -> core_schema.CoreSchema:
    """One class's shape (see :func:`_json_shape`); its JSON Schema definition is named after the class, with
    ``-Typed`` when the ``type`` is required (a model may hold both: ``reply: AIMessage`` and ``list[AnyMessage]``),
    or ``-Output`` for a dump's (one per class: nothing in it is required)."""
    optional_text = core_schema.nullable_schema(core_schema.str_schema())
    content = core_schema.union_schema([core_schema.str_schema(), core_schema.list_schema(core_schema.union_schema(
        [core_schema.str_schema(), core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema())]))])
    type_schema = core_schema.literal_schema([kind])
    fields = {
        "type": core_schema.typed_dict_field(
            type_schema if typed or written else core_schema.with_default_schema(type_schema, default=kind),
            required=typed and not written),
        "content": core_schema.typed_dict_field(content, required=not written),
        "id": core_schema.typed_dict_field(optional_text, required=False),
        "name": core_schema.typed_dict_field(optional_text, required=False),
    }
    if kind == "tool":
        fields["tool_call_id"] = core_schema.typed_dict_field(core_schema.str_schema(), required=not written)
    suffix = "-Output" if written else "-Typed" if typed else ""
    return core_schema.typed_dict_schema(fields, extra_behavior="allow", ref=f"toolwire.messages.{name}{suffix}")
