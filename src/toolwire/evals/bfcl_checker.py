"""Scoring BFCL items: toolwire's own implementation of the leaderboard's AST checking rules.

Source of the rules: the BFCL data README (shared/bfcl/README.md, "How BFCL judges a call") and
the AST checker of ShishirPatil/gorilla, ``berkeley-function-call-leaderboard`` (``ast_checker.py``).
The code is written from those rules, not copied. In short:

1. Name: the called function must be the expected one.
2. Every parameter in the schema's ``required`` list must be present; no parameter outside the schema
   and outside the answer key may appear.
3. Types are checked exactly against the (mapped) schema type: an int is accepted where a float
   (``number``) is expected; a bool is not an int; a tuple counts as a list; array elements are
   type-checked one level deep, exactly (an int element is not a float, as in BFCL's nested check; an
   optional parameter, one whose allowed list holds ``""``, skips that check as BFCL's does). As in BFCL,
   a value whose type is the type of the answer key's values is also accepted (the key wins where it
   disagrees with the schema).
4. Values must equal one of the allowed values. Strings are compared after
   :func:`normalize_string`; lists element by element in order; dicts key by key, where an answer
   dict maps each key to its own allowed list (``{"min": [300000], "max": [400000]}``) and a key may be
   left out only when its list holds ``""``; numbers by plain equality (``5 == 5.0``). A bool is not the number
   it equals, except where BFCL compares with no type check: inside a dict's values, and in an optional list
   (compared whole, its elements unchecked), ``True`` equals ``1`` as in Python.
5. A parameter of the answer key missing from the call is fine only if its allowed list holds ``""``.
6. Single-call categories: exactly one call. ``parallel*``: as many calls as expected, in any order;
   expected and actual calls are paired by a maximum bipartite matching (augmenting paths, i.e.
   backtracking), so an overlap of allowed values never fails a correct answer, where BFCL's greedy
   first-fit pairing can.
7. ``irrelevance``: correct when there is no call. ``live_relevance``: correct when there is one.

Deliberate differences from BFCL (none changed a verdict of the default model's full runs; review 22
replayed them through a transcription of BFCL's checker): strings are normalised at every depth (BFCL
normalises them one level deep only), parallel calls are paired by a maximum matching (above), a value
of another type than the schema's is compared like any (BFCL compares such "variables" raw), array elements
may have the type of any answer's elements (BFCL takes it from each answer's first element), and an empty
list matches an optional list at any depth (BFCL: at the top level). One makes toolwire stricter, where an answer
key disagrees with its schema (no item of the data does): at the top level and in a typed list, a bool answer is not
taken for the number it equals, or the reverse (BFCL's plain ``in`` takes ``True`` for ``1`` once the type check
passed). Java and JavaScript categories load, but are scored with these Python-type rules (BFCL has separate type
rules for them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from toolwire.evals.bfcl import json_type

__all__ = [
    "REASONS",
    "CheckResult",
    "category_kind",
    "check_call",
    "check_calls",
    "example_calls",
    "normalize_string",
    "value_matches",
]

#: Failure reasons a :class:`CheckResult` can carry (the runner adds ``"error"`` for model errors).
REASONS: tuple[str, ...] = (
    "wrong_name", "missing_parameter", "unexpected_parameter", "wrong_type", "wrong_value",
    "wrong_count", "called_when_should_not", "no_call",
)
Kind = Literal["single", "parallel", "irrelevance", "relevance"]

_STRIP = re.compile(r"[ ,./\-_*^]")


@dataclass(frozen=True)
class CheckResult:
    """The verdict on one item (or one call).

    Attributes:
        valid: True when the answer is correct.
        reason: None when valid, else one of :data:`REASONS` (or ``"error"`` from the runner).
        message: one human sentence saying what was wrong (``"Correct."`` when valid).
    """

    valid: bool
    reason: str | None = None
    message: str = "Correct."

    @classmethod
    def ok(cls) -> CheckResult:
        """Return a passing result."""
        return cls(True)

    @classmethod
    def fail(cls, reason: str, message: str) -> CheckResult:
        """Return a failing result with ``reason`` (one of :data:`REASONS`) and ``message``, one sentence."""
        return cls(False, reason, message)


def category_kind(category: str) -> Kind:
    """Return how ``category`` (a BFCL category name, any case) is scored: ``"irrelevance"`` (no call expected),
    ``"relevance"`` (some call expected), ``"parallel"`` (several calls, any order) or ``"single"`` (one call)."""
    name = category.lower()
    if "irrelevance" in name:
        return "irrelevance"
    if name.endswith("relevance"):
        return "relevance"
    if "parallel" in name:
        return "parallel"
    return "single"


def normalize_string(text: str) -> str:
    """Return ``text`` normalised as BFCL compares strings: spaces and ``, . / - _ * ^`` dropped, lowercased,
    ``'`` -> ``"``.

    ``"April 1, 2024"`` and ``"april 1 2024"`` both become ``"april12024"``.
    """
    return _STRIP.sub("", text).lower().replace("'", '"')


def _calls(n: int) -> str:
    return f"{n} call" if n == 1 else f"{n} calls"


def _short(value: Any, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _matches(value: Any, answer: Any, untyped: bool = False) -> bool:
    """Does ``value`` equal the single allowed value ``answer`` (rules 4 and 5, recursively)? ``untyped``: where
    BFCL compares without a type check (see :func:`value_matches`), a bool equals the number it equals in Python."""
    if isinstance(answer, Mapping):  # answer-key dict: key -> allowed list
        if not isinstance(value, Mapping):
            return False
        for key, item in value.items():  # (BFCL's dict_checker: plain membership, no type check, review 140)
            if key not in answer or not value_matches(item, _as_list(answer[key]), untyped=True):
                return False
        return all(key in value or "" in _as_list(options) for key, options in answer.items())
    if isinstance(answer, list | tuple):
        if not isinstance(value, list | tuple) or len(value) != len(answer):
            return False
        return all(_matches(v, a, untyped) for v, a in zip(value, answer, strict=True))
    if isinstance(answer, str):
        return isinstance(value, str) and normalize_string(value) == normalize_string(answer)
    if (isinstance(answer, bool) or isinstance(value, bool)) and not untyped:
        return type(answer) is type(value) and answer == value
    if isinstance(answer, int | float):
        return isinstance(value, int | float) and value == answer
    return bool(value == answer)


def _as_list(options: Any) -> list[Any]:
    return options if isinstance(options, list) else [options]


def value_matches(value: Any, allowed: Sequence[Any], *, untyped: bool = False) -> bool:
    """Return True when ``value`` matches one of the ``allowed`` values of an answer key (BFCL rule 4).

    ``""`` in ``allowed`` marks the parameter as optional; it matches the empty string, and an empty list (BFCL's
    ``list_checker`` reads that ``""`` as ``[]`` for a list value).

    A bool never equals a number (``True`` is not ``1``), except with ``untyped=True`` and inside an answer dict's
    values at any depth, where BFCL compares by plain Python equality with no type check (its ``dict_checker``, and
    its ``list_checker`` for a list whose nested type check it skips): there ``True`` equals ``1``.
    """
    if isinstance(value, list | tuple) and not value and "" in allowed:
        return True
    return any(_matches(value, answer, untyped) for answer in allowed if answer != "" or isinstance(value, str))


def _type_ok(value: Any, schema_type: str) -> bool:
    if schema_type == "integer":
        return type(value) is int
    if schema_type == "number":
        return type(value) in (int, float)
    if schema_type == "string":
        return isinstance(value, str)
    if schema_type == "boolean":
        return isinstance(value, bool)
    if schema_type == "array":
        return isinstance(value, list | tuple)
    if schema_type == "object":
        return isinstance(value, Mapping)
    if schema_type == "null":
        return value is None
    return True


def _kind(value: Any) -> type:
    return list if isinstance(value, tuple) else dict if isinstance(value, Mapping) else type(value)


def _answer_kinds(allowed: Sequence[Any]) -> set[type]:
    kinds = {_kind(a) for a in allowed if a != ""}
    if float in kinds:
        kinds.add(int)
    return kinds


def _type_error(name: str, param: str, schema: Mapping[str, Any], value: Any,
                allowed: Sequence[Any]) -> str | None:
    """Return a sentence when ``value`` has the wrong type for ``param`` (rule 3), else None."""
    expected = json_type(schema.get("type"))
    if not (_type_ok(value, expected) or _kind(value) in _answer_kinds(allowed)):
        return (f"Parameter {param!r} of {name} should be of type {expected}, "
                f"got {type(value).__name__}: {_short(value)}.")
    items = schema.get("items")
    if expected != "array" or not isinstance(value, list | tuple) or not isinstance(items, Mapping):
        return None
    if "" in allowed:  # BFCL's nested check passes as soon as it meets the "" of an optional parameter
        return None
    item_type = json_type(items.get("type"))
    # the elements' types are checked exactly, with no int for a float (BFCL's nested ``type_checker``):
    # an element may have the type of the answer key's elements instead
    element_kinds = {_kind(e) for a in allowed if isinstance(a, list) for e in a if e != ""}
    for index, element in enumerate(value):
        exact = type(element) is float if item_type == "number" else _type_ok(element, item_type)
        if not (exact or _kind(element) in element_kinds):
            return (f"Element {index} of parameter {param!r} of {name} should be of type {item_type}, "
                    f"got {type(element).__name__}: {_short(element)}.")
    return None


def _allowed_text(allowed: Sequence[Any]) -> str:
    shown = [a for a in allowed if a != ""]
    if not shown:  # (review 85: "one of [] (or leave it out)")
        return "it left out"
    text = "one of " + _short(shown, 200) if len(shown) != 1 else _short(shown[0], 200)
    return text + (" (or leave it out)" if "" in allowed else "")


def check_call(call: Mapping[str, Any], function: Mapping[str, Any] | None,
               expected: Mapping[str, Any]) -> CheckResult:
    """Check one call against one expected call of the answer key (BFCL rules 1-5).

    Args:
        call: ``{"name": <original BFCL name>, "args": {...}}`` (``args`` may be raw text when the
            model's arguments could not be parsed: that fails with ``wrong_type``).
        function: the BFCL function doc of the expected function (``{"name", "parameters"}``), or None
            when the item does not offer it (then only the answer key is used).
        expected: one answer-key entry ``{"<name>": {"<param>": [allowed values...]}}``.

    Returns:
        A :class:`CheckResult`; the first rule broken decides the reason, in BFCL's order: name,
        required parameters, then per given parameter unexpected / type / value, then left-out
        parameters.
    """
    (name, answer), = expected.items()
    called = call.get("name")
    if called != name:
        return CheckResult.fail("wrong_name", f"Called {called!r}; expected {name!r}.")
    args = call.get("args")
    if not isinstance(args, Mapping):
        return CheckResult.fail("wrong_type",
                                f"The arguments of {name} are not a JSON object: {_short(args)}.")
    params = (function or {}).get("parameters") or {}
    properties: Mapping[str, Any] = params.get("properties") or {}
    if function is None:
        properties = {key: {} for key in answer}
    for param in params.get("required") or ():
        if param not in args:
            return CheckResult.fail("missing_parameter",
                                    f"Required parameter {param!r} of {name} is missing.")
    for param, value in args.items():
        if param not in properties:
            return CheckResult.fail("unexpected_parameter",
                                    f"Parameter {param!r} is not in the schema of {name}.")
        if param not in answer:
            return CheckResult.fail("unexpected_parameter",
                                    f"Parameter {param!r} of {name} should not be given for this question.")
        allowed = _as_list(answer[param])
        schema = properties[param] if isinstance(properties[param], Mapping) else {}
        if "type" in schema or function is not None:
            error = _type_error(name, param, schema, value, allowed)
            if error:
                return CheckResult.fail("wrong_type", error)
        # an optional list is compared whole with no element type check, as BFCL's list_checker does once its
        # nested type check met the "" (review 140)
        untyped = isinstance(value, list | tuple) and "" in allowed and json_type(schema.get("type")) == "array"
        if not value_matches(value, allowed, untyped=untyped):
            return CheckResult.fail("wrong_value", f"Parameter {param!r} of {name} is {_short(value)}; "
                                                   f"expected {_allowed_text(allowed)}.")
    for param, options in answer.items():
        if param not in args and "" not in _as_list(options):
            return CheckResult.fail("missing_parameter", f"Parameter {param!r} of {name} is missing; "
                                                         f"expected {_allowed_text(_as_list(options))}.")
    return CheckResult.ok()


def _max_matching(ok: list[list[bool]], n_actual: int) -> list[int | None]:
    """Maximum bipartite matching (Kuhn's augmenting paths): expected index -> actual index or None."""
    owner: list[int | None] = [None] * n_actual

    def augment(i: int, seen: set[int]) -> bool:
        for j in range(n_actual):
            if ok[i][j] and j not in seen:
                seen.add(j)
                if owner[j] is None or augment(owner[j], seen):  # type: ignore[arg-type]
                    owner[j] = i
                    return True
        return False

    for i in range(len(ok)):
        augment(i, set())
    pairs: list[int | None] = [None] * len(ok)
    for j, i in enumerate(owner):
        if i is not None:
            pairs[i] = j
    return pairs


def _functions_by_name(functions: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {str(f.get("name")): f for f in functions}


def _check_unordered(functions: Sequence[Mapping[str, Any]], ground_truth: Sequence[Mapping[str, Any]],
                     calls: Sequence[Mapping[str, Any]]) -> CheckResult:
    docs = _functions_by_name(functions)
    results = [[check_call(call, docs.get(next(iter(exp))), exp) for call in calls] for exp in ground_truth]
    pairs = _max_matching([[r.valid for r in row] for row in results], len(calls))
    missing = [i for i, j in enumerate(pairs) if j is None]
    if not missing:
        return CheckResult.ok()
    i = missing[0]
    name = next(iter(ground_truth[i]))
    free = [j for j in range(len(calls)) if j not in pairs]
    same = [j for j in free if calls[j].get("name") == name]
    if not same:
        others = sorted({str(calls[j].get("name")) for j in free})
        return CheckResult.fail("wrong_name", f"Expected call {i + 1} to {name!r} has no matching call; "
                                              f"the calls left are to {others}.")
    result = results[i][same[0]]
    return CheckResult.fail(result.reason or "wrong_value",
                            f"Expected call {i + 1} to {name!r} matches no call; closest, "
                            f"call {same[0] + 1}: {result.message}")


def check_calls(category: str, functions: Sequence[Mapping[str, Any]],
                ground_truth: Sequence[Mapping[str, Any]] | None,
                calls: Sequence[Mapping[str, Any]]) -> CheckResult:
    """Score one BFCL item (BFCL rules 1-7).

    Args:
        category: the item's category (decides the kind, see :func:`category_kind`).
        functions: the BFCL function docs the item offered.
        ground_truth: the answer key ``[{"<name>": {"<param>": [allowed...]}}]`` (None for
            irrelevance / relevance).
        calls: the model's calls ``[{"name": <original BFCL name>, "args": {...}}]``, in order.

    Returns:
        A :class:`CheckResult`.

    Raises:
        ValueError: a category that needs an answer key got none.
    """
    kind = category_kind(category)
    names = [str(c.get("name")) for c in calls]
    if kind == "irrelevance":
        if calls:
            return CheckResult.fail("called_when_should_not",
                                    f"Made {_calls(len(calls))} ({', '.join(names)}) although no offered "
                                    "function fits the question.")
        return CheckResult.ok()
    if kind == "relevance":
        return CheckResult.ok() if calls else CheckResult.fail("no_call", "Made no call; one was expected.")
    if ground_truth is None:
        raise ValueError(f"Category {category!r} needs an answer key to be scored.")
    if not calls:
        return CheckResult.fail("no_call", f"Made no call; expected {len(ground_truth)}.")
    if len(calls) != len(ground_truth):
        return CheckResult.fail("wrong_count", f"Made {_calls(len(calls))} ({', '.join(names)}); "
                                               f"expected {len(ground_truth)}.")
    if len(ground_truth) == 1:
        expected = ground_truth[0]
        return check_call(calls[0], _functions_by_name(functions).get(next(iter(expected))), expected)
    return _check_unordered(functions, ground_truth, calls)


def _example(answer: Any) -> Any:
    if isinstance(answer, Mapping):
        out = {}
        for key, options in answer.items():
            chosen = [o for o in _as_list(options) if o != ""]
            if chosen:
                out[key] = _example(chosen[0])
        return out
    if isinstance(answer, list | tuple):
        return [_example(a) for a in answer]
    return answer


def example_calls(ground_truth: Sequence[Mapping[str, Any]],
                  functions: Sequence[Mapping[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Build one correct answer from ``ground_truth``, an item's answer key (``[{name: {parameter: [allowed
    values]}}]``): the first allowed value of every parameter.

    Parameters whose only allowed value is ``""`` (may be left out), and, when ``functions`` is given,
    parameters outside the function's schema, are left out. Useful to test a runner or checker.

    Returns:
        ``[{"name": <original name>, "args": {...}}]``, in the key's order.
    """
    docs = _functions_by_name(functions or ())
    calls = []
    for expected in ground_truth:
        (name, answer), = expected.items()
        args = _example(answer)
        if name in docs:
            properties = (docs[name].get("parameters") or {}).get("properties") or {}
            args = {k: v for k, v in args.items() if k in properties}
        calls.append({"name": name, "args": args})
    return calls
