"""Structured output from a dict: a JSON Schema with a ``title``, a tool dict, or OpenAI's ``response_format``
schema, and the local check of the value against the schema the user gave.

The dict forms ``with_structured_output`` takes:

* a JSON Schema of an object with a ``title`` (the output tool's name, its ``description`` the tool's);
* a tool dict, as ``bind_tools`` takes it (OpenAI's ``{"type": "function", "function": {...}}``, a bare
  ``{"name", "description", "parameters"}``, Anthropic's ``input_schema``...);
* OpenAI's ``response_format`` schema, ``{"name", "description"?, "strict"?, "schema"}`` (the ``json_schema`` object,
  which langchain-openai's ``with_structured_output`` takes with its default ``method="json_schema"``), or the whole
  ``{"type": "json_schema", "json_schema": {...}}``: its ``schema`` is the arguments' schema and its ``name`` the
  tool's (review 185 #1: it was read as a tool dict with no parameters, and the model could only answer ``{}``),
  made a valid tool name as a ``title`` is (review 252 #2: ``1st-answer``, which OpenAI takes, is ``_1st-answer``, as
  Gemini's function names must start with a letter or ``_``).

The value is the call's arguments as a dict, checked against the schema the user gave with ``jsonschema``
(:func:`~toolwire.interop.openai_tools.schema_validator`, as :meth:`Tool.from_schema
<toolwire.tools.Tool.from_schema>` checks a tool's), keys the schema does not declare let through unless it refuses
them: OpenAI strict mode and Anthropic strict tool use are not sent the keywords outside their subset (``maxLength``,
``uniqueItems``, bounds, ``pattern``...), Gemini takes fewer, and a local model's grammar holds only the shape, so
the check here is what holds the value to them (review 185 #5).

Private to :mod:`toolwire.models.structured`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from toolwire.errors import SchemaError

if TYPE_CHECKING:
    from toolwire.tools import ToolSpec

__all__ = ["DictSchemaError", "dict_output", "is_output_schema", "response_format_tool"]

_MADE: dict[int, Any] = {}
"""The argument schemas of the last output tools :func:`dict_output` made (``id`` -> the schema itself, kept alive so
that its ``id`` names no other object), for :func:`is_output_schema`; at most :data:`_KEPT` of them."""
_KEPT = 64
_MADE_LOCK = threading.Lock()


def is_output_schema(parameters: Any) -> bool:
    """Whether ``parameters`` is (the very object) the argument schema of an output tool :func:`dict_output` made for a
    dict given to ``with_structured_output``: a provider's error then speaks of that schema's keys, not of a tool's
    parameters (review 252 #3). Made before the last :data:`_KEPT` such tools, or copied since: False."""
    return parameters is not None and _MADE.get(id(parameters)) is parameters


def response_format_tool(schema: Mapping[str, Any], output_name: Callable[[str], str] = str
                         ) -> dict[str, Any] | None:
    """The bare tool dict of OpenAI's ``response_format`` schema ``schema``, or None when it is not one.

    ``{"type": "json_schema", "json_schema": {...}}`` is read as its ``json_schema``; ``{"name", "schema",
    "description"?, "strict"?}`` (no tool parameter key: a tool dict wins) becomes ``{"name": output_name(name),
    "description", "parameters": schema, "strict"?}`` (``output_name``: makes a valid tool name of the ``name``, as
    of a JSON Schema's ``title``; the default keeps it as written).

    Raises:
        SchemaError: the ``json_schema`` or ``schema`` is not a dict, or the ``name`` is missing.
    """
    from toolwire.interop.openai_tools import PARAMETER_KEYS

    if schema.get("type") == "json_schema":
        inner = schema.get("json_schema")
        if not isinstance(inner, Mapping):
            raise SchemaError("A response_format dict {'type': 'json_schema', ...} given for structured output needs "
                              "its 'json_schema' dict: {'name': ..., 'schema': {...}}.")
        schema = inner
    elif "schema" not in schema or any(key in schema for key in (*PARAMETER_KEYS, "function")):
        return None
    name, body = schema.get("name"), schema.get("schema")
    if not isinstance(body, Mapping):
        raise SchemaError(f"The 'schema' of a response_format schema given for structured output must be a JSON "
                          f"Schema dict of an object, not {type(body).__name__}.")
    if not isinstance(name, str) or not name:
        raise SchemaError("A response_format schema given for structured output needs its 'name' (it names the tool "
                          "the model calls), e.g. {'name': 'Answer', 'schema': {...}}.")
    description = schema.get("description") or f"Give the answer as {name}."
    tool: dict[str, Any] = {"name": output_name(name), "description": description, "parameters": dict(body)}
    if isinstance(schema.get("strict"), bool):
        tool["strict"] = schema["strict"]
    return tool


def dict_output(schema: Mapping[str, Any], output_name: Callable[[str], str]
                ) -> tuple[ToolSpec, Callable[[Any], dict[str, Any]]]:
    """The output tool of a dict schema (see the module docs) and the function that checks its arguments.

    Args:
        schema: the dict given to ``with_structured_output``.
        output_name: makes a valid tool name from a JSON Schema's ``title`` or a response-format schema's ``name``
            (the same rule for both: review 252 #2).

    Returns:
        ``(spec, check)``: ``check(args)`` returns the arguments as a dict (whole floats at integer keys made ints)
        when they fit the schema.

    Raises:
        SchemaError: the dict is none of the forms above, a JSON Schema has no ``title``, or its schema is not a valid
            JSON Schema of an object.
    """
    from toolwire.models.base import to_tool_spec

    tool = response_format_tool(schema, output_name)
    if tool is None and ("name" in schema or schema.get("type") == "function"):  # a tool dict, as bind_tools takes it
        tool = dict(schema)
    if tool is None:
        title = schema.get("title")
        if not isinstance(title, str) or not title:
            raise SchemaError("A JSON Schema given for structured output needs a 'title' (it names the tool the "
                              "model calls), e.g. {'title': 'Answer', 'type': 'object', 'properties': {...}}.")
        parameters = {k: v for k, v in schema.items() if k not in ("title", "description")}
        tool = {"name": output_name(title), "description": schema.get("description") or f"Give the answer as {title}.",
                "parameters": parameters}
    spec = to_tool_spec(tool)
    with _MADE_LOCK:
        _MADE[id(spec.parameters)] = spec.parameters
        while len(_MADE) > _KEPT:
            del _MADE[next(iter(_MADE))]
    own, dialect = _own_form(tool, spec)
    return spec, _checker(own, spec.name, dialect)


def _own_form(tool: Mapping[str, Any], spec: ToolSpec) -> tuple[dict[str, Any], str | None]:
    """The arguments schema to check values against, and the dialect to check it with: for a schema written with
    an older ``$schema`` (draft-07, draft-04), the schema as the user wrote it (``"items": [...]`` tuples, a boolean
    ``exclusiveMaximum``; ``$ref`` inlined) with that ``$schema``, as :func:`~toolwire.interop.tool_from_schema`
    checks it; else the spec's parameters (what is sent, JSON Schema 2020-12) and None. Never the 2020-12 form with
    an older draft's rules, which refused every tuple item and a draft-04 bound (review 187 #1).

    Raises:
        SchemaError: the schema is not valid JSON Schema of its dialect.
    """
    from toolwire.interop.openai_tools import definition_parameters, normalize_parameters

    fn = tool.get("function") if tool.get("type") == "function" and isinstance(tool.get("function"), Mapping) \
        else tool
    parameters = definition_parameters(fn) if isinstance(fn, Mapping) else None
    found = parameters.get("$schema") if isinstance(parameters, Mapping) else None
    if not isinstance(parameters, Mapping) or not isinstance(found, str):
        return spec.parameters, None
    return normalize_parameters(parameters, spec.name, dialect_form=True), found


class DictSchemaError(ValueError):
    """The arguments of a dict schema's output tool do not fit it.

    Attributes:
        problems: what is wrong, each field named (``"'stars': 11 is greater than the maximum of 5"``).
    """

    def __init__(self, problems: str) -> None:
        super().__init__(problems)
        self.problems = problems


def _checker(parameters: dict[str, Any], name: str, dialect: str | None) -> Callable[[Any], dict[str, Any]]:
    """``check(args)``: ``args`` checked against ``parameters`` (``jsonschema``, the dialect its ``$schema`` or
    ``dialect`` names), keys it does not declare let through unless it says otherwise (JSON Schema's rule: the
    user's schema is the judge, not a tool's closed arguments). ``additionalProperties: true`` is added only to a
    schema that says nothing about other keys (none of
    :data:`~toolwire.interop.openai_tools._OPEN_KEYWORDS`): beside ``unevaluatedProperties: false`` it would mark
    every key evaluated and let an unknown one through (review 187 #2); with the others, which keep
    :func:`~toolwire.interop.openai_tools.schema_validator` from closing the object, JSON Schema already lets
    undeclared keys through unless the schema refuses them.

    Raises:
        SchemaError: (when building) ``parameters`` is not valid JSON Schema.
        DictSchemaError: (when checking) ``args`` is not an object, or does not fit.
    """
    from toolwire.errors import ToolValidationError
    from toolwire.interop.openai_tools import _OPEN_KEYWORDS, schema_validator

    says_nothing = not any(key in parameters for key in _OPEN_KEYWORDS)
    checked = {**parameters, "additionalProperties": True} if says_nothing else parameters
    validate = schema_validator(checked, name, dialect=dialect)
    prefix = f"Invalid arguments for tool '{name}': "

    def check(args: Any) -> dict[str, Any]:
        if not isinstance(args, Mapping):
            raise DictSchemaError(f"the arguments: expected an object, got {type(args).__name__}")
        try:
            return validate(args)
        except ToolValidationError as exc:
            text = str(exc)
            raise DictSchemaError((text[len(prefix):] if text.startswith(prefix) else text).rstrip(".")) from None

    return check
