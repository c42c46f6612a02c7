"""GBNF for the text of strings with a JSON Schema ``format``: ``date``, ``date-time``, ``time``, ``uuid``.

A tool parameter typed ``datetime.date`` has the schema ``{"type": "string", "format": "date"}`` (pydantic), and
its value must be written ``2025-05-01``: a local model left free writes ``"tomorrow"``, which validation then
refuses. :func:`format_rule` gives the rule of such a string's text, without its quotes, so the grammar of every
call format (:mod:`toolwire.models.grammar`) can quote it as its strings are quoted (JSON and Python literals both
use ``"..."``) or write it raw (``function_tag`` values).

The shapes (JSON Schema 2020-12 "Validation", section 7.3.1, takes ``date``, ``time`` and ``date-time`` from
RFC 3339 section 5.6 and ``uuid`` from RFC 4122); where RFC 3339 and pydantic differ, the grammar writes only what
pydantic accepts for ``date``, ``datetime``, ``time`` and ``UUID``, since pydantic validates a tool's arguments:

* ``date``: ``YYYY-MM-DD``: year ``0001``-``9999`` (pydantic refuses year 0), month ``01``-``12``, day ``01``-``31``
  (the day is not checked against its month: ``2025-02-31`` passes the grammar, not validation);
* ``time``: ``HH:MM[:SS[.f]]``: hour ``00``-``23``, minute and second ``00``-``59`` (no leap second ``60``, which
  pydantic refuses), one to six fraction digits (microseconds, Python's resolution). RFC 3339's ``full-time``
  needs an offset and seconds; pydantic's naive times, which it also generates ``"time"`` for, have neither;
* ``date-time``: ``YYYY-MM-DDTHH:MM[:SS[.f]][Z|+HH:MM|-HH:MM]``: a ``date`` and a ``time`` as above, an upper-case
  ``T``, an optional offset (hours ``00``-``23``); every RFC 3339 ``date-time`` with an upper-case ``T`` and ``Z``,
  a year past 0, no leap second and at most six fraction digits is among them, and so are pydantic's naive
  datetimes (no offset) and times without seconds;
* ``uuid``: ``8-4-4-4-12`` hexadecimal digits, either case (RFC 4122 section 3).

Other formats (``email``, ``uri``, ``ipv4``, ...) give ``None``: any string, as before. The grammar applies a format
to a ``"string"`` schema only (JSON Schema: a format constrains strings alone).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolwire.models.grammar import Rules

__all__ = ["STRING_FORMATS", "format_rule"]

STRING_FORMATS = ("date", "date-time", "time", "uuid")
"""The JSON Schema ``format`` values whose strings :func:`format_rule` constrains."""

_PIECES = {  # rule -> body, each after the rules it uses; "fmt-..." names stand for the names the rule set gives
    "fmt-year": '"0" ("0" ("0" [1-9] | [1-9] [0-9]) | [1-9] [0-9]{2}) | [1-9] [0-9]{3}',
    "fmt-month": '"0" [1-9] | "1" [0-2]',
    "fmt-day": '"0" [1-9] | [12] [0-9] | "3" [01]',
    "fmt-date": 'fmt-year "-" fmt-month "-" fmt-day',
    "fmt-hour": '[01] [0-9] | "2" [0-3]',
    "fmt-minute": '[0-5] [0-9]',  # and second
    "fmt-time": 'fmt-hour ":" fmt-minute (":" fmt-minute ("." [0-9]{1,6})?)?',
    "fmt-offset": '"Z" | [-+] fmt-hour ":" fmt-minute',
    "fmt-date-time": 'fmt-date "T" fmt-time fmt-offset?',
    "fmt-uuid": '[0-9a-fA-F]{8} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{12}',
}
_REFERENCE = re.compile(r"fmt-[a-z]+(?:-[a-z]+)*")


def format_rule(schema: object, rules: Rules) -> str | None:
    """The rule name of the text (without quotes) of a string of ``schema``'s ``format``, or ``None``.

    Args:
        schema: one string schema (a dict; the caller picked its ``"string"`` type). ``enum`` and ``const`` come
            first (the caller writes their values), then ``pattern``: a schema with a ``pattern`` gives ``None``,
            since the grammar does not follow patterns and a format rule could contradict one.
        rules: the rule set to add the format's rules to (each once, named ``fmt-date`` and so on, or with a
            suffix where a rule of that name already stands).

    Returns:
        The rule name (``fmt-date``, ``fmt-date-time``, ``fmt-time``, ``fmt-uuid``), or ``None`` for a schema
        without one of :data:`STRING_FORMATS` (any string).
    """
    if not isinstance(schema, dict) or "pattern" in schema or "enum" in schema or "const" in schema:
        return None
    fmt = schema.get("format")
    if not isinstance(fmt, str) or fmt not in STRING_FORMATS:
        return None
    return _add(f"fmt-{fmt}", rules)


def _add(piece: str, rules: Rules) -> str:
    """Add ``piece`` and the pieces it uses to ``rules``; return the name it got (a body already there keeps its
    name, so a format used twice adds nothing)."""
    body = _REFERENCE.sub(lambda m: _add(m.group(), rules), _PIECES[piece])
    return rules.add(piece, body)
