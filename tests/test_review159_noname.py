"""Review 159 #4: a streamed call with no name, merged without the tools, gets invoke's error (the tools listed)."""

from __future__ import annotations

from toolwire.messages import AIMessageChunk, merge_chunks
from toolwire.models.lowering._calls import native_call, remember_streamed


def test_a_streamed_call_without_a_name_lists_the_tools_when_merged_without_them() -> None:
    tools = {"get_weather": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
    piece = {"name": None, "args": '{"city": "Paris"}', "id": "call_review159_4", "index": 0,
             "type": "tool_call_chunk"}
    remember_streamed([piece], tools)
    merged = merge_chunks([AIMessageChunk("", tool_call_chunks=[piece])], as_chunk=False)  # type: ignore[list-item]
    expected = native_call("", '{"city": "Paris"}', "call_review159_4", tools)["error"]  # type: ignore[typeddict-item]
    assert "get_weather" in expected
    assert [c["error"] for c in merged.invalid_tool_calls] == [expected]
