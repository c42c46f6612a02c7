"""Decoding one JSON value at a position of model text, with the repairs the dialect parsers share: JSON with a
trailing comma read the JSON way, text in Python syntax read as a Python literal (never evaluated:
:func:`ast.literal_eval`), and a value cut off told from one that is wrong (:func:`decode_value_at`).

Split from :mod:`toolwire.parsing._scan` (which re-exports these names) to keep that module under 600 lines.
"""

from __future__ import annotations

import ast
import json
from typing import Any

from toolwire.parsing._python_parse import escape_line_breaks, parse_expr
from toolwire.parsing._repeated_keys import RepeatedKey, refuse_repeated_literal_keys
from toolwire.parsing._scan import (
    _DECODER,
    _TRAILING_COMMA,
    DEEP,
    EOF,
    DecodeFailure,
    NestedTooDeep,
    looks_pythonic,
    python_span_end,
    skip_ws,
    to_jsonable,
)

__all__ = ["NOT_JSON_ADVICE", "TOO_MANY_DIGITS", "decode_value_at", "is_truncation"]

TOO_MANY_DIGITS = ("A number in the call has too many digits to read; send it with fewer digits, or as a string if "
                   "the tool takes one.")
"""The error of a Python-literal call holding an int of more than ``sys.get_int_max_str_digits()`` digits, which
Python refuses to read or write (in any base: :func:`~toolwire.parsing._python_parse.parse_source`); the pythonic
reader says the same, naming the call (review 253 #1)."""


NOT_JSON_ADVICE = "write lists for sets, and strings or numbers for dict keys"
"""The advice of an error naming a value of a Python literal that JSON cannot carry (a set, a tuple key, two keys of
one text), here and in Python-dict argument text (:func:`toolwire.parsing.arguments.normalize_arguments`)."""


class _TooLong(Exception):
    """The Python literal holds an int too long to read or write as text (:data:`TOO_MANY_DIGITS`)."""


class _NotJSON(Exception):
    """The Python literal holds a value JSON cannot carry (a set, a key that is not a string nor a number, True, False
    or None); ``message`` is the sentence saying which."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.message = f"The call holds {what}, which JSON cannot carry; {NOT_JSON_ADVICE}."


def _literal(source: str) -> Any:
    """The JSON-ready value of the Python literal ``source``, or ``None`` when it is not one (a raw line break in
    a double-quoted string is read as ``\\n``, as in JSON: :func:`escape_line_breaks`), nor when it holds an int
    too long to write as text or a value JSON cannot carry (a set). A dict key that is an int, finite float, bool or
    None becomes its JSON text (``{3: 'a'}`` -> ``{"3": "a"}``), and a tuple a list, as the pythonic call format reads
    them (:func:`~toolwire.parsing._scan.to_jsonable` with ``scalar_keys``).

    Raises:
        RepeatedKey: a dict of the literal gives one key twice with different values (review 215 #1).
    """
    try:
        return _python_literal(source)
    except (_TooLong, _NotJSON):
        return None


def _python_literal(source: str) -> Any:
    """:func:`_literal`, raising :class:`_TooLong` for an int too long to write as text and :class:`_NotJSON` for a
    value JSON cannot carry (review 262 #2: such a call was refused as "neither valid JSON nor a Python literal")."""
    for attempt in (source, escape_line_breaks(source)):
        if attempt is None:
            break
        try:
            node = parse_expr(attempt)
        except (SyntaxError, ValueError) as exc:  # (Python's own sentence for an int over the limit: review 253 #1)
            if "Exceeds the limit" in str(exc):
                raise _TooLong from None
            continue
        except (MemoryError, RecursionError):
            continue
        refuse_repeated_literal_keys(node)
        try:
            value = ast.literal_eval(node)
        except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
            continue
        try:  # int, float, bool and None dict keys as their JSON text, as the pythonic reader takes them (review 96)
            return to_jsonable(value, scalar_keys=True)
        except NestedTooDeep:
            continue
        except ValueError as exc:  # a set, a tuple key, two keys of one text: named, not "not a Python literal"
            raise _NotJSON(str(exc)) from None
        except RecursionError:
            continue
    return None


def _repaired_json(source: str) -> Any:
    """The value of JSON ``source`` once its trailing commas are removed, or ``None`` when that fails."""
    fixed = _TRAILING_COMMA.sub(lambda m: m.group() if m.group()[0] == '"' else "", source)
    if fixed == source:
        return None
    try:
        return _DECODER.decode(fixed)
    except (json.JSONDecodeError, RecursionError):
        return None


def is_truncation(text: str, exc: json.JSONDecodeError) -> bool:
    """Whether a JSON decoding error means the text simply ended too early (a cut-off value)."""
    return exc.msg.startswith("Unterminated string") or exc.pos >= len(text.rstrip())


def decode_value_at(text: str, pos: int) -> tuple[Any, int]:
    """Decode the JSON value starting at ``pos``; failing that, a repaired one or a Python-literal dict/list.

    A bracketed value that is not valid JSON is read again: JSON-looking text with its trailing commas
    removed (JSON semantics kept), text in Python syntax (see :func:`looks_pythonic`) as a Python literal.

    Returns:
        ``(value, end)`` where ``end`` is the index just past the value.

    Raises:
        DecodeFailure: nothing could be decoded; ``kind`` tells whether the text was cut off. JSON whose object
            gives a key twice with different values is ``"invalid"`` (its message names the key), not repaired; so
            is a Python literal holding an int too long to write as text (:data:`TOO_MANY_DIGITS`), or a value JSON
            cannot carry (a set; the message names it).
    """
    try:
        return _DECODER.raw_decode(text, pos)
    except RecursionError:
        raise DecodeFailure("deep", "The JSON is nested too deeply to read.") from None
    except RepeatedKey as exc:  # valid JSON but for that: an invalid call saying which key (not repaired)
        raise DecodeFailure("invalid", exc.msg) from None
    except json.JSONDecodeError as exc:
        error = exc
    if text[pos] not in "{[":
        raise DecodeFailure("invalid", f"The JSON is not valid ({error.msg}).")
    end = python_span_end(text, pos)
    if end == DEEP:
        raise DecodeFailure("deep", "The text is nested too deeply to read.")
    if end > 0:
        source = text[pos:end]
        # JSON with a slip (a trailing comma) is repaired the JSON way (true/null, "\/", "\ud83d\ude00");
        # only text written in Python syntax (single quotes, True/None) is read as a Python literal
        try:
            value = _python_literal(source) if looks_pythonic(source) else _repaired_json(source)
        except RepeatedKey as exc:  # a Python dict giving a key twice: refused as JSON is (review 215 #1)
            raise DecodeFailure("invalid", exc.msg) from None
        except _TooLong:  # as the pythonic reader says it (review 253 #1)
            raise DecodeFailure("invalid", TOO_MANY_DIGITS) from None
        except _NotJSON as exc:  # a set: named, as the pythonic reader names it (review 262 #2)
            raise DecodeFailure("invalid", exc.message) from None
        if value is not None:
            return value, end
    pythonic = text.startswith("'", skip_ws(text, pos + 1))
    if is_truncation(text, error) or (pythonic and end == EOF):
        raise DecodeFailure("truncated", "The call ends before it is closed (it looks cut off).")
    where = f"{error.msg} at character {error.pos - pos}"
    raise DecodeFailure("invalid", f"The call is neither valid JSON ({where}) nor a Python literal.")
