"""A union's members kept apart as the JSON Schema's ``anyOf`` keeps them (review 212, findings 1 and 3).

Private to :mod:`toolwire._schema_strict`. pydantic's smart union, when no member takes a value exactly, gives it
to the first member that takes it in lax mode, in the order written. Two members read numbers that JSON Schema
gives to another branch:

* a ``bool`` beside an ``int``, ``float`` or ``Decimal`` (``bool | int``): ``1.0`` and ``0.0`` are whole numbers,
  which JSON Schema counts as integers and never as booleans, yet pydantic's lax ``bool`` read them as ``True`` and
  ``False`` (an order of one unit became "refill to capacity"). Such a ``bool`` member now refuses numbers and
  digits written as text (:class:`NumberNotBool`): the number member reads them; ``true``/``false`` (and ``"true"``)
  still go to the ``bool``.
* a ``date``, ``datetime`` or ``time`` (``datetime | int``): a number, or digits alone as text, is read as a Unix
  timestamp (or seconds), which a lone ``datetime`` refuses (:class:`toolwire._schema_dates.NotDigits`). The
  guard is taken off the members of a union for any other value, where pydantic's exact match must decide (review
  129 #1), but kept for a number or digits (:class:`DatesApart`): the other members decide, and with none taking it
  the value is refused as a lone date refuses it. (A union holding a class besides keeps pydantic's reading.)

Both are written once, when a tool is defined; the JSON Schema writers see through them
(:func:`toolwire._schema_strict.transparent`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic_core import PydanticCustomError, SchemaValidator

from toolwire._schema_dates import _NUMBER, WRITTEN, unwrapped_choices

__all__ = ["DatesApart", "NumberNotBool", "apart_unions", "union_rule"]

_NUMBERS = frozenset(("int", "float", "decimal"))
_DATES = frozenset(WRITTEN)
_FUNCTIONS = ("function-before", "function-wrap", "function-after")


class NumberNotBool:
    """The ``function-before`` of a ``bool`` member in a union with a number member: a number, or digits written as
    text, is refused, so the number member reads it (``1.0`` -> ``1``, never ``True``)."""

    __slots__ = ()

    def __call__(self, value: Any) -> Any:
        cls = value.__class__
        if cls is int or cls is float or (cls is str and _NUMBER.match(value)):
            raise PydanticCustomError("bool_type", "Input should be a valid boolean, not a number (a number is read "
                                      "as the number it is)")
        return value


_NOT_BOOL = NumberNotBool()


class DatesApart:
    """The ``function-wrap`` (with info) of a union holding a ``date``, ``datetime`` or ``time`` member, whose inner
    schema is the union with its members' :class:`~toolwire._schema_dates.NotDigits` guards kept: a number or digits
    alone (``1700000000``, ``"20250515"``) is read by it, so the other members decide. Any other value is read by
    the union as written (``plain``, without the guards) in JSON mode, where pydantic's exact match decides
    (``datetime | str`` gives ISO text as a ``datetime``: review 129 #1) and a wrapper's handler would read the
    value as Python data; in Python mode the guards change nothing for such a value."""

    __slots__ = ("plain", "validator")

    def __init__(self, plain: dict[str, Any]) -> None:
        self.plain = plain
        self.validator: SchemaValidator | None = None

    def __call__(self, value: Any, handler: Callable[[Any], Any], info: Any) -> Any:
        cls = value.__class__
        if cls is int or cls is float or (cls is str and _NUMBER.match(value)) or info.mode != "json":
            return handler(value)
        try:
            text = _encode(value)
        except (TypeError, ValueError):  # (not JSON data)
            return handler(value)
        if self.validator is None:  # (built at the first need)
            self.validator = SchemaValidator(self.plain)  # type: ignore[arg-type]
        return self.validator.validate_json(text)


_encode = json.JSONEncoder(ensure_ascii=True, allow_nan=False, check_circular=False, separators=(",", ":")).encode


def _kind(node: Any) -> str | None:
    """The core schema type of the union member ``node``, seen through function validators; None for a pair."""
    depth = 0
    while isinstance(node, dict) and node.get("type") in _FUNCTIONS and isinstance(node.get("schema"), dict) \
            and depth < 16:
        node, depth = node["schema"], depth + 1
    return node.get("type") if isinstance(node, dict) else None


def _strict(node: Any, config: dict[str, Any] | None) -> bool:
    while isinstance(node, dict) and node.get("type") in _FUNCTIONS and isinstance(node.get("schema"), dict):
        node = node["schema"]
    return bool(node.get("strict") if isinstance(node, dict) and "strict" in node else (config or {}).get("strict"))


def _bools_apart(node: dict[str, Any], config: dict[str, Any] | None) -> dict[str, Any]:
    """The ``union`` node ``node`` with a ``bool`` member refusing numbers when a number member is beside it."""
    choices = node.get("choices")
    kinds = [_kind(choice) for choice in choices or ()]
    if "bool" not in kinds or not _NUMBERS.intersection(kinds):
        return node
    new = [{"type": "function-before", "function": {"type": "no-info", "function": _NOT_BOOL}, "schema": c}
           if kind == "bool" and not _strict(c, config) else c for c, kind in zip(choices, kinds, strict=True)]
    return {**node, "choices": new}


def _holds_class(value: Any, depth: int = 0) -> bool:
    """Whether the schema ``value`` holds a class (a model, dataclass, TypedDict...) or a definition, which a
    validator of it alone would not build as the tool's (:func:`toolwire._schema_strict.build_validator`)."""
    if isinstance(value, dict):
        return "ref" in value or "cls" in value or "schema_ref" in value or depth > 64 or any(
            _holds_class(v, depth + 1) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_holds_class(v, depth + 1) for v in value)
    return False


def union_rule(node: dict[str, Any], config: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``union`` core schema ``node`` with its members kept apart (see the module docs); ``node`` itself when
    nothing applies. A union whose members hold a date (with its :class:`~toolwire._schema_dates.NotDigits` guard)
    is wrapped by :class:`DatesApart` (the ``ref`` moving to the wrapper); one holding a class or a definition too
    is only unwrapped (:func:`~toolwire._schema_dates.unwrapped_choices`: its exact match kept, numbers left to it)."""
    plain = unwrapped_choices(node, config)
    if plain is node:
        return _bools_apart(node, config)
    inner = {k: v for k, v in node.items() if k != "ref"}
    if _holds_class(inner):
        return _bools_apart(plain, config)
    wrap = DatesApart(_bools_apart({k: v for k, v in plain.items() if k != "ref"}, config))
    out = {"type": "function-wrap", "function": {"type": "with-info", "function": wrap},
           "schema": _bools_apart(inner, config)}
    if "ref" in node:
        out["ref"] = node["ref"]
    return out


def apart_unions(node: Any, depth: int = 0) -> Any:
    """``node`` (the arguments' core schema made by :mod:`toolwire._schema_fast`, whose unions are written without
    the rules of :mod:`toolwire._schema_strict`) with its unions' ``bool`` members refusing numbers (the fast path
    takes no dates); ``node`` itself when
    none changes. Only the nodes that path writes are walked (a model's node was walked with its class)."""
    if not isinstance(node, dict) or depth > 64:
        return node
    kind = node.get("type")
    if kind == "typed-dict":
        fields = node.get("fields") or {}
        new = {name: apart_unions(field, depth + 1) for name, field in fields.items()}
        return node if all(new[n] is f for n, f in fields.items()) else {**node, "fields": new}
    key = {"typed-dict-field": "schema", "nullable": "schema", "default": "schema", "list": "items_schema",
           "dict": "values_schema"}.get(kind)  # type: ignore[arg-type]
    if key is not None:
        inner = apart_unions(node.get(key), depth + 1)
        return node if inner is node.get(key) else {**node, key: inner}
    if kind == "union" and isinstance(node.get("choices"), list):
        choices = [apart_unions(c, depth + 1) for c in node["choices"]]
        if any(a is not b for a, b in zip(choices, node["choices"], strict=True)):
            node = {**node, "choices": choices}
        if any(isinstance(c, dict) and (c.get("function") or {}).get("function") is _NOT_BOOL for c in choices):
            return node  # (applied already)
        return _bools_apart(node, None)
    return node
