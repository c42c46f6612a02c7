"""Dict keys that are not strings, in a JSON object whose keys always are (review 94, finding 5).

Private to :mod:`toolwire._schema_strict`, which writes both sides: the JSON Schema's ``propertyNames`` says what
text the keys are (:func:`key_names`), and validation reads a ``Literal`` or ``Enum`` key back from its text
(:class:`KeyFromText`, made from :func:`key_table`). pydantic reads ``int``, ``float``, ``Decimal``, ``bool`` and
``IntEnum`` keys from text itself (in JSON mode, strict included). Two texts that read back as the same key (``"7"``
and ``"07"``, ``"1"`` and ``"1.0"``) are refused (:class:`DistinctKeys`, :func:`distinct_keys`; not in a dict that
pydantic's JSON mode validates by other rules, a ``strict`` one), not one value silently dropped; an ``int`` key's
published pattern admits only the canonical text of an integer (review 158 #4).

The shapes written are exactly ``{"pattern": ...}`` and ``{"enum": [...]}`` (string keys keep pydantic's own
``propertyNames``), so that a grammar made from the schema can read them.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any

__all__ = ["KEY_TEXT", "UNKEYABLE", "DistinctKeys", "KeyFromText", "distinct_keys", "is_number_text", "key_names",
           "key_table", "key_text", "number_text_patterns"]

KEY_TEXT: dict[str, dict[str, Any]] = {
    "integer": {"pattern": "^(?:0|-?[1-9][0-9]*)$"},  # (canonical: no leading zero, no "-0"; review 158 #4)
    "number": {"pattern": "^-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?$"},
    "boolean": {"enum": ["true", "false"]},
}
"""The ``propertyNames`` of dict keys of these JSON types, whose values JSON writes as a key's text."""

UNKEYABLE: Any = object()
"""What :func:`key_names` gives for keys no JSON object key (a string) can hold."""


def key_text(value: Any) -> str:
    """The text a JSON object key holds for the dict key ``value`` (``1`` -> ``"1"``, ``True`` -> ``"true"``, a
    string as it is).

    Raises:
        TypeError, ValueError: ``value`` has no JSON form.
    """
    if isinstance(value, str):
        return value
    return json.dumps(value, allow_nan=False)


class KeyFromText:
    """The ``function-before`` of a dict's keys typed by a ``Literal`` or an ``Enum`` with values other than strings:
    the text of such a value (``"1"`` for ``1``, ``"true"`` for ``True``) is turned into the value (an Enum's
    member), which pydantic alone refuses (``Literal[1, 2]`` and a plain Enum of ints take no ``"1"``).

    Args:
        table: ``{text: value}`` (:func:`key_table`); any other input is passed on as it is.
    """

    __slots__ = ("table",)

    def __init__(self, table: dict[str, Any]) -> None:
        self.table = table

    def __call__(self, value: Any) -> Any:
        """``value``'s value when it is the text of one, else ``value``."""
        if value.__class__ is str:
            return self.table.get(value, value)
        return value


class DistinctKeys:
    """The ``function-before`` of a dict whose keys are read from their text (``int``, ``float``, ``bool``, an
    ``Enum`` or a ``Literal`` key): two keys that read back as the same key (``"7"`` and ``"07"``, ``"0"`` and
    ``"-0"``) are a validation error naming them (``dict_key_repeated``), where pydantic keeps the last value and
    drops the other silently (review 158 #4). A key that does not read is left to the dict's own validation.

    Args:
        read: reads one key as validation does (a ``SchemaValidator.validate_python`` of the keys' schema, called
            with ``strict=False``: JSON mode reads a key's text even where the schema is strict).
    """

    __slots__ = ("read",)

    def __init__(self, read: Callable[..., Any]) -> None:
        self.read = read

    def __call__(self, value: Any) -> Any:
        """``value`` itself, or a ``PydanticCustomError`` naming two of its keys that are one key."""
        if value.__class__ is not dict or len(value) < 2:
            return value
        seen: dict[Any, Any] = {}
        for key in value:
            try:
                read = self.read(key, strict=False)
                first = seen.setdefault(read, key)
            except Exception:  # (a key that does not read, or reads unhashable: the dict's validation says so)
                continue
            if first is not key:
                from pydantic_core import PydanticCustomError

                raise PydanticCustomError(
                    "dict_key_repeated", "Keys {first} and {second} are the same key {key}: give each key once.",
                    {"first": repr(first), "second": repr(key), "key": repr(read)})
        return value


def distinct_keys(node: dict[str, Any], config: dict[str, Any] | None) -> dict[str, Any]:
    """The ``dict`` core schema ``node`` (of keys other than strings) under a :class:`DistinctKeys` check (its ``ref``
    moved to the check, where pydantic looks for it), or ``node`` itself where the check cannot stand: keys no
    validator of their own reads (a definition's), or a dict validated by other rules in pydantic's JSON mode
    (``strict``, see :mod:`toolwire._schema_json`), since a function validator validates its input in Python mode.
    """
    from pydantic_core import SchemaValidator

    from toolwire._schema_json import json_mode_needed

    if json_mode_needed(node, config):
        return node
    try:
        read = SchemaValidator({k: v for k, v in node["keys_schema"].items() if k != "ref"}).validate_python
    except Exception:  # (a definition-ref, say: no check, as before)
        return node
    out = {"type": "function-before", "function": {"type": "no-info", "function": DistinctKeys(read)},
           "schema": {k: v for k, v in node.items() if k != "ref"}}
    return {**out, "ref": node["ref"]} if "ref" in node else out


def key_table(node: Any) -> dict[str, Any]:
    """``{text: value}`` for the values of a ``literal`` or ``enum`` core schema ``node`` that are not strings (an
    enum's member for its value's text); empty for any other node. A text that is also one of the string values
    (``Literal["1", 1]``) stays that string."""
    kind = node.get("type") if isinstance(node, dict) else None
    if kind == "literal":
        pairs = [(v, v) for v in node.get("expected") or ()]
    elif kind == "enum":
        pairs = [(m.value, m) for m in node.get("members") or ()]
    else:
        return {}
    strings = {v for v, _ in pairs if isinstance(v, str)}
    table: dict[str, Any] = {}
    for value, result in pairs:
        if isinstance(value, str):
            continue
        try:
            text = key_text(value)
        except (TypeError, ValueError):  # no JSON text: the JSON Schema says so (key_names)
            continue
        if text not in strings:
            table.setdefault(text, result)
    return table


def key_names(keys: dict[str, Any], resolve: Callable[[str], dict[str, Any] | None], depth: int = 0) -> Any:
    """The ``propertyNames`` of dict keys whose JSON Schema (as pydantic writes it) is ``keys``.

    Args:
        keys: the keys' JSON Schema.
        resolve: gives the schema a ``$ref`` points to, or None when it is not known yet.
        depth: (internal) how many ``$ref``/``anyOf`` levels were followed.

    Returns:
        None to keep pydantic's (string keys, any keys, a reference not known yet); ``{"pattern": ...}`` for number
        keys (of a union of number types, ``int | float`` or ``int | None``, the widest one's); ``{"enum":
        [texts]}`` for the values of an enum or const that are not all strings, and for booleans;
        :data:`UNKEYABLE` when no key text can hold such a value (an array, an object, null).
    """
    if depth > 8:
        return None
    if "$ref" in keys:
        target = resolve(keys["$ref"])
        if target is None:
            return None
        keys = target
    if "enum" in keys or "const" in keys:
        values = keys["enum"] if "enum" in keys else [keys["const"]]
        if all(isinstance(v, str) for v in values):
            return None
        try:
            return {"enum": list(dict.fromkeys(key_text(v) for v in values))}
        except (TypeError, ValueError):
            return UNKEYABLE
    if "anyOf" in keys:
        branches = [key_names(b, resolve, depth + 1) for b in keys["anyOf"] if isinstance(b, dict)]
        if any(b is None for b in branches):  # a branch takes any text: the keys are not constrained
            return None
        usable = [b for b in branches if b is not UNKEYABLE]
        if not usable:
            return UNKEYABLE
        if all("enum" in b for b in usable):
            return {"enum": list(dict.fromkeys(v for b in usable for v in b["enum"]))}
        numbers = [KEY_TEXT[kind] for kind in ("number", "integer")]
        if all(b in numbers for b in usable):  # int | float, int | None: one number type, the widest (review 131 #7)
            return dict(next(n for n in numbers if n in usable))
        parts = [b["pattern"] if "pattern" in b else "^(?:" + "|".join(re.escape(v) for v in b["enum"]) + ")$"
                 for b in usable]
        return {"pattern": "|".join(f"(?:{p})" for p in parts)}
    kind = keys.get("type")
    if kind is None or kind == "string" or (isinstance(kind, list) and "string" in kind):
        return None
    return KEY_TEXT.get(kind, UNKEYABLE) if isinstance(kind, str) else UNKEYABLE


@functools.cache
def number_text_patterns() -> dict[str, str]:
    """The ``pattern`` values toolwire writes for a number given as text, which state a *type*, not a constraint on
    the value, each with the pattern of the number's text as a type: the keys of a ``dict[int, X]`` or
    ``dict[float, X]`` (:data:`KEY_TEXT`, each its own) and the string branch of a ``Decimal``
    (``StrictJsonSchema.get_decimal_pattern``, generated here by the same code so they follow the installed
    pydantic: the signed pattern, and the one without a minus sign written under a lower bound of 0, whose type
    is the signed one, since a bound is a constraint on the value; each also with ``allow_inf_nan``, which adds
    ``inf`` and ``nan``: review 131 #2).

    The local model's grammar holds a string of one of these patterns to its number's text, as it holds an ``int``
    to digits, and leaves every other ``pattern`` to validation (review 128 #7, :mod:`toolwire.models.grammar`).

    Returns:
        A dict from each such pattern to the pattern of its type (regular expressions in ECMA-262 syntax, as JSON
        Schema writes them).
    """
    from decimal import Decimal
    from typing import Annotated

    from pydantic import Field, TypeAdapter

    from toolwire._schema_strict import StrictJsonSchema

    found = {KEY_TEXT[kind]["pattern"]: KEY_TEXT[kind]["pattern"] for kind in ("integer", "number")}
    for extra in ({}, {"allow_inf_nan": True}):
        signed = ""
        for kind in (Annotated[Decimal, Field(**extra)], Annotated[Decimal, Field(ge=0, **extra)]):
            for branch in TypeAdapter(kind).json_schema(schema_generator=StrictJsonSchema).get("anyOf", ()):
                if isinstance(branch, dict) and isinstance(branch.get("pattern"), str):
                    signed = signed or branch["pattern"]
                    found[branch["pattern"]] = signed
    return found


def is_number_text(schema: Any, siblings: Any) -> bool:
    """Whether ``schema`` is a number written as text beside the number itself, the shape of a ``Decimal``: a
    ``"string"`` branch (no ``enum``/``const``) whose ``pattern`` is one of :func:`number_text_patterns`, among the
    ``anyOf``/``oneOf`` branches ``siblings`` that also hold a ``"number"`` or ``"integer"`` branch. Such a pattern
    states the value's type (the local grammar holds it, and the prompt says nothing of it); the same pattern on a
    plain string is a user's constraint like any other (review 133 #3)."""
    if not isinstance(schema, dict) or schema.get("type") != "string" or "enum" in schema or "const" in schema:
        return False
    if schema.get("pattern") not in number_text_patterns():
        return False
    return isinstance(siblings, list) and any(
        isinstance(b, dict) and b.get("type") in ("number", "integer") for b in siblings)
