"""Tools from a ready JSON Schema: an OpenAI tool dict or a bare schema, plus the Python callable that
implements it, validated with ``jsonschema`` before every call.

Accepted definitions (:func:`tool_from_schema`):

* OpenAI Chat Completions: ``{"type": "function", "function": {"name", "description", "parameters",
  "strict"?}}`` (OpenAI API reference, "Chat Completions > tools").
* OpenAI Responses API: ``{"type": "function", "name", "description", "parameters"}``.
* A bare function dict ``{"name", "description", "parameters"}``, Anthropic's ``input_schema``, MCP's
  ``inputSchema`` or google-genai's ``parameters_json_schema`` (``parametersJsonSchema``) in place of
  ``parameters`` (:data:`PARAMETER_KEYS`; ``bind_tools`` reads the same keys).
* A JSON Schema of the arguments (``{"type": "object", "properties": {...}, "required": [...]}``); the
  tool's name and description then come from ``name=``/``description=``, the function, or the schema's
  ``title``/``description``.

Validation follows the schema's own dialect (``$schema``, default Draft 2020-12) with
``jsonschema``; a bad argument raises :class:`~toolwire.errors.ToolValidationError` naming each field,
so through ``tool.invoke(tool_call)`` or the executor the model gets a ``status="error"`` result, exactly
as for a ``@tool`` function. Unlike a ``@tool`` (pydantic, lax mode), values are not coerced: ``"5"`` is
not an integer.

Example::

    spec = {"type": "function", "function": {"name": "add", "description": "Add two integers.",
            "parameters": {"type": "object", "properties": {"a": {"type": "integer"},
                           "b": {"type": "integer"}}, "required": ["a", "b"]}}}
    add = tool_from_schema(spec, lambda a, b: a + b)
    add.invoke({"a": 2, "b": 3})        # 5
    add.invoke({"a": "2"})              # ToolValidationError: 'a': '2' is not of type 'integer'; 'b' ...
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from toolwire._printing import safe_text
from toolwire._schema_patterns import check_schema, linear_keywords, warn_unchecked_patterns
from toolwire._schema_patterns import pattern_found as pattern_found  # (read from here by older code)
from toolwire._schema_refs import MAX_SCHEMA_DEPTH, SCHEMA_KEYS, SCHEMA_MAP_KEYS, copy_data
from toolwire._signature import function_name
from toolwire._tool_checks import check_params_taken
from toolwire.errors import SchemaError, ToolValidationError, UserError
from toolwire.interop._schema_fixes import declare_required, openapi_nullable, undeclared_required, warn_declared
from toolwire.interop._union_errors import describe_error
from toolwire.interop._whole_numbers import whole_integers

__all__ = [
    "normalize_parameters",
    "ready_function_schema",
    "schema_validator",
    "split_tool_definition",
    "tool_from_schema",
]

_EMPTY: dict[str, Any] = {"type": "object", "properties": {}}

PARAMETER_KEYS = ("parameters", "input_schema", "inputSchema", "parameters_json_schema", "parametersJsonSchema")
"""The keys a tool dict may hold its arguments' JSON Schema under, the first one set winning: OpenAI's
``parameters``, Anthropic's ``input_schema``, MCP's ``inputSchema`` (a dumped ``mcp.types.Tool``) and google-genai's
``FunctionDeclaration.parameters_json_schema`` (camel case in its JSON form). One rule for
:func:`tool_from_schema` and ``bind_tools`` (review 163 #1: ``bind_tools`` read only the first two, and a tool given
under the others lost its parameters silently)."""
# top-level keywords that let an object take keys its "properties" do not list
_OPEN_KEYWORDS = ("additionalProperties", "patternProperties", "unevaluatedProperties", "allOf", "anyOf",
                  "oneOf", "$ref", "if", "dependentSchemas")


def _jsonschema() -> Any:
    try:
        import jsonschema
    except ImportError as exc:  # pragma: no cover - jsonschema is a core dependency
        if isinstance(exc, ModuleNotFoundError) and exc.name == "jsonschema":
            raise SchemaError("Schema tools need the 'jsonschema' package: pip install 'jsonschema>=4'.") from None
        raise SchemaError(f"The 'jsonschema' package is installed but does not import ({exc}): reinstall it with "
                          "pip install --force-reinstall 'jsonschema>=4'.") from None
    return jsonschema


def split_tool_definition(definition: Mapping[str, Any]) -> tuple[str | None, str | None, dict[str, Any]]:
    """Read ``(name, description, parameters)`` from any accepted tool definition (see the module doc).

    Returns:
        The name and description (``None`` when the definition has none) and the raw parameters schema.

    Raises:
        SchemaError: ``definition`` is not a dict, or its parameters are not a dict.
    """
    return _split(definition)[:3]


def definition_parameters(fn: Mapping[str, Any]) -> Any:
    """The arguments' schema a function dict holds (shared by :func:`tool_from_schema` and ``bind_tools``).

    Args:
        fn: the function dict (``{"name", "description", "parameters"}`` or one of the other keys).

    Returns:
        The value of the first of :data:`PARAMETER_KEYS` it sets (not None), unchecked (the caller checks it is a
        dict); None when it sets none of them.
    """
    return next((fn[k] for k in PARAMETER_KEYS if fn.get(k) is not None), None)


def refuse_free_form(obj: Mapping[str, Any]) -> None:
    """Refuse OpenAI's custom (free-form) tool, ``{"type": "custom", "name", "description", "format"?}`` (Responses
    API; ``{"type": "custom", "custom": {...}}`` in Chat Completions), which takes text, not arguments: bound as a
    function it had no parameters, so the model could only call it with ``{}`` (review 163 #4; refused by
    :func:`tool_from_schema` too, review 168 #3). Anthropic's custom tool, ``{"type": "custom", "name",
    "input_schema"}``, has a schema and is a function tool.

    Raises:
        UserError: ``obj`` is such a tool (no schema under any of :data:`PARAMETER_KEYS`).
    """
    if obj.get("type") != "custom":
        return
    inner = obj.get("custom")
    fn = inner if isinstance(inner, Mapping) else obj
    if definition_parameters(fn) is not None or definition_parameters(obj) is not None:
        return
    name = fn.get("name") if isinstance(fn.get("name"), str) else "custom"
    raise UserError(f"Tool {name!r} is an OpenAI custom (free-form text) tool, which toolwire does not support: give "
                    f"a function tool with a JSON Schema of its arguments instead, such as {{'type': 'function', "
                    f"'name': {name!r}, 'description': ..., 'parameters': {{'type': 'object', 'properties': "
                    "{'input': {'type': 'string'}}, 'required': ['input']}}.")


def _split(definition: Mapping[str, Any]) -> tuple[str | None, str | None, dict[str, Any], bool]:
    if not isinstance(definition, Mapping):
        raise SchemaError(f"A tool definition must be a dict, not {type(definition).__name__}.")
    refuse_free_form(definition)
    fn: Mapping[str, Any] = definition
    if definition.get("type") == "function":
        inner = definition.get("function")
        fn = inner if isinstance(inner, Mapping) else definition
    if fn is not definition or any(k in fn for k in PARAMETER_KEYS) or (
        "name" in fn and "properties" not in fn and fn.get("type") != "object"
    ):
        params = definition_parameters(fn)
        params = _EMPTY if params is None else params
        if not isinstance(params, Mapping):
            raise SchemaError(f"The 'parameters' of tool {fn.get('name')!r} must be a JSON Schema dict.")
        return fn.get("name"), fn.get("description"), dict(params), False
    schema = dict(definition)
    title = schema.get("title")
    return (title if isinstance(title, str) else None), schema.get("description"), schema, True


def normalize_parameters(parameters: Mapping[str, Any], tool_name: str = "tool", *,
                         dialect_form: bool = False) -> dict[str, Any]:
    """Return a self-contained object schema for a tool's arguments.

    Local ``$ref``/``$defs`` are inlined and ``title`` keywords dropped (as for ``@tool`` schemas), a
    missing ``type`` becomes ``"object"`` and ``properties`` is always present, with a ``required`` key it does not
    declare added with any value and OpenAPI's ``nullable: true`` written as JSON Schema's ``null``
    (:mod:`toolwire.interop._schema_fixes`). The input is not changed.
    The schema is checked in its own dialect (its ``$schema``), and ``$schema`` is then dropped from what
    providers get, who read a schema as JSON Schema 2020-12: so the tuple arrays of an older dialect
    (``"items": [A, B]``, ``"additionalItems"``) are written the 2020-12 way (``prefixItems``, ``items``), and
    draft-04's boolean ``exclusiveMaximum``/``exclusiveMinimum`` become the bound itself. With
    ``dialect_form`` the schema is kept as its dialect writes it: pass that one, with the original
    ``$schema`` as :func:`schema_validator`'s ``dialect``, so arguments are validated in that dialect.

    Args:
        parameters: the JSON Schema of the arguments.
        tool_name: the tool's name, used only in error messages.
        dialect_form: keep the dialect's own form (see above) instead of the 2020-12 form.

    Raises:
        SchemaError: not a dict, not an object schema (also a top-level ``anyOf``/``oneOf`` none of whose
            branches can be an object), a recursive ``$ref``, not valid JSON Schema, or too large or deep once its
            ``$ref``s are written out (:data:`~toolwire._schema_refs.MAX_INLINED_VALUES` values,
            :data:`~toolwire._schema_refs.MAX_SCHEMA_DEPTH` levels: a ``$defs`` bomb).
    """
    return _normalize(parameters, tool_name, dialect_form)[0]


def _normalize(parameters: Mapping[str, Any], tool_name: str, dialect_form: bool) -> tuple[dict[str, Any], list[str]]:
    """:func:`normalize_parameters`, and the keys :func:`~toolwire.interop._schema_fixes.declare_required` declared."""
    ordered, declared, validator, _ = _checked_form(parameters, tool_name)
    return (ordered if dialect_form else _sent_form(ordered, parameters, validator)), declared


def _sent_form(ordered: dict[str, Any], parameters: Mapping[str, Any], validator: Any) -> dict[str, Any]:
    """The 2020-12 form providers get of ``ordered``, the dialect form of ``parameters`` (``validator``'s dialect):
    ``ordered`` itself when that is 2020-12 already, else a new schema that shares nothing with it."""
    if "$schema" in parameters and validator is not _jsonschema().Draft202012Validator:
        return _tuples_as_2020(copy_data(ordered))  # type: ignore[no-any-return]
    return ordered


def _checked_form(parameters: Mapping[str, Any], tool_name: str) -> tuple[dict[str, Any], list[str], Any, bool]:
    """Check ``parameters`` against its dialect's meta-schema (once: about 2 ms per property, review 266 #4) and
    return its dialect form (``normalize_parameters(..., dialect_form=True)``), the keys declared, the ``jsonschema``
    validator class of its dialect, and whether that check covers the form returned too (:func:`_refs_checked`),
    so :func:`_validator` need not check it again.

    Raises:
        SchemaError: as :func:`normalize_parameters`.
    """
    from toolwire.schema import inline_refs

    if not isinstance(parameters, Mapping):
        raise SchemaError(f"The parameters of tool {tool_name!r} must be a JSON Schema dict.")
    _check_nesting(parameters, tool_name)
    raw = copy.deepcopy(dict(parameters))
    kind = raw.get("type", "object")
    if kind != "object":
        upper = (" Write JSON Schema types in lower case ('object'), or give the whole google-genai "
                 "FunctionDeclaration (or its dict, with its 'name'), which tool_from_schema and "
                 "ChatGoogleGenAI.bind_tools read."
                 if isinstance(kind, str) and kind.isupper() else "")  # (Gemini's own Schema: review 298)
        raise SchemaError(
            f"The parameters of tool {tool_name!r} must be an object schema (named arguments), "
            f"not type {kind!r}.{upper}"
        )
    validator = _jsonschema().validators.validator_for(raw)
    try:
        check_schema(validator, raw)  # (a \p{L} pattern is a regex too: review 76)
    except _jsonschema().exceptions.SchemaError as exc:
        raise SchemaError(f"The parameters of tool {tool_name!r} are not valid JSON Schema: {exc.message}") \
            from None
    out = openapi_nullable(inline_refs(raw))  # (OpenAPI's nullable: null fits too, review 198 #3)
    out.pop("$schema", None)
    for key in ("anyOf", "oneOf"):  # a union of non-objects at the top: no call could ever match it
        branches = out.get(key)
        if isinstance(branches, list) and branches and not any(_may_be_object(b) for b in branches):
            raise SchemaError(
                f"The parameters of tool {tool_name!r} must be an object schema (named arguments), not an "
                f"{key} of non-object types: wrap the value in a property, such as "
                '{"type": "object", "properties": {"value": {...}}}.'
            )
    ordered: dict[str, Any] = {"type": "object"}
    ordered.update({k: v for k, v in out.items() if k != "type"})
    ordered.setdefault("properties", {})
    if "required" in ordered and not ordered["required"]:
        del ordered["required"]
    declared = declare_required(ordered)  # (a required key it does not declare takes any value: review 198 #2)
    return ordered, declared, validator, _refs_checked(raw, validator)


def _refs_checked(raw: dict[str, Any], validator: Any) -> bool:
    """Whether the meta-schema check of ``raw`` (``validator``'s) also checked each part its ``$ref``s bring in
    when inlined: each points at a whole definition (``#/$defs/Name``) under a keyword that meta-schema checks as
    a map of schemas. Else (a ``$ref`` into a definition's parts, or to draft-07's unchecked ``$defs``) the form
    inlined must be checked again. The rest of the dialect form only drops keys or adds schemas checked already."""
    js = _jsonschema()
    kept = {"definitions", "$defs"} if validator in (js.Draft201909Validator, js.Draft202012Validator) else {
        "definitions"} if validator in (js.Draft4Validator, js.Draft6Validator, js.Draft7Validator) else set()
    pending: list[Any] = [raw]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/")):
                where, _, name = ref[2:].partition("/")
                defs = raw.get(where)
                if where not in kept or any(c in name for c in "/~%") or not isinstance(defs, dict) or name not in defs:
                    return False
            pending.extend(node.values())
    return True


_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples"})
_SCHEMA_MAPS = SCHEMA_MAP_KEYS | {"$defs", "definitions"}


def _check_nesting(schema: Any, tool_name: str) -> None:
    """Refuse a schema nested deeper than ``jsonschema`` (which recurses once per level) and copying can go, before
    they overflow the stack: more than :data:`~toolwire._schema_refs.MAX_SCHEMA_DEPTH` schemas within one another,
    or JSON (its data, ``default``/``enum``... values, included) more than four times that deep. Walked without
    recursion.

    Raises:
        SchemaError: naming the tool and what to do.
    """
    pending: list[tuple[Any, int, int, bool]] = [(schema, 1, 1, True)]  # (value, schema level, JSON level, a schema?)
    while pending:
        node, level, json_level, is_schema = pending.pop()
        if level > MAX_SCHEMA_DEPTH or json_level > 4 * MAX_SCHEMA_DEPTH:
            raise SchemaError(f"The parameters of tool {tool_name!r} nest more than {MAX_SCHEMA_DEPTH} levels of "
                              "schemas (or their data is nested too deeply): flatten them, or take the deep part "
                              "as a JSON string.")
        if isinstance(node, list):
            pending.extend((item, level, json_level + 1, is_schema) for item in node)
        elif isinstance(node, Mapping):
            for key, value in node.items():
                if is_schema and key in SCHEMA_KEYS:
                    pending.append((value, level + 1, json_level + 1, True))
                elif is_schema and key in _SCHEMA_MAPS and isinstance(value, Mapping):
                    pending.extend((sub, level + 1, json_level + 2, True) for sub in value.values())
                else:
                    pending.append((value, level, json_level + 1, False))


def _tuples_as_2020(schema: Any) -> Any:
    """A schema of an older dialect written the 2020-12 way: ``items: [A, B]`` becomes ``prefixItems: [A, B]``
    and ``additionalItems: X`` becomes ``items: X`` (JSON Schema 2020-12 release notes, "Array-based
    items"; an ``additionalItems`` beside a single ``items`` schema, which it does not affect, is dropped);
    draft-04's ``"maximum": 5, "exclusiveMaximum": true`` becomes ``"exclusiveMaximum": 5`` (draft-06 on).
    Values of ``enum``, ``const``, ``default`` and ``examples`` are data, left alone."""
    if isinstance(schema, list):
        return [_tuples_as_2020(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: v if k in _DATA_KEYWORDS else _tuples_as_2020(v) for k, v in schema.items()}
    if isinstance(out.get("items"), list):
        out["prefixItems"] = out.pop("items")
        if "additionalItems" in out:
            out["items"] = out.pop("additionalItems")
    else:
        out.pop("additionalItems", None)
    for bound, limit in (("exclusiveMaximum", "maximum"), ("exclusiveMinimum", "minimum")):
        # draft-04: a flag on maximum/minimum; since draft-06 the number itself
        if isinstance(out.get(bound), bool) and out.pop(bound) and limit in out:
            out[bound] = out.pop(limit)
    return out


def _may_be_object(schema: Any) -> bool:
    """Whether a union branch can accept a JSON object (no ``type``, or ``object`` among its types)."""
    if not isinstance(schema, Mapping):
        return schema is True
    kind = schema.get("type")
    if kind is None:
        if "const" in schema or "enum" in schema:
            values = schema.get("enum") if isinstance(schema.get("enum"), list) else [schema.get("const")]
            return any(isinstance(v, dict) for v in values)
        return True
    return kind == "object" or (isinstance(kind, list) and "object" in kind)


def schema_validator(parameters: Mapping[str, Any], tool_name: str, *,
                     dialect: str | None = None) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """Build ``validate(args) -> dict`` checking ``args`` against the JSON Schema ``parameters``.

    Args:
        parameters: the arguments' object schema (its ``$schema`` picks the dialect; default 2020-12).
        tool_name: used in error messages.
        dialect: the ``$schema`` URI of the schema as it was written, for ``parameters`` that
            :func:`normalize_parameters` stripped of it: a draft-07 or draft-04 schema (MCP servers built
            with zod-to-json-schema send draft-07) is then checked and validated with that draft's rules
            (``"items": [...]`` tuples, boolean ``exclusiveMaximum``), not 2020-12's. Ignored when
            ``parameters`` has its own ``$schema``.

    Keys that ``properties`` does not declare are rejected, as for a ``@tool``, unless the schema
    itself says what to do with them (``additionalProperties``, ``patternProperties``, a combinator...).
    Regular expressions (``pattern``, ``patternProperties``) are searched in linear time; one that cannot be (a
    lookaround, a backreference) is not checked, with a :class:`~toolwire.errors.ToolDefinitionWarning` now
    (see :mod:`toolwire._schema_patterns`, which also says why validation is outside the tool's ``timeout``).

    Returns:
        A function returning a copy of ``args`` when valid.

    Raises:
        SchemaError: (when building) ``parameters`` is not valid JSON Schema, or nests more than
            :data:`~toolwire._schema_refs.MAX_SCHEMA_DEPTH` levels of schemas.
        ToolValidationError: (when validating) one message naming each bad field, e.g.
            ``"Invalid arguments for tool 'add': 'a': '2' is not of type 'integer'; 'b' is required but
            missing."``
    """
    return _validator(parameters, tool_name, dialect, known_valid=False)


def _validator(parameters: Mapping[str, Any], tool_name: str, dialect: str | None,
               known_valid: bool) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """:func:`schema_validator`; ``known_valid``: ``parameters`` is known to fit its dialect's meta-schema (the check
    :func:`_checked_form` made covers it), so it is not checked again."""
    js = _jsonschema()
    _check_nesting(parameters, tool_name)
    if dialect is not None and "$schema" not in parameters:
        cls = js.validators.validator_for({"$schema": dialect})
    else:
        cls = js.validators.validator_for(parameters)
    try:
        if not known_valid:
            check_schema(cls, parameters)
    except js.exceptions.SchemaError as exc:
        raise SchemaError(f"The parameters of tool {tool_name!r} are not valid JSON Schema: {exc.message}") from None
    cls = js.validators.extend(cls, linear_keywords(cls))  # linear-time regex searches (reviews 51, 75)
    warn_unchecked_patterns(parameters, tool_name)
    checked = dict(parameters)
    if not any(k in checked for k in _OPEN_KEYWORDS):
        checked["additionalProperties"] = False  # like a @tool: an argument it does not declare is an error
    validator = cls(checked, format_checker=getattr(cls, "FORMAT_CHECKER", None))
    names = list(parameters.get("properties") or {})

    def validate(args: Mapping[str, Any]) -> dict[str, Any]:
        args = dict(args)
        try:
            errors = sorted(validator.iter_errors(args),
                            key=lambda e: ([str(p) for p in e.absolute_path], e.validator))
        except Exception as exc:  # jsonschema writes a failing value's repr, which may raise (review 141 #6)
            raise ToolValidationError(f"Invalid arguments for tool '{tool_name}': a value in them could not be "
                                      f"checked ({safe_text(exc, str)}); send JSON values (text, numbers, lists, "
                                      "objects).", tool_name) from None
        if not errors:
            return whole_integers(args, checked)  # type: ignore[no-any-return]
        parts: list[str] = []
        unknown = False
        for error in errors:
            described, extra = describe_error(error)
            parts.extend(p for p in described if p not in parts)
            unknown = unknown or extra
        text = f"Invalid arguments for tool '{tool_name}': " + "; ".join(parts) + "."
        if unknown and names:
            text += f" Its parameters are: {', '.join(names)}."
        elif unknown and _takes_no_keys(checked):
            text += " It takes no arguments: send {}."
        raise ToolValidationError(text, tool_name)

    return validate


def _takes_no_keys(schema: Mapping[str, Any]) -> bool:
    """Whether the object schema ``schema`` (as validated: ``additionalProperties: false`` added when it has none
    of :data:`_OPEN_KEYWORDS`) accepts no key at all: no ``properties``, no ``patternProperties`` and
    ``additionalProperties: false``; only then is "It takes no arguments: send {}." the right hint.

    Returns:
        True only then; False for a schema that names or lets through some keys (``patternProperties``, an
        ``additionalProperties`` schema, no ``additionalProperties: false``...).
    """
    return not schema.get("properties") and not schema.get("patternProperties") \
        and schema.get("additionalProperties") is False



def ready_function_schema(parameters: Mapping[str, Any], tool_name: str, description: str,
                          validate: Callable[[Mapping[str, Any]], dict[str, Any]] | None) -> Any:
    """Return the :class:`toolwire.schema.FunctionSchema` of a tool whose JSON Schema is given (``Tool.from_schema``).

    Args:
        parameters: the arguments' JSON Schema (an object schema); local ``$ref`` are inlined.
        tool_name: the tool's name, for messages.
        description: the tool's description.
        validate: ``validate(args) -> dict``; None checks the arguments against ``parameters`` with
            :func:`schema_validator`, in the dialect its ``$schema`` names.

    Raises:
        SchemaError: ``parameters`` is not a valid object schema.
    """
    from toolwire.schema import FunctionSchema, null_plan

    own, declared, dialect_class, known_valid = _checked_form(parameters, tool_name)  # (checked once: review 266 #4)
    params = _sent_form(own, parameters, dialect_class)
    warn_declared(declared, tool_name)
    if validate is None:  # in the schema's own dialect: normalize_parameters drops "$schema"
        dialect = parameters.get("$schema")
        validate = _validator(own, tool_name, dialect if isinstance(dialect, str) else None, known_valid)
    plan = null_plan(params)
    return FunctionSchema(description or "", params, validate,
                          defaulted_non_nullable=frozenset((plan or {}).get("drop", ())), null_plan=plan)


_OPTIONS = frozenset({"return_direct", "timeout", "response_format", "handle_errors", "hide_error_details"})
"""The options :func:`tool_from_schema` passes on to :meth:`toolwire.tools.Tool.from_schema`."""


def tool_from_schema(
    schema: Mapping[str, Any],
    func: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    **options: Any,
) -> Any:
    """Make a toolwire :class:`~toolwire.tools.Tool` from a tool definition and its implementation.

    Args:
        schema: an OpenAI tool dict (Chat Completions or Responses form), a bare function dict, or a
            JSON Schema of the arguments (see the module doc).
        func: sync or ``async def`` callable, called as ``func(**arguments)`` after validation.
        name: the tool name; default: the definition's name, else the function's ``__name__``, else the
            schema's ``title``.
        description: default: the definition's description, else the function's docstring summary.
        **options: ``return_direct``, ``timeout`` (seconds), ``response_format``, ``handle_errors``,
            ``hide_error_details`` (see :class:`~toolwire.tools.Tool`).

    Returns:
        The Tool; ``tool.invoke(args)`` raises :class:`ToolValidationError` on invalid arguments and
        ``tool.invoke(tool_call)`` returns a ``status="error"`` ToolMessage instead. A definition's own
        ``"strict"`` is kept on its :attr:`~toolwire.tools.Tool.spec` (a
        :class:`~toolwire.models.base.ToolDictSpec`), so a request binding the tool asks for strict mode as it does
        for the dict bound alone (review 118 #4: it was dropped); ``bind_tools(strict=...)`` still decides first.

    Raises:
        SchemaError: no usable name, no description, an invalid schema, ``func`` not callable, or a ``func``
            that cannot take the schema's properties as keyword arguments.
        UserError: an option that is none of these (``timout=``: the message names the close match, ``timeout``);
            an OpenAI custom (free-form text) tool (:func:`refuse_free_form`).
    """
    from toolwire._keywords import check_keywords
    from toolwire.tools import Tool

    if not _OPTIONS.issuperset(options):  # (review 76: a TypeError naming Tool.from_schema)
        check_keywords("tool_from_schema", options, ["name", "description", *sorted(_OPTIONS)])
    if not callable(func):
        raise SchemaError(f"tool_from_schema needs the function that implements the tool, not {func!r}.")
    from toolwire.models.lowering._gemini_declarations import gemini_declaration

    # (a google-genai FunctionDeclaration or its dict, its Schema read as JSON Schema: review 303 #2)
    schema = gemini_declaration(schema)
    def_name, def_desc, params, is_schema = _split(schema)
    func_name = function_name(func)  # (a functools.partial: the wrapped function's)
    if func_name == "<lambda>":
        func_name = None
    tool_name = name or (func_name if is_schema and func_name else def_name) or func_name
    if not tool_name:
        raise SchemaError("The tool has no name: pass name=..., or give the definition a 'name'.")
    desc = description or def_desc
    if not desc:
        from toolwire.schema import _parse_docstring

        desc = _parse_docstring(inspect.getdoc(func))[0] if not isinstance(func, type) else ""
    if not desc:
        raise SchemaError(
            f"Tool {tool_name!r} has no description: pass description=... or put one in the definition, "
            "so the model knows when to use it."
        )
    params = dict(params)
    if def_desc and params.get("description") == def_desc:
        params.pop("description")
    properties = params.get("properties")
    if isinstance(properties, dict) and not isinstance(func, type):  # called as func(**arguments): refuse at once a
        # function that cannot take them (every call would fail with a TypeError the model cannot fix)
        check_params_taken(func, {*properties, *undeclared_required(params)}, "The schema's parameters", str(tool_name),
                           "give a function with one keyword parameter per property")
    made = Tool.from_schema(func, tool_name, desc, params, **options)
    own = None if is_schema else _own_strict(schema)
    if own is not None:  # sent as for the dict bound alone: its spec carries the flag (ToolDictSpec.extra)
        from toolwire.models._tool_conversion import ToolDictSpec

        made.spec = ToolDictSpec(made.spec.name, made.spec.description, made.spec.parameters, {"strict": own})
    return made


def _own_strict(definition: Mapping[str, Any]) -> bool | None:
    """A tool dict's own ``"strict"`` (in its ``function``, or beside ``name`` in the Responses form), or None."""
    inner = definition.get("function")
    for where in (inner if isinstance(inner, Mapping) else {}, definition):
        if isinstance(where.get("strict"), bool):
            return bool(where["strict"])
    return None
