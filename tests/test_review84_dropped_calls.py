"""Review 84 #9: with parallel_tool_calls=False, the calls dropped from a reply are counted in
``response_metadata["dropped_tool_calls"]`` for every model, as Gemini's lowering already did, in invoke and stream
alike (the merged stream equals invoke)."""

from __future__ import annotations

import asyncio

from toolwire import AIMessage, tool
from toolwire.messages import merge_chunks
from toolwire.testing import ScriptedChatModel


@tool
def send(to: str) -> str:
    """Send a note."""
    return to


def _two_calls() -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "send", "args": {"to": "a"}, "id": "c1"},
                                     {"name": "send", "args": {"to": "b"}, "id": "c2"}])


def test_dropped_calls_are_counted_in_invoke_and_stream() -> None:
    bound = ScriptedChatModel([_two_calls()], cycle=True).bind_tools([send], parallel_tool_calls=False)
    reply = bound.invoke("note a and b")
    streamed = merge_chunks(list(bound.stream("note a and b")), as_chunk=False)

    async def collect() -> list:
        return [chunk async for chunk in bound.astream("note a and b")]

    astreamed = merge_chunks(asyncio.run(collect()), as_chunk=False)
    for message in (reply, streamed, astreamed):
        assert [c["id"] for c in message.tool_calls] == ["c1"]
        assert message.response_metadata["dropped_tool_calls"] == 1


def test_a_reply_with_one_call_says_nothing_of_dropped_calls() -> None:
    one = AIMessage("", tool_calls=[{"name": "send", "args": {"to": "a"}, "id": "c1"}])
    bound = ScriptedChatModel([one], cycle=True).bind_tools([send], parallel_tool_calls=False)
    assert "dropped_tool_calls" not in bound.invoke("note a").response_metadata
    assert "dropped_tool_calls" not in merge_chunks(list(bound.stream("note a")), as_chunk=False).response_metadata
