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
  ``dict[str, X]``, a pydantic model with ``extra="allow"``, ``patternProperties``), or declares none and is not
  closed (``{"type": "object"}``, and ``{"type": "object", "properties": {}}``, which JSON Schema reads as any object:
  review 228 #2), cannot be strict, as writing false would refuse the keys the tool takes (a pydantic model without
  fields is written closed by toolwire and stays strict; the root of a tool without arguments too);
* a ``type`` list (``["string", "null"]``) becomes an ``anyOf`` of one branch per type, each with that type's own
  keywords;
* a ``oneOf`` becomes an ``anyOf`` when its alternatives cannot overlap (distinct JSON types, or objects whose one
  shared required property is pinned to different ``const``/``enum`` values, as a pydantic discriminated union
  writes; a tag pinned by a ``const`` that is also its ``default``, which pydantic leaves out of ``required`` though
  its discriminator needs it, is made required), since then "exactly one" and "at least one" accept the same
  values; ``discriminator`` is dropped;
* an ``allOf`` of object schemas is joined into one object (properties and ``required`` united: each part closed on
  its own would admit nothing), a single part of another kind merged key by key; parts that disagree on a key
  cannot be strict;
* numeric bounds, ``multipleOf``, ``minLength``/``maxLength``, ``pattern``, ``minItems`` above 1, ``maxItems``,
  ``uniqueItems``, a ``format`` outside :data:`STRICT_FORMATS`, ``default`` and every other keyword outside the
  subset are dropped and said in the description instead (``Must be at least 1.``, ``Format: path.``,
  ``Default: "en".``), as the SDK also does (the guide also lists ``pattern``, for a subset of regular expressions,
  and ``default``; toolwire follows the SDK's narrower choice, which cannot send a pattern the API refuses);
  annotations that say nothing of the value (``$schema``, ``$comment``, ``readOnly``...) are dropped unsaid. toolwire
  still validates every call's arguments against the full schema before the tool runs, so nothing dropped goes
  unchecked;
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
from collections.abc import Callable
from typing import Any

from toolwire._warn_site import warn_user
from toolwire.models.lowering._common import constraint_notes, default_notes
from toolwire.models.lowering._openai_strict import (
    ADVICE_ALL_OF,
    ADVICE_EXTRA,
    ADVICE_NAMED,
    ADVICE_ONE_OBJECT,
    ADVICE_TAG,
    ADVICE_TYPE,
    REFUSED,
    NotStrictError,
    _NotStrict,
    dropped_notes,
    json_types,
    pairwise_disjoint,
    pinned_values,
    refused_advice,
)

__all__ = [
    "MAX_OPTIONAL", "MAX_STRICT_TOOLS", "MAX_UNIONS", "STRICT_FORMATS", "NotStrictError", "anthropic_strict_schema",
    "limit_strict", "strict_counts",
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
_REFUSED = {k: v for k, v in REFUSED.items() if k != "allOf"}  # (an allOf of objects is joined here instead)
# the keywords that belong to one JSON type, moved into that type's branch when a type list is split
_TYPE_KEYWORDS = {
    "object": ("properties", "required", "additionalProperties", "propertyNames", "minProperties", "maxProperties",
               "patternProperties", "dependentRequired", "dependentSchemas"),
    "array": ("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"),
    "string": ("format", "pattern", "minLength", "maxLength", "contentMediaType", "contentEncoding"),
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
}
_TYPE_KEYWORDS["integer"] = _TYPE_KEYWORDS["number"]


def _primitive(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _of_types(value: Any, kinds: list[Any]) -> bool:
    """Whether the JSON value ``value`` is of one of the JSON Schema types ``kinds``."""
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    return any((kind == "string" and isinstance(value, str)) or (kind == "boolean" and isinstance(value, bool))
               or (kind == "null" and value is None) or (kind == "number" and is_number)
               or (kind == "integer" and is_number and float(value).is_integer())
               or (kind == "object" and isinstance(value, dict)) or (kind == "array" and isinstance(value, list))
               for kind in kinds)


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


def _disjoint(branches: list[Any]) -> bool:
    """Whether no value can match two of the (strict-form) ``branches``: they are of distinct JSON types, or objects
    sharing a property that each requires and pins to values no other branch allows."""
    if not all(isinstance(b, dict) for b in branches):
        return False
    if pairwise_disjoint([json_types(b) for b in branches]):
        return True
    if not all(isinstance(b.get("properties"), dict) for b in branches):
        return False
    tags = set.intersection(*(set(b.get("required") or ()) & set(b["properties"]) for b in branches))
    return any(pairwise_disjoint([pinned_values(b["properties"][tag]) for b in branches]) for tag in tags)


def _objectish(node: Any) -> bool:
    return isinstance(node, dict) and (node.get("type") == "object" or "properties" in node)


def _merged_all_of(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` with its ``allOf`` folded in: the parts' properties and ``required`` joined into the node's own (each
    part closed on its own, as strict mode closes objects, would admit no value the tool takes: review 98 #1); one
    part that is not an object is merged key by key. Raises :class:`_NotStrict` for parts that disagree on a key,
    or several parts that are not all objects."""
    parts = node["allOf"]
    out = {k: v for k, v in node.items() if k != "allOf"}
    if not all(isinstance(p, dict) for p in parts):
        raise _NotStrict("an allOf holding a boolean schema", "write the allOf's parts as one object schema")
    parts = [_merged_all_of(p) if isinstance(p.get("allOf"), list) else p for p in parts]
    if all(_objectish(p) for p in parts) and (not out.get("type") or out.get("type") == "object"):
        props = dict(out.get("properties") or {})
        required = list(out.get("required") or [])
        for part in parts:
            for name, sub in (part.get("properties") or {}).items():
                if name in props and props[name] != sub:
                    raise _NotStrict(f"an allOf whose parts give {name!r} different schemas",
                                     "write the allOf's parts as one object schema")
                props[name] = sub
            required += [r for r in part.get("required") or () if r not in required]
            if part.get("additionalProperties") not in (None, False):
                out["additionalProperties"] = part["additionalProperties"]  # (then refused as an open object)
        return {**out, "type": "object", "properties": props, **({"required": required} if required else {})}
    if len(parts) == 1:
        merged = dict(out)
        for key, value in parts[0].items():
            if key in merged and merged[key] != value and key not in ("description", "title"):
                raise _NotStrict(f"an allOf whose part disagrees on {key!r}", ADVICE_ALL_OF)
            merged.setdefault(key, value)
        return merged
    raise _NotStrict("an allOf of several schemas that are not all objects", ADVICE_ALL_OF)


def _require_tags(originals: list[Any], branches: list[Any]) -> None:
    """Make a discriminated union's tag required in each strict ``branches`` (in place) where the ``originals`` pin it
    to a ``const`` whose ``default`` is that value (``kind: Literal["cat"] = "cat"``: pydantic leaves such a tag out
    of ``required``, yet its discriminator refuses an object without it, so requiring it says what the tool takes,
    and keeps the branches apart: review 98 #2)."""
    if not all(_objectish(o) and isinstance(b, dict) and isinstance(b.get("properties"), dict)
               for o, b in zip(originals, branches, strict=True)):
        return
    shared = set.intersection(*(set(o.get("properties") or {}) for o in originals))
    for tag in sorted(shared):
        subs = [o["properties"][tag] for o in originals]
        if all(isinstance(sub, dict) and "const" in sub and sub.get("default") == sub["const"] for sub in subs) \
                and pairwise_disjoint([pinned_values(sub) for sub in subs]):
            for branch in branches:
                if tag not in (branch.get("required") or []):
                    branch["required"] = [*(branch.get("required") or []), tag]
            return


def _items_notes(dropped: dict[str, Any]) -> list[str]:
    notes = []
    for key, words in (("minItems", "at least"), ("maxItems", "at most")):
        value = dropped.pop(key, None)
        if isinstance(value, int) and not isinstance(value, bool):
            notes.append(f"Must have {words} {value} item{'' if value == 1 else 's'}.")
    return notes


def _strict(node: Any, root: bool = False) -> Any:
    """``node`` in strict form (module doc); ``root``: whether it is the tool's whole argument schema. Raises
    :class:`_NotStrict` for what strict tool use cannot say."""
    if node is True or (isinstance(node, dict) and not any(k in node for k in _TYPED)):
        raise _NotStrict("a parameter that takes a value of any type", ADVICE_TYPE)
    if not isinstance(node, dict):
        return node
    for key, reason in _REFUSED.items():
        if key in node:
            raise _NotStrict(reason, refused_advice(key))
    if ("enum" in node or "const" in node) and "type" in node:  # (the values say it all, the SDK sends no type beside
        # them either; a nullable enum's type list would else become an anyOf that counts as a union: review 98 #12)
        kinds = node["type"] if isinstance(node["type"], list) else [node["type"]]
        node = {k: v for k, v in node.items() if k != "type"}
        if isinstance(node.get("enum"), list):  # the values the type refused stay refused
            node["enum"] = [v for v in node["enum"] if _of_types(v, kinds)]
    if isinstance(node.get("type"), list):
        kinds = [k for k in node["type"] if isinstance(k, str)]
        if len(set(kinds)) != len(node["type"]) or not kinds:
            raise _NotStrict(f"a type list {node['type']!r}")
        node = {**node, "type": kinds[0]} if len(kinds) == 1 else _split_types(node)
    if isinstance(node.get("allOf"), list):
        node = _merged_all_of(node)
    for key in ("enum", "const"):
        values = node.get(key, []) if key == "enum" else [node.get(key)]
        if key in node and not (isinstance(values, list) and all(_primitive(v) for v in values)):
            raise _NotStrict(f"an {key} of objects or lists", "use an enum of strings, numbers or booleans")
    out: dict[str, Any] = {}
    dropped: dict[str, Any] = {}
    for key, value in node.items():
        if key in _UNSAID or key == "default":
            continue
        if key == "oneOf" and isinstance(value, list):
            branches = [_strict(x) for x in value]
            _require_tags(value, branches)
            if "anyOf" in node or not _disjoint(branches):
                raise _NotStrict("a oneOf whose alternatives may overlap, which anyOf cannot stand for",
                                 ADVICE_TAG)
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
        if extra not in (None, False) or (extra is None and ("properties" not in node or (not props and not root))):
            # (an object declaring no properties and not closed, {"type": "object", "properties": {}}, takes any keys,
            # as a dict does: closing it would let the model send only {}, review 228 #2; toolwire writes
            # additionalProperties: false on a pydantic model without fields, which stays strict; a root without
            # properties is a tool without arguments)
            raise _NotStrict("an object that takes keys beyond its declared properties (a dict, additionalProperties, "
                             "a pydantic model with extra='allow')",
                             ADVICE_EXTRA if props and extra not in (None, False) else ADVICE_NAMED)
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
            raise _NotStrict(f"a $ref to {ref!r}, which is not a local definition", "define it under $defs")
    for name in defs:
        seen: set[str] = set()
        todo = list(_refs(defs[name]))
        while todo:
            ref = todo.pop()
            if ref == name:
                raise _NotStrict(f"a recursive schema ({name!r} refers to itself)",
                                 "limit the nesting to a fixed depth")
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
        NotStrictError: (a ``ValueError``) the schema holds something strict tool use cannot express (module doc): a
            free-form or open object, a parameter of any type, an ``enum`` of objects, a recursive ``$ref``, a tuple,
            ``not``, ``if``/``then``/``else``, a ``oneOf`` whose alternatives may overlap, an ``allOf`` whose parts
            cannot be joined into one object, or a top-level union; its ``advice`` says what to change.
    """
    if "anyOf" in parameters or "oneOf" in parameters:
        raise NotStrictError("a top-level union of argument sets, which an input_schema cannot be",
                             ADVICE_ONE_OBJECT)
    if parameters.get("additionalProperties") in (None, False) and not any(
            k in parameters for k in ("properties", "allOf", "$ref", "items", *_REFUSED)):
        return {"type": "object", "properties": {}, "additionalProperties": False}  # a tool without arguments
    try:
        out: dict[str, Any] = _strict(copy.deepcopy(parameters), root=True)
        _check_refs(out)
    except _NotStrict as exc:
        raise NotStrictError(str(exc), exc.advice) from None
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
        :data:`MAX_UNIONS`, replaced by ``plain(i)``; the ones replaced are named in a
        :class:`~toolwire.models.lowering.openai.StrictSchemaWarning` per limit passed, with what to change.
    """
    from toolwire.models.lowering.openai import StrictSchemaWarning

    out = list(tools)
    count = optional = unions = 0
    dropped: dict[str, list[str]] = {}  # the limit passed -> the tools sent non-strict for it
    for i, item in enumerate(tools):
        if not isinstance(item, dict) or item.get("strict") is not True:
            continue
        more_optional, more_unions = strict_counts(item.get("input_schema"))
        passed = (f"{MAX_STRICT_TOOLS} strict tools" if count + 1 > MAX_STRICT_TOOLS
                  else f"{MAX_OPTIONAL} optional parameters" if optional + more_optional > MAX_OPTIONAL
                  else f"{MAX_UNIONS} union-typed parameters (each Optional or union counts)"
                  if unions + more_unions > MAX_UNIONS else None)
        if passed:
            out[i] = plain(i)
            dropped.setdefault(passed, []).append(str(item.get("name")))
            continue
        count, optional, unions = count + 1, optional + more_optional, unions + more_unions
    for passed, names in dropped.items():
        fix = {"strict tools": "give fewer tools strict=True",
               "optional parameters": "give fewer parameters defaults, or fewer tools strict=True",
               "union-typed parameters": "use fewer Optional or union fields, or give fewer tools strict=True",
               }[next(k for k in ("strict tools", "optional parameters", "union-typed parameters") if k in passed)]
        warn_user(f"Anthropic's strict tool use takes at most {passed} in one request, so "
                  f"{', '.join(map(repr, names))} {'is' if len(names) == 1 else 'are'} sent non-strict: {fix} to "
                  "keep them strict.", StrictSchemaWarning)
    return out
