"""Safe arithmetic for the ``calculate`` example tool, in place of ``eval``.

Model output reaches the calculator, so it must never run code and never hang. :func:`evaluate` parses the
text with :func:`ast.parse` and walks the tree itself; only numbers, the operators ``+ - * / // % **``,
unary ``-``/``+`` and parentheses are accepted. Anything else (names, calls, attributes, subscripts,
strings, booleans, comparisons, lambdas, comprehensions, f-strings, ...) raises :class:`CalculationError`
with one sentence that tells the model what to write instead.

Spellings accepted before parsing (each is a typographic or calculator form of an allowed operator):

=========  ===========  ==========================================================================
written    read as      why
=========  ===========  ==========================================================================
``×``      ``*``        multiplication sign
``÷``      ``/``        division sign
``−``      ``-``        Unicode minus sign (U+2212), which typeset text and some models produce
``^``      ``**``       power, as on a calculator; ``^`` is never bitwise XOR here
=========  ===========  ==========================================================================

Nothing else is guessed: ``3 x 4`` is refused (``x`` is not an operator) and ``1,000`` is refused
(a thousands separator would be a guess). Python number literals are accepted as Python reads them,
so ``1_000``, ``0x10`` and ``1e-3`` work.

Bounds, so that every call answers or raises within milliseconds whatever the input:

* the text may be at most :data:`MAX_LENGTH` characters (checked before anything else);
* brackets may nest at most :data:`MAX_DEPTH` levels (checked on the text, before :func:`ast.parse`,
  which can itself fail on deep nesting); ``RecursionError``, ``MemoryError``, ``SyntaxError`` and
  ``ValueError`` from :func:`ast.parse` become :class:`CalculationError` too;
* the tree is evaluated without recursion, so long chains such as ``1+1+...+1`` need no stack;
* an integer result may have at most :data:`MAX_BITS` bits (about 3,000 decimal digits, below
  Python's 4,300-digit ``str(int)`` limit). Powers and products are refused *before* they are
  computed when the result is certainly too large, so ``9**9**9`` (``9**387420489`` after the
  right-associative inner power) and ``10**100000`` fail at once;
* a float result must be finite: overflow (``1e308 * 10``, ``1e999``) is refused, and so is an integer
  too large to become a float (``10**3000 / 7.0``).

Malformed input can make :func:`ast.parse` emit a ``SyntaxWarning`` (``'1if 1 else 2'``). Those are about
model output, not code, so a warnings filter matching only the calculator's pseudo file name
``<toolwire calculator>`` ignores them; all other warnings are untouched. Parses run one at a time
(:func:`toolwire.parsing._python_parse.parse_source`), as CPython 3.11's parser fails with ``SystemError``
when two threads parse at once (gh-106905): parallel calls of the calculator run in threads.

Result types follow Python: integer arithmetic stays :class:`int`; ``/`` and any float operand give
:class:`float`, also when the value is whole (``123 * 456.0 == 56088.0``, ``4 / 2 == 2.0``). A float that
underflows is returned as Python computes it, so ``2 ** -100000`` returns ``0.0`` (like ``1e-400``).
"""

from __future__ import annotations

import ast
import math
from typing import cast

from toolwire.errors import ToolwireError
from toolwire.parsing._python_parse import parse_source

__all__ = ["MAX_BITS", "MAX_DEPTH", "MAX_LENGTH", "CalculationError", "evaluate"]

MAX_LENGTH = 1_000
"""Most characters an expression may have."""

MAX_DEPTH = 50
"""Most levels that brackets ``( [ {`` may nest."""

MAX_BITS = 10_000
"""Most bits an integer result (or intermediate result) may have."""

_ALLOWED = "Only numbers and the operators + - * / // % ** and parentheses are allowed"
_EXAMPLE = "'123 * 456'"
_TOO_LARGE = (
    f"The result would be too large (more than {MAX_BITS:,} bits, about 3,000 digits); use smaller numbers."
)
_FLOAT_TOO_LARGE = (
    "A number in the calculation would be too large for a floating-point number (above about 1.8e308); "
    "use smaller numbers."
)
_DIVISION_BY_ZERO = "Division by zero is undefined; change the expression so that no divisor is 0."
_ZERO_NEGATIVE_POWER = "Zero cannot be raised to a negative power; change the exponent or the base."
_NOT_REAL = (
    "The result is not a real number because a negative number was raised to a fractional power; "
    "use a positive base."
)

# ast.parse reports some malformed input (e.g. '9x', '1if') as a SyntaxWarning on stderr. The warnings
# are about model output, not about code, so they are silenced for this pseudo-file name only (parse_source).
_FILENAME = "<toolwire calculator>"

_SPELLINGS = str.maketrans({"×": "*", "÷": "/", "−": "-", "^": "**"})

_BINARY = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
}
_UNARY = {ast.USub: "-", ast.UAdd: "+"}

_REFUSED_BINARY = {
    ast.BitXor: "^",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.MatMult: "@",
}
_REFUSED_UNARY = {ast.Invert: "~", ast.Not: "not"}

_NODE_NAMES = {
    ast.Call: "a function call",
    ast.Attribute: "an attribute access",
    ast.Subscript: "indexing",
    ast.Slice: "a slice",
    ast.Lambda: "a lambda",
    ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension",
    ast.DictComp: "a dict comprehension",
    ast.GeneratorExp: "a generator expression",
    ast.List: "a list",
    ast.Set: "a set",
    ast.Dict: "a dict",
    ast.JoinedStr: "an f-string",
    ast.FormattedValue: "an f-string field",
    ast.Starred: "a starred expression",
    ast.IfExp: "a conditional expression",
    ast.NamedExpr: "an assignment expression",
    ast.BoolOp: "a boolean operator (and/or)",
    ast.Compare: "a comparison",
    ast.Await: "an await expression",
    ast.Yield: "a yield expression",
    ast.YieldFrom: "a yield expression",
}


class CalculationError(ToolwireError, ValueError):
    """An expression that :func:`evaluate` refuses or cannot compute.

    ``str(error)`` is one sentence meant for the model: it says what was wrong and what to write
    instead, e.g. ``"Only numbers and the operators + - * / // % ** and parentheses are allowed;
    'x' is a name."``
    """


def evaluate(expression: str) -> int | float:
    """Compute an arithmetic expression such as ``'123 * 456'`` without running any code.

    Args:
        expression: text of at most :data:`MAX_LENGTH` characters made of numbers, ``+ - * / // % **``,
            unary ``-``/``+`` and parentheses; ``×``, ``÷``, ``−`` and ``^`` (power) are accepted as
            spellings of ``*``, ``/``, ``-`` and ``**``. Surrounding whitespace is ignored.

    Returns:
        The value: an ``int`` when only integers and ``+ - * // % **`` (non-negative exponent) are
        involved, otherwise a finite ``float`` (never ``bool``, never ``complex``).

    Raises:
        CalculationError: the text is not a string, empty, too long or nested too deep; it does not
            parse; it contains anything but numbers and the allowed operators; it divides by zero; an
            integer result would exceed :data:`MAX_BITS` bits or a float result would overflow; or the
            result would be complex. No other exception escapes.
    """
    if not isinstance(expression, str):
        raise CalculationError(f"The expression must be text, like {_EXAMPLE}.")
    if len(expression) > MAX_LENGTH:
        raise CalculationError(
            f"The expression is {len(expression):,} characters long; "
            f"keep it to at most {MAX_LENGTH:,} characters."
        )
    text = expression.strip().translate(_SPELLINGS)
    if not text:
        raise CalculationError(f"The expression is empty; write an arithmetic expression like {_EXAMPLE}.")
    _check_nesting(text)
    tree = _parse(text)
    _check_nodes(tree, text)
    return _compute(tree)


def _check_nesting(text: str) -> None:
    """Raise :class:`CalculationError` if brackets in ``text`` nest deeper than :data:`MAX_DEPTH`."""
    depth = 0
    for char in text:
        if char in "([{":
            depth += 1
            if depth > MAX_DEPTH:
                raise CalculationError(
                    f"The expression nests parentheses more than {MAX_DEPTH} levels deep; simplify it."
                )
        elif char in ")]}":
            depth -= 1


def _parse(text: str) -> ast.Expression:
    """Parse ``text`` as one expression; every parser failure becomes :class:`CalculationError`."""
    try:
        return cast(ast.Expression, parse_source(text, _FILENAME))
    except SyntaxError as error:
        reason = f" ({error.msg})" if error.msg else ""
        raise CalculationError(
            f"{_snippet(text)} is not a complete arithmetic expression{reason}; use only numbers, "
            f"the operators + - * / // % ** and parentheses, like {_EXAMPLE}."
        ) from None
    except (RecursionError, MemoryError, ValueError, OverflowError):
        raise CalculationError(
            f"The expression is too complex to read; write a shorter arithmetic expression like {_EXAMPLE}."
        ) from None


def _check_nodes(tree: ast.Expression, text: str) -> None:
    """Raise :class:`CalculationError` naming the first node of ``tree`` that is not plain arithmetic."""
    for node in ast.walk(tree):
        problem = _describe_problem(node, text)
        if problem is not None:
            raise CalculationError(f"{_ALLOWED}; {problem}.")


def _describe_problem(node: ast.AST, text: str) -> str | None:
    """Return what is wrong with one node in words (``"'x' is a name"``), or ``None`` if it is allowed."""
    if isinstance(node, ast.Expression | ast.operator | ast.unaryop):
        return None  # an operator is judged with its BinOp/UnaryOp, which ast.walk visits first
    if isinstance(node, ast.BinOp):
        if type(node.op) in _BINARY:
            return None
        symbol = _REFUSED_BINARY.get(type(node.op), type(node.op).__name__)
        return f"'{symbol}' is not a supported operator"
    if isinstance(node, ast.UnaryOp):
        if type(node.op) in _UNARY:
            return None
        symbol = _REFUSED_UNARY.get(type(node.op), type(node.op).__name__)
        return f"'{symbol}' is not a supported operator"
    if isinstance(node, ast.Constant):
        return _describe_constant(node.value)
    if isinstance(node, ast.Name):
        return f"{_shorten(node.id)!r} is a name"
    if isinstance(node, ast.Tuple):
        return "commas are not allowed (write 1000, not 1,000, and one expression at a time)"
    if isinstance(node, ast.expr):
        kind = _NODE_NAMES.get(type(node), f"a {type(node).__name__} expression")
        return f"{_snippet(ast.get_source_segment(text, node) or '')} is {kind}"
    return f"{type(node).__name__} is not arithmetic"


def _describe_constant(value: object) -> str | None:
    """Return what is wrong with a literal in words, or ``None`` for a finite int or float."""
    if isinstance(value, bool):
        return f"{value} is a boolean, not a number"
    if isinstance(value, int):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else "a number literal is too large for a floating-point number"
    if isinstance(value, str):
        return f"{_shorten(value)!r} is a string"
    if isinstance(value, complex):
        return f"{value!r} is a complex number"
    if isinstance(value, bytes):
        return f"{_shorten(repr(value))} is a bytes literal"
    return f"{value!r} is not a number"


def _compute(tree: ast.Expression) -> int | float:
    """Evaluate a checked tree iteratively (post-order with an explicit stack) and return its value."""
    pending: list[tuple[ast.expr, bool]] = [(tree.body, False)]
    values: list[int | float] = []
    while pending:
        node, operands_done = pending.pop()
        if isinstance(node, ast.Constant):
            values.append(node.value)
        elif isinstance(node, ast.BinOp):
            if operands_done:
                right = values.pop()
                left = values.pop()
                values.append(_binary(type(node.op), left, right))
            else:
                # Left is evaluated before right, as in Python; so '9**9**9' computes 9**9 first.
                pending.extend([(node, True), (node.right, False), (node.left, False)])
        elif isinstance(node, ast.UnaryOp):
            if operands_done:
                operand = values.pop()
                values.append(-operand if isinstance(node.op, ast.USub) else +operand)
            else:
                pending.extend([(node, True), (node.operand, False)])
        else:  # pragma: no cover - _check_nodes lets no other node through
            raise CalculationError(f"{_ALLOWED}; {type(node).__name__} is not arithmetic.")
    (result,) = values
    return result


def _binary(op: type[ast.operator], left: int | float, right: int | float) -> int | float:
    """Apply one allowed operator with the size, zero and overflow rules of :func:`evaluate`."""
    if isinstance(left, int) and isinstance(right, int):
        # Refuse before computing when the integer result certainly exceeds MAX_BITS bits:
        # a product has at least bits(a) + bits(b) - 1 bits, and |a| ** e >= 2 ** (e * (bits(a) - 1)).
        # Bases -1, 0 and 1 have bits(a) - 1 == 0 and are cheap for any exponent.
        if op is ast.Mult and left.bit_length() + right.bit_length() - 1 > MAX_BITS:
            raise CalculationError(_TOO_LARGE)
        if op is ast.Pow and right > 0 and right * (abs(left).bit_length() - 1) >= MAX_BITS:
            raise CalculationError(_TOO_LARGE)
    try:
        result = _apply(op, left, right)
    except ZeroDivisionError:
        raise CalculationError(_ZERO_NEGATIVE_POWER if op is ast.Pow else _DIVISION_BY_ZERO) from None
    except OverflowError:
        raise CalculationError(_FLOAT_TOO_LARGE) from None
    if isinstance(result, complex):
        raise CalculationError(_NOT_REAL)
    if isinstance(result, int):
        if result.bit_length() > MAX_BITS:
            raise CalculationError(_TOO_LARGE)
    elif not math.isfinite(result):
        raise CalculationError(_FLOAT_TOO_LARGE)
    return result


def _apply(op: type[ast.operator], left: int | float, right: int | float) -> int | float | complex:
    """Apply one allowed operator with Python's own arithmetic (no checks)."""
    if op is ast.Add:
        return left + right
    if op is ast.Sub:
        return left - right
    if op is ast.Mult:
        return left * right
    if op is ast.Div:
        return left / right
    if op is ast.FloorDiv:
        return left // right
    if op is ast.Mod:
        return left % right
    return left**right


def _shorten(text: str, limit: int = 40) -> str:
    """Return ``text`` cut to ``limit`` characters, with ``...`` when it was cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _snippet(text: str) -> str:
    """Return ``text`` shortened and quoted for an error message."""
    return repr(_shorten(text))
