"""GBNF bodies of lists, tuples, maps, keyword sequences and bounded numbers, for :mod:`toolwire.models.grammar`.

:func:`toolwire.models.grammar.value_rule` lowers the schemas inside a value (an array's ``items`` and
``prefixItems``, a map's ``additionalProperties`` and ``propertyNames``) and hands their rule names here; these
functions only arrange them, so the recursion stays in one place. Every body is written in the style of the rule
set (:class:`toolwire.models.grammar.Rules`): JSON (``[1, "a"]``, ``{"k": 1}``, whitespace bounded as everywhere)
or Python literals as the pythonic format writes them (``[1, "a"]`` for a list or a tuple, ``{"k": 1}``; the
separators exactly ``", "`` and ``": "``, as :func:`toolwire.models.grammar.python_literal` writes them).

Counts (``minItems``/``maxItems``, ``minProperties``/``maxProperties``) are followed up to :data:`MAX_REPEAT`: a
larger bound is not followed (validation after generation checks it), since llama.cpp expands every ``{m,n}``
into rules.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolwire.models.grammar import Rules

__all__ = ["MAX_INT_CHOICES", "MAX_REPEAT", "integer_rule", "keyword_sequence", "map_rule", "number_rule",
           "sequence_rule", "tuple_rule"]

MAX_REPEAT = 16
"""The largest item or key count the grammar follows; larger bounds are left to validation."""

MAX_INT_CHOICES = 100
"""An integer whose bounds leave at most this many values is written as one of them."""

_DIGITS = 24  # as the ``integer`` rule of the grammar: room for any 64-bit id
_FRACTION = r'("." digits)? exponent?'  # after the whole part: the grammar's ``number`` (``exponent``: finite only)
_FLOAT = r'("." digits exponent? | exponent)'  # a list[float]'s element: not whole


def _count(value: Any) -> int | None:
    """A count keyword's value (``minItems`` and the like) if it is a non-negative int (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _brackets(rules: Rules, square: bool) -> tuple[str, str]:
    """The GBNF of the opening and the closing bracket of a list (``square``) or a dict in the rules' style."""
    opening, closing = ('"["', '"]"') if square else ('"{"', '"}"')
    if rules.style == "py":
        return opening, closing
    return f"{opening} ws", f"ws {closing}"


def sequence_rule(rules: Rules, hint: str, item: str, low: Any, high: Any, *, square: bool = True) -> str:
    """A list of ``item`` (``[a, b]``), or with ``square=False`` a dict whose entries are ``item`` (``{k: v}``).

    Args:
        rules: the rule set.
        hint: the rule's name.
        item: the GBNF of one element (a rule name, or for a dict one ``key: value`` entry).
        low: the ``minItems`` / ``minProperties`` value (followed when an int in 0..16, else 0).
        high: the ``maxItems`` / ``maxProperties`` value (followed when an int in max(low, 1)..16; 0 means
            empty; else unbounded).

    Returns:
        The rule name.
    """
    lo = low if _count(low) is not None and low <= MAX_REPEAT else 0
    hi = high if _count(high) is not None and max(lo, 1) <= high <= MAX_REPEAT else None
    more = "*" if hi is None else f"{{{max(lo - 1, 0)},{hi - 1}}}"
    if lo > 1 and hi is None:
        more = f"{{{lo - 1},}}"
    opening, closing = _brackets(rules, square)
    if high == 0:  # as before the move: a maxItems of 0 (or false) is the empty list
        body = f"{opening} {closing}"
    elif lo == 0:
        body = f"{opening} ({item} ({rules.sep} {item}){more})? {closing}"
    else:
        body = f"{opening} {item} ({rules.sep} {item}){more} {closing}"
    return rules.add(hint, body)


def tuple_rule(rules: Rules, hint: str, prefix: list[str], extra: str | None, low: Any, high: Any) -> str:
    """An array of ``prefixItems``: element ``i`` is ``prefix[i]``; elements past the prefix are ``extra``.

    JSON Schema 2020-12 (section 10.3.1.1): an array may stop before the end of its prefix (``minItems`` says how
    far it must go) and goes on past it with elements of ``items`` (``extra``; ``None`` for ``items: false``: no
    more elements). pydantic writes ``tuple[int, str]`` with ``minItems`` and ``maxItems`` both 2: exactly
    ``[1, "a"]``, a list in both styles (the pythonic format writes a tuple as a list, as
    :func:`toolwire.models.grammar.python_literal` does; the tool's validation makes it a tuple again).

    Args:
        rules: the rule set.
        hint: the rule's name.
        prefix: the GBNF of each fixed position (at least one).
        extra: the GBNF of an element past the prefix, or ``None`` when there may be none.
        low: ``minItems`` (a non-negative int; anything else counts as 0). Elements past the prefix follow it up
            to :data:`MAX_REPEAT` of them.
        high: ``maxItems`` (a non-negative int, else no bound); below the prefix's length it cuts the prefix.

    Returns:
        The rule name.
    """
    n = len(prefix)
    lo, hi = _count(low) or 0, _count(high)
    if extra is None:
        hi = n if hi is None else min(hi, n)
    if hi is not None:
        lo = min(lo, hi)  # a schema no array meets: keep the grammar able to end
    used = n if hi is None else min(n, hi)
    opening, closing = _brackets(rules, square=True)
    if used == 0:
        return rules.add(hint, f"{opening} {closing}")
    tail = ""
    if extra is not None and used == n and (hi is None or hi > n):
        fewest = max(lo - n, 0)
        fewest = fewest if fewest <= MAX_REPEAT else 0
        most = None if hi is None or hi - n > MAX_REPEAT else hi - n
        times = "*" if fewest == 0 and most is None else f"{{{fewest},{'' if most is None else most}}}"
        tail = f" ({rules.sep} {extra}){times}"
    body = prefix[used - 1] + tail
    for i in range(used - 2, -1, -1):  # position i + 1 is required when the array has more than i + 1 elements
        rest = f"{rules.sep} {body}"
        body = f"{prefix[i]} " + (rest if i + 1 < lo else f"({rest})?")
    if lo == 0:
        body = f"({body})?"
    return rules.add(hint, f"{opening} {body} {closing}")


def map_rule(rules: Rules, hint: str, key: str, value: str, low: Any, high: Any) -> str:
    """A dict (``{"k": v, ...}``) whose keys are ``key`` and values ``value`` (``additionalProperties`` given as a
    schema), ``minProperties``/``maxProperties`` followed as :func:`sequence_rule` follows item counts.

    Returns:
        The rule name.
    """
    entry = rules.add(hint + "-entry", f"{key} {rules.colon} {value}")
    return sequence_rule(rules, hint, entry, low, high, square=False)


def keyword_sequence(pairs: list[tuple[str, bool]], sep: str, rules: Rules, hint: str) -> str:
    """GBNF for the pairs in order, separated by ``sep``; required pairs always, optional ones maybe.

    ``after(i)``: what may follow once something was written, from pair ``i`` on (each pair prefixed
    by ``sep``). ``start(i)``: what may come first when nothing was written yet, from pair ``i`` on.
    Rules are made only when referenced; ``'""'`` stands for nothing.
    """
    n = len(pairs)
    memo: dict[tuple[str, int], str] = {}

    def join(*parts: str) -> str:
        return " ".join(p for p in parts if p != '""') or '""'

    def after(i: int) -> str:
        if i == n:
            return '""'
        if ("a", i) not in memo:
            rule, required = pairs[i]
            tail = join(sep, rule, after(i + 1))
            rest = after(i + 1)
            optional = f"({tail})?" if rest == '""' else f"({tail}) | {rest}"
            body = tail if required else optional
            memo["a", i] = rules.add(f"{hint}-after{i}", body)
        return memo["a", i]

    def start(i: int) -> str:
        if i == n:
            return '""'
        if ("s", i) not in memo:
            rule, required = pairs[i]
            first = join(rule, after(i + 1))
            if required:
                memo["s", i] = first if first == rule else rules.add(f"{hint}-start{i}", first)
            else:
                nxt = start(i + 1)
                body = f"({first})?" if nxt == '""' else f"{first} | {nxt}"
                memo["s", i] = rules.add(f"{hint}-start{i}", body)
        return memo["s", i]

    return start(0)


def _number(value: Any) -> float | int | None:
    """A bound keyword's value if it is a finite number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


def _bounds(schema: dict[str, Any]) -> tuple[float | int | None, bool, float | int | None, bool]:
    """``(low, low_exclusive, high, high_exclusive)`` of a number schema; the tighter of ``minimum`` and
    ``exclusiveMinimum`` (draft 6 on: a number; draft 4: ``true`` makes ``minimum`` exclusive), likewise above."""
    out: list[Any] = []
    for inclusive, exclusive, tighter in (("minimum", "exclusiveMinimum", max), ("maximum", "exclusiveMaximum", min)):
        bound, strict = _number(schema.get(inclusive)), schema.get(exclusive) is True
        other = _number(schema.get(exclusive))
        if other is not None and (bound is None or tighter(bound, other) == other):
            bound, strict = other, True
        out += [bound, strict and bound is not None]
    return out[0], out[1], out[2], out[3]


def integer_rule(schema: dict[str, Any], rules: Rules) -> str:
    """An integer of ``schema``, its bounds followed where that is cheap.

    With both bounds leaving at most :data:`MAX_INT_CHOICES` values, one of them (``minimum: 1, maximum: 5``:
    ``1`` to ``5``). Otherwise the sign: a lower bound of 0 forbids ``-`` (``0``, ``7``), of 1 or more also ``0``
    (pydantic's ``PositiveInt`` is ``exclusiveMinimum: 0``), and then a non-negative upper bound caps the digits
    (``maximum: 500``: at most three); an upper bound below 0 needs ``-``, of 0 allows ``0`` too. Other values past a
    bound (``600`` for ``maximum: 500``) pass the grammar and fail validation.

    Returns:
        A rule name (``integer`` when no bound applies).
    """
    low, low_strict, high, high_strict = _bounds(schema)
    lo = None if low is None else math.floor(low) + 1 if low_strict else math.ceil(low)
    hi = None if high is None else math.ceil(high) - 1 if high_strict else math.floor(high)
    if lo is not None and hi is not None and lo > hi:
        return "integer"  # no integer meets both: left to validation
    if lo is not None and hi is not None and hi - lo < MAX_INT_CHOICES:
        return rules.add(f"int-{lo}-to-{hi}", " | ".join(f'"{v}"' for v in range(lo, hi + 1)))
    if lo is not None and lo >= 0:
        digits = _DIGITS if hi is None else min(len(str(hi)), _DIGITS)
        nonzero = f"[1-9] [0-9]{{0,{digits - 1}}}" if digits > 1 else "[1-9]"
        return rules.add("positive", nonzero) if lo > 0 else rules.add("natural", f'"0" | {nonzero}')
    if hi is not None and hi <= 0:
        negative = f'"-" [1-9] [0-9]{{0,{_DIGITS - 1}}}'
        return rules.add("negative", negative) if hi < 0 else rules.add("non-positive", f'"0" | {negative}')
    return "integer"


def number_rule(schema: dict[str, Any], rules: Rules, floats: bool = False) -> str:
    """A number of ``schema``: the grammar's ``number``, or with ``floats`` a ``list[float]`` element's form (a
    decimal point or an exponent, :func:`toolwire.models.grammar.float_items`); with a lower bound of 0 or more
    (``minimum``, ``exclusiveMinimum``), no ``-`` sign. Other bounds are left to validation.

    Returns:
        A rule name.
    """
    low = _bounds(schema)[0]
    whole = "integer" if low is None or low < 0 else rules.add("natural", f'"0" | [1-9] [0-9]{{0,{_DIGITS - 1}}}')
    if not floats:
        return "number" if whole == "integer" else rules.add("non-negative", f"{whole} {_FRACTION}")
    return rules.add("float" if whole == "integer" else "non-negative-float", f"{whole} {_FLOAT}")
