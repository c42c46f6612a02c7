"""from_langchain_messages reads a call kept only as an Anthropic tool_use block, as a model reads its input
(review 195 #2)."""

from __future__ import annotations

import pytest

lc = pytest.importorskip("langchain_core.messages")

from toolwire.interop.langchain import from_langchain_messages  # noqa: E402
from toolwire.messages import AIMessage, ToolMessage  # noqa: E402


def test_tool_use_block_and_tool_result_block_are_read() -> None:
    out = from_langchain_messages([
        lc.HumanMessage("Weather in Paris?"),
        lc.AIMessage(content=[{"type": "text", "text": "Checking."},
                              {"type": "tool_use", "id": "toolu_01", "name": "get_weather",
                               "input": {"city": "Paris"}}]),
        lc.HumanMessage(content=[{"type": "tool_result", "tool_use_id": "toolu_01", "content": "sunny"}]),
    ])
    assert isinstance(out[1], AIMessage)
    assert out[1].tool_calls == [{"name": "get_weather", "args": {"city": "Paris"}, "id": "toolu_01",
                                  "type": "tool_call"}]
    assert isinstance(out[2], ToolMessage) and out[2].tool_call_id == "toolu_01" and out[2].text == "sunny"
    assert len(out) == 3


def test_a_block_its_calls_already_hold_is_not_read_twice() -> None:
    message = lc.AIMessage(content=[{"type": "tool_use", "id": "t1", "name": "f", "input": {}}],
                           tool_calls=[{"name": "f", "args": {}, "id": "t1"}])
    assert [c["id"] for c in from_langchain_messages([message])[0].tool_calls] == ["t1"]
