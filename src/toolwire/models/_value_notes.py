"""The sentences a local model's prompt adds beside a parameter for the constraints its grammar does not hold.

The grammar holds a call's shape and never a constraint on a value (reviews 126 #2 and 128 #7,
:mod:`toolwire.models.grammar`), so a value that breaks a bound, a pattern, a format or a count is refused only by
validation, after the call. Telling the model each constraint beside the parameter, in the ``pythonic`` prompt's
docstring (:mod:`toolwire.models._tool_text`; the ``json`` prompt shows the schema itself), lets it write a valid
value the first time (review 124 #6). The sentences are the ones hosted providers get in a description where their
schema drops a keyword (:func:`~toolwire.models.lowering._common.constraint_notes`), plus a list's or a dict's counts
and the written form of a ``date``, ``date-time``, ``time`` or ``uuid``, read at every level a value's type reaches
(review 131 #1): the one branch of an ``Optional``, a list's items, a tuple's positions, a dict's values and keys.
"""

from __future__ import annotations

from typing import Any

from toolwire._schema_keys import is_number_text, number_text_patterns
from toolwire.models.lowering._common import constraint_notes
from toolwire.models.lowering._openai_strict import dropped_notes

__all__ = ["FORMS", "rule_notes", "value_notes"]

FORMS = {"date": "YYYY-MM-DD", "date-time": "YYYY-MM-DDTHH:MM:SS (ISO 8601)", "time": "HH:MM:SS",
         "uuid": "as a UUID, xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx in hexadecimal digits"}
"""The written form of each JSON Schema ``format`` (2020-12 Validation section 7.3: RFC 3339 and RFC 4122) toolwire
names in a prompt; the prompt's example calls write a string of one in it (``"2025-01-01"``,
:mod:`toolwire.models._tool_text`). The grammar holds none of them (reviews 126 #2 and 128 #7); validation refuses a
string not in the form."""

_COUNTS = (("array", "minItems", "maxItems", "item", "items"),
           ("object", "minProperties", "maxProperties", "entry", "entries"))
_DEPTH = 3  # levels of items, positions, values and keys read below a parameter


def value_notes(schema: Any, depth: int = 0) -> list[str]:
    """The constraints of a value of ``schema`` as sentences, each ending in a full stop.

    Args:
        schema: a parameter's (or a key's) JSON Schema; anything but a dict has none.
        depth: the level below the parameter (the notes of items, positions, values and keys go 3 levels down).

    Returns:
        ``["Must be at least 1, at most 5."]``, ``["Holds at least 1 item, at most 3 items."]``,
        ``["Written YYYY-MM-DD."]``, ``["Each item: Must match the regular expression `^[0-9]{5}$`."]``,
        ``["Item 2: Written as a UUID, ..."]``, ``["Each value: ...", "Each key: ..."]``; ``[]`` for none. Of a union,
        the notes every branch besides null has (``Optional[date]``: the date's form, review 129 #3; a ``Decimal``:
        its number branch's bounds, since the pattern of its text branch is a type, not a constraint), and none
        when they differ (``int`` with bounds or ``str``: review 133 #4). Not said: levels below the third, and a
        ``Decimal``'s ``max_digits``/``decimal_places``, which its JSON Schema does not hold.
    """
    if not isinstance(schema, dict) or depth > _DEPTH:
        return []
    notes = constraint_notes(schema) + _count_note(schema) + _format_note(schema)
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list):
        others = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
        found = [value_notes(b, depth) for b in others if not is_number_text(b, others)]
        if found and all(n == found[0] for n in found):  # (a note one branch has and another lacks would mislead)
            notes += found[0]
        return notes
    positions = schema.get("prefixItems", schema.get("items"))
    if isinstance(positions, list):
        for number, sub in enumerate(positions, 1):
            if inner := value_notes(sub, depth + 1):
                notes.append(f"Item {number}: {' '.join(inner)}")
    elif inner := value_notes(schema.get("items"), depth + 1):
        each = " ".join(inner)
        notes.append(f"Each w{each[1:]}" if each.startswith("Written ") else f"Each item: {each}")
    values, keys = schema.get("additionalProperties"), schema.get("propertyNames")
    patterned = schema.get("patternProperties")
    if isinstance(patterned, dict) and len(patterned) == 1:  # (pydantic's dict[Annotated[str, pattern], X])
        ((key_pattern, values),) = patterned.items()
        keys = {"type": "string", "pattern": key_pattern}
    if inner := value_notes(values, depth + 1):
        notes.append(f"Each value: {' '.join(inner)}")
    if isinstance(keys, dict) and keys.get("pattern") in number_text_patterns():
        keys = None  # (a dict[int, X]'s keys: their digits are a type, which the grammar holds)
    if inner := value_notes(keys, depth + 1):
        notes.append(f"Each key: {' '.join(inner)}")
    return notes


_RULES = ("uniqueItems", "examples", "not")  # what the grammar does not hold and value_notes does not say


def rule_notes(schema: Any, depth: int = 0, *, own: bool = False) -> list[str]:
    """The ``uniqueItems``, ``examples`` and ``not`` of ``schema`` in the words hosted providers get
    (:func:`~toolwire.models.lowering._openai_strict.dropped_notes`, review 264 #1), at every level a value reaches
    (review 271 #2): each branch of a union besides null (its notes first, then the union's own, each said once), a
    list's items (``"Each item: Items must be unique."``), a tuple's positions (``"Item 2: ..."``) and a dict's
    values (``"Each value: ..."``), 3 levels down.

    Args:
        schema: a parameter's (or a key's, or a tool's whole) JSON Schema; anything but a dict has none.
        depth: the level below the parameter.
        own: only ``schema``'s own rules (a tool's root, whose union of argument sets the prompt folds).

    Returns:
        The sentences, each ending in a full stop; ``[]`` for none.
    """
    if not isinstance(schema, dict) or depth > _DEPTH:
        return []
    rules = {k: schema[k] for k in _RULES if k in schema}
    mine = dropped_notes(rules) if rules else []
    if own:
        return mine
    notes: list[str] = []
    branches = schema.get("anyOf") or schema.get("oneOf")
    for branch in branches if isinstance(branches, list) else ():
        notes += [n for n in rule_notes(branch, depth) if n not in notes]
    notes += [n for n in mine if n not in notes]
    positions = schema.get("prefixItems", schema.get("items"))
    if isinstance(positions, list):
        notes += [f"Item {i}: {' '.join(inner)}" for i, sub in enumerate(positions, 1)
                  if (inner := rule_notes(sub, depth + 1))]
    elif inner := rule_notes(schema.get("items"), depth + 1):
        notes.append(f"Each item: {' '.join(inner)}")
    if inner := rule_notes(schema.get("additionalProperties"), depth + 1):
        notes.append(f"Each value: {' '.join(inner)}")
    return notes


def _count_note(schema: dict[str, Any]) -> list[str]:
    """How many items a list (``minItems``/``maxItems``) or entries a dict (``minProperties``/``maxProperties``) of
    ``schema`` holds (review 128 #7): ``["Holds at least 1 item, at most 3 items."]``, ``["Holds exactly 2
    items."]``, ``["Holds no items."]``; ``[]`` for a tuple whose counts its positions say (``tuple[int, str]``:
    exactly 2), a schema without counts, or with the counts of another type than its own."""
    positions = schema.get("prefixItems", schema.get("items"))
    if isinstance(positions, list) and all(schema.get(k) in (None, len(positions)) for k in ("minItems", "maxItems")):
        return []
    kinds = schema.get("type")
    for kind, low_key, high_key, one, many in _COUNTS:
        if kinds is not None and kind != kinds and not (isinstance(kinds, list) and kind in kinds):
            continue  # (JSON Schema: a count applies to its own type only; BFCL's irrelevance_128 puts one on an int)
        low, high = (n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else None
                     for n in (schema.get(low_key), schema.get(high_key)))
        if high == 0:
            return [f"Holds no {many}."]
        if low is not None and low == high:
            return [f"Holds exactly {low} {one if low == 1 else many}."]
        parts = [f"{word} {n} {one if n == 1 else many}" for word, n in (("at least", low), ("at most", high))
                 if n is not None and n > 0]
        if parts:
            return [f"Holds {', '.join(parts)}."]
    return []


def _format_note(schema: dict[str, Any]) -> list[str]:
    """The form a ``date``/``date-time``/``time``/``uuid`` string of ``schema`` is written in (reviews 126 #2, 128
    #5 and #7), which the signature's ``str`` does not say: ``["Written YYYY-MM-DD."]``; ``[]`` for other
    schemas."""
    form = FORMS.get(schema["format"]) if isinstance(schema.get("format"), str) else None
    return [f"Written {form}."] if form else []
