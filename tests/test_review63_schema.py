"""Faults a code review of the twenty-seventh session's change found (review 63) in the boolean check, structured
output, LangChain tools and ``parallel_tool_calls=False`` streams; each kept fixed by a test here. (The others are in
``tests/test_review63.py``.)"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Annotated, Literal, TypedDict

import pytest
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypeAliasType

from toolwire import AIMessage, tool
from toolwire.chunks import AIMessageChunk
from toolwire.messages import merge_chunks
from toolwire.testing import ScriptedChatModel

MyInt = TypeAliasType("MyInt", int)


def _call(t: object, args: dict) -> object:
    return t.invoke({"name": t.name, "args": args, "id": "c", "type": "tool_call"})  # type: ignore[attr-defined]


def test_an_int_alias_used_twice_still_builds() -> None:
    """Review 63 #1: the wrapper that refuses booleans kept a definition's ``ref`` inside it, so a tool or model
    using one int alias twice failed to build (pydantic's KeyError 'ref')."""

    def f(x: MyInt, y: MyInt) -> object:
        """F."""
        return (x, y)

    made = tool(f)
    assert made.invoke({"x": 1, "y": 2}) == (1, 2)
    assert "not a boolean" in _call(made, {"x": True, "y": 2}).content  # type: ignore[attr-defined]

    class S(BaseModel):
        a: MyInt
        b: MyInt

    reply = AIMessage("", tool_calls=[{"name": "S", "args": {"a": 1, "b": 2}, "id": "c", "type": "tool_call"}])
    assert ScriptedChatModel([reply]).with_structured_output(S).invoke("x") == S(a=1, b=2)


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Plain(enum.Enum):
    ONE = 1


def test_number_literals_and_enums_refuse_booleans_and_strictness_follows_the_field() -> None:
    """Review 63 #3 and #4: ``Literal[0, 1]``, an ``IntEnum`` and a plain Enum of numbers took ``true`` as 1 (Python's
    ``True == 1``), and a field marked ``strict=False`` inside a strict model let a boolean through."""

    @tool
    def t(a: Literal[1, 2] = 1, b: Literal[0, 1] = 0, c: Level = Level.LOW, d: Plain = Plain.ONE,
          e: list[Level] | None = None, flag: Literal[True, 1] = 1) -> str:
        """T."""
        return repr((a, b, c, d, e, flag))

    for args in ({"a": True}, {"b": False}, {"c": True}, {"d": True}, {"e": [True]}):
        assert "not a boolean" in _call(t, args).content, args  # type: ignore[attr-defined]
    assert t.invoke({"a": 2, "c": 2, "e": [1]}).startswith("(2, 0, <Level.HIGH: 2>")
    assert t.invoke({"flag": True}).endswith("True)")  # a literal listing true takes it

    class Strict(BaseModel):
        model_config = ConfigDict(strict=True)
        n: Annotated[int, Field(strict=False)]

    def h(n: int) -> int:
        return n

    lax = tool(h, args_schema=Strict, description="H.")
    assert "not a boolean" in _call(lax, {"n": True}).content  # type: ignore[attr-defined]
    assert lax.invoke({"n": "5"}) == 5


def test_langchain_tools_and_typed_dict_structured_output_follow_the_same_rules() -> None:
    """Review 63 #5 and a minor one: a LangChain tool's arguments and a TypedDict's or dataclass's structured output
    were checked by pydantic alone, so ``true`` for an int passed (and a TypedDict took unknown keys its schema did not
    refuse)."""
    pytest.importorskip("langchain_core")
    from langchain_core.tools import tool as lc_tool

    from toolwire.interop.langchain import from_langchain_tool

    @lc_tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    converted = from_langchain_tool(add)
    assert _call(converted, {"a": 1, "b": 2}).content == "3"  # type: ignore[attr-defined]
    assert "not a boolean" in _call(converted, {"a": True, "b": 2}).content  # type: ignore[attr-defined]

    class Box(TypedDict):
        n: int

    @dataclass
    class Point:
        n: int

    for schema in (Box, Point):
        bound = ScriptedChatModel([AIMessage("", tool_calls=[
            {"name": schema.__name__, "args": {"n": True}, "id": "c", "type": "tool_call"}])])
        with pytest.raises(Exception, match="not a boolean"):
            bound.with_structured_output(schema).invoke("x")
    from toolwire.models.structured import _output_tool

    assert _output_tool(Box)[0].parameters["additionalProperties"] is False


def test_one_call_streams_group_calls_as_merging_does_and_keep_a_cut_call_cut() -> None:
    """Review 63 #2 and #9: with ``parallel_tool_calls=False``, a call the provider reported cut off (an invalid call
    with the kept call's id) was dropped as a second call, so its chunks merged into a valid call that would run; and
    calls told apart by name rather than index (index 0 reused, whole calls with neither) were all kept."""
    from toolwire.models._one_call import one_call_stream

    cut = [AIMessageChunk(tool_call_chunks=[{"name": "delete_file", "args": '{"path": "/tmp/a"}', "id": "t1",
                                             "index": 0}]),
           AIMessageChunk(invalid_tool_calls=[{"name": "delete_file", "args": '{"path": "/tmp/a"}', "id": "t1",
                                               "error": "cut off at max_tokens", "type": "invalid_tool_call"}],
                          response_metadata={"finish_reason": "max_tokens"})]
    merged = merge_chunks(list(one_call_stream(iter(cut))))
    assert merged.tool_calls == [] and [c["id"] for c in merged.invalid_tool_calls] == ["t1"]
    reused = [AIMessageChunk(tool_call_chunks=[{"name": "f", "args": '{"x": 1}', "id": "a", "index": 0}]),
              AIMessageChunk(tool_call_chunks=[{"name": "g", "args": '{"y": 2}', "id": "b", "index": 0}])]
    assert [c["name"] for c in merge_chunks(list(one_call_stream(iter(reused)))).tool_calls] == ["f"]
    bare = [AIMessageChunk(tool_call_chunks=[{"name": "f", "args": '{"x": 1}', "id": None, "index": None}]),
            AIMessageChunk(tool_call_chunks=[{"name": "g", "args": '{"y": 2}', "id": None, "index": None}])]
    assert [c["name"] for c in merge_chunks(list(one_call_stream(iter(bare)))).tool_calls] == ["f"]
