"""Whole floats made ints where a JSON Schema wants an ``integer``, after ``jsonschema`` accepted the arguments
(:func:`whole_integers`): JSON Schema counts ``2.0`` as an integer (Validation, section 6.1.1), and the function of a
tool made from a JSON Schema (:mod:`toolwire.interop.openai_tools`) gets the type the schema promises.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire._schema_patterns import pattern_found

__all__ = ["whole_integers"]


def _number_kind(schema: Any) -> int:
    """What ``schema`` takes of a whole float such as ``2.0``: 0 no number, 1 only an integer, 2 any number.

    ``type`` says it (``"integer"`` or ``["integer", "null"]`` is 1, ``"number"`` 2; none: 2, or for an
    ``enum``/``const`` what its values are); ``anyOf``/``oneOf`` take the widest of their branches (so an
    integer-only branch beside a ``number`` or untyped one is 2), ``allOf`` the narrowest, and each narrows
    the schema's own ``type``. A boolean schema: ``false`` is 0, ``true`` 2.

    Returns:
        0, 1 or 2 as above.
    """
    if not isinstance(schema, Mapping):
        return 0 if schema is False else 2
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if kind is None and ("enum" in schema or "const" in schema):
        values = schema["enum"] if isinstance(schema.get("enum"), list) else [schema.get("const")]
        numbers = {type(v) for v in values} & {int, float}
        rank = 2 if float in numbers else 1 if numbers else 0
    else:
        rank = 2 if kind is None or "number" in kinds else 1 if "integer" in kinds else 0
    for key in ("anyOf", "oneOf"):
        if isinstance(branches := schema.get(key), list) and branches:
            rank = min(rank, max(_number_kind(b) for b in branches))
    if isinstance(branches := schema.get("allOf"), list) and branches:
        rank = min(rank, *(_number_kind(b) for b in branches))
    return rank


def _takes(schema: Any, json_type: str) -> bool:
    """Whether a union branch may take a value of ``json_type`` (``"object"``, ``"array"``): no ``type``, or
    that type among its types."""
    if not isinstance(schema, Mapping):
        return schema is True
    kind = schema.get("type", json_type)
    return kind == json_type or (isinstance(kind, list) and json_type in kind)


def whole_integers(value: Any, schema: Any) -> Any:
    """``value`` (valid against ``schema``) with each whole float where the schema wants an ``integer`` (``2.0``,
    which JSON Schema counts as an integer: Validation, section 6.1.1) made an ``int``, so the function gets the
    type the schema promises.

    A float becomes an ``int`` when the schema's ``type`` is ``"integer"`` or ``["integer", "null"]``, or an
    ``anyOf``/``oneOf`` branch is and no branch allows ``number`` (see :func:`_number_kind`; an integer-only
    ``allOf`` branch is enough). Objects are walked through ``properties``, ``patternProperties`` and, for the
    other keys, an ``additionalProperties`` schema; arrays through ``prefixItems`` (draft-07's ``items: [...]``
    with ``additionalItems``) and ``items``; both also through every ``allOf`` branch and through the one
    ``anyOf``/``oneOf`` branch that can take an object (an array), when only one can.

    Args:
        value: the validated arguments, or a part of them.
        schema: its JSON Schema (anything but a dict leaves ``value`` as it is).

    Returns:
        ``value`` itself when nothing changes, else a copy of what changes (the rest is shared).
    """
    if not isinstance(schema, Mapping):
        return value
    if type(value) is float:
        return int(value) if value.is_integer() and _number_kind(schema) == 1 else value
    if type(value) is dict:
        value, json_type = _whole_in_object(value, schema), "object"
    elif type(value) is list:
        value, json_type = _whole_in_array(value, schema), "array"
    else:
        return value
    branches = list(schema["allOf"]) if isinstance(schema.get("allOf"), list) else []
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and len(fit := [b for b in schema[key] if _takes(b, json_type)]) == 1:
            branches.extend(fit)
    for branch in branches:
        value = whole_integers(value, branch)
    return value


def _whole_in_object(value: dict[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`whole_integers` of a dict's values: ``properties``, else the ``patternProperties`` a key
    matches, else a schema ``additionalProperties``. Returns ``value`` or a changed copy."""
    props = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    patterns = schema.get("patternProperties") if isinstance(schema.get("patternProperties"), Mapping) else {}
    extra = schema.get("additionalProperties")
    out = None
    for key, item in value.items():
        if key in props:
            sub = props[key]
        elif matched := [s for p, s in patterns.items() if pattern_found(p, key)]:
            sub = {"allOf": matched}
        else:
            sub = extra
        new = whole_integers(item, sub)
        if new is not item:
            out = dict(value) if out is None else out
            out[key] = new
    return value if out is None else out


def _whole_in_array(value: list[Any], schema: Mapping[str, Any]) -> list[Any]:
    """:func:`whole_integers` of a list's items: ``prefixItems`` (or draft-07's ``items: [...]``) by position,
    then ``items`` (draft-07: ``additionalItems``). Returns ``value`` or a changed copy."""
    prefix, rest = schema.get("prefixItems"), schema.get("items")
    if isinstance(rest, list):
        prefix, rest = rest, schema.get("additionalItems")
    prefix = prefix if isinstance(prefix, list) else []
    if not prefix and not isinstance(rest, Mapping):
        return value
    whole = _number_kind(rest) == 1  # once, not per item: a list of 100,000 numbers is walked fast
    new_items = [whole_integers(item, sub) for item, sub in zip(value, prefix, strict=False)]
    new_items += [(int(item) if whole and item.is_integer() else item) if type(item) is float
                  else whole_integers(item, rest) if type(item) in (dict, list) else item
                  for item in (value[len(prefix):] if prefix else value)]
    return value if all(a is b for a, b in zip(new_items, value, strict=True)) else new_items
