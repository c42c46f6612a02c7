"""Review 280 #3: the type hints of ``ToolExecutor.execute``/``aexecute`` and ``merge_chunks`` match their docs."""

from __future__ import annotations

import asyncio
import typing
from typing import Literal, assert_type, get_args

from toolwire import AIMessage, AIMessageChunk, ToolExecutor, ToolMessage, merge_chunks, tool
from toolwire.execution import ToolExecutor as _Executor


@tool
def get_weather(city: str) -> str:
    """Weather in a city.

    Args:
        city: the city.
    """
    return f"sunny in {city}"


def _chunks() -> list[AIMessageChunk]:
    return [AIMessageChunk("", tool_call_chunks=[{"name": "get_weather", "args": '{"city": ', "id": "c1", "index": 0,
                                                 "type": "tool_call_chunk"}]),
            AIMessageChunk("", tool_call_chunks=[{"name": None, "args": '"Paris"}', "id": None, "index": 0,
                                                 "type": "tool_call_chunk"}])]


def _members(hint: object) -> set[object]:
    """The classes a hint names, unions flattened."""
    args = get_args(hint)
    if not args:
        return {hint}
    return {m for a in args for m in _members(a)} | {hint}


def test_execute_takes_a_chunk_in_its_hints_and_at_run_time() -> None:
    for name in ("execute", "aexecute"):
        hints = typing.get_type_hints(getattr(_Executor, name))
        assert AIMessageChunk in _members(hints["message"]), name
    chunk = _chunks()[0] + _chunks()[1]
    results = ToolExecutor([get_weather]).execute(chunk)
    assert_type(results, list[ToolMessage])
    assert [r.content for r in results] == ["sunny in Paris"]
    assert [r.content for r in asyncio.run(ToolExecutor([get_weather]).aexecute(chunk))] == ["sunny in Paris"]


def test_merge_chunks_overloads_on_as_chunk() -> None:
    overloads = typing.get_overloads(merge_chunks)
    returns = {}
    for fn in overloads:
        hints = typing.get_type_hints(fn)
        returns[hints["as_chunk"]] = hints["return"]
    assert returns[Literal[True]] is AIMessageChunk
    assert returns[Literal[False]] is AIMessage
    assert set(get_args(returns[bool])) == {AIMessageChunk, AIMessage}

    merged = merge_chunks(_chunks())
    assert_type(merged, AIMessageChunk)
    assert isinstance(merged, AIMessageChunk)
    assert merged.to_message().tool_calls[0]["args"] == {"city": "Paris"}
    final = merge_chunks(_chunks(), as_chunk=False)
    assert_type(final, AIMessage)
    assert isinstance(final, AIMessage) and not isinstance(final, AIMessageChunk)
    flag: bool = bool(len(_chunks()))
    either = merge_chunks(_chunks(), as_chunk=flag)
    assert_type(either, AIMessageChunk | AIMessage)
    assert isinstance(either, AIMessageChunk)
