"""Dates, times and date-times as a model writes them: never a number or digits alone (review 128 #1).

pydantic reads a number, or a string of digits (``"20260515"``, ``"1030"``), given for a ``date``, ``datetime`` or
``time`` as a Unix timestamp (or seconds), in lax mode. A model that writes a date in digits means the date, and got
1970 back, valid and wrong, once the embedded model's grammar stopped holding the ISO form (review 126 #2).
:func:`not_digits` wraps such a core schema node so that these are refused with the form to write; the wrapper is
transparent to JSON Schema writers (:func:`toolwire._schema_strict.transparent`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic_core import PydanticCustomError

__all__ = ["WRITTEN", "NotDigits", "not_digits", "unwrapped_choices"]

WRITTEN = {"date": "a date written YYYY-MM-DD", "datetime": "a date and time written YYYY-MM-DDTHH:MM:SS",
           "time": "a time written HH:MM:SS"}


class NotDigits:
    """The ``function-before`` of a ``date``, ``datetime`` or ``time`` node: a number, or a string of digits alone
    (``"20260515"``, ``"1030"``), is refused. pydantic reads either as a Unix timestamp (or seconds), and a model
    writing a date in digits meant the date: 1970 came back, valid and wrong, once the grammar stopped holding the
    ISO form (review 128 #1). A Python caller's own ``date``/``datetime``/``time`` is taken as it is."""

    __slots__ = ("kind",)

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __call__(self, value: Any) -> Any:
        cls = value.__class__
        if (cls is int or cls is float) or (cls is str and _NUMBER.match(value)):
            read = "seconds" if self.kind == "time" else "a Unix timestamp"
            raise PydanticCustomError(f"{self.kind}_type", "Input should be {expected}, not a number or digits alone "
                                      f"(read as {read})", {"expected": WRITTEN[self.kind]})
        return value


_NUMBER = re.compile(r"\s*[+-]?\d+(?:\.\d*)?\s*\Z")  # "20260515", "+20260515", "20260515.0"


def unwrapped_choices(node: dict[str, Any], config: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``union`` core schema ``node`` with the :class:`NotDigits` wrappers in its members taken off, at any depth
    (``list[date] | list[str]``): inside a union the members decide, as pydantic does (a wrapped member lost
    pydantic's exact match, so ``datetime | str`` gave the ISO text as a ``str``: review 129 #1)."""
    choices = node.get("choices")
    if not isinstance(choices, list):
        return node
    new = _plain(choices, 0)
    return node if new is choices else {**node, "choices": new}


def _plain(value: Any, depth: int) -> Any:
    """``value`` (a core schema, or a list, tuple or dict holding schemas) without :class:`NotDigits` wrappers; the
    same object when it holds none."""
    if depth > 64:
        return value
    if isinstance(value, dict):
        function = value["function"].get("function") if isinstance(value.get("function"), dict) else None
        if value.get("type") == "function-before" and isinstance(function, NotDigits):
            return {**value["schema"], **({"ref": value["ref"]} if "ref" in value else {})}
        out = {key: _plain(item, depth + 1) for key, item in value.items()}
        return value if all(out[key] is item for key, item in value.items()) else out
    if isinstance(value, list | tuple):
        items = [_plain(item, depth + 1) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else type(value)(items)
    return value


def not_digits(node: dict[str, Any], config: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``date``, ``datetime`` or ``time`` core schema ``node`` refusing numbers and digits alone
    (:class:`NotDigits`), or ``node`` itself when it (else ``config``) is strict: a strict node is read in JSON mode
    (``_schema_json``), which a wrapper would hide, and such a field still reads ``"20260515"`` as pydantic does. A
    ``ref`` moves to the wrapper."""
    strict = node["strict"] if "strict" in node else (config or {}).get("strict")
    if strict:
        return node
    inner = {k: v for k, v in node.items() if k != "ref"}
    out = {"type": "function-before", "function": {"type": "no-info", "function": NotDigits(node["type"])},
           "schema": inner}
    if "ref" in node:
        out["ref"] = node["ref"]
    return out


_WRITTEN_ERRORS = frozenset(f"{kind}_written" for kind in WRITTEN)


def fit_written_errors(errors: list[Any], path: Callable[[tuple[Any, ...]], str]) -> list[Any]:
    """The errors of a failed validation with a union's date member's own error made true of the value (review 233
    #5): that error (``date_written``, from :func:`toolwire._schema_unions.dates_apart`) says "not a number or digits
    alone", which fits a number or digits; for another value it is left out where a date error of pydantic's own
    at the same place gives the reason (``month value is outside expected range``), else it keeps only "Input
    should be a date written YYYY-MM-DD".

    Args:
        errors: pydantic's ``ValidationError.errors()`` dicts.
        path: the place of a ``loc`` as the model reads it (union member labels left out).

    Returns:
        The errors, in order, changed where said (new dicts; the others as given).
    """
    if not any(err.get("type") in _WRITTEN_ERRORS for err in errors):
        return errors
    out: list[Any] = []
    for err in errors:
        kind, value = err.get("type"), err.get("input")
        if kind not in _WRITTEN_ERRORS or value.__class__ in (int, float) or (
                isinstance(value, str) and _NUMBER.match(value)):
            out.append(err)
            continue
        family = kind.removesuffix("_written") + "_"
        place = path(tuple(err.get("loc", ())))
        if any(other is not err and str(other.get("type", "")).startswith(family) and other.get("input") == value
               and path(tuple(other.get("loc", ()))) == place for other in errors):
            continue  # (pydantic's own reason is given)
        expected = (err.get("ctx") or {}).get("expected") or WRITTEN[kind.removesuffix("_written")]
        out.append({**err, "msg": f"Input should be {expected}"})
    return out

