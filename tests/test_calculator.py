"""Tests for toolwire.examples.arith: the safe evaluator behind the ``calculate`` example tool."""

from __future__ import annotations

import math
import operator
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.examples.arith import MAX_BITS, MAX_DEPTH, MAX_LENGTH, CalculationError, evaluate

TIME_LIMIT = 0.1  # CPU seconds per call (thread_time: immune to other load on the machine); a stated requirement

# Deterministic in CI: a fixed seed, no example database, no per-example deadline (time is asserted).
FUZZ = settings(derandomize=True, database=None, deadline=None)


# --------------------------------------------------------------------------- correct values


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("123 * 456", 56088),
        ("2 ** 10", 1024),
        ("-3 + 4 * (2 - 1)", 1),
        ("7 // 2", 3),
        ("7 % 3", 1),
        ("-7 // 2", -4),
        ("-7 % 3", 2),
        ("1 / 4", 0.25),
        ("2^3", 8),
        ("2 ^ 3 ^ 2", 512),
        ("10 ÷ 4", 2.5),
        ("6 × 7", 42),
        ("10 − 3", 7),
        ("-5", -5),
        ("+5", 5),
        ("--5", 5),
        ("-(2 + 3)", -5),
        ("-2 ** 2", -4),
        ("(-2) ** 2", 4),
        ("2 ** 3 ** 2", 512),
        ("2 ** -1", 0.5),
        ("1.5 + 2.25", 3.75),
        ("0.1 * 3", 0.1 * 3),
        ("1e3 + 1", 1001.0),
        ("123 * 456.0", 56088.0),
        ("  42  ", 42),
        ("\t(1 + 2) * 3\n", 9),
        ("1_000 + 1", 1001),
        ("0x10", 16),
        ("9 ** 9", 387420489),
        ("(1 - 1) ** 99999999999", 0),
        ("1 ** (10 ** 3000)", 1),
        ("(-1) ** (10 ** 3000 + 1)", -1),
    ],
)
def test_correct_values(expression: str, expected: int | float) -> None:
    result = evaluate(expression)
    assert result == expected
    assert type(result) is type(expected)


def test_integer_arithmetic_stays_int_and_division_gives_float() -> None:
    assert type(evaluate("2 * 3 + 4 // 2 - 5 % 3 + 2 ** 5")) is int
    assert evaluate("4 / 2") == 2.0
    assert type(evaluate("4 / 2")) is float
    assert type(evaluate("2 * 3.0")) is float


def test_tiny_float_underflows_to_zero() -> None:
    # Rule: a negative integer exponent gives a float as in Python; underflow is 0.0, not an error.
    assert evaluate("2**-100000") == 0.0
    assert type(evaluate("2**-100000")) is float
    assert evaluate("1e-400") == 0.0


def test_results_up_to_the_bit_limit_are_allowed_and_printable() -> None:
    largest = evaluate(f"2 ** {MAX_BITS - 1}")
    assert largest == 2 ** (MAX_BITS - 1)
    assert len(str(largest)) > 3000  # still below Python's 4,300-digit str(int) limit
    assert evaluate(f"2 ** {MAX_BITS // 2 - 1} * 2 ** {MAX_BITS // 2}") == 2 ** (MAX_BITS - 1)


def test_long_flat_chains_need_no_recursion() -> None:
    expression = "+".join(["1"] * 500)
    assert len(expression) <= MAX_LENGTH
    assert evaluate(expression) == 500
    assert evaluate("-" * (MAX_LENGTH - 1) + "1") == -1
    assert evaluate("(" * MAX_DEPTH + "7" + ")" * MAX_DEPTH) == 7


# --------------------------------------------------------------------------- refused inputs


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


@pytest.mark.parametrize("expression", HOSTILE)
def test_hostile_inputs_raise_calculation_error_quickly(expression: str) -> None:
    start = time.thread_time()
    with pytest.raises(CalculationError):
        evaluate(expression)
    assert time.thread_time() - start < TIME_LIMIT


@pytest.mark.parametrize("value", [None, 123, 1.5, b"1+1", ["1"]])
def test_non_string_input_raises_calculation_error(value: object) -> None:
    with pytest.raises(CalculationError, match="must be text"):
        evaluate(value)  # type: ignore[arg-type]


def test_calculation_error_is_a_value_error() -> None:
    assert issubclass(CalculationError, ValueError)


def test_hostile_code_is_never_run(tmp_path: Path) -> None:
    target = tmp_path / "written"
    for expression in (
        f"open({str(target)!r}, 'w').write('x')",
        f"__import__('pathlib').Path({str(target)!r}).touch()",
        f"[open({str(target)!r}, 'w') for _ in '1']",
        f"(lambda: open({str(target)!r}, 'w'))()",
    ):
        with pytest.raises(CalculationError):
            evaluate(expression)
    assert not target.exists()


@pytest.mark.parametrize(
    ("expression", "fragment"),
    [
        ("a + 1", "'a' is a name"),
        ("x", "'x' is a name"),
        ("abs(-1)", "'abs(-1)' is a function call"),
        ("(1).real", "is an attribute access"),
        ("'abc'", "'abc' is a string"),
        ("True + 1", "True is a boolean, not a number"),
        ("1 < 2", "is a comparison"),
        ("lambda: 1", "is a lambda"),
        ("[x for x in range(10)]", "is a list comprehension"),
        ("1 << 2", "'<<' is not a supported operator"),
        ("~1", "'~' is not a supported operator"),
        ("1,000", "write 1000, not 1,000"),
        ("1j", "complex number"),
    ],
)
def test_refusal_names_what_was_found(expression: str, fragment: str) -> None:
    with pytest.raises(CalculationError) as info:
        evaluate(expression)
    message = str(info.value)
    assert message.startswith("Only numbers and the operators + - * / // % ** and parentheses are allowed; ")
    assert fragment in message
    assert message.endswith(".")


@pytest.mark.parametrize(
    ("expression", "fragment"),
    [
        ("", "empty"),
        ("x" * (MAX_LENGTH + 1), "at most 1,000 characters"),
        ("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1), "more than 50 levels"),
        ("2 +", "not a complete arithmetic expression"),
        ("1/0", "Division by zero"),
        ("5 % 0", "Division by zero"),
        ("0 ** -1", "Zero cannot be raised to a negative power"),
        ("9**9**9", "too large"),
        ("10**100000", "too large"),
        (f"2 ** {MAX_BITS}", "too large"),
        (f"2 ** {MAX_BITS // 2} * 2 ** {MAX_BITS // 2}", "too large"),
        ("1e308 * 10", "too large for a floating-point number"),
        ("1e999", "too large for a floating-point number"),
        ("(-8) ** 0.5", "not a real number"),
    ],
)
def test_error_messages_say_what_to_do(expression: str, fragment: str) -> None:
    with pytest.raises(CalculationError) as info:
        evaluate(expression)
    message = str(info.value)
    assert fragment in message
    assert message.endswith(".")
    assert len(message) < 250


def test_length_is_checked_before_parsing() -> None:
    # Valid arithmetic, but too long: refused for its length, not evaluated.
    with pytest.raises(CalculationError, match="characters long"):
        evaluate("1+" * 50000 + "1")
    with pytest.raises(CalculationError, match="characters long"):
        evaluate(" " * (MAX_LENGTH + 1))


# --------------------------------------------------------------------------- fuzz: arithmetic trees


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


@settings(FUZZ, max_examples=600)
@given(trees)
def test_generated_arithmetic_matches_python(tree: Tree) -> None:
    start = time.thread_time()
    if tree.value is None:
        with pytest.raises(CalculationError):
            evaluate(tree.text)
    else:
        result = evaluate(tree.text)
        assert result == tree.value
        assert type(result) is type(tree.value)
    assert time.thread_time() - start < TIME_LIMIT


# --------------------------------------------------------------------------- fuzz: arbitrary text


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


def _assert_answers_quickly(expression: str) -> None:
    start = time.thread_time()
    try:
        result = evaluate(expression)
    except CalculationError as error:
        assert str(error)
    else:
        assert type(result) in (int, float)
        if isinstance(result, float):
            assert math.isfinite(result)
    assert time.thread_time() - start < TIME_LIMIT


@settings(FUZZ, max_examples=500)
@given(st.text(max_size=1200))
def test_random_text_answers_or_refuses_quickly(expression: str) -> None:
    _assert_answers_quickly(expression)


@settings(FUZZ, max_examples=1000)
@given(st.one_of(token_soup, repeated, nested))
def test_dangerous_token_mixes_answer_or_refuse_quickly(expression: str) -> None:
    _assert_answers_quickly(expression)


@pytest.mark.parametrize(
    "expression",
    [
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
    ],
)
def test_worst_cases_answer_or_refuse_within_the_time_limit(expression: str) -> None:
    _assert_answers_quickly(expression[:MAX_LENGTH])
