"""GBNF for the text of strings with a JSON Schema ``format`` the grammar holds: ``uuid`` only.

A tool parameter typed ``uuid.UUID`` has the schema ``{"type": "string", "format": "uuid"}`` (pydantic), and
:func:`format_rule` gives the rule of such a string's text, without its quotes, so the grammar of every call format
(:mod:`toolwire.models.grammar`) can quote it as its strings are quoted (JSON and Python literals both use
``"..."``) or write it raw (``function_tag`` values). The shape (JSON Schema 2020-12 "Validation", section 7.3.1,
takes ``uuid`` from RFC 4122 section 3): ``8-4-4-4-12`` hexadecimal digits, either case. A UUID the model writes
in pydantic's other form, 32 digits without hyphens, comes out as the same digits with them; a text that is no UUID
at all (``"ORD-1001"``) would still be bent into one (left as it was by review 126 #2, which was about dates).

``date``, ``date-time`` and ``time`` (a ``datetime.date``, ``datetime`` or ``time`` parameter) are any string
(review 126 #2). Their ISO forms were held once (review 67, so that ``"tomorrow"`` could not be written), and that
bent the value a model meant into a different valid one that no error reported: ``"15 May 2026"`` had to start with
four digits and became ``1520-05-01``; pydantic's own ``"2025-05-01 10:00"`` (a space, not ``T``) had to close after
the date and became midnight; a time's ``Z`` was refused, so ``10:00:00Z`` lost its offset. No rule short of any
text avoids that (any prefix may begin a text the model means, which only validation can judge), so the string is
free and pydantic's validation refuses what is not a date (``Input should be a valid date or datetime``) with an
error the model sees and can correct (``ToolCallParseError`` for structured output). The ISO form is still what the
prompt's example calls show (:data:`STRING_FORMATS`, :mod:`toolwire.models._tool_text`).

Other formats (``email``, ``uri``, ``ipv4``, ...) give ``None``: any string. The grammar applies a format to a
``"string"`` schema only (JSON Schema: a format constrains strings alone).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolwire.models.grammar import Rules

__all__ = ["GRAMMAR_FORMATS", "STRING_FORMATS", "format_rule"]

STRING_FORMATS = ("date", "date-time", "time", "uuid")
"""The JSON Schema ``format`` values whose written form toolwire knows: the prompt's example calls write such a
string in it (``"2025-01-01"``); of them the grammar holds :data:`GRAMMAR_FORMATS` only."""

GRAMMAR_FORMATS = ("uuid",)
"""The JSON Schema ``format`` values whose strings :func:`format_rule` constrains."""

_PIECES = {  # rule -> body, each after the rules it uses; "fmt-..." names stand for the names the rule set gives
    "fmt-uuid": '[0-9a-fA-F]{8} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{12}',
}
_REFERENCE = re.compile(r"fmt-[a-z]+(?:-[a-z]+)*")


def format_rule(schema: object, rules: Rules) -> str | None:
    """The rule name of the text (without quotes) of a string of ``schema``'s ``format``, or ``None``.

    Args:
        schema: one string schema (a dict; the caller picked its ``"string"`` type). ``enum`` and ``const`` come
            first (the caller writes their values), then ``pattern``: a schema with a ``pattern`` gives ``None``,
            since the grammar does not follow patterns and a format rule could contradict one.
        rules: the rule set to add the format's rules to (each once, named ``fmt-uuid``, or with a
            suffix where a rule of that name already stands).

    Returns:
        The rule name (``fmt-uuid``), or ``None`` for a schema without one of :data:`GRAMMAR_FORMATS` (any
        string).
    """
    if not isinstance(schema, dict) or "pattern" in schema or "enum" in schema or "const" in schema:
        return None
    fmt = schema.get("format")
    if not isinstance(fmt, str) or fmt not in GRAMMAR_FORMATS:
        return None
    return _add(f"fmt-{fmt}", rules)


def _add(piece: str, rules: Rules) -> str:
    """Add ``piece`` and the pieces it uses to ``rules``; return the name it got (a body already there keeps its
    name, so a format used twice adds nothing)."""
    body = _REFERENCE.sub(lambda m: _add(m.group(), rules), _PIECES[piece])
    return rules.add(piece, body)
