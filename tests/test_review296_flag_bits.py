"""Review 296 #3: ``@tool`` on an ``enum.Flag`` (or ``IntFlag``) with a high bit (``1 << 31``, ``1 << 62``) walked every
integer up to the flags' mask to list the combinations, so decoration hung (the tests below failed before the fix).
The combinations are now built from the flags' bits: the same list, at once.
"""

from __future__ import annotations

import enum
import subprocess
import sys
import textwrap

import pytest

from toolwire import Tool, tool
from toolwire._schema_enums import flag_schema


def _call(t: Tool, args: dict) -> tuple[str, str]:
    result = t.invoke({"type": "tool_call", "id": "1", "name": t.name, "args": args})
    return result.status, result.content


def _decorated(cls: type) -> Tool:
    @tool
    def grant(p: cls) -> str:  # type: ignore[valid-type]
        """Grant permissions."""
        return repr(p)
    return grant


@pytest.mark.parametrize("bit", [31, 53, 62, 200])
def test_flag_with_a_high_bit_is_decorated_at_once(bit: int) -> None:
    # (in a child process, so a regression fails on its timeout rather than hanging the suite)
    code = textwrap.dedent(f"""
        import enum
        from toolwire import tool
        Perm = enum.Flag("Perm", {{"READ": 1, "ADMIN": 1 << {bit}}})
        @tool
        def grant(p: Perm) -> str:
            '''Grant permissions.'''
            return repr(p)
        print(grant.spec.parameters["properties"]["p"]["enum"])
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str([0, 1, 1 << bit, (1 << bit) + 1])


def test_flag_with_a_high_bit_validates_by_its_bits() -> None:
    Perm = enum.Flag("Perm", {"READ": 1, "WRITE": 4, "ADMIN": 1 << 31})
    IPerm = enum.IntFlag("IPerm", {"READ": 1, "WRITE": 4, "ADMIN": 1 << 62})
    for cls, high in ((Perm, 1 << 31), (IPerm, 1 << 62)):
        t = _decorated(cls)
        prop = t.spec.parameters["properties"]["p"]
        assert prop["enum"] == [0, 1, 4, 5, high, high + 1, high + 4, high + 5]
        assert _call(t, {"p": high + 5})[0] == "success"
        assert _call(t, {"p": 0})[0] == "success"
        for bad in (2, high + 2, high * 2, -1):
            assert _call(t, {"p": bad})[0] == "error", bad


def test_small_flags_are_published_as_before() -> None:
    class Perm(enum.Flag):
        R = 4
        W = 2
        X = 1
        RW = 6

    class Sparse(enum.Flag):
        A = 1
        B = 4
        C = 16
        A2 = 1  # (an alias)

    class Wide(enum.IntFlag):
        A = 1
        B = 4
        C = 16
        D = 64
        E = 256
        F = 1024
        G = 4096

    assert flag_schema({"enum": [1, 2, 4]}, Perm) == {
        "type": "integer", "minimum": 0, "maximum": 7,
        "description": "The sum of the chosen flags: R = 4, W = 2, X = 1 (0 for none)."}
    sparse = flag_schema({"enum": [1, 4, 16], "title": "Sparse"}, Sparse)
    assert sparse["enum"] == [n for n in range(22) if not n & ~21]
    assert sparse["title"] == "Sparse"
    wide = flag_schema({"enum": [1]}, Wide)
    assert (wide["minimum"], wide["maximum"]) == (0, 5461) and "enum" not in wide
