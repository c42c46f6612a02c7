"""Enums as JSON Schema writes them (private to :mod:`toolwire._schema_strict`): members whose values Python's
equality mixes up with others' (a boolean, a tuple: :class:`EnumApart`), and ``enum.Flag`` classes, whose
combinations are values too (:func:`flag_schema`, review 212 #5).
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Callable
from typing import Any

from pydantic_core import PydanticCustomError, ValidationError

__all__ = ["EnumApart", "FlagError", "enum_apart", "flag_error", "flag_schema", "shown"]


def shown(values: list[Any]) -> str:
    """``values`` listed as pydantic's errors list them (``1, 2 or 3``)."""
    shown = [repr(v) for v in values]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def _tupled(value: Any) -> Any:
    """``value`` with every list in it a tuple (a JSON array for a tuple-valued Enum member)."""
    return tuple(_tupled(v) for v in value) if value.__class__ is list else value


class EnumApart:
    """The ``function-wrap`` of an ``enum`` with a boolean- or tuple-valued member (review 94, findings 9 and 12).

    A boolean member's value is JSON ``true``/``false``, which JSON Schema's ``enum`` keeps apart from ``1``/``0``,
    but pydantic finds a member by Python equality (``1 == True``): a number given a boolean member, or a boolean a
    number member, is refused. A tuple member's value is written as a JSON array (``[1, 2]``), which pydantic would
    not find (``[1, 2] != (1, 2)``): an array is turned into the member with that tuple value."""

    __slots__ = ("bools", "expected", "tuples")

    def __init__(self, members: list[Any]) -> None:
        self.bools = any(type(m.value) is bool for m in members)
        self.tuples = {m.value: m for m in members if type(m.value) is tuple}
        self.expected = shown([m.value for m in members])

    def __call__(self, value: Any, handler: Callable[[Any], Any]) -> Any:
        if self.tuples and value.__class__ is list:
            with contextlib.suppress(TypeError):  # (an unhashable item: no member's value)
                value = self.tuples.get(_tupled(value), value)
        result = handler(value)
        if (self.bools and not isinstance(value, enum.Enum) and isinstance(result, enum.Enum)
                and (value.__class__ is bool) != (result.value.__class__ is bool)):
            raise PydanticCustomError("enum", "Input should be {expected}", {"expected": self.expected})
        return result


def enum_apart(node: dict[str, Any]) -> dict[str, Any]:
    """The ``enum`` node ``node`` wrapped by :class:`EnumApart` when a member holds a boolean or a tuple, else
    ``node``. A definition's ``ref`` moves to the wrapper, where pydantic looks for it."""
    members = node.get("members") or []
    if not any(type(getattr(m, "value", None)) in (bool, tuple) for m in members):
        return node
    out = {"type": "function-wrap", "function": {"type": "no-info", "function": EnumApart(members)},
           "schema": {k: v for k, v in node.items() if k != "ref"}}
    if "ref" in node:
        out["ref"] = node["ref"]
    return out


def flag_schema(out: dict[str, Any], cls: Any) -> dict[str, Any]:
    """The JSON Schema ``out`` pydantic wrote for the enum ``cls``; for an ``enum.Flag`` of integer values, the
    integers it takes: any combination of its flags (``READ | WRITE`` is ``3``), not only the single flags pydantic
    lists (``enum: [1, 2, 4]`` refused ``3``, which the function takes: review 212 #5), with the flags named in the
    description. Flags of adjacent bits give ``minimum: 0``/``maximum`` (every number between is a combination);
    others every combination in ``enum`` (up to 64 of them, built from the flags' bits, so a high bit such as
    ``1 << 31`` costs nothing: review 296 #3), and more than six such flags the range again (the
    description saying which bits there are; validation refuses a number of other bits: review 222 #7). Any other
    enum's ``out`` as it is."""
    if not (isinstance(cls, type) and issubclass(cls, enum.Flag)):
        return out
    members = list(cls.__members__.values())
    if not members or any(type(m.value) is not int or m.value < 0 for m in members):
        return out
    flags = [m for m in members if m.value and not m.value & (m.value - 1)]  # (single bits; not READ_WRITE = 3)
    mask = 0
    for member in flags:
        mask |= member.value
    names = ", ".join(f"{m.name} = {m.value}" for m in flags)
    note = f"The sum of the chosen flags: {names} (0 for none)."
    written = out.get("description")
    rest = {k: v for k, v in out.items() if k not in ("enum", "type", "description", "const")}
    if not mask & (mask + 1):  # 1, 2, 4...: every number from 0 to the mask
        rest.update(minimum=0, maximum=mask)
    elif len(flags) <= 6:
        rest["enum"] = _combinations(flags)
    else:  # (too many combinations to list: the range, with the flags named; validation refuses other bits)
        rest.update(minimum=0, maximum=mask)
    return {"type": "integer", **rest,
            "description": f"{written.rstrip()} {note}" if isinstance(written, str) and written.strip() else note}


def _combinations(flags: list[Any]) -> list[int]:
    """Every combination of the single-bit members ``flags`` (the sums of their subsets, 0 for none), in increasing
    order: built from their bits, not by walking every number up to their mask, which hung on a high bit such as
    ``1 << 31`` (review 296 #3)."""
    values = {0}
    for member in flags:
        values |= {value | member.value for value in values}
    return sorted(values)


def _single_flags(cls: Any) -> list[Any] | None:
    """The single-bit members of the ``enum.Flag`` ``cls`` of non-negative integer values, else None."""
    if not (isinstance(cls, type) and issubclass(cls, enum.Flag)):
        return None
    members = list(cls.__members__.values())
    if not members or any(type(m.value) is not int or m.value < 0 for m in members):
        return None
    return [m for m in members if m.value and not m.value & (m.value - 1)]


class FlagError:
    """The ``function-wrap`` of an ``enum.Flag`` node: a value it refuses as no member is refused as no combination
    of its flags, which is what the schema offers (:func:`flag_schema`); pydantic's own error listed the single
    flags ("Input should be 1, 2 or 4"), telling the model that ``3`` is not allowed (review 222 #7). A number
    outside ``0..mask`` or holding another bit is refused with the same words, as the schema's ``minimum`` and
    ``maximum`` say: Python's ``Flag`` reads ``-1`` as every flag and ``-4`` as ``EXEC``, and an ``IntFlag`` keeps
    any other bits (review 231 #2). A caller's own member is taken as it is. An integral float (``6.0``, which JSON
    Schema counts as the integer the schema asks for) is read as that int: pydantic's handler found it only once
    Python's ``Flag`` had cached the composite member 6, so the answer hung on earlier calls (review 294 #2)."""

    __slots__ = ("expected", "mask")

    def __init__(self, flags: list[Any]) -> None:
        mask = 0
        for member in flags:
            mask |= member.value
        names = ", ".join(f"{m.name} = {m.value}" for m in flags)
        self.expected = f"a combination of the flags {names}: the sum of the chosen ones, from 0 to {mask}"
        self.mask = mask

    def __call__(self, value: Any, handler: Callable[[Any], Any]) -> Any:
        if value.__class__ is float and value.is_integer() and 0 <= value <= self.mask:  # (others refused below)
            value = int(value)
        try:
            result = handler(value)
        except ValidationError as exc:
            if any(error.get("type") == "enum" for error in exc.errors()):
                raise PydanticCustomError("enum", "Input should be {expected}", {"expected": self.expected}) from None
            raise
        if isinstance(value, enum.Enum) or not isinstance(result, enum.Flag):
            return result
        got = result.value
        if value.__class__ in (int, float):
            got = value
        elif value.__class__ is str:
            with contextlib.suppress(ValueError):
                got = float(value)
        if got != result.value or not 0 <= got <= self.mask or result.value & ~self.mask:
            raise PydanticCustomError("enum", "Input should be {expected}", {"expected": self.expected})
        return result


def flag_error(node: dict[str, Any]) -> dict[str, Any]:
    """The core schema ``node`` (an ``enum`` node of an ``enum.Flag``, perhaps wrapped already) refusing a value
    with :class:`FlagError`'s words; ``node`` itself for any other enum. A ``ref`` moves to the wrapper."""
    inner = node
    while inner.get("type") in ("function-before", "function-wrap") and isinstance(inner.get("schema"), dict):
        inner = inner["schema"]
    flags = _single_flags(inner.get("cls")) if inner.get("type") == "enum" else None
    if not flags:
        return node
    out = {"type": "function-wrap", "function": {"type": "no-info", "function": FlagError(flags)},
           "schema": {k: v for k, v in node.items() if k != "ref"}}
    if "ref" in node:
        out["ref"] = node["ref"]
    return out
