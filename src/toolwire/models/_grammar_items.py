"""GBNF bodies of lists, tuples, maps, keyword sequences and numbers, for :mod:`toolwire.models.grammar`.

:func:`toolwire.models.grammar.value_rule` lowers the schemas inside a value (an array's ``items`` and
``prefixItems``, a map's ``additionalProperties`` and ``propertyNames``) and hands their rule names here; these
functions only arrange them, so the recursion stays in one place. Every body is written in the style of the rule
set (:class:`toolwire.models.grammar.Rules`): JSON (``[1, "a"]``, ``{"k": 1}``, whitespace bounded as everywhere)
or Python literals as the pythonic format writes them (``[1, "a"]`` for a list or a tuple, ``{"k": 1}``; the
separators exactly ``", "`` and ``": "``, as :func:`toolwire.models.grammar.python_literal` writes them).

The counts of a list or a dict (``minItems``/``maxItems``, ``minProperties``/``maxProperties``) are not held (review
128 #7, as review 126 #2 found for numbers and dates): holding them bent what the model meant into a different
valid value with no error. A ``maxItems`` of 3 cut a list of five names the request gave to its first three, two
of them lost; a ``minItems`` of 2 made the model add a second value it had not been given. Left free, the list
reaches validation, which refuses it with an error the model sees and can act on (split the call, ask the user).
A tuple's positions (``prefixItems``, :func:`tuple_rule`) are its shape, not a count, and stay held; how many
elements go past them is a count and is not.

Numeric bounds are not held at all (:func:`integer_rule`, review 126 #2): holding one bends a value the model meant
past it into a different one that passes validation (``10`` out of 10 became ``1`` for ``Field(ge=1, le=5)``),
where validation would have refused it with an error the model sees.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolwire.models.grammar import Rules

__all__ = ["integer_rule", "keyword_sequence", "map_rule", "number_rule",
           "sequence_rule", "tuple_rule"]

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


def sequence_rule(rules: Rules, hint: str, item: str, *, square: bool = True) -> str:
    """A list of ``item`` (``[a, b]``), or with ``square=False`` a dict whose entries are ``item`` (``{k: v}``), of
    any length: ``minItems``/``maxItems`` and ``minProperties``/``maxProperties`` are not held (see the module's
    docstring), validation after generation checks them.

    Args:
        rules: the rule set.
        hint: the rule's name.
        item: the GBNF of one element (a rule name, or for a dict one ``key: value`` entry).
        square: a list (``True``) or a dict (``False``).

    Returns:
        The rule name.
    """
    opening, closing = _brackets(rules, square)
    return rules.add(hint, f"{opening} ({item} ({rules.sep} {item})*)? {closing}")


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
        low: ``minItems`` (a non-negative int; anything else counts as 0): how many positions must be written.
        high: ``maxItems`` (a non-negative int, else no bound); below the prefix's length it cuts the prefix. How
            many elements go past the prefix is not held (a count, review 131 #4): any number of ``extra``.

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
    tail = f" ({rules.sep} {extra})*" if extra is not None and used == n and (hi is None or hi > n) else ""
    body = prefix[used - 1] + tail
    for i in range(used - 2, -1, -1):  # position i + 1 is required when the array has more than i + 1 elements
        rest = f"{rules.sep} {body}"
        body = f"{prefix[i]} " + (rest if i + 1 < lo else f"({rest})?")
    if lo == 0:
        body = f"({body})?"
    return rules.add(hint, f"{opening} {body} {closing}")


def map_rule(rules: Rules, hint: str, key: str, value: str) -> str:
    """A dict (``{"k": v, ...}``) whose keys are ``key`` and values ``value`` (``additionalProperties`` given as a
    schema), of any number of entries, as :func:`sequence_rule` writes a list.

    Returns:
        The rule name.
    """
    entry = rules.add(hint + "-entry", f"{key} {rules.colon} {value}")
    return sequence_rule(rules, hint, entry, square=False)


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


def integer_rule(schema: dict[str, Any], rules: Rules) -> str:
    """An integer of ``schema``: the grammar's ``integer`` (an optional ``-``, ``0`` or up to 24 digits without a
    leading zero), whatever its bounds (``minimum``, ``maximum`` and their exclusive forms).

    A bound held by the grammar bends the value the model meant into another one that passes validation, so no
    error ever says so (review 126 #2): ``Field(ge=1, le=5)`` once allowed only ``1`` to ``5``, and a model writing
    ``10`` (out of 10) had to close the number after ``1``; a ``maximum: 500`` capped the digits at three (``1000``
    became ``100``); a lower bound of 0 forbade ``-`` (``-5`` became ``5``); one of 1 forbade ``0``; an upper bound
    below 0 forced ``-`` (``5`` became ``-5``). Every integer is now written as meant and the tool's validation
    refuses one past a bound, with its message, which the model sees and can correct (``ToolCallParseError`` for
    structured output). ``enum``/``const`` (a ``Literal[1, 2, 3]``) are choices and stay held
    (:func:`toolwire.models.grammar.value_rule` writes them before this).

    Returns:
        ``"integer"``.
    """
    return "integer"


def number_rule(schema: dict[str, Any], rules: Rules, floats: bool = False) -> str:
    """A number of ``schema``: the grammar's ``number``, or with ``floats`` a ``list[float]`` element's form (a
    decimal point or an exponent, :func:`toolwire.models.grammar.float_items`: ``1.0`` for ``1``, the same value).
    Bounds are not held, for the reason :func:`integer_rule` gives (a lower bound of 0 forbidding ``-`` bent
    ``-2.5`` into ``2.5``): validation refuses a number past one.

    Returns:
        A rule name.
    """
    return rules.add("float", f"integer {_FLOAT}") if floats else "number"
