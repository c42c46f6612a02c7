"""Python's own parser run on model text: :func:`parse_source`, safe from several threads and silent.

Model text holding Python literals (a pythonic call list, a Python-dict argument) is read with :func:`ast.parse`
and never evaluated. Two things of the parser need care in a library:

* its warnings about the text (``"\\d"``, an invalid escape; ``9x``): they are about model output, not code, so a
  warnings filter narrowed to a pseudo-file name (:data:`MODEL_TEXT`) ignores them. ``warnings.catch_warnings``
  would swap the process-wide filter list, which is not thread-safe before Python 3.14: two threads interleaving it
  left an "ignore everything" filter behind for good (review 125 #1). The narrow filter is kept first in the list,
  where a filter the program adds later (``simplefilter("error")``, pytest's ``filterwarnings = error``) would
  otherwise turn the warning into a ``SyntaxError`` and the text into a failed parse (review 127 #2);
* CPython 3.11's parser keeps a recursion count shared by all threads and raised ``SystemError`` when two parses
  overlapped (gh-106905; review 125 #2): parses take turns under a re-entrant lock (a warning hook that parses text
  itself does not deadlock: review 127 #3), and a ``SystemError`` from an overlap with a parse outside toolwire is
  tried once more.

An int literal written in hexadecimal, octal or binary (``0x...``) is read whatever its length, though Python cannot
write one of more than ``sys.get_int_max_str_digits()`` decimal digits (4300 by default) as text, so ``json.dumps``
could not send it on; model text holding one is refused as Python refuses such a number written in decimal
(review 253 #1: a call holding one stopped the run with a ProviderError).
"""

from __future__ import annotations

import ast
import json
import re
import sys
import threading
import warnings
from typing import cast

__all__ = ["MODEL_TEXT", "escape_line_breaks", "parse_expr", "parse_source"]

MODEL_TEXT = "<toolwire model text>"
"""The pseudo-file name model text is parsed under (its warnings are ignored)."""

_LOCK = threading.RLock()
_ast_parse = ast.parse  # (looked up here, so a test can watch toolwire's parses alone)


_RADIX_INT = re.compile(r"0[xXoObB]")


def _refuse_long_ints(tree: ast.AST, source: str) -> None:
    """Raise the ``ValueError`` Python raises for a decimal int literal too long to write as text
    (``"Exceeds the limit (4300 digits) for integer string conversion..."``) when ``tree`` holds one written in
    hexadecimal, octal or binary (see the module docstring). Only a long text with such a literal is walked."""
    limit = sys.get_int_max_str_digits()
    # a hex literal of over ``limit`` digits has at least limit * log16(10) > 0.83 * limit hex digits
    if not limit or len(source) < limit * 0.83 or _RADIX_INT.search(source) is None:
        return
    for node in ast.walk(tree):
        # (an int of at most 3 * limit bits is below 8**limit < 10**limit: it writes; str() is the exact test)
        if isinstance(node, ast.Constant) and type(node.value) is int and node.value.bit_length() > 3 * limit:
            str(node.value)


_JSON_STRING = json.JSONDecoder(strict=False)  # (a raw tab in a string, as toolwire's JSON reading takes it)
_JSON_ONLY = re.compile(r"\\/|[\ud800-\udfff]")  # what Python reads of JSON's \/ and of a \uXXXX surrogate pair


def _read_json_strings(tree: ast.AST, source: str) -> None:
    """Give each double-quoted string of ``tree`` that is a valid JSON string the value JSON reads in it, where
    Python reads another: JSON's ``\\/`` is ``/`` (Python keeps the backslash) and a ``\\uXXXX`` surrogate pair
    is one character (Python reads two lone surrogates). Models write JSON strings in Python-looking calls
    (``{"url": "https:\\/\\/x.org", "timeout": None}``); review 255 #2. Only a string whose Python value holds
    such a reading is looked at again."""
    if "\\" not in source:
        return
    lines: list[str] | None = None
    encoded: dict[int, bytes] = {}  # line number: that line in UTF-8 (the AST's columns count bytes)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and type(node.value) is str and _JSON_ONLY.search(node.value)):
            continue
        if node.end_lineno != node.lineno or node.end_col_offset is None:  # a JSON string is on one line
            continue
        if lines is None:  # (once: reading the source again for each string made long calls quadratic)
            lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        line = encoded.get(node.lineno)
        if line is None:
            line = encoded[node.lineno] = lines[node.lineno - 1].encode("utf-8", "surrogatepass")
        written = line[node.col_offset:node.end_col_offset].decode("utf-8", "surrogatepass")
        if not written.startswith('"') or written.startswith('"""'):
            continue
        try:
            value = _JSON_STRING.decode(written)
        except ValueError:  # not a JSON string (a Python escape such as \x41, two strings side by side)
            continue
        if type(value) is str:
            node.value = value


_PSEUDO_FILES = r"<toolwire [^<>]*>\Z"
"""One filter for all of toolwire's pseudo-files (model text, the calculator's): two filters taking turns at the
front cleared every module's record of warnings already shown, so a tool's once-only warning came at every step
(review 128 #6)."""


def _ignore_parser_warnings(filename: str) -> None:
    """Make sure the first warnings filter ignores the parser's warnings about ``filename`` (a pseudo-file
    ``<toolwire ...>``, or its own name), and only those (a filter added after it would come first: review 127 #2);
    re-added when a ``catch_warnings`` block (pytest's, for example) has dropped it."""
    pattern = _PSEUDO_FILES if re.fullmatch(_PSEUDO_FILES, filename) else re.escape(filename) + r"\Z"
    filters = warnings.filters
    if filters:
        action, _message, category, module, _lineno = filters[0]
        if action == "ignore" and category is Warning and module is not None and module.pattern == pattern:
            return
    warnings.filterwarnings("ignore", category=Warning, module=pattern)  # (moved first when already there)


def parse_source(source: str, filename: str = MODEL_TEXT, mode: str = "eval") -> ast.AST:
    """``ast.parse(source, filename, mode)`` (never evaluated), safe to call from several threads at once, with the
    parser's warnings about ``filename`` ignored (see the module docstring).

    Args:
        source: the text to parse.
        filename: the pseudo-file name (in a ``SyntaxError``; its warnings are ignored).
        mode: ``"eval"`` (one expression) or ``"exec"``.

    Returns:
        The AST (an :class:`ast.Expression` for ``"eval"``).

    Raises:
        SyntaxError, ValueError, MemoryError, RecursionError: ``source`` does not parse (``ValueError`` also when
            Python's parser failed twice with ``SystemError``, and for :data:`MODEL_TEXT` when it holds an int
            literal of more than ``sys.get_int_max_str_digits()`` digits in any base, as for one in decimal).
    """
    with _LOCK:
        _ignore_parser_warnings(filename)
        for _attempt in range(2):
            try:
                tree = _ast_parse(source, filename=filename, mode=mode)
            except SystemError:
                continue
            if filename == MODEL_TEXT:
                _refuse_long_ints(tree, source)
                _read_json_strings(tree, source)
            return tree
    raise ValueError("the text could not be parsed: Python's parser failed twice (another thread parsed at once)")


def parse_expr(source: str) -> ast.expr:
    """Parse one Python expression (never evaluated) and return its AST node (:func:`parse_source`).

    Raises:
        SyntaxError, ValueError, MemoryError, RecursionError: ``source`` is not one expression.
    """
    return cast(ast.Expression, parse_source(source)).body



# a string literal: triple-quoted ones as they are; a one-line double-quoted one may hold raw line breaks (as a JSON
# string may), a one-line single-quoted one may not (an apostrophe in prose opens no string past its line)
_STRING = re.compile(r"'''(?:[^\\]|\\[\s\S])*?'''" r'|"""(?:[^\\]|\\[\s\S])*?"""' r"|'(?:[^'\\\n]|\\[\s\S])*'"
                     r'|(?P<double>"(?:[^"\\]|\\[\s\S])*")')


def escape_line_breaks(source: str) -> str | None:
    """``source`` with each raw line break inside a one-line double-quoted string written as its escape (``\\n``,
    ``\\r``), so that Python reads it as the JSON reader reads such a string (review 178 #2: models write code and
    multi-line text so in a pythonic call); ``None`` when no such string holds one.

    Args:
        source: Python source read from model text (a call, a call list, a dict).
    """
    if "\n" not in source and "\r" not in source:
        return None
    found = False

    def escaped(m: re.Match[str]) -> str:
        nonlocal found
        string = m.group("double")
        if string is None or ("\n" not in string and "\r" not in string):
            return m.group()
        found = True
        return string.replace("\r", "\\r").replace("\n", "\\n")

    fixed = _STRING.sub(escaped, source)
    return fixed if found else None
