"""Where toolwire checks a model's arguments more strictly than pydantic's defaults, written into the arguments'
core schema once, when a tool is defined (so a call costs nothing more).

Private to :mod:`toolwire.schema` and :mod:`toolwire._schema_fast`. Three rules, each leaving a choice the
user wrote alone:

* An object with pydantic's default ``extra`` setting (a nested ``BaseModel`` whose ``model_config`` does not
  set ``extra``, or a TypedDict or dataclass inside such a model) refuses unknown keys, as the arguments
  themselves do: pydantic's default, ``"ignore"``, would drop a misspelled field and run the tool with the
  field's default, losing what the model sent. ``extra="allow"`` and ``extra="ignore"`` written by the user
  are kept. The JSON Schema says ``additionalProperties: false`` for such objects, so the model knows.
  The check is pydantic's own ``extra="forbid"``, so it runs where pydantic runs it: after the class's
  ``@model_validator(mode="before")`` (and inside a ``"wrap"`` one's handler), on the keys that validator hands
  on. A validator that maps an old key to a field (``data["guests"] = data.pop("num_guests")``) or adds one
  keeps working; a key still unknown to the fields after it is refused (review 124 #5) -- a validator that
  copies an old key without removing it, relying on pydantic ignoring it, needs ``extra="ignore"``.
* A ``float`` refuses NaN and infinities (``"NaN"``, ``"inf"``, ``float("nan")``), which JSON cannot carry and
  toolwire's argument parser refuses in JSON text, unless ``allow_inf_nan`` is set (on the field or in the
  model's config).
* An ``int`` or a ``float`` (and a ``Literal`` or ``Enum`` of numbers, whose ``1`` a ``true`` equals in Python:
  review 63) refuses ``true`` and ``false``, which pydantic's lax mode reads as 1 and 0 but JSON Schema's
  ``integer`` and ``number`` do not include (JSON Schema Validation, section 6.1.1: a boolean is its own type),
  unless the field or the model's config is ``strict`` (which refuses them already). A ``Union[int, bool]`` still
  takes a boolean, and its ``bool`` member no number (``1.0`` -> ``1``: :mod:`toolwire._schema_unions`, which also
  keeps a date in a union from numbers). A ``Literal`` holding a boolean (``Literal[1, True]``, ``Literal[True]``)
  gives a number only the literal's equal number (``1.0`` -> ``1``, never ``True``) and a boolean only a boolean
  (review 75). An ``Enum`` with a boolean member likewise refuses ``1`` and ``0`` (review 94 #12).
* An ``Iterable[X]`` (a pydantic "generator" schema, checked lazily while the tool iterates, so a bad item
  would surface as an exception inside the tool) is validated up front as a ``list[X]``; the tool gets the list.

And repairs, where pydantic alone refuses the value the JSON Schema shows, so no model could call the tool:
``Literal[Kind.CAT]`` of a plain ``Enum`` member (the usual tag of a discriminated union) takes ``"cat"``; an Enum
with a tuple-valued member takes the JSON array (review 94 #9); a dict keyed by a ``Literal`` or ``Enum`` of
numbers takes the keys' text, ``"1"`` (review 94 #5, :mod:`toolwire._schema_keys`).

:class:`StrictJsonSchema` writes the JSON Schema of the result; it also refuses types no JSON value satisfies
(``type[int]``, ``Hashable``, an Enum without members, a dict keyed by tuples), which pydantic writes as ``{}``,
and says what text non-string dict keys are (``propertyNames``).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

from pydantic.errors import PydanticInvalidForJsonSchema
from pydantic.json_schema import JsonSchemaMode, JsonSchemaValue
from pydantic_core import PydanticCustomError, PydanticOmit, SchemaValidator

from toolwire._schema_dates import WRITTEN as _WRITTEN
from toolwire._schema_dates import NotDigits as _NotDigits
from toolwire._schema_dates import not_digits
from toolwire._schema_docs import describe_class
from toolwire._schema_enums import EnumApart, FlagError, enum_apart, flag_error, flag_schema, shown
from toolwire._schema_keys import UNKEYABLE, DistinctKeys, KeyFromText, distinct_keys, key_names, key_table
from toolwire._schema_shapes import NamedTupleObjects
from toolwire._schema_unions import DatesApart, NumberNotBool, apart_unions, union_rule

__all__ = ["NOT_BOOL", "StrictJsonSchema", "build_validator", "not_bool", "numeric_leaf", "strict_class_schema",
           "strict_core", "strict_validator", "transparent", "validator_config"]

# keys whose values are data or settings, never a schema to rewrite
_DATA_KEYS = frozenset((
    "default", "expected", "metadata", "serialization", "config", "cls", "custom_error_context", "members",
    "function", "ref", "schema_ref", "json_schema_input_schema",
))
_FORBID = "forbid"
_CONTAINERS = (dict, list, tuple)
_CLASSES = frozenset(("model", "dataclass"))  # the nodes pydantic-core may build from the class's own validator
# schema types that hold no schema (the common ones; any other is walked)
_LEAVES = frozenset(("str", "int", "bool", "any", "none", "literal", "bytes", "date", "time", "datetime", "timedelta",
                     "decimal", "uuid", "url", "multi-host-url", "is-instance", "is-subclass", "callable", "enum",
                     "definition-ref", "complex", "missing-sentinel"))
# id(node) -> (node, result, classes) for model and dataclass nodes (built once with their class and shared by
# every tool that takes it), so the same class is not walked again for each tool
_CACHE: dict[int, tuple[dict[str, Any], dict[str, Any], tuple[type, ...]]] = {}


def _closed(fields_type: str) -> Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]:
    """The rule for a class node (``model``, ``dataclass``) whose fields node has type ``fields_type``: with
    pydantic's default ``extra`` (neither the class's config nor its fields node chose), refuse unknown keys. The
    fields node may sit inside the class's own ``mode="before"``/``"wrap"`` validators (review 124 #5), which then
    run first: the keys refused are those still unknown in what they hand on."""
    def rule(node: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
        own = node.get("config") or {}
        if "extra_fields_behavior" in own:
            return node
        closed = _closed_fields(node.get("schema"), fields_type)
        if closed is None:
            return node
        return {**node, "config": {**own, "extra_fields_behavior": _FORBID}, "schema": closed}
    return rule


def _closed_fields(fields: Any, fields_type: str, depth: int = 0) -> dict[str, Any] | None:
    """The fields node ``fields`` (of type ``fields_type``, or one wrapped in ``function-before``/``function-wrap``
    validators) refusing unknown keys; None when it is no such node or chose its own ``extra_behavior``."""
    if not isinstance(fields, dict) or depth > 16:
        return None
    kind = fields.get("type")
    if kind in ("function-before", "function-wrap"):
        inner = _closed_fields(fields.get("schema"), fields_type, depth + 1)
        return None if inner is None else {**fields, "schema": inner}
    if kind != fields_type or "extra_behavior" in fields:
        return None
    return {**fields, "extra_behavior": _FORBID}


_model = _closed("model-fields")
_dataclass = _closed("dataclass-args")


def _typed_dict(node: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    own = node.get("config") or {}
    # pydantic writes "ignore" when nothing chose (no config setting, not a PEP 728 closed TypedDict or extra_items)
    if "extra_fields_behavior" in own or node.get("extra_behavior", "ignore") != "ignore":
        return node
    return {**node, "config": {**own, "extra_fields_behavior": _FORBID}, "extra_behavior": _FORBID}


def _float(node: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    if "allow_inf_nan" in node or "allow_inf_nan" in config:
        return node
    return {**node, "allow_inf_nan": False}


def _not_bool_int(value: Any) -> Any:
    if value.__class__ is bool:
        raise PydanticCustomError("int_type", "Input should be a valid integer, not a boolean")
    return value


def _not_bool_float(value: Any) -> Any:
    if value.__class__ is bool:
        raise PydanticCustomError("float_type", "Input should be a valid number, not a boolean")
    return value


def _not_bool_value(value: Any) -> Any:
    if value.__class__ is bool:
        raise PydanticCustomError("literal_error", "Input should be one of the allowed numbers, not a boolean")
    return value


NOT_BOOL = (_not_bool_int, _not_bool_float, _not_bool_value)
"""The functions of the ``function-before`` nodes :func:`not_bool` writes (a JSON Schema walker sees through
them: the node's schema is the number's)."""


class _BoolApart:
    """The ``function-wrap`` of a ``literal`` holding a boolean (``Literal[1, True]``, ``Literal[True]``): pydantic's
    literal check finds a value by Python equality, where ``1.0 == 1 == True``, so it gave ``True`` for the number
    ``1.0`` (and for ``1`` with ``Literal[True]``). A number now gets the literal's equal number (``1.0`` -> ``1``)
    or is refused, and a boolean only ever gives a boolean, as JSON Schema's ``enum`` keeps them apart (review 75)."""

    __slots__ = ("expected", "numbers")

    def __init__(self, values: list[Any]) -> None:
        self.numbers = [v for v in values if type(v) in (int, float)]
        self.expected = shown(values)  # (pydantic's words)

    def __call__(self, value: Any, handler: Callable[[Any], Any]) -> Any:
        result = handler(value)
        if (value.__class__ is bool) == (result.__class__ is bool):
            return result
        if value.__class__ in (int, float):
            for number in self.numbers:
                if number == value:
                    return number
        raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": self.expected})


_BEFORE_CHECKS = (KeyFromText, _NotDigits, DistinctKeys, NumberNotBool)  # (made once: not an ``A | B`` per call)
_WRAP_CHECKS = (_BoolApart, EnumApart, FlagError)


def transparent(node: dict[str, Any]) -> bool:
    """Whether the core schema ``node`` is a wrapper this module writes (:func:`not_bool`, a boolean literal's
    check, a boolean or tuple Enum's, a dict key's reading), whose ``schema`` is what a JSON Schema writer should
    describe."""
    kind = node.get("type")
    function = (node.get("function") or {}).get("function")
    return (kind == "function-before" and (function in NOT_BOOL or isinstance(function, _BEFORE_CHECKS))) or (
        kind == "function-wrap" and isinstance(function, _WRAP_CHECKS))


def not_bool(node: dict[str, Any], config: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``int``, ``float``, numeric ``literal`` or numeric ``enum`` core schema ``node`` refusing booleans (see
    the module's rules), or ``node`` itself when it (else ``config``) is strict. A definition's ``ref`` moves to the
    wrapper, where pydantic looks for it."""
    strict = node["strict"] if "strict" in node else (config or {}).get("strict")
    if strict:
        return node
    kind = node["type"]
    check = _not_bool_int if kind == "int" else _not_bool_float if kind == "float" else _not_bool_value
    inner = {k: v for k, v in node.items() if k != "ref"}
    out = {"type": "function-before", "function": {"type": "no-info", "function": check}, "schema": inner}
    if "ref" in node:  # a definition's ref belongs to the wrapper, where pydantic looks for it (review 63)
        out["ref"] = node["ref"]
    return out


def _numeric(values: Any) -> bool:
    """Whether ``values`` (a literal's or an enum's) hold a number and no boolean: a ``true`` sent for one of them
    would be read as 1 (``True == 1``), which JSON Schema's ``enum``/``const`` refuse."""
    values = [v.value if isinstance(v, enum.Enum) else v for v in values or ()]
    return any(type(v) in (int, float) for v in values) and not any(type(v) is bool for v in values)


def numeric_leaf(node: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """A ``literal`` or ``enum`` node of numbers refusing booleans (review 63), a ``literal`` holding a boolean
    keeping numbers and booleans apart (:class:`_BoolApart`, review 75); any other leaf as it is."""
    kind = node["type"]
    if kind == "literal" and _numeric(node.get("expected")):
        return not_bool(node, config)
    if kind == "literal" and any(v.__class__ is bool for v in node.get("expected") or ()):
        if node["strict"] if "strict" in node else config.get("strict"):
            return node
        return {"type": "function-wrap", "function": {"type": "no-info", "function": _BoolApart(node["expected"])},
                "schema": node}
    if kind == "enum" and (node.get("sub_type") in ("int", "float") or _numeric(node.get("members"))):
        return flag_error(not_bool(node, config))  # (an enum.Flag's error names combinations: review 222 #7)
    if kind == "enum":
        return enum_apart(node)
    return node


def _generator(node: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    return {**node, "type": "list"}  # (a generator schema's keys are all list schema keys)


def _unwrapped(node: Any) -> Any:
    """``node`` without the wrappers this module writes (:func:`transparent`)."""
    while isinstance(node, dict) and node.get("type") in ("function-before", "function-wrap") and transparent(node):
        node = node["schema"]
    return node


def _dict_keys(node: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """A ``dict`` node of keys other than strings refusing two texts of one key (``DistinctKeys``, review 158 #4), and
    reading the text of a ``Literal``/``Enum`` key of other values (``KeyFromText``); any other as it is."""
    keys = node.get("keys_schema")
    if not isinstance(keys, dict) or _unwrapped(keys).get("type") in ("str", "any"):
        return node
    table = key_table(_unwrapped(keys))
    if table and not (keys.get("type") == "function-before" and isinstance(
            (keys.get("function") or {}).get("function"), KeyFromText)):
        keys = {"type": "function-before", "function": {"type": "no-info", "function": KeyFromText(table)},
                "schema": keys}
    return distinct_keys(node if keys is node["keys_schema"] else {**node, "keys_schema": keys}, config)


def _enum_values(values: Any) -> dict[tuple[type, Any], enum.Enum]:
    """``{(type of value, value): member}`` for the members of a plain Enum among ``values`` (a member that is
    not equal to its own value, as a ``str``/``int`` mixin's is)."""
    return {(type(v.value), v.value): v for v in values if isinstance(v, enum.Enum) and v != v.value}


def _literal(node: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """``Literal[Kind.CAT]`` of a plain Enum's member: the JSON Schema shows the value (``{"const": "cat"}``),
    which pydantic's literal check refuses (only the member itself is equal to it); the value is turned into
    its member first. A value of another type (``True`` for a member valued ``1``) is left to the check."""
    members = _enum_values(node.get("expected") or ())
    if not members:
        return node

    def to_member(value: Any) -> Any:
        try:
            return members.get((type(value), value), value)
        except TypeError:  # an unhashable value: the literal check refuses it
            return value

    expected = shown([v.value if isinstance(v, enum.Enum) and v != v.value else v for v in node["expected"]])
    before = {"type": "function-before", "function": {"type": "no-info", "function": to_member}, "schema": node}
    return {"type": "custom-error", "custom_error_type": "literal_error",
            "custom_error_context": {"expected": expected}, "schema": before}


def _tagged_union(node: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """A discriminated union tagged by plain Enum members (``kind: Literal[Kind.CAT]``) finds its branch by the
    tag's value too, the value the JSON Schema shows."""
    choices = node.get("choices")
    if not isinstance(choices, dict):
        return node
    members = _enum_values(choices)
    extra = {value: choices[member] for (_, value), member in members.items() if value not in choices}
    return {**node, "choices": {**choices, **extra}} if extra else node


_RULES: dict[str, Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]] = {
    "model": _model, "typed-dict": _typed_dict, "dataclass": _dataclass, "float": _float, "generator": _generator,
    "tagged-union": _tagged_union, "dict": _dict_keys, "union": union_rule,
}


def strict_core(schema: Any) -> Any:
    """The pydantic core schema ``schema`` with the rules of this module applied: a new schema sharing every
    unchanged part with ``schema`` (which is not changed), or ``schema`` itself when no rule applies."""
    return _walk(schema, {}, [])


def strict_validator(schema: Any, config: dict[str, Any] | None = None,
                     unchanged: SchemaValidator | None = None) -> SchemaValidator:
    """A validator of ``strict_core(schema)`` (``unchanged``, when given, if no rule applies)."""
    classes: list[type] = []
    strict = _walk(schema, {}, classes)
    if strict is schema:
        return unchanged if unchanged is not None else SchemaValidator(schema, config)  # type: ignore[arg-type]
    return build_validator(strict, classes, config)


def strict_class_schema(schema: dict[str, Any], classes: list[type]) -> dict[str, Any]:
    """``strict_core`` of a class's own (self-contained) core schema; when a rule applied, the classes it holds are
    added to ``classes``, for :func:`build_validator`."""
    found: list[type] = []
    result = _walk(schema, {}, found)
    if result is not schema:
        classes.extend(found)
    return result  # type: ignore[no-any-return]


def build_validator(schema: Any, classes: list[type], config: dict[str, Any] | None = None, *,
                    unions: bool = True) -> SchemaValidator:
    """``SchemaValidator(schema, config)``, building the model and pydantic dataclass ``classes`` from ``schema``,
    whose unions the fast path wrote without :func:`_walk` kept apart (:func:`apart_unions`, review 212 #1).

    pydantic-core builds a model or pydantic dataclass node from the class's own ``__pydantic_validator__``
    (its "prebuilt" validator, made from the class's own schema) when the class is complete, which would undo
    the rules (for a class whose node changed, or that reaches one through a ``definition-ref``), so those
    classes are marked incomplete while the validator is built. (A validator built meanwhile elsewhere only
    builds such a class from its schema instead, with the same result.)"""
    marked, schema = [], apart_unions(schema) if unions else schema  # (unions=False: the caller saw none)
    try:
        for cls in dict.fromkeys(classes):
            if cls.__dict__.get("__pydantic_complete__") is True:
                type.__setattr__(cls, "__pydantic_complete__", False)
                marked.append(cls)
        return SchemaValidator(schema, config)  # type: ignore[arg-type]
    finally:
        for cls in marked:
            type.__setattr__(cls, "__pydantic_complete__", True)


def _walk(node: Any, config: dict[str, Any], classes: list[type]) -> Any:
    """``node`` with the rules applied (itself when none applies); the classes of its model and dataclass nodes
    are added to ``classes``. A dict with a string ``type`` is a schema; any other (the ``fields`` of a model,
    the ``choices`` of a tagged union) maps names to schemas, so a field named ``config`` or ``type`` is a field."""
    kind = type(node)
    if kind is list or kind is tuple:
        items = [_walk(item, config, classes) for item in node]
        return node if all(a is b for a, b in zip(items, node, strict=True)) else kind(items)
    if kind is not dict:
        return node
    schema_type = node.get("type")
    is_schema = type(schema_type) is str
    if is_schema:
        if schema_type == "int":
            return not_bool(node, config)
        if schema_type == "literal":
            member = _literal(node, config)  # (a plain Enum member's literal takes its value; else numbers checked)
            return numeric_leaf(node, config) if member is node else member
        if schema_type == "enum":
            return numeric_leaf(node, config)
        if schema_type in _WRITTEN:
            return not_digits(node, config)
        if schema_type in _LEAVES:
            return node
        if schema_type == "float":
            return not_bool(_float(node, config), config)
        if (schema_type in ("function-before", "function-wrap") and transparent(node)) or (
                schema_type == "tagged-union" and isinstance(node.get("discriminator"), DatesApart)):
            return node  # written here already (a schema walked again)
        own = type(node.get("config")) is dict
        if own:  # the config a model, TypedDict or dataclass passes down
            config = node["config"]
        # a class's schema, shared by every tool that takes the class (and, with a config of its own, the same
        # whatever holds it): walked once
        cache = own and schema_type in _CLASSES
        if cache:
            cached = _CACHE.get(id(node))
            if cached is not None and cached[0] is node:
                classes.extend(cached[2])
                return cached[1]
            outer, classes = classes, []
    out: dict[str, Any] | None = None
    for key, value in node.items():
        if type(value) not in _CONTAINERS or (is_schema and key in _DATA_KEYS):
            continue
        new = _walk(value, config, classes)
        if new is not value:
            if out is None:
                out = dict(node)
            out[key] = new
    result = node if out is None else out
    if not is_schema:
        return result
    rule = _RULES.get(schema_type)
    if rule is not None:
        result = rule(result, config)
    if schema_type in _CLASSES and isinstance(result.get("cls"), type):
        classes.append(result["cls"])
    if cache:
        if len(_CACHE) > 1024:
            _CACHE.clear()
        _CACHE[id(node)] = (node, result, tuple(classes))  # (node kept alive: its id is not reused meanwhile)
        outer.extend(classes)
    return result


def validator_config(schema: dict[str, Any]) -> dict[str, Any] | None:
    """The config pydantic validates a model's core schema with (the model's own), for a ``SchemaValidator`` built
    from :func:`strict_core`'s result."""
    if schema.get("type") == "definitions":
        schema = schema.get("schema") or {}
    config = schema.get("config")
    return config if isinstance(config, dict) else None


class StrictJsonSchema(NamedTupleObjects):
    """pydantic's JSON Schema generator, writing the schema of :func:`strict_core`'s result: a nested model that
    refuses unknown keys says ``additionalProperties: false`` (pydantic reads only the class's own setting); a
    NamedTuple is an object of its fields and a set default sorted (:mod:`toolwire._schema_shapes`)."""

    def generate(self, schema: Any, mode: JsonSchemaMode = "validation") -> JsonSchemaValue:
        """The JSON Schema of ``strict_core(schema)``."""
        return super().generate(strict_core(schema), mode=mode)

    def generate_inner(self, schema: Any) -> JsonSchemaValue:
        """pydantic's, refusing a type no JSON value can satisfy (review 94, finding 9), which pydantic writes as
        ``{}`` or ``{"enum": []}``: a class (``type[int]``), ``Hashable`` (an object or an array is not), an Enum
        without members.

        Raises:
            PydanticInvalidForJsonSchema: ``schema`` is one of those.
        """
        kind = schema.get("type")
        reason = None
        if kind == "is-subclass":
            reason = f"a class (type[{getattr(schema.get('cls'), '__name__', '?')}]), which no JSON value is"
        elif kind == "is-instance" and isinstance(cls := schema.get("cls"), type) and issubclass(cls, enum.Enum) \
                and not len(cls):  # type: ignore[arg-type]
            reason = f"the Enum {cls.__name__}, which has no members, so no value can be sent"
        elif kind == "custom-error" and schema.get("custom_error_type") == "is_hashable":
            reason = "Hashable, which takes no JSON object or array"
        if reason is not None:
            raise PydanticInvalidForJsonSchema(f"Cannot generate a JSON schema for {reason}")
        return super().generate_inner(schema)

    def enum_schema(self, schema: Any) -> JsonSchemaValue:
        """pydantic's, but an ``enum.Flag`` takes any combination of its flags
        (:func:`~toolwire._schema_enums.flag_schema`, review 212 #5)."""
        return flag_schema(super().enum_schema(schema), schema.get("cls"))

    def get_decimal_pattern(self, schema: Any) -> str | None:
        """The pattern of a ``Decimal`` written as text (pydantic's ``build_decimal_pattern``: digits, a point, an
        exponent; ``max_digits``/``decimal_places`` left to validation; no minus sign under a lower bound of 0 or
        more), which pydantic leaves out by default: without it the schema's string branch took any text (``"ten"``)
        that validation then refused (review 94, finding 10). The local grammar follows it, OpenAI's strict mode keeps
        it, Gemini says it in the description. None on a pydantic without that method."""
        build = getattr(self, "build_decimal_pattern", None)
        # the plain number pattern, without max_digits/decimal_places (validation checks those): pydantic's pattern
        # for them ends in an alternative of any number of digits before a required exponent, in which the local
        # model, stopped at a third decimal place, wrote digits until max_tokens (review 96)
        plain = {k: v for k, v in schema.items() if k not in ("max_digits", "decimal_places")}
        pattern = build(plain) if build is not None else None
        low = schema.get("ge", schema.get("gt"))
        if isinstance(pattern, str) and low is not None and low >= 0 and pattern.startswith("^[+-]?"):
            pattern = "^[+]?" + pattern.removeprefix("^[+-]?")  # (a lower bound of 0 or more: no minus sign)
        return pattern

    def dict_schema(self, schema: Any) -> JsonSchemaValue:
        """pydantic's dict schema, with ``propertyNames`` saying what text the keys are (review 94, finding 5;
        :func:`toolwire._schema_keys.key_names`): a JSON object's keys are strings, so an ``int`` key is
        ``{"pattern": "^(?:0|-?[1-9][0-9]*)$"}``, a ``float`` or ``Decimal`` key a number's pattern, a ``Literal``,
        ``Enum`` or ``bool`` key ``{"enum": [texts]}`` (``"1"``, ``"true"``), which validation reads back.

        Raises:
            PydanticInvalidForJsonSchema: the keys cannot be written as text (a ``tuple``, ``None``...).
        """
        out = super().dict_schema(schema)
        keys = schema.get("keys_schema")
        if not isinstance(keys, dict):
            return out
        names = key_names(self.generate_inner(keys), self._definition)
        if names is UNKEYABLE:
            raise PydanticInvalidForJsonSchema("Cannot generate a JSON schema for a dict whose keys are not text, "
                                               "numbers, booleans, an Enum or a Literal: JSON object keys are "
                                               "strings")
        if names is not None:
            out["propertyNames"] = names
        return out

    def _definition(self, ref: str) -> JsonSchemaValue | None:
        """The JSON Schema a ``$ref`` of this generator points to, or None when it is not written yet."""
        try:
            return self.get_schema_from_definitions(ref)  # type: ignore[arg-type]
        except Exception:  # (a definition being written: a recursive one)
            return None

    def tagged_union_schema(self, schema: Any) -> JsonSchemaValue:
        """pydantic's discriminated union, with the tag required in each branch (review 124 #4): a tag found by its
        key (``Field(discriminator="method")``) must be in the object whatever its field's default (pydantic refuses
        one without it: "Unable to extract tag"), while pydantic leaves a defaulted tag out of ``required`` (``method:
        Literal["card"] = "card"``), so every lowering and the local grammar offered a call validation refused. A
        branch that is a ``$ref`` gets the whole ``required`` list beside it (the definition may serve elsewhere,
        where the field stays optional); a tag chosen by a function (``Discriminator(callable)``) is left alone. A
        union's date member (:class:`~toolwire._schema_unions.DatesApart`) is the date it was written as (once)."""
        if isinstance(schema.get("discriminator"), DatesApart):
            if schema["discriminator"].paired:
                raise PydanticOmit  # (its guarded node beside it is the member the schema shows)
            return self.generate_inner(schema["discriminator"].node)
        out = super().tagged_union_schema(schema)
        found = out.get("discriminator")
        tag = found.get("propertyName") if isinstance(found, dict) else None
        if not isinstance(tag, str) and isinstance(schema.get("discriminator"), str):
            tag = schema["discriminator"]
        if isinstance(tag, str) and isinstance(out.get("oneOf"), list):
            out["oneOf"] = [self._tag_required(branch, tag) for branch in out["oneOf"]]
        return out

    def _tag_required(self, branch: Any, tag: str) -> Any:
        """``branch`` (a ``oneOf`` member) with ``tag`` in its ``required`` list, in the order of its properties."""
        ref = branch.get("$ref") if isinstance(branch, dict) else None
        target = self._definition(ref) if isinstance(ref, str) else branch
        props = target.get("properties") if isinstance(target, dict) else None
        required = target.get("required") or [] if isinstance(target, dict) else []
        if not isinstance(props, dict) or tag not in props or not isinstance(required, list) or tag in required:
            return branch
        wanted = {*required, tag}
        return {**branch, "required": [name for name in props if name in wanted]
                + [name for name in required if name not in props]}

    def model_schema(self, schema: Any) -> JsonSchemaValue:
        """pydantic's model schema, with ``additionalProperties: false`` when the core schema refuses extra keys, and
        its fields described from the class (:func:`~toolwire._schema_docs.describe_class`)."""
        out = describe_class(super().model_schema(schema), schema.get("cls"))
        if (schema.get("config") or {}).get("extra_fields_behavior") == _FORBID:
            out.setdefault("additionalProperties", False)
        return out

    def dataclass_schema(self, schema: Any) -> JsonSchemaValue:
        """pydantic's, with ``additionalProperties: false`` when the core schema refuses extra keys, as
        :meth:`model_schema` (pydantic writes it itself from 2.14 only: review 145 #3), its fields described from the
        class (:func:`~toolwire._schema_docs.describe_class`)."""
        out = describe_class(super().dataclass_schema(schema), schema.get("cls"))
        if (schema.get("config") or {}).get("extra_fields_behavior") == _FORBID:
            out.setdefault("additionalProperties", False)
        return out

    def typed_dict_schema(self, schema: Any) -> JsonSchemaValue:
        """pydantic's, its fields described from the class (:func:`~toolwire._schema_docs.describe_class`)."""
        return describe_class(super().typed_dict_schema(schema), schema.get("cls"))

    def dataclass_args_schema(self, schema: Any) -> JsonSchemaValue:
        """pydantic's schema of a dataclass's fields, without those declared ``field(init=False)``: ``__init__``
        does not take them, so a value sent for one is refused (or ignored), and the model is not offered them
        (review 28)."""
        fields = schema.get("fields")
        if isinstance(fields, list) and any(isinstance(f, dict) and f.get("init") is False for f in fields):
            schema = {**schema, "fields": [f for f in fields if not (isinstance(f, dict) and f.get("init") is False)]}
        return super().dataclass_args_schema(schema)
