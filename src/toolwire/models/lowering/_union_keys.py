"""The schema of a key that several branches of a folded ``anyOf``/``oneOf`` declare (review 158 #3).

:func:`~toolwire.models.lowering._common.merge_object_union` folds a union of argument sets into one object; a key
that several alternatives declare (the tag of a tagged union, ``"by": {"const": "id"}`` in one branch and
``{"const": "email"}`` in another) must take what every alternative gives it, or the model (constrained by Anthropic
strict tool use or Gemini's ``enum``) cannot write the other alternatives. Pure functions, no I/O.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["shared_key_schema"]

_VALUE_KEYS = {"const", "enum", "type", "description", "title"}  # what a schema of fixed values may hold


def _fixed_values(sub: Any) -> list[Any] | None:
    """The values a schema of fixed values takes (its ``const``, or its ``enum``), ``None`` for another schema."""
    if not isinstance(sub, dict) or not set(sub) <= _VALUE_KEYS or ("const" in sub) == ("enum" in sub):
        return None
    values = [sub["const"]] if "const" in sub else sub["enum"]
    return values if isinstance(values, list) and values else None


def _value_key(value: Any) -> tuple[str, str]:
    """A key telling JSON values apart (``1``, ``1.0`` and ``True`` are three values of an ``enum``)."""
    return type(value).__name__, json.dumps(value, sort_keys=True, default=str)


def shared_key_schema(subs: list[Any]) -> Any:
    """One schema that takes every value any of ``subs`` (the schemas several branches give one key) takes.

    Args:
        subs: the branches' schemas of the key, in branch order (at least one).

    Returns:
        The schema itself when they are all the same; an ``enum`` of all their values when each is a ``const`` or
        an ``enum`` (with their shared ``type`` and the first ``description``), which every provider's subset
        keeps (Gemini's ``enum`` of strings, strict OpenAI and Anthropic); else an ``anyOf`` of the distinct
        schemas.
    """
    unique: list[Any] = []
    for sub in subs:
        if sub not in unique:
            unique.append(sub)
    if len(unique) == 1:
        return unique[0]
    fixed = [_fixed_values(sub) for sub in unique]
    if any(values is None for values in fixed):
        return {"anyOf": unique}
    seen: dict[tuple[str, str], Any] = {}
    for values in fixed:
        for value in values or ():
            seen.setdefault(_value_key(value), value)
    out: dict[str, Any] = {"enum": list(seen.values())}
    kinds = [sub.get("type") for sub in unique]
    if kinds[0] is not None and all(kind == kinds[0] for kind in kinds):
        out["type"] = kinds[0]
    described = next((sub["description"] for sub in unique if sub.get("description")), None)
    if described:
        out["description"] = described
    return out
