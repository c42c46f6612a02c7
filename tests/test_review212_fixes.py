"""Review 212: tools made from real-world functions (unions of bool and numbers, dates in unions, singledispatch
functions, Napoleon's ``(:obj:`int`, optional)`` entries, ``enum.Flag`` parameters)."""

from __future__ import annotations

import asyncio
import datetime as dt
import enum
import functools
import warnings
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel

from toolwire import ToolExecutor, tool
from toolwire.errors import SchemaError
from toolwire.messages import ToolCall


def _paths(t: Any, args: dict[str, Any]) -> list[Any]:
    """What the function gets (or the error text) on every invoke path: invoke(args), invoke(tool_call),
    ainvoke(tool_call), ToolExecutor."""
    call = {"type": "tool_call", "id": "c1", "name": t.name, "args": args}
    out = []
    try:
        out.append(t.invoke(args))
    except Exception as exc:  # (invoke(args) raises what the tool call reports)
        out.append(f"raised {type(exc).__name__}")
    out.append(t.invoke(call).content)
    out.append(asyncio.run(t.ainvoke(call)).content)
    out.append(ToolExecutor([t]).execute([ToolCall(**call)])[0].content)
    return out


@tool
def _count(flag_or_count: bool | int = 0, counts: list[bool | int] = [],  # noqa: B006
           ratio: float | bool | None = None) -> str:
    """Count things.

    Args:
        flag_or_count: True to refill, or a number of units
        counts: flags or counts
        ratio: a ratio, or False
    """
    return repr((flag_or_count, counts, ratio))


@pytest.mark.parametrize(("args", "expected"), [
    ({"flag_or_count": 1.0}, "(1, [], None)"),
    ({"flag_or_count": 0.0}, "(0, [], None)"),
    ({"flag_or_count": "1"}, "(1, [], None)"),
    ({"counts": [2.0, 1.0, 0.0, True]}, "(0, [2, 1, 0, True], None)"),
    ({"ratio": 1}, "(0, [], 1.0)"),
    ({"flag_or_count": True, "ratio": False}, "(True, [], False)"),
    ({"flag_or_count": "true"}, "(True, [], None)"),
])
def test_a_whole_number_is_never_read_as_a_boolean_in_a_union(args: dict[str, Any], expected: str) -> None:
    """(#1) ``bool | int`` reads ``1.0`` as ``1``, as its schema's integer branch does, on every path (fast path)."""
    assert _paths(_count, args)[1:] == [expected] * 3
    assert _paths(_count, args)[0] == expected


@tool
def _order(item: str, at: dt.datetime | None = None, count: bool | int = 1) -> str:
    """Order an item.

    Args:
        item: what to order
        at: when
        count: a number of units, or true to refill
    """
    return repr(count)


def test_a_whole_number_is_never_read_as_a_boolean_on_the_general_path() -> None:
    """(#1) The same with a parameter the fast path does not take (a ``datetime``)."""
    assert _paths(_order, {"item": "soap", "count": 1.0}) == ["1"] * 4
    assert _paths(_order, {"item": "soap", "count": True}) == ["True"] * 4
    assert _order.parameters["properties"]["count"]["anyOf"] == [{"type": "boolean"}, {"type": "integer"}]


@tool
def _remind(due: dt.date | str, at: dt.datetime | int = 0, times: list[dt.datetime | int] = [],  # noqa: B006
            day: dt.date | dt.datetime | None = None) -> str:
    """Set a reminder.

    Args:
        due: the day, or a phrase
        at: a date-time, or an epoch second
        times: date-times or epoch seconds
        day: a day or a date-time
    """
    return repr((due, at, times, day))


@pytest.mark.parametrize(("args", "expected"), [
    ({"due": "x", "at": 1700000000}, "('x', 1700000000, [], None)"),
    ({"due": "x", "at": 1700000000.0}, "('x', 1700000000, [], None)"),
    ({"due": "x", "at": "1700000000"}, "('x', 1700000000, [], None)"),
    ({"due": "x", "times": [5.0, "7", "2025-01-01T10:00:00"]},
     "('x', 0, [5, 7, datetime.datetime(2025, 1, 1, 10, 0)], None)"),
    ({"due": "20250515"}, "('20250515', 0, [], None)"),
    ({"due": "2025-05-15"}, "(datetime.date(2025, 5, 15), 0, [], None)"),
    ({"due": "x", "day": "2025-05-15"}, "('x', 0, [], datetime.date(2025, 5, 15))"),
])
def test_a_date_in_a_union_never_reads_a_number_as_a_timestamp(args: dict[str, Any], expected: str) -> None:
    """(#3) ``datetime | int`` gives the number to ``int`` however it is written; ``date | str`` still gives ISO
    text as a date (review 129 #1) and digits as the text."""
    assert _paths(_remind, args)[1:] == [expected] * 3


def test_a_number_no_other_member_takes_is_refused_as_a_lone_date_refuses_it() -> None:
    """(#3) ``date | str`` given ``17``, ``date | datetime`` given ``5``: refused with the form to write."""
    for args in ({"due": 17}, {"due": "x", "day": 5}):
        content = _remind.invoke({"type": "tool_call", "id": "c", "name": "_remind", "args": args}).content
        assert "not a number or digits alone" in content
        assert "function-before" not in content


@functools.singledispatch
def _describe(value: int, suffix: str = "") -> str:
    """Describe a value.

    Args:
        value: the value to describe
        suffix: text to add
    """
    return f"int {value}{suffix}"


@_describe.register
def _(value: str, suffix: str = "") -> str:
    return f"str {value}{suffix}"


class _Formatter:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    @functools.singledispatchmethod
    def show(self, value: int) -> str:
        """Show a value.

        Args:
            value: the value to show
        """
        return f"{self.prefix} int {value}"

    @show.register
    def _(self, value: str) -> str:
        return f"{self.prefix} str {value}"


def test_a_singledispatch_function_runs_as_a_tool() -> None:
    """(#2) The dispatched parameter is passed by position, on every path."""
    made = tool(_describe)
    assert _paths(made, {"value": 3, "suffix": "!"}) == ["int 3!"] * 4
    assert made.invoke({"type": "tool_call", "id": "c", "name": "_describe", "args": {"value": 3}}).status == "success"


def test_a_singledispatchmethod_read_from_an_instance_runs_as_a_tool() -> None:
    """(#2) Bound to the instance it was read from, not refused as an unbound method."""
    made = tool(_Formatter("at").show)
    assert _paths(made, {"value": 3}) == ["at int 3"] * 4
    assert list(made.parameters["properties"]) == ["value"]


def test_a_singledispatch_function_whose_dispatched_parameter_has_a_default_is_refused() -> None:
    """(#2) A call leaving the parameter out could not dispatch: said when the tool is made."""
    @functools.singledispatch
    def pick(value: int = 1) -> str:
        """Pick.

        Args:
            value: what
        """
        return str(value)

    with pytest.raises(SchemaError, match="remove that parameter's default"):
        tool(pick)


def test_an_ordinary_function_keeps_its_keywords() -> None:
    """(#2) Decided at decoration: an ordinary function is still called by keyword."""
    assert _count._positional_only == ()
    assert tool(_describe)._positional_only == ("value",)


def test_napoleons_obj_role_in_an_entrys_type_keeps_the_description() -> None:
    """(#4) ``limit (:obj:`int`, optional): ...``, Napoleon's own example, describes ``limit``, with no warning."""
    def search(query: str, limit: int = 5, kind: str = "") -> str:
        """Search the catalogue.

        Args:
            query (str): The text to look for.
            limit (:obj:`int`, optional): How many results to return. Defaults to 5.
            kind (:class:`~builtins.str`): One of book, film: or any.
        """
        return query

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        made = tool(search)
    described = {k: v.get("description") for k, v in made.parameters["properties"].items()}
    assert described == {"query": "The text to look for.", "limit": "How many results to return. Defaults to 5.",
                         "kind": "One of book, film: or any."}


class _Perm(enum.Flag):
    READ = 1
    WRITE = 2
    EXEC = 4


class _Sparse(enum.Flag):
    """Sparse flags."""

    A = 1
    C = 4


class _Grant(BaseModel):
    perm: _Perm


def test_a_flag_parameter_takes_combinations_of_its_flags() -> None:
    """(#5) ``READ | WRITE`` (3) fits the schema, as the function takes it; the flags are named."""
    def grant(perm: _Perm, sparse: _Sparse = _Sparse.A, grants: list[_Grant] | None = None) -> str:
        """Grant permissions.

        Args:
            perm: the permissions to grant
            sparse: other flags
            grants: more
        """
        return repr((perm, sparse, grants))

    made = tool(grant)
    props = made.parameters["properties"]
    assert (props["perm"]["type"], props["perm"]["minimum"], props["perm"]["maximum"]) == ("integer", 0, 7)
    assert "READ = 1, WRITE = 2, EXEC = 4" in props["perm"]["description"]
    assert props["perm"]["description"].startswith("the permissions to grant")
    assert props["sparse"]["enum"] == [0, 1, 4, 5]
    jsonschema.validate({"perm": 3, "sparse": 5, "grants": [{"perm": 6}]}, made.parameters)
    assert made.invoke({"perm": 3, "sparse": 5, "grants": [{"perm": 6}]}) == repr(
        (_Perm.READ | _Perm.WRITE, _Sparse.A | _Sparse.C, [_Grant(perm=_Perm.WRITE | _Perm.EXEC)]))
    refused = made.invoke({"type": "tool_call", "id": "c", "name": "grant", "args": {"perm": True}})
    assert refused.status == "error"


def test_a_singledispatchmethod_with_no_instance_is_refused_when_the_tool_is_made() -> None:
    """(#2) In its class body, or read from its class: one sentence saying to use an instance's method."""
    with pytest.raises(SchemaError, match=r"tool\(instance.method\)"):
        tool(_Formatter.show)
    with pytest.raises(SchemaError, match=r"in its class body"):
        class _Shown:
            @tool
            @functools.singledispatchmethod
            def show(self, value: int) -> str:
                """Show.

                Args:
                    value: v
                """
                return str(value)
