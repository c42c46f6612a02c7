"""The calculator's input corpus, shared by ``tests/test_calculator.py`` (which checks every answer and refusal)
and ``benchmarks/calculator_cpu.py`` (which times each one against issue #4's limit of 100 ms of CPU per call).

It holds hand-written hostile inputs and worst cases, and the hypothesis strategies that generate arithmetic trees
(with the value Python computes for each) and mixes of dangerous tokens.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from toolwire.examples.arith import MAX_BITS, MAX_DEPTH, MAX_LENGTH

HOSTILE = [
    "__import__('os').system('echo hi')",
    "().__class__.__bases__[0].__subclasses__()",
    "lambda: 1",
    "[x for x in range(10)]",
    "a + 1",
    "'abc'",
    "b'abc'",
    "f'{1+1}'",
    "9**9**9",
    "10**100000",
    "1+" * 50000 + "1",
    "(" * 10000 + "1" + ")" * 10000,
    "[" * 10000 + "]" * 10000,
    "1/0",
    "1 // 0",
    "1 % 0",
    "1.0 / 0.0",
    "0 ** -1",
    "True + 1",
    "None",
    "...",
    "1e308 * 10",
    "1e999",
    "1e308 + 1e308",
    "2.0 ** 10000",
    "10**3000 * 1.0",
    "10**3000 / 3",
    "(-8) ** (1/3)",
    "1j",
    "1 + 2j",
    "",
    "   ",
    "1 < 2",
    "1 and 2",
    "not 1",
    "~1",
    "1 << 5",
    "1 >> 5",
    "1 & 3",
    "1 | 3",
    "1 @ 2",
    "(x := 1)",
    "1 if 1 else 2",
    "*a",
    "1, 2",
    "1,000",
    "{1: 2}",
    "{1}",
    "x[0]",
    "abs(-1)",
    "3 x 4",
    "2 + 2 =",
    "import os",
    "1; 2",
    "1\x00",
    "(yield 1)",
    "print",
    "__builtins__",
    "open('/etc/passwd').read()",
]

# Cut to the length limit, so that each one is parsed and evaluated rather than refused for its length.
_WORST = [
    "9**" * 333 + "9",
    "2**" * 333 + "2",
    "(10**3000 // 7) * (10**3000 // 11) // 3 " * 20,
    "+".join(["10**3000 // 7 * 3 % 10**2999"] * 35),
    "*".join(["(10**1000)"] * 90),
    "-" * 999 + "1",
    "~" * 999 + "1",
    "not " * 249 + "1",
    "lambda:" * 142 + "1",
    "9" * MAX_LENGTH,
    "1." + "9" * (MAX_LENGTH - 2),
    "((((" * 12 + "1" + "))))" * 12,
    "1.0000001 ** 10**30",
    "(-1.5) ** 1e300",
]
WORST_CASES = [expression[:MAX_LENGTH] for expression in _WORST]


@dataclass(frozen=True)
class Tree:
    """A generated arithmetic expression: its text and the value Python computes from the tree."""

    text: str
    value: int | float | None  # None: the evaluator must refuse (zero divisor, overflow, too large)


_BINARY_OPS = {
    "+": (operator.add, ["+"]),
    "-": (operator.sub, ["-", "−"]),
    "*": (operator.mul, ["*", "×"]),
    "/": (operator.truediv, ["/", "÷"]),
    "//": (operator.floordiv, ["//"]),
    "%": (operator.mod, ["%"]),
}


def _checked(value: int | float | complex) -> int | float | None:
    """Apply the evaluator's documented limits to a value Python computed; None when refused."""
    if isinstance(value, complex):
        return None
    if isinstance(value, int):
        return value if value.bit_length() <= MAX_BITS else None
    return value if math.isfinite(value) else None


def _combine(
    function: Callable[[Any, Any], Any], left: int | float | None, right: int | float | None
) -> int | float | None:
    if left is None or right is None:
        return None
    try:
        return _checked(function(left, right))
    except (ZeroDivisionError, OverflowError):
        return None


def _paren(value: int | float) -> str:
    text = repr(value)
    return f"({text})" if text.startswith("-") else text


leaves = st.one_of(
    st.integers(min_value=-1000, max_value=1000),
    st.floats(min_value=-1000, max_value=1000, allow_nan=False, allow_infinity=False),
).map(lambda number: Tree(_paren(number), number))


@st.composite
def binary_nodes(draw: st.DrawFn, children: st.SearchStrategy[Tree]) -> Tree:
    symbol = draw(st.sampled_from(sorted(_BINARY_OPS)))
    function, spellings = _BINARY_OPS[symbol]
    left, right = draw(children), draw(children)
    spelled = draw(st.sampled_from(spellings))
    return Tree(f"({left.text} {spelled} {right.text})", _combine(function, left.value, right.value))


@st.composite
def power_nodes(draw: st.DrawFn, children: st.SearchStrategy[Tree]) -> Tree:
    # Small integer exponents keep Python's own computation of the expected value cheap.
    base = draw(children)
    exponent = draw(st.integers(min_value=-3, max_value=4))
    spelled = draw(st.sampled_from(["**", "^"]))
    return Tree(f"({base.text} {spelled} {_paren(exponent)})", _combine(operator.pow, base.value, exponent))


@st.composite
def unary_nodes(draw: st.DrawFn, children: st.SearchStrategy[Tree]) -> Tree:
    child = draw(children)
    if draw(st.booleans()):
        return Tree(f"(-{child.text})", None if child.value is None else -child.value)
    return Tree(f"(+{child.text})", child.value)


trees = st.recursive(
    leaves,
    lambda children: st.one_of(binary_nodes(children), power_nodes(children), unary_nodes(children)),
    max_leaves=12,
)


DANGEROUS_TOKENS = [
    "__import__",
    "('os')",
    ".system",
    "('echo hi')",
    "__class__",
    "__bases__",
    "__subclasses__",
    "__globals__",
    "__builtins__",
    "lambda",
    ":",
    "for",
    "in",
    "if",
    "else",
    "not",
    "and",
    "or",
    "x",
    "range",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ".",
    "'",
    '"',
    "\\",
    "f'",
    "b'",
    "j",
    "True",
    "None",
    "...",
    "*",
    "**",
    "^",
    "×",
    "÷",
    "−",
    "/",
    "//",
    "%",
    "+",
    "-",
    "~",
    "<<",
    "@",
    ":=",
    "=",
    ";",
    "\n",
    "\x00",
    " ",
    "9",
    "0",
    "1e308",
    "1e-400",
    "10**3000",
    "9**9**9",
    "0.5",
    "_",
    "0x",
    "1_0",
    "await",
    "yield",
]

token_soup = st.lists(st.sampled_from(DANGEROUS_TOKENS), max_size=60).map("".join)
repeated = st.tuples(st.sampled_from(DANGEROUS_TOKENS), st.integers(min_value=1, max_value=2000)).map(
    lambda pair: pair[0] * pair[1]
)
nested = st.tuples(st.integers(min_value=0, max_value=2 * MAX_DEPTH), token_soup).map(
    lambda pair: "(" * pair[0] + pair[1] + ")" * pair[0]
)
token_mixes = st.one_of(token_soup, repeated, nested)
random_text = st.text(max_size=1200)
