"""Review 195 #2: a call given only as an Anthropic ``tool_use`` content block (the Anthropic SDK's message form, or
a LangChain AIMessage with such a block and empty ``tool_calls``) is read as that turn's call, and a user turn's
``tool_result`` blocks as ToolMessages, so no provider sends a result without its call."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolwire.errors import UserError
from toolwire.messages import AIMessage, HumanMessage, ToolMessage, coerce_messages, message_from_dict
from toolwire.models import ChatAnthropic, ChatGoogleGenAI, ChatOpenAI
from toolwire.models.lowering.anthropic import lower_messages

USE = {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}}
SDK_HISTORY = [  # as the anthropic SDK writes a conversation
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": [{"type": "text", "text": "Checking."}, USE]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "sunny"}]},
]


def _anthropic_body(history: Any) -> list[dict[str, Any]]:
    model = ChatAnthropic(model="claude-sonnet-4-5", api_key="sk-ant-test")
    return model._lower(model._request(history, {}))["messages"]


def _openai_body(history: Any) -> list[dict[str, Any]]:
    model = ChatOpenAI(model="gpt-4o", api_key="sk-test")
    return model._lower(model._request(history, {}))["messages"]


def _gemini_body(history: Any) -> list[dict[str, Any]]:
    model = ChatGoogleGenAI(model="gemini-2.5-flash", api_key="test")
    return json.loads(json.dumps(model._lower(model._request(history, {}))["contents"], default=str))


def test_sdk_history_sends_the_tool_use_with_its_result_to_anthropic() -> None:
    turns = _anthropic_body(SDK_HISTORY)
    assert turns[1] == {"role": "assistant", "content": [{"type": "text", "text": "Checking."}, USE]}
    assert turns[2] == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": "sunny"}]}


def test_sdk_history_is_read_as_a_call_and_its_tool_message() -> None:
    messages = coerce_messages(SDK_HISTORY)
    assert [type(m) for m in messages] == [HumanMessage, AIMessage, ToolMessage]
    assert messages[1].tool_calls == [{"name": "get_weather", "args": {"city": "Paris"}, "id": "toolu_01",
                                       "type": "tool_call"}]
    assert messages[2].tool_call_id == "toolu_01" and messages[2].content == "sunny"


def test_sdk_history_is_valid_for_openai_and_gemini() -> None:
    turns = _openai_body(SDK_HISTORY)
    assert turns[1]["tool_calls"][0]["id"] == "toolu_01"
    assert turns[2] == {"role": "tool", "tool_call_id": "toolu_01", "content": "sunny"}
    contents = _gemini_body(SDK_HISTORY)
    assert contents[1]["parts"][-1]["function_call"] == {"name": "get_weather", "args": {"city": "Paris"}}
    assert contents[2]["parts"][0]["function_response"]["name"] == "get_weather"


def test_langchain_ai_message_with_only_a_tool_use_block_keeps_its_call() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    history = [lc.HumanMessage("Weather in Paris?"), lc.AIMessage(content=[USE]),
               lc.ToolMessage("sunny", tool_call_id="toolu_01")]
    turns = _anthropic_body(history)
    assert turns[1] == {"role": "assistant", "content": [USE]}
    assert turns[2]["content"] == [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "sunny"}]
    assert "no earlier call" not in json.dumps(turns)
    assert _openai_body(history)[2] == {"role": "tool", "tool_call_id": "toolu_01", "content": "sunny"}


def test_a_block_its_calls_have_is_not_added_twice() -> None:
    call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "toolu_01"}
    message = AIMessage([USE], tool_calls=[call])
    assert coerce_messages([message])[0] is message
    turns = _anthropic_body([HumanMessage("hi"), message, ToolMessage("sunny", tool_call_id="toolu_01")])
    assert [b["type"] for b in turns[1]["content"]] == ["tool_use"]


def test_extra_block_follows_the_messages_calls_and_each_gets_one_result() -> None:
    other = {"type": "tool_use", "id": "toolu_02", "name": "get_time", "input": {}}
    message = AIMessage([USE, other], tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "toolu_01"}])
    read = coerce_messages([message])[0]
    assert [c["id"] for c in read.tool_calls] == ["toolu_01", "toolu_02"]
    turns = _anthropic_body([HumanMessage("hi"), message, ToolMessage("sunny", tool_call_id="toolu_01"),
                             ToolMessage("noon", tool_call_id="toolu_02")])
    assert [b["tool_use_id"] for b in turns[2]["content"]] == ["toolu_01", "toolu_02"]


def test_a_block_without_a_name_is_an_invalid_call_that_is_answered() -> None:
    read = message_from_dict({"role": "assistant", "content": [{"type": "tool_use", "id": "t9", "input": {}}]})
    assert read.tool_calls == [] and [c["id"] for c in read.invalid_tool_calls] == ["t9"]


def test_message_from_dict_reads_the_call_of_an_assistant_dict() -> None:
    read = message_from_dict(SDK_HISTORY[1])
    assert [c["id"] for c in read.tool_calls] == ["toolu_01"]


def test_tool_result_blocks_become_tool_messages_before_the_user_text() -> None:
    user = {"role": "user", "content": [
        {"type": "text", "text": "and also"},
        {"type": "tool_result", "tool_use_id": "toolu_01", "is_error": True,
         "content": [{"type": "text", "text": "timeout"}]}]}
    messages = coerce_messages([SDK_HISTORY[0], SDK_HISTORY[1], user])
    assert [type(m) for m in messages] == [HumanMessage, AIMessage, ToolMessage, HumanMessage]
    assert messages[2].status == "error" and messages[3].content == [{"type": "text", "text": "and also"}]
    turns = _anthropic_body([SDK_HISTORY[0], SDK_HISTORY[1], user])
    assert turns[2]["content"][0]["is_error"] is True and turns[2]["content"][1] == {"type": "text",
                                                                                      "text": "and also"}


def test_cache_control_of_a_tool_result_is_kept_for_anthropic() -> None:
    cache = {"type": "ephemeral"}
    user = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "sunny",
                                         "cache_control": cache}]}
    turns = _anthropic_body([SDK_HISTORY[0], SDK_HISTORY[1], user])
    assert turns[2]["content"][0]["content"] == [{"type": "text", "text": "sunny", "cache_control": cache}]


def test_a_result_with_no_tool_use_is_never_sent_as_a_tool_result() -> None:
    user = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_77", "content": "sunny"}]}
    turns = _anthropic_body([SDK_HISTORY[0], {"role": "assistant", "content": "Hm."}, user])
    assert "tool_result" not in json.dumps(turns) and "toolu_77" in json.dumps(turns)


def test_a_tool_result_without_its_id_is_refused() -> None:
    with pytest.raises(UserError, match="tool_use_id"):
        coerce_messages([{"role": "user", "content": [{"type": "tool_result", "content": "sunny"}]}])


def test_lower_messages_reads_the_blocks_itself() -> None:
    _, turns = lower_messages([HumanMessage("hi"), AIMessage([USE]),
                               HumanMessage([{"type": "tool_result", "tool_use_id": "toolu_01", "content": "ok"}])])
    assert turns[1]["content"] == [USE]
    assert turns[2]["content"] == [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "ok"}]
