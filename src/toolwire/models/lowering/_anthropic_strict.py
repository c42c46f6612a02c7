"""Anthropic strict tool use: an argument schema rewritten to the JSON Schema subset ``"strict": true`` tools take.

With ``"strict": true`` on a tool, Claude's tool inputs are generated under a grammar built from the tool's
``input_schema`` (Anthropic docs, "Strict tool use"), which must then stay inside the subset of JSON Schema the
structured-outputs feature supports ("Structured outputs", "JSON Schema limitations"). The rules below follow that
guide and the official SDK's own rewriting of a schema into the subset (``anthropic.transform_schema``,
anthropic-python 2.x, ``lib/_parse/_transform.py``), which toolwire does not call: it turns a free-form
``dict[str, X]`` into an object that takes no key and crashes on a ``type`` list, where toolwire must either keep the
schema's meaning or send the tool non-strict.

What the subset keeps: ``type`` (one JSON type), ``properties``, ``required``, ``additionalProperties: false``,
``items``, ``anyOf``, ``allOf``, ``enum`` and ``const`` of strings, numbers, booleans and null, local ``$ref`` with
``$defs``/``definitions``, ``description``, ``title``, the string formats of :data:`STRICT_FORMATS`, and ``minItems``
of 0 or 1. Unlike OpenAI's strict mode, optional properties stay optional (``required`` is sent as it is).

What :func:`anthropic_strict_schema` does with the rest:

* every object gets ``additionalProperties: false``; an object that takes keys beyond its declared properties (a
  ``dict[str, X]``, a pydantic model with ``extra="allow"``, ``patternProperties``) cannot be strict, as writing false
  would refuse the keys the tool takes;
* a ``type`` list (``["string", "null"]``) becomes an ``anyOf`` of one branch per type, each with that type's own
  keywords;
* a ``oneOf`` becomes an ``anyOf`` when its alternatives cannot overlap (distinct JSON types, or objects whose one
  shared required property is pinned to different ``const``/``enum`` values, as a pydantic discriminated union
  writes), since then "exactly one" and "at least one" accept the same values; ``discriminator`` is dropped;
* numeric bounds, ``multipleOf``, ``minLength``/``maxLength``, ``pattern``, ``minItems`` above 1, ``maxItems``,
  ``uniqueItems``, a ``format`` outside :data:`STRICT_FORMATS`, ``default`` and every other keyword outside the
  subset are dropped and said in the description instead (``Must be at least 1.``, ``Format: path.``,
  ``Default: "en".``), as the SDK also does; annotations that say nothing of the value (``$schema``, ``$comment``,
  ``readOnly``...) are dropped unsaid. toolwire still validates every call's arguments against the full schema
  before the tool runs, so nothing dropped goes unchecked;
* a parameter of any type (no ``type``), an ``enum``/``const`` of objects or lists, a recursive ``$ref``, a tuple
  (``prefixItems``), ``not``, ``if``/``then``/``else``, ``dependentRequired``/``dependentSchemas``, or a ``oneOf``
  whose alternatives may overlap cannot be strict: :func:`anthropic_strict_schema` raises ``ValueError`` and the tool
  is sent non-strict with a :class:`~toolwire.models.lowering.openai.StrictSchemaWarning`.

Limits per request (structured-outputs guide, "Schema complexity limits"): at most :data:`MAX_STRICT_TOOLS` strict
tools, :data:`MAX_OPTIONAL` optional properties and :data:`MAX_UNIONS` union-typed schemas (``anyOf``) over all the
strict tools' schemas. :func:`strict_counts` counts them (every object's properties not in its ``required``, every
``anyOf``, at any depth: a cautious count); the request lowering keeps tools strict in their order while the totals
fit and sends the rest non-strict, with a warning.
"""

from __future__ import annotations

import copy
import json
import warnings
from collections.abc import Callable
from typing import Any

from toolwire.models.lowering._common import constraint_notes, default_notes
from toolwire.models.lowering._openai_strict import dropped_notes

__all__ = [
    "MAX_OPTIONAL", "MAX_STRICT_TOOLS", "MAX_UNIONS", "STRICT_FORMATS", "anthropic_strict_schema", "limit_strict",
    "strict_counts",
]

MAX_STRICT_TOOLS = 20
"""The most tools of one request that may be strict (structured-outputs guide, "Schema complexity limits")."""
MAX_OPTIONAL = 24
"""The most optional properties over all strict schemas of one request (same section)."""
MAX_UNIONS = 16
"""The most union-typed schemas (``anyOf``) over all strict schemas of one request (same section)."""

STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6",
                            "uuid"})
"""The string formats strict schemas keep (the structured-outputs guide's list, as the SDK's
``SupportedStringFormats``); any other is said in the description."""

_KEPT = frozenset({"type", "properties", "required", "additionalProperties", "items", "anyOf", "allOf", "enum",
                   "const", "$ref", "$defs", "definitions", "description", "title", "format", "minItems"})
_TYPED = ("type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "properties", "items")
_UNSAID = frozenset({"$schema", "$id", "$comment", "$anchor", "writeOnly", "readOnly", "discriminator"})
_BOUNDED = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
            "pattern")
_REFUSED = {
    "not": "a 'not' schema",
    "if": "an if/then/else schema",
    "then": "an if/then/else schema",
    "else": "an if/then/else schema",
    "dependentRequired": "a dependentRequired rule",
    "dependentSchemas": "a dependentSchemas rule",
    "prefixItems": "a tuple (an array with a schema per position, prefixItems)",
    "patternProperties": "an object whose keys follow patterns (patternProperties)",
}
# the keywords that belong to one JSON type, moved into that type's branch when a type list is split
_TYPE_KEYWORDS = {
    "object": ("properties", "required", "additionalProperties", "propertyNames", "minProperties", "maxProperties",
               "patternProperties", "dependentRequired", "dependentSchemas"),
    "array": ("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"),
    "string": ("format", "pattern", "minLength", "maxLength", "contentMediaType", "contentEncoding"),
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
}
_TYPE_KEYWORDS["integer"] = _TYPE_KEYWORDS["number"]


class _NotStrict(Exception):
    pass


def _primitive(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _split_types(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` whose ``type`` is a list of several types, as an ``anyOf`` of one branch per type, each holding its
    type's keywords; the keywords of no single type (``description``, ``enum``...) stay on the outer node."""
    kinds = node["type"]
    owned = {k for kind in kinds for k in _TYPE_KEYWORDS.get(kind, ())}
    outer = {k: v for k, v in node.items() if k != "type" and k not in owned}
    branches = [{"type": kind, **{k: node[k] for k in _TYPE_KEYWORDS.get(kind, ()) if k in node}} for kind in kinds]
    if "anyOf" in outer:  # (both a type list and an anyOf: all of them must hold)
        return {**{k: v for k, v in outer.items() if k != "anyOf"}, "allOf": [{"anyOf": branches},
                                                                              {"anyOf": outer["anyOf"]}]}
    return {**outer, "anyOf": branches}


def _json_types(branch: dict[str, Any]) -> set[str] | None:
    kind = branch.get("type")
    return {"number" if kind == "integer" else kind} if isinstance(kind, str) else None


def _pinned(schema: Any) -> set[str] | None:
    """The values (as JSON text) ``schema`` pins with ``const`` or ``enum``, else ``None``."""
    if isinstance(schema, dict) and "const" in schema:
        return {json.dumps(schema["const"], sort_keys=True)}
    if isinstance(schema, dict) and isinstance(schema.get("enum"), list):
        return {json.dumps(v, sort_keys=True) for v in schema["enum"]}
    return None


def _apart(sets: list[set[str] | None]) -> bool:
    seen: set[str] = set()
    for values in sets:
        if values is None or seen & values:
            return False
        seen |= values
    return True


def _disjoint(branches: list[Any]) -> bool:
    """Whether no value can match two of the (strict-form) ``branches``: they are of distinct JSON types, or objects
    sharing a property that each requires and pins to values no other branch allows."""
    if not all(isinstance(b, dict) for b in branches):
        return False
    if _apart([_json_types(b) for b in branches]):
        return True
    if not all(isinstance(b.get("properties"), dict) for b in branches):
        return False
    tags = set.intersection(*(set(b.get("required") or ()) & set(b["properties"]) for b in branches))
    return any(_apart([_pinned(b["properties"][tag]) for b in branches]) for tag in tags)


def _items_notes(dropped: dict[str, Any]) -> list[str]:
    notes = []
    for key, words in (("minItems", "at least"), ("maxItems", "at most")):
        value = dropped.pop(key, None)
        if isinstance(value, int) and not isinstance(value, bool):
            notes.append(f"Must have {words} {value} item{'' if value == 1 else 's'}.")
    return notes


def _strict(node: Any) -> Any:
    if node is True or (isinstance(node, dict) and not any(k in node for k in _TYPED)):
        raise _NotStrict("a parameter that takes a value of any type")
    if not isinstance(node, dict):
        return node
    for key, reason in _REFUSED.items():
        if key in node:
            raise _NotStrict(reason)
    if isinstance(node.get("type"), list):
        kinds = [k for k in node["type"] if isinstance(k, str)]
        if len(set(kinds)) != len(node["type"]) or not kinds:
            raise _NotStrict(f"a type list {node['type']!r}")
        node = {**node, "type": kinds[0]} if len(kinds) == 1 else _split_types(node)
    for key in ("enum", "const"):
        values = node.get(key, []) if key == "enum" else [node.get(key)]
        if key in node and not (isinstance(values, list) and all(_primitive(v) for v in values)):
            raise _NotStrict(f"an {key} of objects or lists")
    out: dict[str, Any] = {}
    dropped: dict[str, Any] = {}
    for key, value in node.items():
        if key in _UNSAID or key == "default":
            continue
        if key == "oneOf" and isinstance(value, list):
            branches = [_strict(x) for x in value]
            if "anyOf" in node or not _disjoint(branches):
                raise _NotStrict("a oneOf whose alternatives may overlap, which anyOf cannot stand for")
            out["anyOf"] = branches
        elif key not in _KEPT:
            dropped[key] = value
        elif key in ("anyOf", "allOf") and isinstance(value, list):
            out[key] = [_strict(x) for x in value]
        elif key == "items":
            out[key] = _strict(value)
        elif key in ("$defs", "definitions") and isinstance(value, dict):
            out[key] = {name: _strict(sub) for name, sub in value.items()}
        elif key == "minItems" and value not in (0, 1):
            dropped[key] = value
        elif key == "properties":
            continue  # (below)
        else:
            out[key] = copy.deepcopy(value)
    if "enum" in out or "const" in out:
        out.pop("type", None)  # (the values say it; the SDK's transform_schema sends no type beside them either)
    notes: list[str] = []
    fmt = out.get("format")
    if isinstance(fmt, str) and fmt not in STRICT_FORMATS:
        del out["format"]
        notes.append(f"Format: {fmt}.")
    notes += constraint_notes({k: v for k, v in dropped.items() if k in _BOUNDED})
    rest = {k: v for k, v in dropped.items() if k not in _BOUNDED}
    notes += _items_notes(rest)
    notes += dropped_notes(rest)
    notes += default_notes(node)
    if notes:
        note = " ".join(notes)
        described = out.get("description")
        out["description"] = f"{described} ({note})" if isinstance(described, str) and described else note
    if node.get("type") == "object" or "properties" in node:
        props = node.get("properties") or {}
        extra = node.get("additionalProperties")
        if extra not in (None, False) or ("properties" not in node and extra is None):  # (pydantic writes
            # "properties": {} for a model without fields, which ignores other keys; a bare object is a dict)
            raise _NotStrict("an object that takes keys beyond its declared properties (a dict, additionalProperties, "
                             "a pydantic model with extra='allow')")
        out["properties"] = {name: _strict(sub) for name, sub in props.items()}
        if "required" in out:
            out["required"] = [name for name in out["required"] if name in props]
        out["additionalProperties"] = False
    return out


def _refs(node: Any) -> set[str]:
    """The local ``$ref`` targets (``#/$defs/X`` -> ``X``) anywhere inside ``node``."""
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            found.add(ref.rsplit("/", 1)[-1])
        for value in node.values():
            found |= _refs(value)
    elif isinstance(node, list):
        for value in node:
            found |= _refs(value)
    return found


def _check_refs(schema: dict[str, Any]) -> None:
    """Raise :class:`_NotStrict` for a ``$ref`` to a definition the schema does not hold, or a definition that reaches
    itself (Anthropic's strict schemas cannot be recursive)."""
    defs = {**(schema.get("definitions") or {}), **(schema.get("$defs") or {})}
    for ref in _refs(schema):
        if ref not in defs:
            raise _NotStrict(f"a $ref to {ref!r}, which is not a local definition")
    for name in defs:
        seen: set[str] = set()
        todo = list(_refs(defs[name]))
        while todo:
            ref = todo.pop()
            if ref == name:
                raise _NotStrict(f"a recursive schema ({name!r} refers to itself)")
            if ref not in seen:
                seen.add(ref)
                todo += _refs(defs.get(ref))


def anthropic_strict_schema(parameters: dict[str, Any]) -> dict[str, Any]:
    """Return the form of a tool's argument schema that Anthropic's strict tool use takes (rules in the module doc).

    Args:
        parameters: a tool's argument schema, a JSON Schema object (``{"type": "object", "properties"...}``).

    Returns:
        A new schema dict: every object closed with ``additionalProperties: false``, keywords outside the subset said
        in descriptions, ``required`` as given. The input is not changed.

    Raises:
        ValueError: the schema holds something strict tool use cannot express (module doc): a free-form or open
            object, a parameter of any type, an ``enum`` of objects, a recursive ``$ref``, a tuple, ``not``,
            ``if``/``then``/``else``, a ``oneOf`` whose alternatives may overlap, or a top-level union.
    """
    if "anyOf" in parameters or "oneOf" in parameters:
        raise ValueError("a top-level union of argument sets, which an input_schema cannot be")
    if not parameters.get("properties") and parameters.get("additionalProperties") in (None, False) and not any(
            k in parameters for k in _REFUSED):
        return {"type": "object", "properties": {}, "additionalProperties": False}
    try:
        out: dict[str, Any] = _strict(copy.deepcopy(parameters))
        _check_refs(out)
    except _NotStrict as exc:
        raise ValueError(str(exc)) from None
    return out


def strict_counts(schema: Any) -> tuple[int, int]:
    """Count what the per-request limits count in one strict schema (module doc).

    Args:
        schema: a schema from :func:`anthropic_strict_schema`.

    Returns:
        ``(optional properties, union-typed schemas)``: every object's properties that its ``required`` leaves out,
        and every ``anyOf``, at any depth (``$defs`` included).
    """
    optional = unions = 0
    if isinstance(schema, dict):
        props = schema.get("properties")
        if isinstance(props, dict):
            optional += len(set(props) - set(schema.get("required") or ()))
        if "anyOf" in schema:
            unions += 1
        children: list[Any] = [*(props or {}).values()] if isinstance(props, dict) else []
        children += [schema.get("items"), *(schema.get("anyOf") or ()), *(schema.get("allOf") or ()),
                     *(schema.get("$defs") or {}).values(), *(schema.get("definitions") or {}).values()]
        for child in children:
            more_optional, more_unions = strict_counts(child)
            optional += more_optional
            unions += more_unions
    return optional, unions


def limit_strict(tools: list[dict[str, Any]], plain: Callable[[int], dict[str, Any]]) -> list[dict[str, Any]]:
    """Keep a request's strict tools within the per-request limits (module doc), in their order.

    Args:
        tools: the request's Anthropic tool dicts; a strict one has ``"strict": True``.
        plain: ``plain(i)`` gives tool ``i`` written non-strict (its schema as the tool has it).

    Returns:
        ``tools`` with every strict tool that would take the count of strict tools past :data:`MAX_STRICT_TOOLS`,
        or the optional properties or union-typed schemas of all strict tools past :data:`MAX_OPTIONAL` or
        :data:`MAX_UNIONS`, replaced by ``plain(i)``; each one replaced is named in one
        :class:`~toolwire.models.lowering.openai.StrictSchemaWarning`.
    """
    from toolwire.models.lowering.openai import StrictSchemaWarning

    out = list(tools)
    count = optional = unions = 0
    dropped: list[str] = []
    for i, item in enumerate(tools):
        if item.get("strict") is not True:
            continue
        more_optional, more_unions = strict_counts(item.get("input_schema"))
        if count + 1 > MAX_STRICT_TOOLS or optional + more_optional > MAX_OPTIONAL or \
                unions + more_unions > MAX_UNIONS:
            out[i] = plain(i)
            dropped.append(str(item.get("name")))
            continue
        count, optional, unions = count + 1, optional + more_optional, unions + more_unions
    if dropped:
        warnings.warn(f"Anthropic takes at most {MAX_STRICT_TOOLS} strict tools, {MAX_OPTIONAL} optional properties "
                      f"and {MAX_UNIONS} union-typed parameters over a request's strict tools, so "
                      f"{', '.join(map(repr, dropped))} {'is' if len(dropped) == 1 else 'are'} sent non-strict: bind "
                      "fewer tools with strict=True, or make more of their parameters required.", StrictSchemaWarning,
                      stacklevel=3)
    return out
