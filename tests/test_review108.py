"""Review 108 #3: with ``parallel_tool_calls=False`` and a ``tool_choice`` that names a tool, a streamed reply keeps the
call ``invoke`` keeps (the forced tool's, wherever it stands), so a streamed Agent run runs the same tool."""

from __future__ import annotations

import pytest

from toolwire import Agent, AIMessage, ToolMessage, tool
from toolwire.messages import merge_chunks, tool_call
from toolwire.testing import ScriptedChatModel


@tool
def a(x: int) -> str:
    """Tool a."""
    return f"a{x}"


@tool
def b(x: int) -> str:
    """Tool b."""
    return f"b{x}"


def _bound(reply: AIMessage) -> object:
    return ScriptedChatModel([reply], cycle=True, stream_pieces=3).bind_tools([a, b], tool_choice="b",
                                                                             parallel_tool_calls=False)


@pytest.mark.parametrize(("calls", "kept"), [
    ([("a", 1, "c1"), ("b", 2, "c2")], ("b", "c2")),  # the forced call after another: it is kept, as by invoke
    ([("b", 2, "c2"), ("a", 1, "c1")], ("b", "c2")),
    ([("a", 1, "c1"), ("a", 3, "c3")], ("a", "c1")),  # no call of the forced tool: the first, as by invoke
])
def test_a_stream_keeps_the_call_invoke_keeps(calls, kept) -> None:
    reply = AIMessage("", tool_calls=[tool_call(name, {"x": x}, cid) for name, x, cid in calls])
    model = _bound(reply)
    whole = model.invoke("go")
    streamed = merge_chunks(list(model.stream("go")), as_chunk=False)
    assert [(c["name"], c["id"]) for c in whole.tool_calls] == [kept]
    assert streamed.tool_calls == whole.tool_calls
    assert streamed.response_metadata.get("dropped_tool_calls") == whole.response_metadata.get("dropped_tool_calls")


def test_the_kept_call_comes_whole_at_the_end() -> None:
    reply = AIMessage("", tool_calls=[tool_call("b", {"x": 2}, "c2"), tool_call("a", {"x": 1}, "c1")])
    chunks = list(_bound(reply).stream("go"))
    assert not any(c.tool_call_chunks for c in chunks[:-1])  # held to the end, to keep invoke's call (review 241 #1)
    assert [p["name"] for p in chunks[-1].tool_call_chunks] == ["b"]


def test_a_streamed_agent_run_runs_the_forced_tool() -> None:
    reply = AIMessage("", tool_calls=[tool_call("a", {"x": 1}, "c1"), tool_call("b", {"x": 2}, "c2")])
    model = ScriptedChatModel([reply, "done"]).bind_tools([], parallel_tool_calls=False)
    agent = Agent(model, [a, b], tool_choice="b")
    stream = agent.stream("go", stream_tokens=True)
    list(stream)
    assert [m.content for m in stream.messages if isinstance(m, ToolMessage)] == ["b2"]
