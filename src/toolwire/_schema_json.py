"""Validating a model's arguments by pydantic's JSON-mode rules, for the tools where they differ from its Python mode.

Private to :mod:`toolwire.schema`, :mod:`toolwire._schema_fast` and :mod:`toolwire.models.structured`.

The arguments a model sends are JSON data (dicts, lists, strings, numbers, booleans, null), and the JSON Schema a
tool publishes describes them as JSON (``{"type": "string", "format": "date"}``). pydantic validates Python input
and JSON input by different rules in two places (review 94, findings 1 and 4):

* **strict mode** (``ConfigDict(strict=True)``, ``Field(strict=True)``): in Python mode a date, UUID, Enum, tuple,
  Decimal... must be an instance already, so the string or array the schema asks for is refused; in JSON mode
  strict still takes those forms (pydantic docs, "Strict Mode");
* **unions** of ``str`` with a type pydantic reads from a string (``date | str``, ``UUID | str``, ``Decimal |
  str``, ``bytes | str``, ``Path | str``...): in Python mode ``"2025-05-01"`` matches ``str`` exactly and the
  function gets a ``str``; in JSON mode both members match exactly and the first wins, a ``date`` (pydantic docs,
  "Unions", smart mode). The same holds for such a type nested in a member (``list[date] | list[str]``).

Serialising the arguments to validate them as JSON costs a few microseconds, so it is done only for the tools whose
core schema holds one of those (decided once, at decoration, by :func:`json_mode_needed`), and only when the
arguments are plain JSON data: a Python caller passing real objects (a ``date``, a model instance) is validated in
Python mode, as before. toolwire's own rules (:mod:`toolwire._schema_strict`) are part of the core schema, so they
hold in both modes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError
from pydantic_core import SchemaValidator

__all__ = ["json_mode_needed", "json_mode_needed_for", "json_reader", "plain_json", "reader"]

# core schema types pydantic reads from a JSON string or array by other rules in Python's strict mode (the smart
# union's first, strict, pass): with such a type in a union member, JSON and Python modes may pick other members
_FROM_TEXT = frozenset((
    "date", "time", "datetime", "timedelta", "uuid", "decimal", "bytes", "enum", "tuple", "set", "frozenset",
    "json-or-python", "lax-or-strict", "url", "multi-host-url", "complex",
))
# keys whose values are data or settings, never a schema
_DATA_KEYS = frozenset((
    "default", "expected", "metadata", "serialization", "cls", "custom_error_context", "members", "function",
    "ref", "schema_ref", "json_schema_input_schema", "config", "custom_error_message", "custom_error_type",
))
_DEPTH = 200  # deeper arguments are validated in Python mode (pydantic's own nesting limit is far below)


def json_mode_needed(schema: Any, config: dict[str, Any] | None = None) -> bool:
    """Whether validating JSON data against the core schema ``schema`` (with its validator's ``config``) may give
    another result in pydantic's Python mode than in its JSON mode (see the module docs).

    Args:
        schema: a pydantic core schema (a dict with ``"type"``).
        config: the config the validator is built with, if any.

    Returns:
        True when some node or config is ``strict``, or a union of two or more members holds, in a member, a type
        pydantic reads from a string or an array (``date``, ``UUID``, ``Decimal``, ``bytes``, ``Enum``, ``tuple``,
        ``Path``...); else False.
    """
    if isinstance(config, dict) and config.get("strict"):
        return True
    return _needed(schema, None)


_BY_TYPE: dict[Any, bool] = {}


def json_mode_needed_for(annotation: Any, schema: Any) -> bool:
    """:func:`json_mode_needed` of ``schema``, the core schema the fast path (:mod:`toolwire._schema_fast`) makes of
    the parameter type ``annotation``, remembered by type: the fast path makes the same schema of the same type each
    time (its classes are complete), and a tool's decoration should not walk it again (B3)."""
    try:
        known = _BY_TYPE.get(annotation)
    except TypeError:  # an unhashable annotation
        return json_mode_needed(schema)
    if known is None:
        if len(_BY_TYPE) > 4096:
            _BY_TYPE.clear()
        known = _BY_TYPE[annotation] = json_mode_needed(schema)
    return known


# schema types that hold no schema: looked at without walking their keys
_LEAVES = frozenset(("str", "int", "float", "bool", "any", "none", "literal", "is-instance", "is-subclass",
                     "callable")) | _FROM_TEXT - {"json-or-python", "lax-or-strict", "tuple", "set", "frozenset"}
_CLASSES = frozenset(("model", "dataclass"))
# id(node) -> (node, needed, holds a _FROM_TEXT type) for class nodes (built once with their class, shared by every
# tool that takes it) whose definition references all point inside them: walked once
_CACHE: dict[int, tuple[Any, bool, bool]] = {}


class _Walk:
    """One walk of a core schema: the nodes with a ``ref`` (``refs``), the choices of each union (``unions``), and
    what is known of class nodes summarised from :data:`_CACHE` (``classes``: id -> holds a _FROM_TEXT type)."""

    __slots__ = ("classes", "dangling", "refs", "top", "unions")

    def __init__(self, top: Any) -> None:
        self.refs: dict[str, Any] = {}
        self.unions: list[list[Any]] = []
        self.classes: dict[int, bool] = {}
        self.dangling = False  # a definition reference to a node this walk did not see
        self.top = top  # (the class node being summarised: not looked up in the cache)

    def strict(self, node: Any) -> bool:
        """Walk ``node``: True as soon as a ``strict`` node or config (or a class that needs JSON mode) is found."""
        kind = type(node)
        if kind is list or kind is tuple:
            return any(self.strict(item) for item in node)
        if kind is not dict:
            return False
        schema_type = node.get("type")
        is_schema = type(schema_type) is str
        if is_schema:
            if node.get("strict") is True:
                return True
            if schema_type in _LEAVES:
                return False
            config = node.get("config")
            if type(config) is dict and config.get("strict"):
                return True
            ref = node.get("ref")
            if type(ref) is str:
                self.refs[ref] = node
            if schema_type in _CLASSES and node is not self.top:
                summary = _class_summary(node)
                if summary is not None:
                    self.classes[id(node)] = summary[1]
                    return summary[0]
            if schema_type == "union":
                self.unions.append([c[0] if type(c) is tuple else c for c in node.get("choices") or ()])
        for key, value in node.items():
            if type(value) in (dict, list, tuple) and not (is_schema and key in _DATA_KEYS) and self.strict(value):
                return True
        return False

    def from_text(self, node: Any, memo: dict[str, bool], depth: int) -> bool:
        """Whether the core schema ``node`` holds a type of ``_FROM_TEXT`` (following definition references; one
        this walk did not see counts as holding one)."""
        kind = type(node)
        if depth > _DEPTH:
            return True  # (a schema this deep: JSON mode, to be safe)
        if kind is list or kind is tuple:
            return any(self.from_text(item, memo, depth + 1) for item in node)
        if kind is not dict:
            return False
        schema_type = node.get("type")
        is_schema = type(schema_type) is str
        if is_schema:
            if schema_type in _FROM_TEXT:
                return True
            if schema_type in _LEAVES:
                return False
            known = self.classes.get(id(node))
            if known is not None:
                return known
            if schema_type == "definition-ref":
                ref = node.get("schema_ref")
                if ref not in memo:
                    memo[ref] = False  # (a recursive reference adds nothing to what is being found)
                    if ref not in self.refs:
                        self.dangling = True
                    memo[ref] = ref not in self.refs or self.from_text(self.refs[ref], memo, depth + 1)
                return memo[ref]
        return any(self.from_text(value, memo, depth + 1) for key, value in node.items()
                   if type(value) in (dict, list, tuple) and not (is_schema and key in _DATA_KEYS))

    def union_differs(self) -> bool:
        """Whether a union of two or more members (besides null) holds a ``_FROM_TEXT`` type in a member."""
        memo: dict[str, bool] = {}
        for choices in self.unions:
            members = [c for c in choices if not (isinstance(c, dict) and c.get("type") == "none")]
            if len(members) > 1 and any(self.from_text(c, memo, 0) for c in members):
                return True
        return False


def _needed(schema: Any, top: Any) -> bool:
    """:func:`json_mode_needed` of ``schema`` without a config (``top``: a class node not to look up in the cache)."""
    walk = _Walk(top)
    return walk.strict(schema) or walk.union_differs()


def _class_summary(node: dict[str, Any]) -> tuple[bool, bool] | None:
    """``(needs JSON mode, holds a _FROM_TEXT type)`` of a class node, cached; None when a definition reference in
    it points outside it (then the caller walks it as part of the whole)."""
    cached = _CACHE.get(id(node))
    if cached is not None and cached[0] is node:
        return cached[1], cached[2]
    walk = _Walk(node)
    needed = walk.strict(node) or walk.union_differs()
    holds = walk.from_text(node, {}, 0)
    if walk.dangling:
        return None
    if len(_CACHE) > 1024:
        _CACHE.clear()
    _CACHE[id(node)] = (node, needed, holds)  # (node kept alive: its id is not reused meanwhile)
    return needed, holds


def plain_json(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is plain JSON data: ``str``, ``int``, finite ``float``, ``bool``, ``None``, and ``dict``
    (with ``str`` keys) and ``list`` of those, exactly those types (a subclass, a tuple, a ``date`` is a Python
    caller's object), nested at most 200 deep."""
    kind = value.__class__
    if kind is str or kind is int or kind is bool or value is None:
        return True
    if kind is float:
        return math.isfinite(value)
    if depth > _DEPTH:
        return False
    if kind is dict:
        return all(k.__class__ is str and plain_json(v, depth + 1) for k, v in value.items())
    if kind is list:
        return all(plain_json(v, depth + 1) for v in value)
    return False


_encode = json.JSONEncoder(ensure_ascii=True, allow_nan=False, check_circular=False, separators=(",", ":")).encode


def json_reader(validator: SchemaValidator) -> Callable[[Any], Any]:
    """``validate(value)``: ``validator.validate_json`` of ``value`` written as JSON when ``value`` is plain JSON
    data (:func:`plain_json`), else ``validator.validate_python(value)``.

    Raises:
        ValidationError: as pydantic's (for JSON data, from JSON mode; a string JSON cannot carry, such as a lone
            surrogate, is validated in Python mode).
    """
    validate_python, validate_json = validator.validate_python, validator.validate_json

    def validate(value: Any) -> Any:
        if not plain_json(value):
            return validate_python(value)
        try:
            return validate_json(_encode(value))
        except ValidationError as exc:
            if any(error.get("type") == "json_invalid" for error in exc.errors(include_url=False)):
                return validate_python(value)  # (text JSON cannot carry as it is: "\ud800")
            raise

    return validate


def reader(validator: SchemaValidator, schema: Any, config: dict[str, Any] | None = None) -> Callable[[Any], Any]:
    """The function that validates a model's arguments with ``validator`` (built from the core schema ``schema``,
    with ``config``): :func:`json_reader` when :func:`json_mode_needed`, else ``validator.validate_python`` (the
    hot path of ordinary tools, unchanged).

    Raises:
        ValidationError: (the returned function) as pydantic's.
    """
    if json_mode_needed(schema, config):
        return json_reader(validator)
    return validator.validate_python  # type: ignore[no-any-return]
