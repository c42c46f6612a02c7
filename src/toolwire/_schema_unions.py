"""A union's members kept apart as the JSON Schema's ``anyOf`` keeps them (review 212, findings 1 and 3).

Private to :mod:`toolwire._schema_strict`. pydantic's smart union, when no member takes a value exactly, gives it
to the first member that takes it in lax mode, in the order written. Two members read numbers that JSON Schema
gives to another branch:

* a ``bool`` beside an ``int``, ``float``, ``Decimal`` or a ``Literal``/``Enum`` of numbers (``bool | int``,
  ``bool | IntEnum``): ``1.0`` and ``0.0`` are whole numbers, which JSON Schema counts as integers and never as
  booleans, yet pydantic's lax ``bool`` read them as ``True`` and ``False`` (an order of one unit became "refill to
  capacity"; "level 1" became "alert on", or not, by the order of the union: review 222 #4). Such a ``bool``
  member now refuses numbers and digits written as text (:class:`NumberNotBool`): the number member reads them;
  ``true``/``false`` (and ``"true"``) still go to the ``bool``.
* a ``date``, ``datetime`` or ``time`` (``datetime | int``): a number, or digits alone as text, is read as a Unix
  timestamp (or seconds), which a lone ``datetime`` refuses (:class:`toolwire._schema_dates.NotDigits`). Where no
  other member takes a value of the date member's shape (``date | int``, ``list[date] | str``), that guard stays in
  place: the other members decide numbers, and a refused value gets pydantic's own reasons (a bound, a missing time
  zone: review 231 #1). Beside a member that may take the same value (``datetime | str``), the guard, a function,
  would hide pydantic's exact match (review 129 #1), so there the member becomes a ``tagged-union`` whose
  discriminator (:class:`DatesApart`) refuses a number or digits and hands any other value, unchanged, to the
  member's own node. Only that member changes: the model's config and validators reading ``info.data`` keep working
  (review 222 #1). (A union holding a class besides keeps pydantic's reading.)

Both are written once, when a tool is defined; the JSON Schema writers see through them
(:func:`toolwire._schema_strict.transparent`).
"""

from __future__ import annotations

import enum
from typing import Any

from pydantic_core import PydanticCustomError, SchemaValidator, ValidationError

from toolwire._schema_dates import _NUMBER, WRITTEN, NotDigits, unwrapped_choices

__all__ = ["DatesApart", "NumberNotBool", "apart_unions", "dates_apart", "union_rule"]

_NUMBERS = frozenset(("int", "float", "decimal", "number"))
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
_TAG = "date"  # (the tag of DatesApart's one branch)


class DatesApart:
    """The discriminator of a ``tagged-union`` standing for a ``date``, ``datetime`` or ``time`` member of a union
    (:func:`dates_apart`), whose one branch is the member's node, given the value itself: JSON data stays JSON data,
    so pydantic's exact match still decides (``datetime | str`` gives ISO text as a ``datetime``, review 129 #1). A
    number or digits alone (``1700000000``, ``"20250515"``), and a value the node refuses, get no tag: the member
    refuses it with the guard's words ("Input should be a date written YYYY-MM-DD, not a number or digits alone", at
    the member's place, so the error's path is the argument's; a tag would add a step to it), and the other members
    decide. Nothing else of the union changes: the model's config and a member validator's ``info.data`` are kept
    (review 222 #1). ``paired``: the member's guarded node (:class:`~toolwire._schema_dates.NotDigits`) stands
    before it in the union, giving pydantic's own reasons for a value the node refuses (its words for a number are
    the same, said once: review 231 #1); the JSON Schema then shows that one alone."""

    __slots__ = ("node", "paired", "validator")
    __name__ = "dates_apart"  # (pydantic-core names a tagged union after its discriminator)

    def __init__(self, node: dict[str, Any], paired: bool = False) -> None:
        self.node = node
        self.paired = paired
        self.validator: SchemaValidator | None = None

    def __call__(self, value: Any) -> str | None:
        cls = value.__class__
        if cls is int or cls is float or (cls is str and _NUMBER.match(value)):
            return None
        if self.validator is None:  # (built at the first need: a date node alone, which reads no config)
            self.validator = SchemaValidator(self.node)  # type: ignore[arg-type]
        try:
            self.validator.validate_python(value)
        except ValidationError:
            return None
        return _TAG


def dates_apart(node: dict[str, Any], paired: bool = False) -> dict[str, Any]:
    """The ``date``, ``datetime`` or ``time`` core schema ``node`` as a union member refusing numbers and digits
    alone with :class:`~toolwire._schema_dates.NotDigits`'s words (see :class:`DatesApart`); a ``ref`` moves to the
    ``tagged-union``."""
    inner = {k: v for k, v in node.items() if k != "ref"}
    read = "seconds" if node["type"] == "time" else "a Unix timestamp"
    out = {"type": "tagged-union", "choices": {_TAG: inner}, "discriminator": DatesApart(inner, paired),
           "custom_error_type": f"{node['type']}_written", "custom_error_context": {"expected": WRITTEN[node["type"]]},
           "custom_error_message": f"Input should be {{expected}}, not a number or digits alone (read as {read})"}
    if "ref" in node:
        out["ref"] = node["ref"]
    return out


def _guarded(node: Any) -> bool:
    """Whether ``node`` is a date node's :class:`~toolwire._schema_dates.NotDigits` wrapper."""
    function = node["function"].get("function") if isinstance(node, dict) and isinstance(node.get("function"),
                                                                                           dict) else None
    return node.get("type") == "function-before" and isinstance(function, NotDigits)  # type: ignore[union-attr]


def _kind(node: Any) -> str | None:
    """The core schema type of the union member ``node``, seen through function validators; None for a pair. A
    ``literal`` or ``enum`` of numbers (``Literal[1, 2]``, an ``IntEnum``) is ``"number"``: JSON Schema gives it a
    whole number as it gives one to an ``int`` (review 222 #4)."""
    depth = 0
    while isinstance(node, dict) and node.get("type") in _FUNCTIONS and isinstance(node.get("schema"), dict) \
            and depth < 16:
        node, depth = node["schema"], depth + 1
    if not isinstance(node, dict):
        return None
    kind = node.get("type")
    if kind == "literal" and _numbers(node.get("expected")):
        return "number"
    if kind == "enum" and (node.get("sub_type") in ("int", "float") or _numbers(node.get("members"))):
        return "number"
    return kind  # type: ignore[no-any-return]


def _numbers(values: Any) -> bool:
    """Whether ``values`` (a literal's or an enum's) hold a number and no boolean."""
    values = [v.value if isinstance(v, enum.Enum) else v for v in values or ()]
    return any(type(v) in (int, float) for v in values) and not any(type(v) is bool for v in values)


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
    nothing applies. A member holding a date (its :class:`~toolwire._schema_dates.NotDigits` guard, at any depth:
    ``list[date] | int``) keeps its guard where no other member takes a value of its shape (:func:`_alone`: text
    for a date, an array for a list...), so pydantic's own reasons (a bound, a missing time zone, a day out of range)
    reach the model as a lone date gives them (review 231 #1). Beside a member that may take the same value
    (``datetime | str``, ``list[date] | list[str]``), where pydantic's exact match must decide, its guards become
    :func:`dates_apart` nodes (a guarded node at the top kept before its own, for the error's reasons). In a union
    holding a class or a definition too they are only taken off (:func:`~toolwire._schema_dates.unwrapped_choices`:
    its exact match kept, numbers left to it)."""
    plain = unwrapped_choices(node, config)
    if plain is node:
        return _bools_apart(node, config)
    if _holds_class({k: v for k, v in node.items() if k != "ref"}):
        return _bools_apart(plain, config)
    choices: list[Any] = []
    given = node["choices"]
    for index, choice in enumerate(given):
        if _guards_apart(choice, 0) is choice or _alone(choice, given[:index] + given[index + 1:]):
            choices.append(choice)  # (no date in it, or one no other member competes for: its guard kept)
        elif _guarded(choice):  # its guarded node (the reasons a value is refused), then its tagged union
            choices.append({k: v for k, v in choice.items() if k != "ref"})
            choices.append(dates_apart({**choice["schema"], **({"ref": choice["ref"]} if "ref" in choice else {})},
                                       paired=True))
        else:
            choices.append(_guards_apart(choice, 0))
    return _bools_apart({**node, "choices": choices}, config)


_SCALARS = frozenset(("int", "float", "bool", "decimal", "number", "none"))  # (take no text but digits, refused)
_ARRAYS = frozenset(("list", "tuple", "set", "frozenset"))
_OBJECTS = frozenset(("dict", "typed-dict"))
_TEXTS = frozenset(("str", "literal", "date", "datetime", "time", "timedelta", "uuid", "url", "multi-host-url",
                    "bytes"))
_APART = {"text": _SCALARS | _ARRAYS | _OBJECTS, "array": _SCALARS | _TEXTS | _OBJECTS,
          "object": _SCALARS | _TEXTS | _ARRAYS}  # the members that take no value of each shape


def _outer(node: Any) -> str | None:
    """:func:`_kind` of ``node`` seen through ``nullable`` and ``default`` nodes too."""
    depth = 0
    while isinstance(node, dict) and node.get("type") in ("nullable", "default") and depth < 16:
        node, depth = node.get("schema"), depth + 1
    return _kind(node)


def _alone(choice: Any, others: list[Any]) -> bool:
    """Whether no member of ``others`` takes a value of the shape ``choice`` takes (text for a date member, an array
    for a list, an object for a dict), so that pydantic's exact match cannot choose among them and the date guard in
    ``choice`` may stay: ``date | int``, ``list[date] | str``. False for a shape or a member not known here."""
    kind = _outer(choice)
    shape = "text" if kind in _DATES else "array" if kind in _ARRAYS else "object" if kind in _OBJECTS else None
    return shape is not None and all(_outer(other) in _APART[shape] for other in others)


def _guards_apart(value: Any, depth: int) -> Any:
    """``value`` (a core schema, or a list, tuple or dict holding schemas) with its
    :class:`~toolwire._schema_dates.NotDigits` wrappers made :func:`dates_apart` nodes; the same object when it
    holds none."""
    if depth > 64:
        return value
    if isinstance(value, dict):
        if _guarded(value):
            return dates_apart({**value["schema"], **({"ref": value["ref"]} if "ref" in value else {})})
        out = {key: _guards_apart(item, depth + 1) for key, item in value.items()}
        return value if all(out[key] is item for key, item in value.items()) else out
    if isinstance(value, list | tuple):
        items = [_guards_apart(item, depth + 1) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else type(value)(items)
    return value


_INNER = {"typed-dict-field": "schema", "nullable": "schema", "default": "schema", "list": "items_schema",
          "dict": "values_schema"}
"""The key of the one inner schema of each core-schema kind :func:`apart_unions` walks through."""


def apart_unions(node: Any, depth: int = 0) -> Any:
    """``node`` (the arguments' core schema made by :mod:`toolwire._schema_fast`, whose unions are written without
    the rules of :mod:`toolwire._schema_strict`) with its unions' ``bool`` members refusing numbers (the fast path
    takes no dates); ``node`` itself when
    none changes. Only the nodes that path writes are walked (a model's node was walked with its class)."""
    if not isinstance(node, dict) or depth > 64:
        return node
    kind = node.get("type")
    if kind == "typed-dict":  # (written for speed: it runs on every @tool, benchmark B3)
        fields = node.get("fields") or {}
        new: dict[str, Any] | None = None
        for name, field in fields.items():
            changed = apart_unions(field, depth + 1)
            if changed is not field:
                new = new if new is not None else dict(fields)
                new[name] = changed
        return node if new is None else {**node, "fields": new}
    key = _INNER.get(kind)  # type: ignore[arg-type]
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
