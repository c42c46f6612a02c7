"""Tuples (``prefixItems``) for providers whose schema cannot take them as JSON Schema 2020-12 writes them.

pydantic writes ``tuple[int, str]`` (and a ``NamedTuple``) as ``{"type": "array", "prefixItems": [{"type":
"integer"}, {"type": "string"}], "minItems": 2, "maxItems": 2}``: a schema per position and no ``items``.

* OpenAI (Chat Completions and the Responses API, strict mode falling back to non-strict, and non-strict; the
  OpenAI-compatible servers share that lowering) answers such an array with 400 "Invalid schema for function
  '...': In context=('properties', '...'), array schema missing items" (review 124 #1; the same error was reported
  for ``Tuple[float, float]`` in fastcore issue 798 and camel-ai PR 393), as it answers an object without
  ``properties`` with "object schema missing properties". :func:`with_items` gives every such array an ``items``:
  the one position schema when all positions agree, else the ``anyOf`` of the distinct ones, keeping
  ``prefixItems``, ``minItems`` and ``maxItems``; when the positions differ, the array's description says which
  position takes which type (:func:`position_note`), so the model still knows the order. ``tuple[()]`` (no
  positions, written without ``prefixItems``) gets ``items: {}`` beside its ``maxItems: 0`` (review 127 #9), and so
  does, without the ``maxItems``, any other array that has no ``items`` schema (``{"type": "array"}``, as many MCP
  servers write a list parameter; review 190 #1). Strict mode takes no ``items: {}``, so a tool holding such an
  array is sent non-strict (:func:`untyped_items`).
* Gemini's ``Schema`` has no ``prefixItems`` at all (its lowering sends the ``any_of`` of the position types as
  ``items``, :mod:`~toolwire.models.lowering._gemini_schema`) and uses :func:`position_note` the same way
  (review 124 #10).

Anthropic takes JSON Schema 2020-12 (``prefixItems`` included), so its lowering does not use this module.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["position_note", "type_words", "untyped_items", "with_items"]

Resolver = Callable[[dict[str, Any]], Any]

# the keywords whose value is a schema, a list of schemas, or a dict of schemas (JSON Schema 2020-12 Core 10)
_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
        "unevaluatedItems", "unevaluatedProperties", "additionalItems")
_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")


def _local_resolver(root: dict[str, Any]) -> Resolver:
    """A resolver of the local ``$ref`` s (``#/$defs/Loc``) of ``root``: a node whose ``$ref`` it cannot follow (or
    that loops) is given back as it is."""
    def resolve(node: dict[str, Any]) -> Any:
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#"):
            ref = node["$ref"]
            if ref in seen:
                return node
            seen.add(ref)
            target: Any = root
            for part in ref[1:].split("/"):
                if part:
                    target = target.get(part) if isinstance(target, dict) else None
            if not isinstance(target, dict):
                return node
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return node
    return resolve


def type_words(node: Any, resolve: Resolver | None = None) -> str:
    """What a JSON Schema ``node`` takes, in a few words for a description: its ``type`` (``"integer"``, ``"string
    (format date)"``, ``"integer or null"``), the values of an ``enum``/``const`` (``one of "a", "b"``), the
    alternatives of an ``anyOf``/``oneOf`` joined by "or"; ``"any value"`` when it says none of these.

    Args:
        node: a schema node (a dict; ``True`` or anything else reads as any value).
        resolve: follows a node's ``$ref`` (returns the node it points to); ``None``: a ``$ref`` is left unread.

    Returns:
        The words, without a full stop.
    """
    if resolve is not None and isinstance(node, dict) and "$ref" in node:
        node = resolve(node)
    if not isinstance(node, dict):
        return "any value"
    if "const" in node:
        return json.dumps(node["const"], ensure_ascii=False, default=str)
    if isinstance(node.get("enum"), list) and node["enum"]:
        return "one of " + ", ".join(json.dumps(v, ensure_ascii=False, default=str) for v in node["enum"])
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list) and node[key]:
            words: list[str] = []
            for branch in node[key]:
                word = type_words(branch, resolve)
                if word not in words:
                    words.append(word)
            return " or ".join(words)
    kind = node.get("type")
    kinds = [kind] if isinstance(kind, str) else [k for k in kind if isinstance(k, str)] if isinstance(
        kind, list) else ["object"] if isinstance(node.get("properties"), dict) else []
    if not kinds:
        return "any value"
    fmt = node.get("format")
    return " or ".join(f"{k} (format {fmt})" if k == "string" and isinstance(fmt, str) else k for k in kinds)


def position_note(prefix: list[Any], rest: Any = None, resolve: Resolver | None = None) -> str:
    """The sentence that says which position of a tuple takes which type, for the array's description:
    ``"Items by position: 1. string, 2. integer."`` (and ``" Further items: boolean."`` when ``rest``, the
    ``items`` schema past the positions, is a schema).

    Args:
        prefix: the ``prefixItems`` (a schema per position).
        rest: the array's ``items`` beside them (a dict), or ``None``/``False`` for none.
        resolve: follows a ``$ref`` (see :func:`type_words`).

    Returns:
        The sentence(s), ending in a full stop.
    """
    text = "Items by position: " + ", ".join(
        f"{i}. {type_words(p, resolve)}" for i, p in enumerate(prefix, start=1)) + "."
    if isinstance(rest, dict):
        text += f" Further items: {type_words(rest, resolve)}."
    return text


def _distinct(schemas: list[Any]) -> list[Any]:
    out: list[Any] = []
    seen: set[str] = set()
    for schema in schemas:
        key = json.dumps(schema, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            out.append(schema)
    return out


def _is_array(node: dict[str, Any]) -> bool:
    """Whether the schema ``node`` says it is an array (``"type": "array"`` or a list of types holding it)."""
    kind = node.get("type")
    return kind == "array" or (isinstance(kind, list) and "array" in kind)


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    """Every schema node under ``node`` (itself first), through the schema keywords only."""
    if not isinstance(node, dict):
        return
    yield node
    for key in _ONE:
        yield from _walk(node.get(key))
    for key in _LISTS:
        if isinstance(node.get(key), list):
            for sub in node[key]:
                yield from _walk(sub)
    for key in _MAPS:
        if isinstance(node.get(key), dict):
            for sub in node[key].values():
                yield from _walk(sub)


def untyped_items(schema: Any) -> bool:
    """Whether ``schema`` holds an array without an ``items`` schema (``{"type": "array"}``, ``items: true`` or
    ``items: false``, a tuple's ``prefixItems`` beside none), anywhere: under ``properties``, ``items``, ``anyOf``
    branches, ``$defs``... OpenAI answers such an array with 400 "array schema missing items", and strict mode
    takes no ``items: {}`` (a schema of any type), so a tool holding one cannot be strict (review 190 #1).

    Args:
        schema: a JSON Schema (a dict; anything else holds no array).

    Returns:
        True when some array in it has no ``items`` dict.
    """
    return any((_is_array(node) or isinstance(node.get("prefixItems"), list))
               and not isinstance(node.get("items"), dict) for node in _walk(schema))


def _patch(node: Any, resolve: Resolver) -> None:
    """Give the arrays of ``node`` (changed in place) that have ``prefixItems`` and no ``items`` schema one."""
    if not isinstance(node, dict):
        return
    prefix = node.get("prefixItems")
    rest = node.get("items")
    kind = node.get("type")
    if (kind == "array" or (isinstance(kind, list) and "array" in kind)) and not prefix and (
            rest is False or ("items" not in node and node.get("maxItems") == 0)):
        node["items"] = {}  # no positions (tuple[()]): the anyOf of none, said by maxItems 0 (review 127 #9)
        node["maxItems"] = 0
        node.pop("prefixItems", None)
    elif _is_array(node) and not prefix and not isinstance(rest, dict):
        node["items"] = {}  # (an array of any items, {"type": "array"} or items: true; review 190 #1)
        node.pop("prefixItems", None)
    elif isinstance(prefix, list) and prefix and not isinstance(rest, dict) and rest is not True:
        if rest is False:  # (no items past the positions: said by maxItems instead)
            bound = node.get("maxItems")
            node["maxItems"] = min(bound, len(prefix)) if isinstance(bound, int) else len(prefix)
        kinds = _distinct(copy.deepcopy(prefix))
        node["items"] = kinds[0] if len(kinds) == 1 else {"anyOf": kinds}
        if len(kinds) > 1:
            note = position_note(prefix, None, resolve)
            described = node.get("description")
            node["description"] = f"{described} ({note})" if isinstance(described, str) and described else note
    for key in _ONE:
        _patch(node.get(key), resolve)
    for key in _LISTS:
        if isinstance(node.get(key), list):
            for sub in node[key]:
                _patch(sub, resolve)
    for key in _MAPS:
        if isinstance(node.get(key), dict):
            for sub in node[key].values():
                _patch(sub, resolve)


def with_items(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with an ``items`` beside every ``prefixItems`` that has none (module doc): the one position schema
    when all positions are equal, else ``{"anyOf": [...]}`` of the distinct ones, the description then saying the
    positions (``Items by position: 1. string, 2. integer.``); ``prefixItems``, ``minItems`` and ``maxItems`` are
    kept (``items: false`` becomes a ``maxItems`` of the number of positions). An array of no positions (``tuple[()]``,
    which pydantic writes ``{"type": "array", "minItems": 0, "maxItems": 0}``, or ``items: false`` alone) gets
    ``items: {}`` and ``maxItems: 0`` (review 127 #9). Any other array without an ``items`` schema
    (``{"type": "array"}``, ``{"type": ["array", "null"]}``, ``items: true``; common in MCP servers' schemas) gets
    ``items: {}``, at any depth, ``$defs`` included (review 190 #1). Only schema keywords are walked, so a
    ``prefixItems`` key inside ``enum``/``default``/``examples`` data is left alone.

    Args:
        schema: a JSON Schema (a tool's argument schema; may hold ``$defs``/``$ref``); not changed.

    Returns:
        ``schema`` itself when it has no such array, else a changed copy.
    """
    if not untyped_items(schema):
        return schema
    out = copy.deepcopy(schema)
    _patch(out, _local_resolver(out))
    return out
