"""Review 294 #2: an ``enum.Flag`` argument sent as an integral float (``6.0``) was refused in a fresh process and
accepted once any call had built the composite member 6 (Python's ``Flag`` caches it): it is now read as the int every
time, as ``int`` and ``IntEnum`` parameters read it; a non-integral float (or one out of the flags' range) is refused
as before. The test below failed before the fix.
"""

from __future__ import annotations

import enum

import pytest

from toolwire import Tool, tool


def _call(t: Tool, args: dict) -> tuple[str, str]:
    result = t.invoke({"type": "tool_call", "id": "1", "name": t.name, "args": args})
    return result.status, result.content


# -- 2: an enum.Flag given an integral float -----------------------------------------------------------------------


def _perm() -> type[enum.Flag]:
    class Perm(enum.Flag):  # (a class of its own each time: no composite member cached by an earlier test)
        R = 4
        W = 2
        X = 1
    return Perm


def test_flag_takes_an_integral_float_in_a_fresh_process_and_after_other_calls() -> None:
    perm_cls = _perm()

    @tool
    def chmod(perm: perm_cls) -> str:  # type: ignore[valid-type]
        """Set permissions."""
        return repr(perm)

    first = [_call(chmod, {"perm": value}) for value in (6.0, 3.0, 7.0, 0.0)]
    assert first == [("success", repr(perm_cls(n))) for n in (6, 3, 7, 0)]
    assert _call(chmod, {"perm": 6}) == ("success", repr(perm_cls(6)))
    assert [_call(chmod, {"perm": value}) for value in (6.0, 3.0, 7.0, 0.0)] == first
    assert chmod.invoke({"perm": 5.0}) == repr(perm_cls(5))


@pytest.mark.parametrize("value", [6.5, 8.0, -1.0, float("inf"), float("nan"), 1e300, True])
def test_flag_still_refuses_other_floats(value: float) -> None:
    perm_cls = _perm()

    @tool
    def chmod(perm: perm_cls) -> str:  # type: ignore[valid-type]
        """Set permissions."""
        return repr(perm)

    _call(chmod, {"perm": 7})  # (every composite member cached: the answer must not depend on it)
    status, content = _call(chmod, {"perm": value})
    assert status == "error", content
