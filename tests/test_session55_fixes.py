"""Fixes made in session 55 outside the reviews' fixers: a call the program removed stays removed through
LangChain's messages (review 246 #3, the part left open)."""

from __future__ import annotations

import pytest

lc = pytest.importorskip("langchain_core.messages")

from toolwire.interop.langchain import from_langchain_messages, to_langchain_messages  # noqa: E402
from toolwire.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402


def _refused() -> AIMessage:
    reply = AIMessage([{"type": "text", "text": "I'll delete it."},
                       {"type": "tool_use", "id": "toolu_1", "name": "delete_file", "input": {"path": "/etc/hosts"}}],
                      tool_calls=[{"name": "delete_file", "args": {"path": "/etc/hosts"}, "id": "toolu_1"}])
    return reply.model_copy(update={"tool_calls": []})  # type: ignore[return-value]


def test_a_removed_call_is_not_a_call_of_the_langchain_message() -> None:
    (converted,) = to_langchain_messages([_refused()])
    assert converted.tool_calls == []
    assert converted.content[1]["type"] == "tool_use"  # the content is kept as it was


def test_a_removed_call_does_not_come_back_from_langchain_and_back() -> None:
    refused = _refused()
    (again,) = from_langchain_messages(to_langchain_messages([refused]))
    assert again.tool_calls == []
    assert again.content == refused.content
    assert "toolwire_content_blocks_read" not in (again.response_metadata.get("additional_kwargs") or {})


def test_one_message_alone_is_converted_as_it_is_too() -> None:
    assert to_langchain_messages(_refused())[0].tool_calls == []


def test_a_kept_call_and_its_result_still_go_both_ways() -> None:
    reply = AIMessage([{"type": "tool_use", "id": "t1", "name": "a", "input": {"x": 1}}],
                      tool_calls=[{"name": "a", "args": {"x": 1}, "id": "t1"}])
    back = from_langchain_messages(to_langchain_messages([HumanMessage("q"), reply, ToolMessage("r", "t1")]))
    assert [c["id"] for c in back[1].tool_calls] == ["t1"]
    assert isinstance(back[2], ToolMessage) and back[2].tool_call_id == "t1"


def test_a_foreign_langchain_tool_use_block_is_still_read_as_its_call() -> None:
    (read,) = from_langchain_messages([lc.AIMessage(content=[
        {"type": "tool_use", "id": "toolu_9", "name": "get_time", "input": {}}])])
    assert [c["id"] for c in read.tool_calls] == ["toolu_9"]


def test_anthropic_sdk_dicts_given_to_to_langchain_messages_are_still_read_as_calls() -> None:
    converted = to_langchain_messages([
        {"role": "user", "content": "time?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_9", "name": "get_time", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "12:00"}]}])
    assert [c["id"] for c in converted[1].tool_calls] == ["toolu_9"]
    assert isinstance(converted[2], lc.ToolMessage)
