"""Slips of a pythonic call that Python cannot read (review 148 #3).

A parameter named after a Python keyword written as the schema spells it (``get_flights(from="NYC")``) is read
as that parameter (:func:`parse_repairing`); other slips (a missing or doubled comma, ``city: "x"``) are reported
with Python's own reason (:func:`syntax_error`), so that the call becomes an invalid call saying what to fix
instead of staying text.
"""

from __future__ import annotations

import ast
import keyword
import re

from toolwire.parsing._scan import parse_expr

__all__ = ["ARGUMENT_LIKE", "KEYWORD_MARK", "NOT_PYTHON", "parse_repairing", "syntax_error"]

#: the error of a call Python cannot read, with ``{name}`` (as written) and ``{error}`` (Python's reason)
NOT_PYTHON = ('The call to {name} is not valid Python ({error}); send it again as {name}(param="value", other=1), '
               "each argument written name=value with a comma between them.")
# an argument written name=value or name: value, a sign that a bracketed list that fails to parse is a call list
ARGUMENT_LIKE = re.compile(r"""[(,]\s*[A-Za-z_]\w*\s*(?:=(?!=)|:\s*(?:["'\d\[{-]|True\b|False\b|None\b))""")
# a string literal (kept as it is), or a Python keyword written as a keyword argument's name (``from="NYC"``)
_KEYWORD_ARG = re.compile(
    r"(?P<string>[rRbBuUfF]{0,2}(?:'''(?:[^\\]|\\[\s\S])*?'''|\"\"\"(?:[^\\]|\\[\s\S])*?\"\"\""
    r"|'(?:[^'\\\n]|\\[\s\S])*'|\"(?:[^\"\\\n]|\\[\s\S])*\"))"
    r"|(?P<before>[(,]\s*)(?P<keyword>"
    + "|".join(k for k in keyword.kwlist if k not in ("True", "False", "None"))
    + r")(?=\s*=(?!=))"
)
#: put before such a keyword so that Python reads it; taken off the argument's name (and the call's text) after
KEYWORD_MARK = "__toolwire_keyword__"


def _keywords_repaired(src: str) -> str | None:
    """``src`` with :data:`KEYWORD_MARK` put before each Python keyword written as an argument's name
    (``from="NYC"``, as a schema may spell a parameter), outside string literals; ``None`` when it has none."""
    found = False

    def mark(m: re.Match[str]) -> str:
        nonlocal found
        if m.group("keyword") is None:
            return m.group()
        found = True
        return f"{m.group('before')}{KEYWORD_MARK}{m.group('keyword')}"

    fixed = _KEYWORD_ARG.sub(mark, src)
    return fixed if found else None


def parse_repairing(src: str) -> tuple[ast.expr, str | None]:
    """``(the expression of src, the repaired text it was read from or None)``: a Python keyword written as a
    parameter's name (``from="NYC"``) is read with :data:`KEYWORD_MARK` before it (:func:`_keywords_repaired`).

    Raises:
        SyntaxError, ValueError, MemoryError, RecursionError: as :func:`parse_expr`, for ``src`` as written.
    """
    try:
        return parse_expr(src), None
    except SyntaxError as exc:
        error = exc
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
