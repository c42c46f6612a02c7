"""What a Gemini function schema says in a node's description of the keywords Gemini's ``Schema`` cannot carry.

Private to :mod:`toolwire.models.lowering._gemini_schema` (see its module docstring for the rules): the node's own
text, the values of an ``enum`` Gemini cannot send, the hint of a value sent as JSON text, and the notes of a node's
dropped keywords (bounds, a ``format``, a default, a map's key rules, and every other keyword as the strict lowerings
say it), one shared code for every kind of node, a value of any type included (review 271 #1).
"""

from __future__ import annotations

import json
from typing import Any

from toolwire.models.lowering._common import constraint_notes, default_notes
from toolwire.models.lowering._openai_strict import dropped_notes

__all__ = ["ANY_HINT", "KEEP", "SILENT", "joined", "key_notes", "node_notes", "own_text", "value_schema_text",
           "values_hint"]

KEEP = frozenset({"type", "description", "enum", "format", "items", "prefixItems", "properties", "required", "anyOf",
                  "oneOf", "minItems", "maxItems", "nullable"})
"""The keywords a node keeps (in Gemini's spelling)."""
SILENT = frozenset({"title", "$schema", "$defs", "definitions", "$ref"})
"""The keywords that are structure, not constraints: dropped unsaid."""
# said otherwise (values_hint, constraint_notes, default_notes, key_notes...) or saying nothing of the value; the rest
# of a node's dropped keywords is said by dropped_notes, as the strict lowerings say it (review 264 #1)
_SAID = frozenset({"allOf", "const", "default", "additionalProperties", "additionalItems", "discriminator", "minimum",
                   "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
                   "pattern", "$id", "$comment", "$anchor", "writeOnly", "readOnly"})
_MAP_SAID = frozenset({"propertyNames", "minProperties", "maxProperties"})  # (key_notes, for a map sent as JSON text)
ANY_HINT = ("Any JSON value written as JSON text, e.g. '42', '\"text\"', '[1, 2]' or '{\"key\": 1}'; "
            "it is decoded before the tool runs")
"""What the description of a value of any type (sent as JSON text) says of its form."""
_MAX_VALUE_SCHEMA = 1500  # characters of a map's value schema written into a description


def own_text(node: dict[str, Any]) -> str | None:
    """A node's description, else its ``title`` (one the user wrote, review 264 #2); ``None`` for neither."""
    for key in ("description", "title"):
        if isinstance(node.get(key), str) and node[key].strip():
            return node[key]  # type: ignore[no-any-return]
    return None


def values_hint(values: list[Any]) -> str:
    """What the description says of the values of an ``enum``/``const`` Gemini cannot send as its ``enum``."""
    return "One of: " + ", ".join(json.dumps(v, ensure_ascii=False, default=str) for v in values) + "."


def joined(first: str, then: str) -> str:
    """``first`` and ``then`` as one text of sentences: a full stop ends ``first`` when it has no closing mark (the
    :data:`ANY_HINT`)."""
    stop = "" if first.rstrip().endswith((".", "!", "?", ":")) else "."
    return f"{first.rstrip()}{stop} {then}"


def node_notes(node: dict[str, Any], *, said_format: bool, order: str | None = None, is_map: bool = False
               ) -> list[str]:
    """Every note of ``node``'s keywords Gemini's ``Schema`` drops, in order: its bounds
    (:func:`~toolwire.models.lowering._common.constraint_notes`), its ``format`` when ``said_format`` (one Gemini does
    not take: ``Format: date.``), its default (:func:`~toolwire.models.lowering._common.default_notes`), ``order`` (a
    tuple's :func:`~toolwire.models.lowering._tuples.position_note`) and the rest (:func:`_dropped_notes`);
    ``is_map``: a map sent as JSON text, whose key rules :func:`key_notes` says. Returns the sentences, ``[]`` for
    none."""
    notes = constraint_notes(node)
    fmt = node.get("format")
    if said_format and isinstance(fmt, str):
        notes.append(f"Format: {fmt}.")
    notes += default_notes(node)
    notes += [order] if order else []
    return notes + _dropped_notes(node, is_map)


def _dropped_notes(node: dict[str, Any], is_map: bool) -> list[str]:
    """What the description says of ``node``'s keywords Gemini's ``Schema`` does not take and nothing else says
    (``uniqueItems``, ``minProperties`` of an object with properties, ``examples``, ``deprecated``, ``not``,
    ``contains``, ``dependentRequired``...), as the strict lowerings say them
    (:func:`~toolwire.models.lowering._openai_strict.dropped_notes`, which leaves annotations out: review 264 #1,
    review 271 #6); ``is_map``: a map sent as JSON text. Returns the sentences, ``[]`` for none."""
    said = _SAID | _MAP_SAID if is_map else _SAID
    rest = {k: v for k, v in node.items() if k not in KEEP and k not in SILENT and k not in said}
    return dropped_notes(rest) if rest else []


def key_notes(node: dict[str, Any]) -> list[str]:
    """What the description of a map sent as JSON text says of its keys, which Gemini's ``Schema`` cannot carry
    (review 94): the values of ``propertyNames``' ``enum``/``const`` (``Keys: one of "small", "large".``), its
    ``pattern`` (``Keys must match the regular expression `^(?:0|-?[1-9][0-9]*)$`.``) or ``format``, and the key count
    (``minProperties``/``maxProperties``: ``At least 1 key and at most 3 keys.``). Returns the sentences, ``[]`` for
    none."""
    notes: list[str] = []
    names = node.get("propertyNames")
    if isinstance(names, dict):
        options = [names["const"]] if "const" in names else names.get("enum")
        if isinstance(options, list) and options:
            notes.append("Keys: one of " + ", ".join(json.dumps(str(o) if isinstance(o, int) and not
                                                                isinstance(o, bool) else o, ensure_ascii=False,
                                                                default=str) for o in options) + ".")
        elif isinstance(names.get("pattern"), str):
            pattern = names["pattern"]
            quoted = f"`` {pattern} ``" if "`" in pattern else f"`{pattern}`"
            notes.append(f"Keys must match the regular expression {quoted}.")
        elif isinstance(names.get("format"), str):
            notes.append(f"Keys of format {names['format']}.")
    low, high = node.get("minProperties"), node.get("maxProperties")
    counts = [f"{word} {n} key{'' if n == 1 else 's'}" for word, n in (("at least", low), ("at most", high))
              if isinstance(n, int) and not isinstance(n, bool)]
    if counts:
        notes.append(" and ".join(counts).capitalize() + ".")
    return notes


def value_schema_text(values: Any) -> str | None:
    """The compact JSON text of a map's value schema (``additionalProperties``) when a type name does not say it
    all (an object with properties, an array, an enum...); None for a bare scalar type, a schema with a ``$ref``
    (meaningless out of place) or one over :data:`_MAX_VALUE_SCHEMA` characters."""
    if not isinstance(values, dict) or set(values) <= {"type", "description", "title"}:
        return None
    text = json.dumps(values, ensure_ascii=False, separators=(",", ":"), default=str)
    return None if '"$ref"' in text or len(text) > _MAX_VALUE_SCHEMA else text
