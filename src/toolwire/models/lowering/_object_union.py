"""An object schema with a top-level ``anyOf``/``oneOf``/``allOf`` folded into one object, for providers whose schema
subset has none (moved out of :mod:`toolwire.models.lowering._common`, which re-exports it).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable
from typing import Any

from toolwire.errors import SchemaError
from toolwire.models.lowering._union_keys import shared_key_schema

__all__ = ["COMBINATORS", "fold_top_union", "merge_object_union", "object_branches", "union_tag"]

log = logging.getLogger("toolwire.lowering")


COMBINATORS = ("anyOf", "oneOf", "allOf")


def object_branches(branches: list[Any], own_object: bool) -> list[dict[str, Any]] | None:
    """The branches of a combinator that constrain an object, or ``None`` when one of them is not an object.

    A branch is an object when its ``type`` is (or includes) ``"object"`` or it has ``properties``; inside an
    object schema (``own_object``), a branch with no ``type`` (``{"required": ["id"]}``) is one too, and a
    branch of another type is skipped (it can never match an object).
    """
    out = []
    for branch in branches:
        if not isinstance(branch, dict):
            continue
        kind = branch.get("type")
        if kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in branch or (
                own_object and kind is None):
            out.append(branch)
        elif not own_object:
            return None
    return out


def _alternatives(key: str, sets: list[list[str]], words: _Words) -> str | None:
    if not sets or not all(sets):  # a branch that needs nothing more: the rule adds no requirement
        return None
    alts = [" and ".join(map(words.key, s)) if len(s) == 1 or len(sets) == 1 else
            f"({' and '.join(map(words.key, s))})" for s in sets]
    return f"Give {' or '.join(alts)}{' (only one of them)' if key == 'oneOf' and len(sets) > 1 else ''}."


def _tag(value: Any) -> tuple[bool, Any]:
    """``(True, value)`` when the property schema ``value`` allows one value only (``const``, a one-item ``enum``)."""
    if isinstance(value, dict):
        if "const" in value:
            return True, value["const"]
        if isinstance(value.get("enum"), list) and len(value["enum"]) == 1:
            return True, value["enum"][0]
    return False, None


def union_tag(branches: list[Any]) -> tuple[str, list[Any]] | None:
    """The key that tells the branches of a tagged union apart: declared by every branch (two or more) with one
    value only (``const``, a one-item ``enum``), a different one in each. Returns ``(key, each branch's value)``,
    or ``None`` when there is no such key (the first one in the first branch's order wins)."""
    if len(branches) < 2 or not all(isinstance(b, dict) and isinstance(b.get("properties"), dict) for b in branches):
        return None
    for name in branches[0]["properties"]:
        tags = [_tag(b["properties"].get(name)) for b in branches]
        values = [value for _, value in tags]
        if all(ok for ok, _ in tags) and len({json.dumps(v, sort_keys=True, default=str) for v in values}) == \
                len(values):
            return name, values
    return None


def _tagged_alternatives(branches: list[dict[str, Any]], known: list[str], words: _Words) -> str | None:
    """What a tagged union's branches each want, in words (review 198 #5): ``With op "add", give text; with op
    "delete", give id.`` (``nothing more`` for a branch that requires nothing beyond ``known``, what every branch
    requires); ``None`` when the branches have no tag (:func:`union_tag`)."""
    found = union_tag(branches)
    if found is None:
        return None
    tag, values = found
    parts = []
    for branch, value in zip(branches, values, strict=True):
        give = [words.key(r) for r in branch.get("required") or ()
                if isinstance(r, str) and r != tag and r not in known]
        parts.append(f"with {words.key(tag)} {words.value(value)}, " +
                     (f"give {' and '.join(give)}" if give else "nothing more"))
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _same(node: Any) -> Any:
    return node


@dataclasses.dataclass(frozen=True)
class _Words:
    """How a fold reads its branches and writes its notes: ``resolve`` gives the schema a ``$ref`` branch names,
    ``key`` spells a key (the pythonic prompt's ``first_name``), ``value`` writes a tag's value."""

    resolve: Callable[[Any], Any] = _same
    key: Callable[[str], str] = str
    value: Callable[[Any], str] = _json_text
    budget: list[int] = dataclasses.field(default_factory=lambda: [_MAX_FOLDS])  # branches still to fold


_MAX_FOLDS = 1024  # the most branches one fold folds in (a union of many unions stays fast)


_MAX_DEPTH = 8  # how deep the branches' own anyOf/oneOf/allOf are folded in (a $ref cycle stops there)


def merge_object_union(node: dict[str, Any], combos: list[tuple[str, list[dict[str, Any]]]], *,
                       resolve: Callable[[Any], Any] | None = None, key_text: Callable[[str], str] | None = None,
                       value_text: Callable[[Any], str] | None = None) -> dict[str, Any]:
    """One object schema for ``node`` and the object ``combos`` (``(keyword, branches)``) that it holds.

    For providers whose schema subset has no object-level ``anyOf``/``oneOf``/``allOf`` (Anthropic refuses
    them at the top of ``input_schema``: "input_schema does not support oneOf, allOf, or anyOf at the top
    level"; Gemini's ``Schema`` has no ``oneOf``/``allOf``). Nothing of the object is lost: its own
    ``properties`` and ``required`` are kept and come first; the branches' properties are added, a key that several
    ``anyOf``/``oneOf`` branches declare taking what each gives it (:func:`shared_key_schema`: an ``enum`` of their
    ``const`` tags, else their ``anyOf``; review 158 #3), so every alternative stays writable; ``required``
    grows by what every ``anyOf``/``oneOf`` branch requires (every ``allOf`` branch's requirements). A branch that
    gets its keys from an ``anyOf``/``oneOf``/``allOf`` of its own (OpenAPI inheritance: ``allOf: [{"$ref": Pet},
    {...}]``; a top-level ``allOf`` of two ``anyOf`` s) is first folded the same way, down to 8 levels (review 204
    #1). Which alternative to give ("id or name") is written in plain words at the end of ``description``, where
    the model reads it (with what the ``allOf`` branches' own unions say), and for a tagged union (:func:`union_tag`)
    which keys go with which tag (``With op "add", give text; with op "delete", give id.``, review 198 #5); toolwire
    still validates the arguments against the full schema.

    Args:
        node: the object schema (not changed).
        combos: its combinators' object branches, ``$ref`` s resolved.
        resolve: gives the schema a ``$ref`` branch of a branch's own combinator names (default: none is resolved,
            such a branch adds nothing).
        key_text: how the description spells a key (default: as written; the pythonic prompt passes its
            Python-safe spellings, review 204 #7).
        value_text: how the description writes a tag's value (default: JSON).

    Returns:
        A new object schema (``"type": "object"``, ``properties``, ``required`` when any). Never raises.
    """
    words = _Words(resolve or _same, key_text or str, value_text or _json_text)
    props, required, notes = _fold(node, combos, words, 0)
    out = {k: v for k, v in node.items() if k not in COMBINATORS and k not in ("properties", "required")}
    if node.get("type") is None or isinstance(node.get("type"), list):
        out["type"] = "object"
    out["properties"] = props
    if required:
        out["required"] = required
    if notes:
        description = str(node.get("description") or "").strip()
        out["description"] = " ".join([description, *notes]) if description else " ".join(notes)
    return out


def _fold(node: dict[str, Any], combos: list[tuple[str, list[dict[str, Any]]]], words: _Words, depth: int,
          path: tuple[int, ...] = ()) -> tuple[dict[str, Any], list[str], list[str]]:
    """The properties, required keys and notes (which alternative to give) of ``node`` with ``combos`` folded in
    (``path``: the ids of the branches being folded, so a ``$ref`` cycle is not followed)."""
    props = dict(_properties(node))
    required = _required(node)
    notes: list[str] = []
    for key, raw in combos:
        branches = []
        for branch in raw:
            flat, inner = _flat(branch, words, depth, path)
            branches.append(flat)
            if key == "allOf":  # (what an allOf branch's own union says holds for every call)
                notes.extend(n for n in inner if n not in notes)
        declared: dict[str, list[Any]] = {}  # key -> each branch's schema of it
        for branch in branches:
            for name, sub in _properties(branch).items():
                declared.setdefault(name, []).append(sub)
        for name, subs in declared.items():  # (allOf: every branch holds, the first one's schema as before)
            props.setdefault(name, subs[0] if key == "allOf" else shared_key_schema(subs))
        sets = [_required(branch) for branch in branches]
        if key == "allOf":
            needed = [r for s in sets for r in s]
        else:
            needed = [r for r in (sets[0] if sets else ()) if all(r in s for s in sets[1:])]
            note = _tagged_alternatives(branches, [*needed, *required], words) or _alternatives(
                key, [[r for r in s if r not in needed and r not in required] for s in sets], words)
            if note and note not in notes:
                notes.append(note)
        required.extend(r for r in dict.fromkeys(needed) if r not in required and (r in props or not props))
    return props, required, notes


def _properties(node: dict[str, Any]) -> dict[str, Any]:
    props = node.get("properties")
    return props if isinstance(props, dict) else {}


def _required(node: dict[str, Any]) -> list[str]:
    required = node.get("required")
    return [r for r in required if isinstance(r, str)] if isinstance(required, list) else []


def _flat(branch: dict[str, Any], words: _Words, depth: int,
          path: tuple[int, ...]) -> tuple[dict[str, Any], list[str]]:
    """``branch`` as a plain object schema (``properties``, ``required``) with its own ``anyOf``/``oneOf``/``allOf``
    folded in, and the notes of that fold; ``branch`` itself when it has none (or past :data:`_MAX_DEPTH` levels or
    :data:`_MAX_FOLDS` branches); an empty object for a branch that holds itself (a ``$ref`` cycle)."""
    if not any(isinstance(branch.get(k), list) for k in COMBINATORS):
        return branch, []
    if id(branch) in path:
        return {"type": "object", "properties": {}}, []
    if depth >= _MAX_DEPTH or words.budget[0] <= 0:
        return branch, []
    words.budget[0] -= 1
    combos = []
    for key in COMBINATORS:
        raw = branch.get(key)
        if isinstance(raw, list):
            combos.append((key, object_branches([words.resolve(b) for b in raw], True) or []))
    props, required, notes = _fold(branch, combos, words, depth + 1, (*path, id(branch)))
    return {"type": "object", "properties": props, "required": required}, notes


def _resolve_ref(node: Any, root: dict[str, Any]) -> Any:
    """``node``, or the schema its local ``$ref`` (``#/$defs/X``) points to in ``root`` when there is one (a chain of
    them followed up to 8 links; keys written beside a ``$ref`` kept over the target's)."""
    for _ in range(8):
        ref = node.get("$ref") if isinstance(node, dict) else None
        if not (isinstance(ref, str) and ref.startswith("#/")):
            break
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            break
        extra = {k: v for k, v in node.items() if k != "$ref"}
        node = {**target, **extra} if extra else target
    return node


def fold_top_union(name: str, schema: dict[str, Any], *, provider: str, field: str,
                   key_text: Callable[[str], str] | None = None,
                   value_text: Callable[[Any], str] | None = None) -> dict[str, Any]:
    """One object schema for tool arguments whose schema has a top-level ``anyOf``/``oneOf``/``allOf`` (a
    ``tool_from_schema`` or MCP tool, say), which the providers refuse: OpenAI answers 400 "schema must have
    type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level", Anthropic "input_schema
    does not support oneOf, allOf, or anyOf at the top level", Gemini "parameters schema should be of type
    OBJECT". The branches are folded in with :func:`merge_object_union` (their properties added, the
    alternatives written in the description); toolwire still validates the arguments against the full
    schema before the tool runs. A debug log of ``toolwire.lowering`` says so.

    Args:
        name: the tool's name, for messages.
        schema: its argument schema (not changed); branches, and the branches of their own combinators, may be
            local ``$ref`` s (into ``schema``).
        provider: the provider's name for messages (``"Anthropic"``).
        field: what the provider calls the schema, for messages (``"input_schema"``).
        key_text: how the description's notes spell a key (default: as written).
        value_text: how they write a tag's value (default: JSON).

    Returns:
        ``schema`` itself when it has none of the three keywords at the top, else a new object schema
        with ``"type": "object"``.

    Raises:
        SchemaError: a branch is not an object schema while ``schema`` is not one either (the arguments
            would not be an object).
    """
    if not any(k in schema for k in COMBINATORS):
        return schema
    own_object = isinstance(schema.get("properties"), dict) or schema.get("type") == "object"
    combos = []
    for key in COMBINATORS:
        if key not in schema:
            continue
        raw = schema[key] if isinstance(schema[key], list) else []
        branches = object_branches([_resolve_ref(b, schema) for b in raw], own_object)
        if branches is None or not (branches or own_object):
            raise SchemaError(
                f"Tool {name!r} cannot be sent to {provider}: its arguments are a top-level {key} of non-object "
                f"schemas, and {provider}'s {field} must be one object. Give the function named parameters "
                "(e.g. one parameter holding the union)."
            )
        combos.append((key, branches))
    out = merge_object_union(schema, combos, resolve=lambda node: _resolve_ref(node, schema), key_text=key_text,
                             value_text=value_text)
    log.debug("%s: tool %s: top-level %s sent as one object (properties merged, the alternatives in the "
              "description); toolwire still validates the arguments against the full schema",
              provider.lower(), name, "/".join(key for key, _ in combos))
    return out
