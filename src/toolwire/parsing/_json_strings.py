"""Strings that hold JSON where a tool's schema wants an object or array: which kinds a property admits, and
decoding such strings.

Providers that send arguments as an object (Anthropic, and others) sometimes send a nested object or array
JSON-encoded: ``{"addr": "{\"street\": \"Main\"}"}``. :func:`json_string_plan` works out once, from the
schema, where that can happen, and :func:`decode_json_strings` decodes such strings; a string where the schema
admits a string is kept. The schema helpers (:func:`_wanted_kinds`, :func:`_resolve`, :func:`_decoded`) also
serve :func:`toolwire.parsing.arguments.normalize_arguments` for argument text.

Kept apart from :mod:`toolwire.parsing.arguments`, which re-exports the public names (import them from there).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

from toolwire.parsing._scan import _DECODER, NestedTooDeep, NonFiniteNumber, clean_value

__all__ = ["JsonStringPlan", "JsonValuePlan", "decode_json_strings", "json_string_plan"]

_MAX_SCHEMA_DEPTH = 32


def _wanted_kinds(prop: Any, root: Mapping[str, Any]) -> set[str]:
    """JSON types a property schema admits (following local ``$ref`` and anyOf/oneOf/allOf)."""
    kinds: set[str] = set()
    todo = [prop]
    seen = 0
    while todo and seen < 64:
        seen += 1
        node = todo.pop()
        if not isinstance(node, Mapping):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            target: Any = root
            for part in ref[2:].split("/"):
                target = target.get(part) if isinstance(target, Mapping) else None
            todo.append(target)
        kind = node.get("type")
        if isinstance(kind, str):
            kinds.add(kind)
        elif isinstance(kind, list):
            kinds.update(k for k in kind if isinstance(k, str))
        for key in ("anyOf", "oneOf", "allOf"):
            branches = node.get(key)
            if isinstance(branches, list):
                todo.extend(branches)
        if "properties" in node:
            kinds.add("object")
        if "items" in node:
            kinds.add("array")
        if any(isinstance(v, str) for v in node.get("enum", ()) or ()) or isinstance(node.get("const"), str):
            kinds.add("string")
    return kinds


def _resolve(prop: Any, root: Mapping[str, Any]) -> Any:
    for _ in range(8):
        if not isinstance(prop, Mapping) or not isinstance(prop.get("$ref"), str):
            return prop
        target: Any = root
        for part in prop["$ref"].lstrip("#/").split("/"):
            target = target.get(part) if isinstance(target, Mapping) else None
        prop = target
    return prop

def _decode_kinds(prop: Mapping[str, Any], root: Mapping[str, Any]) -> frozenset[str]:
    """The kinds (``"object"``, ``"array"``) a JSON-encoded string is decoded to at ``prop``: none when
    ``prop`` admits a string (its text is then kept) or wants neither an object nor an array."""
    kinds = _wanted_kinds(prop, root)
    return frozenset() if "string" in kinds else frozenset(kinds & {"object", "array"})


def _decoded(value: str, kinds: Collection[str]) -> Any:
    """``value`` decoded when it is JSON of one of ``kinds`` (``"object"``/``"array"``), else ``value``."""
    try:
        decoded = _DECODER.decode(value)
    except (json.JSONDecodeError, RecursionError):
        return value
    if (isinstance(decoded, dict) and "object" in kinds) or (isinstance(decoded, list) and "array" in kinds):
        return decoded
    return value


#: How to repair one value: ``(kinds, props, items)``: the kinds a string there is decoded to (empty:
#: never), the :data:`JsonStringPlan` of an object's properties, the plan of an array's elements.
JsonValuePlan = tuple[frozenset[str], "JsonStringPlan | None", "JsonValuePlan | None"]
#: Property name -> :data:`JsonValuePlan`, only for the properties where something can need repair.
JsonStringPlan = dict[str, JsonValuePlan]


def _object_branch(prop: Mapping[str, Any]) -> Mapping[str, Any]:
    """``prop``, or the one non-null branch of its ``anyOf``/``oneOf`` (``Optional[Model]``)."""
    if "properties" in prop or "items" in prop:
        return prop
    for key in ("anyOf", "oneOf"):
        branches = [b for b in prop.get(key) or () if isinstance(b, Mapping) and b.get("type") != "null"]
        if len(branches) == 1:
            return branches[0]
    return prop


_SCALAR_TYPES = frozenset(("string", "integer", "number", "boolean", "null"))
_COMPOUND_KEYS = frozenset(("anyOf", "oneOf", "allOf", "$ref", "properties", "items"))


def _value_plan(prop: Any, root: Mapping[str, Any], depth: int) -> JsonValuePlan | None:
    prop = _resolve(prop, root)
    if not isinstance(prop, Mapping) or depth > _MAX_SCHEMA_DEPTH:
        return None
    kind = prop.get("type")
    if isinstance(kind, str) and kind in _SCALAR_TYPES and _COMPOUND_KEYS.isdisjoint(prop):
        return None  # the common leaf (``a: int``): nothing to decode, nothing inside
    kinds = _decode_kinds(prop, root)
    shape = _object_branch(prop)
    props = _object_plan(shape, root, depth + 1)
    items_schema = shape.get("items")
    items = _value_plan(items_schema, root, depth + 1) if isinstance(items_schema, Mapping) else None
    return (kinds, props, items) if kinds or props or items else None


def _object_plan(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> JsonStringPlan | None:
    props = schema.get("properties")
    if not isinstance(props, Mapping) or depth > _MAX_SCHEMA_DEPTH:
        return None
    plan = {name: sub for name, prop in props.items() if (sub := _value_plan(prop, root, depth)) is not None}
    return plan or None


def json_string_plan(schema: Mapping[str, Any]) -> JsonStringPlan | None:
    """Where a tool's already-decoded arguments may hold an object or array as JSON text, worked out once.

    Anthropic (and other providers that send arguments as an object) sometimes send a nested object or
    array JSON-encoded: ``{"addr": "{\"street\": \"Main\"}"}``. :func:`decode_json_strings` decodes
    such strings with this plan before validation: the repair
    :func:`~toolwire.parsing.arguments.normalize_arguments` does with a schema, for arguments that arrive as a dict.

    Args:
        schema: the tool's parameters, an object schema (local ``$ref`` are followed).

    Returns:
        A plan for :func:`decode_json_strings`, or ``None`` when no property (at any depth, through
        ``properties``, ``items`` and an ``Optional`` wrapper) wants an object or array without also
        admitting a string: then no string is ever decoded and the call costs nothing.
    """
    return _object_plan(schema, schema, 0) if isinstance(schema, Mapping) else None


def _repair(value: Any, plan: JsonValuePlan) -> Any:
    kinds, props, items = plan
    if kinds and type(value) is str:
        decoded = _decoded(value, kinds)
        if decoded is not value:
            try:
                value = clean_value(decoded)
            except (NonFiniteNumber, NestedTooDeep):
                return value  # left as text: validation then says what the value should be
    if props is not None and type(value) is dict:
        return decode_json_strings(value, props)
    if items is not None and type(value) is list:
        new = [_repair(item, items) for item in value]
        return value if all(a is b for a, b in zip(new, value, strict=True)) else new
    return value


def decode_json_strings(args: dict[str, Any], plan: JsonStringPlan) -> dict[str, Any]:
    """Decode the string values of ``args`` that ``plan`` (from :func:`json_string_plan`) says should be
    an object or array and that hold JSON of that kind; a string where the schema admits a string is kept.

    Returns:
        ``args`` itself when nothing changed, else a copy (the input is not changed).
    """
    out = args
    for key, sub in plan.items():
        value = args.get(key)
        if value is None:
            continue
        new = _repair(value, sub)
        if new is not value:
            if out is args:
                out = dict(args)
            out[key] = new
    return out
