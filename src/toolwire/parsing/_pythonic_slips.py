"""Slips of a pythonic call that Python cannot read (review 148 #3).

A tool whose name Python cannot read written as it is (``[get-weather(city="x")]``) is read under its
Python-safe spelling (:func:`respell_tools`), and a parameter named after a Python keyword written as the schema
spells it (``get_flights(from="NYC")``) is read as that parameter (:func:`parse_repairing`); other slips (a
missing or doubled comma, ``city: "x"``) are reported with Python's own reason (:func:`syntax_error`), so that
the call becomes an invalid call saying what to fix instead of staying text.
"""

from __future__ import annotations

import ast
import functools
import keyword
import re
from collections.abc import Callable, Mapping

from toolwire.parsing._python_parse import escape_line_breaks, parse_expr
from toolwire.parsing._scan import python_span_end, skip_ws

__all__ = ["ARGUMENT_LIKE", "KEYWORD_MARK", "NOT_PYTHON", "call_start", "list_items", "list_start",
           "parse_repairing", "respell_tools", "syntax_error", "written_syntax_error"]

#: the error of a call Python cannot read, with ``{name}`` (its Python spelling) and ``{error}`` (Python's reason)
NOT_PYTHON = ('The call to {name} is not valid Python ({error}); send it again as {name}(param="value", other=1), '
               "each argument written name=value with a comma between them.")
# an argument written name=value or name: value, a sign that a bracketed list that fails to parse is a call list
ARGUMENT_LIKE = re.compile(r"""[(,]\s*[A-Za-z_]\w*\s*(?:=(?!=)|:\s*(?:["'\d\[{-]|True\b|False\b|None\b))""")
# a string literal, in any of Python's quotes
_STRING = (r"[rRbBuUfF]{0,2}(?:'''(?:[^\\]|\\[\s\S])*?'''|\"\"\"(?:[^\\]|\\[\s\S])*?\"\"\""
           r"|'(?:[^'\\\n]|\\[\s\S])*'|\"(?:[^\"\\\n]|\\[\s\S])*\")")
# a string literal (kept as it is), or a Python keyword written as a keyword argument's name (``from="NYC"``)
_KEYWORD_ARG = re.compile(
    r"(?P<string>" + _STRING + ")"
    r"|(?P<before>[(,]\s*)(?P<keyword>"
    + "|".join(k for k in keyword.kwlist if k not in ("True", "False", "None"))
    + r")(?=\s*=(?!=))"
)
#: put before such a keyword so that Python reads it; taken off the argument's name (and the call's text) after
KEYWORD_MARK = "__toolwire_keyword__"


def _substituted(pattern: re.Pattern[str], src: str, group: str,
                 replace: Callable[[re.Match[str]], str]) -> str | None:
    """``src`` with each match of ``pattern`` whose ``group`` matched replaced by ``replace(match)`` (the others, string
    literals, kept as they are); ``None`` when no match had ``group``."""
    found = False

    def sub(m: re.Match[str]) -> str:
        nonlocal found
        if m.group(group) is None:
            return m.group()
        found = True
        return replace(m)

    fixed = pattern.sub(sub, src)
    return fixed if found else None


def _keywords_repaired(src: str) -> str | None:
    """``src`` with :data:`KEYWORD_MARK` put before each Python keyword written as an argument's name
    (``from="NYC"``, as a schema may spell a parameter), outside string literals; ``None`` when it has none."""
    return _substituted(_KEYWORD_ARG, src, "keyword",
                        lambda m: f"{m.group('before')}{KEYWORD_MARK}{m.group('keyword')}")


def parse_repairing(src: str) -> tuple[ast.expr, str | None]:
    """``(the expression of src, the repaired text it was read from or None)``: a Python keyword written as a
    parameter's name (``from="NYC"``) is read with :data:`KEYWORD_MARK` before it (:func:`_keywords_repaired`), and a
    raw line break inside a double-quoted string as ``\\n`` (:func:`escape_line_breaks`, as a JSON string reads it:
    review 178 #2).

    Raises:
        SyntaxError, ValueError, MemoryError, RecursionError: as :func:`parse_expr`, for ``src`` as written (with its
            line breaks escaped when that is all that was repaired).
    """
    try:
        return parse_expr(src), None
    except SyntaxError as exc:
        error = exc
    escaped = escape_line_breaks(src)
    if escaped is not None:
        try:
            return parse_expr(escaped), escaped
        except SyntaxError as exc:
            error, src = exc, escaped  # (the slip left is the one to report)
    fixed = _keywords_repaired(src)
    if fixed is not None:
        try:
            return parse_expr(fixed), fixed
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            pass
    raise error


def syntax_error(src: str) -> str | None:
    """Python's reason for refusing ``src`` (``"invalid syntax. Perhaps you forgot a comma?"``), or ``None``
    when ``src`` parses (or fails for another reason, such as a number too long)."""
    try:
        parse_repairing(src)
    except SyntaxError as exc:
        return exc.msg or "invalid syntax"
    except (ValueError, MemoryError, RecursionError):
        return None
    return None


@functools.lru_cache(maxsize=64)
def _tool_names(names: frozenset[str]) -> re.Pattern[str]:
    """A string literal, or one of ``names`` written as a call's name (before its ``(``)."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?P<string>{_STRING})|(?<![\w.])(?P<tool>{alternatives})(?=\s*\()")


def respell_tools(src: str, spellings: Mapping[str, str]) -> str | None:
    """``src`` with each tool of ``spellings`` (``{"get-weather": "get_weather"}``: names Python cannot read as
    written, see :class:`~toolwire.parsing.pythonic.PythonNames`) written as a call's name in its spelling, outside
    string literals; ``None`` when ``src`` calls none of them."""
    if not spellings:
        return None
    return _substituted(_tool_names(frozenset(spellings)), src, "tool", lambda m: spellings[m.group("tool")])


_PYTHON_CALL = r"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*"  # a (dotted) name Python reads, as a call's


@functools.lru_cache(maxsize=64)
def call_start(names: frozenset[str]) -> re.Pattern[str]:
    """The start of a call (its name, as group 1, and its ``(``): one of ``names`` as written (``get-weather(``,
    tools whose names Python cannot read) or any name Python reads (``get_weather(``, ``brave_search.call(``)."""
    alternatives = "".join(re.escape(n) + "|" for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w.])({alternatives}{_PYTHON_CALL})\s*\(")


def written_syntax_error(src: str, spellings: Mapping[str, str]) -> str | None:
    """:func:`syntax_error` of ``src`` with the tools of ``spellings`` written in their Python spelling
    (:func:`respell_tools`): the slip of ``get-weather(city: "x")`` is the one of ``get_weather(city: "x")``."""
    respelled = respell_tools(src, spellings)
    return syntax_error(src if respelled is None else respelled)


@functools.lru_cache(maxsize=64)
def list_start(names: frozenset[str]) -> re.Pattern[str] | None:
    """The start of a call list whose first call names one of ``names`` as written (``[get-weather(``), or
    ``None`` for no names."""
    if not names:
        return None
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"\[\s*({alternatives})\s*\(")


@functools.lru_cache(maxsize=64)
def written_call_start(names: frozenset[str]) -> re.Pattern[str] | None:
    """The start of a call (its name, as group 1, and its ``(``) of one of ``names`` as written, outside a list
    (``get-weather(``: review 153 #5, a lone one stayed text), or ``None`` for no names."""
    if not names:
        return None
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w.-])({alternatives})\s*\(")


def list_items(text: str, start: int, end: int, call_start: re.Pattern[str]) -> list[tuple[int, int, str]] | None:
    """The calls of the bracketed list ``text[start:end]``: ``(start, end, name as written)`` of each
    ``name(...)`` item (``call_start`` matching its name and ``(``), when the list is nothing but such items
    separated by commas; else ``None``."""
    items = []
    pos = skip_ws(text, start + 1)
    while True:
        m = call_start.match(text, pos)
        if m is None:
            return None
        stop = python_span_end(text, m.end() - 1)
        if stop < 0 or stop >= end:
            return None
        items.append((pos, stop, re.sub(r"\s+", "", m.group(1))))
        pos = skip_ws(text, stop)
        if text.startswith(",", pos):
            pos = skip_ws(text, pos + 1)
        elif pos != end - 1:
            return None
        if pos == end - 1:
            return items
