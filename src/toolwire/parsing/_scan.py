"""Low-level text scanning shared by the dialect parsers.

Everything here is iterative (no recursion on the input's nesting) and never evaluates code: JSON is
read with :meth:`json.JSONDecoder.raw_decode`, Python literals with :func:`ast.literal_eval`.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from typing import Any

_DECODER = json.JSONDecoder(strict=False)
_WS_RE = re.compile(r"\s*")
# characters that matter when balancing Python brackets
_PY_SPECIAL = re.compile(r"[\[\](){}'\"\n#]")
_CLOSERS = {"(": ")", "[": "]", "{": "}"}

#: ``python_span_end`` results that are not an end index
EOF = -1
BAD = -2
DEEP = -3
MAX_PY_DEPTH = 64  # well below CPython's 200-level parser limit


class DecodeFailure(Exception):
    """A value could not be decoded at a position.

    Attributes:
        kind: ``"truncated"`` (the text ends inside the value), ``"deep"`` (nested too deeply to read) or
            ``"invalid"``.
        message: one sentence saying what was wrong.
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def skip_ws(text: str, pos: int) -> int:
    """Return the first index at or after ``pos`` that is not whitespace (``len(text)`` at the end)."""
    return _WS_RE.match(text, pos).end()  # type: ignore[union-attr]


def to_jsonable(value: Any, _depth: int = 0) -> Any:
    """Return ``value`` as JSON-ready data (tuples become lists).

    Raises:
        ValueError: ``value`` holds something JSON cannot carry (a set, bytes, complex, a non-string key).
    """
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if _depth > MAX_PY_DEPTH:
        raise ValueError("nested too deeply")
    if isinstance(value, list | tuple):
        return [to_jsonable(v, _depth + 1) for v in value]
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"a key that is not a string ({key!r})")
            out[key] = to_jsonable(item, _depth + 1)
        return out
    raise ValueError(f"a {type(value).__name__} value")


def python_span_end(text: str, start: int, max_depth: int = MAX_PY_DEPTH) -> int:
    """Find the end of the bracketed Python expression whose opening bracket is at ``start``.

    String literals (single, double and triple quoted, with backslash escapes) are skipped, so
    brackets inside them do not count.

    Returns:
        The index just past the matching closing bracket; :data:`EOF` when the text ends first;
        :data:`BAD` when brackets do not match or a one-line string runs into a newline; :data:`DEEP`
        when the nesting exceeds ``max_depth``.
    """
    n = len(text)
    stack: list[str] = []
    i = start
    while True:
        m = _PY_SPECIAL.search(text, i)
        if m is None:
            return EOF
        i = m.start()
        ch = text[i]
        if ch in _CLOSERS:
            if len(stack) >= max_depth:
                return DEEP
            stack.append(_CLOSERS[ch])
            i += 1
        elif ch in ")]}":
            if not stack or stack.pop() != ch:
                return BAD
            i += 1
            if not stack:
                return i
        elif ch in "'\"":
            triple = text.startswith(ch * 3, i)
            i = _string_end(text, i + (3 if triple else 1), ch, triple)
            if i < 0:
                return i
        elif ch == "#":  # a comment runs to the end of the line
            nl = text.find("\n", i)
            if nl < 0:
                return EOF
            i = nl + 1
        else:  # newline outside a string
            i += 1
        if i >= n:
            return EOF


def _string_end(text: str, i: int, quote: str, triple: bool) -> int:
    """Index just past the string literal whose body starts at ``i`` (EOF / BAD as above)."""
    n = len(text)
    closing = quote * 3 if triple else quote
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
        elif text.startswith(closing, i):
            return i + len(closing)
        elif ch == "\n" and not triple:
            return BAD
        else:
            i += 1
    return EOF


def parse_expr(source: str) -> ast.expr:
    """Parse one Python expression (never evaluated) and return its AST node.

    Invalid-escape warnings (``"\\d"``) are silenced so model text cannot spam stderr.

    Raises:
        SyntaxError, ValueError, MemoryError, RecursionError: ``source`` is not one expression.
    """
    if "\\" not in source:
        return ast.parse(source, mode="eval").body
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source, mode="eval").body


def literal_at(text: str, pos: int) -> tuple[Any, int] | None:
    """Read the Python literal (dict or list) whose opening bracket is at ``pos``, safely.

    Returns:
        ``(value, end)`` with JSON-ready ``value``, or ``None`` when no literal can be read there.

    Raises:
        DecodeFailure: (``kind="deep"``) the brackets nest deeper than :data:`MAX_PY_DEPTH`.
    """
    end = python_span_end(text, pos)
    if end == DEEP:
        raise DecodeFailure("deep", "The text is nested too deeply to read.")
    if end < 0:
        return None
    source = text[pos:end]
    try:
        value = to_jsonable(ast.literal_eval(parse_expr(source)))
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None
    return value, end


def is_truncation(text: str, exc: json.JSONDecodeError) -> bool:
    """Whether a JSON decoding error means the text simply ended too early (a cut-off value)."""
    return exc.msg.startswith("Unterminated string") or exc.pos >= len(text.rstrip())


def decode_value_at(text: str, pos: int) -> tuple[Any, int]:
    """Decode the JSON value (or, failing that, the Python-literal dict/list) starting at ``pos``.

    Returns:
        ``(value, end)`` where ``end`` is the index just past the value.

    Raises:
        DecodeFailure: nothing could be decoded; ``kind`` tells whether the text was cut off.
    """
    try:
        return _DECODER.raw_decode(text, pos)
    except RecursionError:
        raise DecodeFailure("deep", "The JSON is nested too deeply to read.") from None
    except json.JSONDecodeError as exc:
        error = exc
    if text[pos] not in "{[":
        raise DecodeFailure("invalid", f"The JSON is not valid ({error.msg}).")
    found = literal_at(text, pos)
    if found is not None:
        return found
    pythonic = text.startswith("'", skip_ws(text, pos + 1))
    if is_truncation(text, error) or (pythonic and python_span_end(text, pos) == EOF):
        raise DecodeFailure("truncated", "The call ends before it is closed (it looks cut off).")
    where = f"{error.msg} at character {error.pos - pos}"
    raise DecodeFailure("invalid", f"The call is neither valid JSON ({where}) nor a Python literal.")
