"""The embedded model and a tool whose arguments are a top-level ``anyOf``/``oneOf``/``allOf`` of objects (review
198 #1).

A JSON-Schema tool (``Tool.from_schema``, an MCP tool) may give its arguments as a union of object schemas, with no
``properties`` of its own. The cloud lowerings fold such a schema into one object
(:func:`~toolwire.models.lowering._object_union.fold_top_union`); the embedded model reads the same fold where it
needs one object's parameters (the pythonic prompt's signature, the Python-safe spellings, the ``function_tag``
reader's typing of values, the order calls are written in: :func:`local_parameters`), and its grammar takes the union
exactly, as alternatives of object rules, one per combination of branches (:func:`argument_forms`). Validation stays
on the tool's own schema. A schema without such a keyword at the top is given back as it is (the same object), so
nothing else changes. Pure functions, no I/O.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Callable, Sequence
from typing import Any

from toolwire.errors import SchemaError
from toolwire.models.lowering._object_union import COMBINATORS, fold_top_union, object_branches
from toolwire.tools import ToolSpec

__all__ = ["MAX_FORMS", "argument_forms", "local_parameters", "local_specs"]

MAX_FORMS = 16
"""The most alternatives :func:`argument_forms` writes; a union of more is taken as its fold (looser, yet callable)."""

# keywords whose meaning depends on each other's (an object's keys, an array's positions): a key both schemas give
# such keywords takes the later schema's alone, which allows every value both allow
_LINKED = ("properties", "additionalProperties", "patternProperties", "unevaluatedProperties", "items",
           "prefixItems", "additionalItems", "unevaluatedItems")


def local_parameters(schema: Any, name: str = "", *, key_text: Callable[[str], str] | None = None,
                     value_text: Callable[[Any], str] | None = None) -> Any:
    """The arguments' schema as one object, as the embedded model's prompt and readers take it.

    Args:
        schema: a tool's parameters (JSON Schema); not changed.
        name: the tool's name, for the debug log.
        key_text: how the fold's description spells a key (default: as written; the pythonic prompt passes its
            Python-safe spellings, review 204 #7).
        value_text: how the fold's description writes a tag's value (default: JSON).

    Returns:
        ``schema`` itself when it has no top-level ``anyOf``/``oneOf``/``allOf`` or its branches are not objects
        (then no object form exists), else its fold (a new object schema: every branch's properties, those its
        branches' own ``anyOf``/``oneOf``/``allOf`` give included, the keys every branch requires, which alternative
        to give written at the end of its ``description``). Never raises.
    """
    if not isinstance(schema, dict) or not any(key in schema for key in COMBINATORS):
        return schema
    try:
        return fold_top_union(name, schema, provider="the local model", field="arguments", key_text=key_text,
                              value_text=value_text)
    except (SchemaError, TypeError, AttributeError, RecursionError):
        return schema


def local_specs(tools: Sequence[ToolSpec]) -> list[ToolSpec]:
    """``tools`` with each one's parameters as :func:`local_parameters` gives them (the same spec when unchanged)."""
    out = []
    for spec in tools:
        folded = local_parameters(spec.parameters, spec.name)
        out.append(spec if folded is spec.parameters else dataclasses.replace(spec, parameters=folded))
    return out


def argument_forms(schema: Any) -> list[Any]:
    """The object schemas a call's arguments may take, for the grammar: ``[schema]`` for a schema without a top-level
    ``anyOf``/``oneOf``/``allOf``; else one plain object schema (``properties`` and ``required`` only) per combination
    of the branches (each ``allOf`` branch added to every form, each ``anyOf``/``oneOf`` branch a form of its own,
    nested ones likewise), properties in the order of the fold (:func:`local_parameters`).

    A key that two merged schemas both declare takes both schemas' keywords (the branch's where they give the same
    one; its own alone for an object's or array's linked keywords), so every call the tool accepts stays writable;
    ``oneOf``'s "only one" is left to validation. More than :data:`MAX_FORMS` forms, or a schema that has no object
    form, gives ``[fold]`` (or ``[schema]``).

    Args:
        schema: a tool's parameters (JSON Schema); not changed.

    Returns:
        The forms (at least one), duplicates left out.
    """
    folded = local_parameters(schema)
    if folded is schema:
        return [schema]
    try:
        forms = _expand(schema, schema, 0, [_MAX_EXPANSIONS])
    except RecursionError:
        forms = None
    if not forms or len(forms) > MAX_FORMS:
        return [folded]
    order = list(folded.get("properties") or {})
    out: dict[str, Any] = {}
    for props, required in forms:
        ordered = {k: props[k] for k in order if k in props} | {k: v for k, v in props.items() if k not in order}
        form: dict[str, Any] = {"type": "object", "properties": ordered}
        needed = [r for r in dict.fromkeys(required) if r in ordered]
        if needed:
            form["required"] = needed
        out.setdefault(json.dumps(form, sort_keys=True, default=str), form)
    return list(out.values())


_Form = tuple[dict[str, Any], list[str]]


_MAX_EXPANSIONS = 512  # the most schemas one argument_forms call expands (a union of $ref cycles stays fast)


def _expand(node: dict[str, Any], root: dict[str, Any], depth: int, budget: list[int]) -> list[_Form] | None:
    """The (properties, required) forms of the object schema ``node`` (:func:`argument_forms`); None when one of
    its combinators holds a non-object branch where the arguments could then not be an object, or past 8 levels or
    :data:`_MAX_EXPANSIONS` schemas (``budget``: how many are left)."""
    budget[0] -= 1
    if depth > 8 or budget[0] < 0:
        return None
    props = node.get("properties")
    required = node.get("required")
    forms: list[_Form] = [(dict(props) if isinstance(props, dict) else {},
                           [r for r in required if isinstance(r, str)] if isinstance(required, list) else [])]
    own_object = isinstance(props, dict) or node.get("type") == "object" or depth > 0
    for key in ("allOf", "anyOf", "oneOf"):
        raw = node.get(key)
        if not isinstance(raw, list):
            continue
        branches = object_branches([_resolved(b, root) for b in raw], own_object)
        if branches is None:
            return None
        if not branches:  # (no branch can be an object: left to validation)
            continue
        expanded = []
        for branch in branches:
            each = _expand(branch, root, depth + 1, budget)
            if each is None:
                return None
            expanded.append(each)
        if key == "allOf":
            for each in expanded:
                forms = [_merged(f, g) for f, g in itertools.product(forms, each or ())]
                if len(forms) > MAX_FORMS:
                    return forms
        else:
            forms = [_merged(f, g) for f in forms for each in expanded for g in each or ()]
        if len(forms) > MAX_FORMS:
            return forms
    return forms


def _merged(first: _Form, second: _Form) -> _Form:
    """Two forms that both hold: every key of either, a key both declare taking both schemas (:func:`_both`)."""
    props = dict(first[0])
    for key, sub in second[0].items():
        props[key] = _both(props[key], sub) if key in props else sub
    return props, [*first[1], *(r for r in second[1] if r not in first[1])]


def _both(first: Any, second: Any) -> Any:
    """One schema allowing every value both ``first`` and ``second`` allow (never fewer): their keywords together, the
    second's where both give one, or the second alone where both constrain an object's keys or an array's items."""
    if first == second or not isinstance(first, dict) or not first:
        return second
    if not isinstance(second, dict) or not second:
        return first
    if any(k in first and k in second for k in _LINKED):
        return second
    return {**first, **second}


def _resolved(node: Any, root: dict[str, Any]) -> Any:
    """``node``, or the schema its local ``$ref`` (``#/$defs/X``) names in ``root`` when there is one."""
    ref = node.get("$ref") if isinstance(node, dict) else None
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(target, dict) else None
        if isinstance(target, dict):
            return target
    return node
