"""Review 231: schema half-fixes (#1 error texts of a union holding a date, #2 enum.Flag bounds, #5 a partial of a
bound singledispatchmethod, #6 flat arguments of a tool whose own parameter is named ``parameters``)."""

from __future__ import annotations

import enum
from typing import Any

import pytest

from toolwire import tool

# ------------------------------------------------------------------ #2: enum.Flag / IntFlag bounds


class _Perm(enum.Flag):
    READ = 1
    WRITE = 2
    EXEC = 4


class _Big(enum.IntFlag):
    A = 1
    B = 2
    C = 4
    D = 8
    E = 16
    F = 32
    H = 128


@tool
def _set_permissions(path: str, perm: _Perm, extra: _Big = _Big.A) -> str:
    """Set a file's permissions.

    Args:
        path: the file
        perm: the permissions
        extra: more flags
    """
    return f"{perm.value} {extra.value}"


def _text(t: Any, args: dict[str, Any]) -> str:
    try:
        return str(t.invoke(args))
    except Exception as exc:  # (the error text the model reads)
        return f"Error: {exc}"


@pytest.mark.parametrize("args", [{"perm": -1}, {"perm": -4}, {"perm": 8}, {"perm": 1, "extra": -1},
                                  {"perm": 1, "extra": 64}, {"perm": 1, "extra": 192}, {"perm": 1, "extra": 1000}])
def test_a_flag_outside_its_bits_is_refused(args: dict[str, Any]) -> None:
    text = _text(_set_permissions, {"path": "a", **args})
    assert text.startswith("Error: Invalid arguments"), text
    assert "Input should be a combination of the flags" in text


@pytest.mark.parametrize("args, expected", [({"perm": 0}, "0 1"), ({"perm": 7}, "7 1"),
                                            ({"perm": 5, "extra": 191}, "5 191"), ({"perm": 1, "extra": 0}, "1 0")])
def test_a_flag_combination_is_taken(args: dict[str, Any], expected: str) -> None:
    assert _text(_set_permissions, {"path": "a", **args}) == expected


def test_a_callers_own_flag_member_is_taken() -> None:
    assert _text(_set_permissions, {"path": "a", "perm": _Perm.READ | _Perm.EXEC}) == "5 1"
