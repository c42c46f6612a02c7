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
import re
from collections.abc import Collection, Mapping
from typing import Any

from toolwire.errors import ToolCallParseError
from toolwire.parsing._repeated_keys import RepeatedKey
from toolwire.parsing._scan import _DECODER, NestedTooDeep, NonFiniteNumber, clean_value

__all__ = ["JsonStringPlan", "JsonValuePlan", "ObjectBranch", "decode_json_strings", "json_string_plan",
           "string_takes"]

_MAX_SCHEMA_DEPTH = 32


def _wanted_kinds(prop: Any, root: Mapping[str, Any]) -> set[str]:
    """JSON types a property schema admits (following local ``$ref`` and anyOf/oneOf/allOf)."""
    kinds: set[str] = set()
    pending = [prop]
    seen = 0
    while pending and seen < 64:
        seen += 1
        node = pending.pop()
        if not isinstance(node, Mapping):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            target: Any = root
            for part in ref[2:].split("/"):
                target = target.get(part) if isinstance(target, Mapping) else None
            pending.append(target)
        kind = node.get("type")
        if isinstance(kind, str):
            kinds.add(kind)
        elif isinstance(kind, list):
            kinds.update(k for k in kind if isinstance(k, str))
        for key in ("anyOf", "oneOf", "allOf"):
            branches = node.get(key)
            if isinstance(branches, list):
                pending.extend(branches)
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
    """``value`` decoded when it is JSON of one of ``kinds`` (``"object"``/``"array"``), else ``value``.

    Raises:
        RepeatedKey: ``value`` would be decoded, but for an object in it that gives a key twice with different
            values (:func:`repeated_key_error` says it for the model).
    """
    try:
        decoded = _DECODER.decode(value)
    except RepeatedKey:
        first = value.lstrip()[:1]
        if (first == "{" and "object" in kinds) or (first == "[" and "array" in kinds):
            raise
        return value
    except (json.JSONDecodeError, RecursionError):
        return value
    if (isinstance(decoded, dict) and "object" in kinds) or (isinstance(decoded, list) and "array" in kinds):
        return decoded
    return value


#: How to repair one value: ``(kinds, props, items, strings, objects)``: the kinds a string there is decoded to
#: (empty: never); the :data:`JsonStringPlan` of an object's properties and the plan of an array's elements (for a
#: union, of all its object or array branches together); the string branches a JSON string must be refused by
#: before it is decoded (see :func:`string_takes`); and, for a union of several object branches, each branch as
#: ``(required keys, property names, plan)``, so that a dict follows the branch it belongs to (review 94).
JsonValuePlan = tuple[frozenset[str], "JsonStringPlan | None", "JsonValuePlan | None",
                      tuple[Mapping[str, Any], ...], "tuple[ObjectBranch, ...]"]
#: Property name -> :data:`JsonValuePlan`, only for the properties where something can need repair.
JsonStringPlan = dict[str, JsonValuePlan]
#: One object branch of a union: ``(required keys, property names, plan of its properties or None)``.
ObjectBranch = tuple[frozenset[str], frozenset[str], "JsonStringPlan | None"]

_SCALAR_TYPES = frozenset(("string", "integer", "number", "boolean", "null"))
_COMPOUND_KEYS = frozenset(("anyOf", "oneOf", "allOf", "$ref", "properties", "items"))
_COMBINATORS = ("anyOf", "oneOf", "allOf")
# string formats no JSON object, array or quoted text is of (JSON Schema 2020-12 Validation 7.3: RFC 3339 dates and
# times, RFC 4122 uuids, RFC 5321 emails, RFC 1123 host names, IP addresses, RFC 3986 URIs)
_SHAPED_FORMATS = frozenset(("date", "date-time", "time", "duration", "uuid", "email", "idn-email", "hostname",
                             "idn-hostname", "ipv4", "ipv6", "uri", "iri", "uri-reference"))
_STRING_LIMITS = ("enum", "const", "pattern", "minLength", "maxLength")
_MAX_PATTERN_TEXT = 2000  # characters of a text string_takes matches against a pattern; a longer one is taken


def _own_kinds(node: Mapping[str, Any]) -> set[str]:
    """The JSON types one schema node states itself (``type``, ``properties``, ``items``, string ``enum``/``const``
    values), its ``anyOf``/``oneOf``/``allOf`` branches not followed."""
    return _wanted_kinds({k: v for k, v in node.items() if k not in _COMBINATORS and k != "$ref"}, {})


def _leaves(prop: Any, root: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The alternatives of ``prop``: itself, or the branches of its ``anyOf``/``oneOf``/``allOf`` (nested ones
    followed, local ``$ref`` resolved), in order; a node with branches that states a type itself counts too."""
    out: list[Mapping[str, Any]] = []
    pending, seen = [prop], 0
    while pending and seen < 64:
        seen += 1
        node = _resolve(pending.pop(0), root)
        if not isinstance(node, Mapping):
            continue
        branches = [b for key in _COMBINATORS if isinstance(node.get(key), list) for b in node[key]]
        pending.extend(branches)
        if not branches or _own_kinds(node):
            out.append(node)
    return out


def string_takes(branch: Mapping[str, Any], text: str) -> bool:
    """Whether the string schema ``branch`` (one alternative of a union) may take ``text`` as it is.

    False only when it plainly cannot: ``text`` is not among its ``enum``/``const``, breaks its ``minLength``/
    ``maxLength``, does not match its ``pattern`` (read with Python's ``re``; one Python cannot read, or a text over
    2,000 characters, is taken), or starts like JSON text (``{``, ``[`` or ``"``) where its ``format`` (a date,
    time, uuid, e-mail, host, address or URI: JSON Schema 2020-12 Validation, section 7.3) never does. Used to tell
    a JSON object sent as text for an object branch (``Union[UUID, Lookup]`` given ``'{"email": ...}'``) from a
    string the tool takes.
    """
    options = [branch["const"]] if "const" in branch else branch.get("enum")
    if isinstance(options, list):
        return text in options
    if branch.get("format") in _SHAPED_FORMATS and text.lstrip()[:1] in ('{', '[', '"'):
        return False
    low, high = branch.get("minLength"), branch.get("maxLength")
    if (isinstance(low, int) and len(text) < low) or (isinstance(high, int) and len(text) > high):
        return False
    pattern = branch.get("pattern")
    if isinstance(pattern, str) and len(text) <= _MAX_PATTERN_TEXT:  # (Python's re can backtrack: bounded input)
        try:
            return re.search(pattern, text) is not None
        except (re.error, RecursionError):
            return True
    return True


def _takes_any_string(branch: Mapping[str, Any]) -> bool:
    """Whether :func:`string_takes` says yes to every text for ``branch`` (nothing in it limits a string)."""
    return branch.get("format") not in _SHAPED_FORMATS and not any(key in branch for key in _STRING_LIMITS)


def _merged_objects(objects: list[Mapping[str, Any]]) -> dict[str, Any]:
    """One object schema whose every property is the ``anyOf`` of that property's schemas in ``objects``."""
    props: dict[str, list[Any]] = {}
    for obj in objects:
        for name, sub in obj["properties"].items():
            props.setdefault(name, []).append(sub)
    return {"properties": {name: subs[0] if len(subs) == 1 else {"anyOf": subs} for name, subs in props.items()}}


def _value_plan(prop: Any, root: Mapping[str, Any], depth: int) -> JsonValuePlan | None:
    prop = _resolve(prop, root)
    if not isinstance(prop, Mapping) or depth > _MAX_SCHEMA_DEPTH:
        return None
    kind = prop.get("type")
    if isinstance(kind, str) and kind in _SCALAR_TYPES and _COMPOUND_KEYS.isdisjoint(prop):
        return None  # the common leaf (``a: int``): nothing to decode, nothing inside
    leaves = _leaves(prop, root)
    kinds = set().union(*(_own_kinds(leaf) for leaf in leaves)) if leaves else set()
    strings = tuple(leaf for leaf in leaves if "string" in _own_kinds(leaf))
    decode = frozenset(kinds & {"object", "array"})
    if any(_takes_any_string(s) for s in strings):
        decode, strings = frozenset(), ()  # a string there is always kept
    objects = [leaf for leaf in leaves if isinstance(leaf.get("properties"), Mapping)]
    arrays = [leaf["items"] for leaf in leaves if isinstance(leaf.get("items"), Mapping)]
    branches: tuple[ObjectBranch, ...] = ()
    if len(objects) > 1:
        each = [(frozenset(k for k in obj.get("required") or () if isinstance(k, str)),
                 frozenset(obj["properties"]), _object_plan(obj, root, depth + 1)) for obj in objects]
        if any(plan is not None for _, _, plan in each):
            branches = tuple(each)
        props = _object_plan(_merged_objects(objects), root, depth + 1)
    else:
        props = _object_plan(objects[0], root, depth + 1) if objects else None
    items_schema = arrays[0] if len(arrays) == 1 else {"anyOf": arrays} if arrays else None
    items = _value_plan(items_schema, root, depth + 1) if items_schema is not None else None
    if decode or props or items or branches:
        return decode, props, items, strings, branches
    return None


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
        ``properties``, ``items`` and the branches of an ``anyOf``/``oneOf``, an ``Optional`` wrapper among them)
        wants an object or array where a string given would not be kept: then no string is ever decoded and the
        call costs nothing. A string is kept where a branch takes any string, or where a string branch takes that
        string (:func:`string_takes`); in a union of objects, a dict follows the plan of the branch it belongs to
        (the one whose required keys it has and that names most of its keys; Gemini gets a ``dict`` inside a
        union member as JSON text, review 94).
    """
    return _object_plan(schema, schema, 0) if isinstance(schema, Mapping) else None


def _branch_plan(value: dict[str, Any], branches: tuple[ObjectBranch, ...]) -> JsonStringPlan | bool | None:
    """The plan of the one object branch ``value`` belongs to: the branches whose required keys it has, then those
    naming most of its keys, then those naming no key it lacks; ``False`` when that leaves more than one."""
    keys = set(value)
    scored = [((required <= keys), len(keys & names), -len(keys - names)) for required, names, _ in branches]
    best = max(scored)
    chosen = [branch for branch, score in zip(branches, scored, strict=True) if score == best]
    return chosen[0][2] if len(chosen) == 1 else False


def repeated_key_error(where: str, exc: RepeatedKey) -> str:
    """The error sentence for the argument ``where`` sent as JSON text that gives the key ``exc.key`` twice."""
    return (f"The argument {where!r} is JSON text that gives the key {exc.key!r} twice, with different values; give "
            "each key once.")


def _repair(value: Any, plan: JsonValuePlan, where: str, refuse: bool) -> Any:
    kinds, props, items, strings, branches = plan
    if kinds and type(value) is str:
        try:
            decoded = _decoded(value, kinds)
        except RepeatedKey as exc:
            if not refuse or any(string_takes(s, value) for s in strings):
                return value
            raise ToolCallParseError(repeated_key_error(where, exc), value) from None
        if decoded is not value and not any(string_takes(s, value) for s in strings):
            try:
                value = clean_value(decoded)
            except (NonFiniteNumber, NestedTooDeep):
                return value  # left as text: validation then says what the value should be
    if type(value) is dict:
        if branches:
            chosen = _branch_plan(value, branches)
            props = props if chosen is False else chosen  # (a tie: all the branches' properties together)
        return value if props is None else decode_json_strings(value, props, refuse_repeated_keys=refuse)
    if items is not None and type(value) is list:
        new = [_repair(item, items, where, refuse) for item in value]
        return value if all(a is b for a, b in zip(new, value, strict=True)) else new
    return value


def decode_json_strings(args: dict[str, Any], plan: JsonStringPlan, *,
                        refuse_repeated_keys: bool = False) -> dict[str, Any]:
    """Decode the string values of ``args`` that ``plan`` (from :func:`json_string_plan`) says should be
    an object or array and that hold JSON of that kind; a string where the schema admits a string is kept.

    Args:
        args: the arguments, already decoded.
        plan: where strings may need decoding (:func:`json_string_plan`).
        refuse_repeated_keys: raise for JSON text that would be decoded but that gives a key twice with different
            values (an object ``'{"alice": 1, "alice": 2}'`` for a ``dict`` parameter); else such text is kept as
            it is, and validation refuses it as a string where an object or array is wanted.

    Returns:
        ``args`` itself when nothing changed, else a copy (the input is not changed).

    Raises:
        ToolCallParseError: (with ``refuse_repeated_keys`` only) such text; the message names the argument and the
            key (:func:`repeated_key_error`).
    """
    out = args
    for key, sub in plan.items():
        value = args.get(key)
        if value is None:
            continue
        new = _repair(value, sub, key, refuse_repeated_keys)
        if new is not value:
            if out is args:
                out = dict(args)
            out[key] = new
    return out
