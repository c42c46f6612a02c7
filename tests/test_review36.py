"""Review 36: persisting conversations as JSON and restoring them (another process, maybe another provider).

The passing tests pin what works: ``to_dict``/``message_from_dict`` through ``json``, LangChain's
``messages_to_dict`` form, pickling, a restored conversation continued by ``Agent`` and lowered by each provider
codec exactly as the original. The other tests are the faults found, each failing before its fix.
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import datetime
import enum
import json
import pickle
import re
from typing import Any

import pytest

from toolwire import Agent, AIMessage, HumanMessage, SystemMessage, ToolMessage, UserError, tool
from toolwire.examples.book import calculate, get_weather
from toolwire.messages import AIMessageChunk, BaseMessage, coerce_messages, message_from_dict
from toolwire.models.base import ChatRequest
from toolwire.models.lowering import anthropic as lower_anthropic
from toolwire.models.lowering import gemini as lower_gemini
from toolwire.models.lowering import openai as lower_openai
from toolwire.testing import ScriptedChatModel

TOOLS = (get_weather.spec, calculate.spec)
SIG = base64.b64encode(b"opaque-signature").decode()
NOT_UTF8 = b"caf\xe9.txt".decode("utf-8", "surrogateescape")  # a file name os.listdir gives on a non-UTF-8 disk


def stored(messages: list[BaseMessage]) -> str:
    """What a service writes to its database: the conversation as JSON text."""
    return json.dumps([m.to_dict() for m in messages])


def restored(text: str) -> list[BaseMessage]:
    """What another process reads back."""
    return [message_from_dict(d) for d in json.loads(text)]


def provider_conversation() -> list[BaseMessage]:
    """A conversation with a reply parsed by each provider codec (provider_data included), blocks, errors."""
    anthropic_reply = lower_anthropic.parse_response({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-x", "stop_reason": "tool_use",
        "content": [
            {"type": "thinking", "thinking": "The user wants the weather.", "signature": "WaUjzk"},
            {"type": "text", "text": "I'll check."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
             "input": {"city": "São Paulo", "n": 1.0, "big": 2**70, "nested": {"l": [1, 2.5, None]}}},
        ], "usage": {"input_tokens": 4, "output_tokens": 8}})
    gemini_reply = lower_gemini.parse_response({"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Vou ver.", "thoughtSignature": SIG},
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris", "t": 20.0}, "id": "g-1"},
         "thoughtSignature": SIG},
    ]}, "finishReason": "STOP"}]})
    responses_reply = lower_openai.parse_responses_response({
        "id": "resp_1", "object": "response", "created_at": 1, "status": "completed", "model": "gpt-4.1",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA"},
            {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
             "content": [{"type": "output_text", "text": "Checking.", "annotations": []}]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "calculate",
             "arguments": "{\"expression\":\"2+2\"}", "status": "completed"}],
        "usage": {"input_tokens": 36, "output_tokens": 87, "total_tokens": 123}})
    return [
        SystemMessage("Be brief.", id="s1"),
        HumanMessage(["Weather?", {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"},
                      {"type": "image", "url": "https://example.com/a.png"}], name="ana"),
        anthropic_reply, ToolMessage("15 C", tool_call_id="toolu_1", name="get_weather"),
        gemini_reply, ToolMessage([{"type": "text", "text": "sol"}], tool_call_id="g-1", status="error"),
        responses_reply, ToolMessage("4", tool_call_id="call_1", artifact={"x": [1, 2]}),
        AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "3"}, "id": "c3"}],
                  invalid_tool_calls=[{"name": "calculate", "args": '{"expression": "2 +', "id": "c4",
                                       "error": "cut off"}]),
        ToolMessage("9", tool_call_id="c3"), ToolMessage("Error: cut off", tool_call_id="c4", status="error"),
        AIMessage("Done.", usage={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3, "cached_tokens": 1},
                  response_metadata={"finish_reason": "stop", "model": "m"}),
        HumanMessage("And tomorrow?"),
    ]


# --------------------------------------------------------------------------- what works


def test_json_round_trip_is_equal_and_keeps_every_value_and_type():
    conversation = provider_conversation()
    back = restored(stored(conversation))
    assert back == conversation
    args = back[2].tool_calls[0]["args"]
    assert type(args["n"]) is float and type(args["big"]) is int and args["big"] == 2**70
    assert args["city"] == "São Paulo" and args["nested"] == {"l": [1, 2.5, None]}
    assert back[8].invalid_tool_calls[0]["args"] == '{"expression": "2 +'  # raw text kept
    assert back[5].status == "error" and back[7].artifact == {"x": [1, 2]}
    assert pickle.loads(pickle.dumps(conversation)) == conversation


@pytest.mark.parametrize("lower", [
    lambda ms: lower_openai.lower_request(ChatRequest(ms, TOOLS), "gpt-5-mini"),
    lambda ms: lower_openai.lower_responses_request(ChatRequest(ms, TOOLS), "gpt-5-mini"),
    lambda ms: lower_anthropic.lower_request(ChatRequest(ms, TOOLS), "claude-sonnet-4-6"),
    lambda ms: lower_gemini.lower_request(ChatRequest(ms, TOOLS), "gemini-2.5-flash"),
    lambda ms: lower_gemini.lower_request(ChatRequest(ms, TOOLS), "gemini-3-pro"),
], ids=["openai-chat", "openai-responses", "anthropic", "gemini", "gemini-3"])
def test_restored_conversation_lowers_to_the_same_request(lower):
    conversation = provider_conversation()
    assert lower(restored(stored(conversation))) == lower(conversation)


def test_empty_call_id_is_made_once_and_kept_by_the_round_trip():
    reply = AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": ""}])
    made = reply.tool_calls[0]["id"]
    assert made and restored(stored([reply]))[0].tool_calls[0]["id"] == made


def test_non_json_artifact_and_metadata_are_stored_in_their_json_form():
    @dataclasses.dataclass
    class Point:
        x: int
        when: datetime.date

    class Color(enum.Enum):
        RED = "red"

    message = ToolMessage("ok", tool_call_id="c1", status="error", artifact={
        "at": datetime.datetime(2024, 1, 2, 3, 4, 5), "raw": b"\x00\xff", "p": Point(1, datetime.date(2020, 1, 1)),
        "color": Color.RED, "tags": (1, 2)})
    assert restored(stored([message]))[0].artifact == {
        "at": "2024-01-02T03:04:05", "raw": "AP8=", "p": {"x": 1, "when": "2020-01-01"}, "color": "red",
        "tags": [1, 2]}
    reply = AIMessage("x", response_metadata={"finish_reason": Color.RED, "sdk": object()})
    assert json.loads(stored([reply]))[0]["response_metadata"]["finish_reason"] == "red"


def test_merged_chunks_are_stored_through_to_message():
    chunk = (AIMessageChunk("he", tool_call_chunks=[{"name": "f", "args": '{"a":', "id": None, "index": 0,
                                                      "type": "tool_call_chunk"}])
             + AIMessageChunk("y", tool_call_chunks=[{"name": None, "args": "1}", "id": None, "index": 0,
                                                       "type": "tool_call_chunk"}]))
    message = chunk.to_message()
    assert restored(stored([message])) == [message] == coerce_messages([chunk])
    assert pickle.loads(pickle.dumps(chunk)) == chunk


def test_langchain_messages_to_dict_is_read_like_from_langchain_messages():
    lc = pytest.importorskip("langchain_core.messages")
    from toolwire.interop.langchain import from_langchain_messages, to_langchain_messages

    original = [
        lc.SystemMessage("sys", id="s1"),
        lc.HumanMessage([{"type": "text", "text": "hi"},
                         {"type": "image", "base64": "AAAA", "mime_type": "image/png"}], id="h1", name="bob"),
        lc.AIMessage("", tool_calls=[{"name": "f", "args": {"x": 1.0, "y": [1, 2], "z": "é"}, "id": "c1"}],
                     invalid_tool_calls=[{"name": "g", "args": "{bad", "id": "c2", "error": "oops",
                                          "type": "invalid_tool_call"}],
                     usage_metadata={"input_tokens": 5, "output_tokens": 3, "total_tokens": 8,
                                     "input_token_details": {"cache_read": 2}},
                     response_metadata={"finish_reason": "tool_calls"}, id="run-1",
                     additional_kwargs={"reasoning_content": "hmm"}),
        lc.ToolMessage("res", tool_call_id="c1", artifact={"k": [1, 2]}, status="error", name="f", id="t1"),
        lc.ToolMessage("bad", tool_call_id="c2", status="error"),
        lc.AIMessage("done"),
    ]
    from_json = [message_from_dict(d) for d in json.loads(json.dumps(lc.messages_to_dict(original)))]
    assert from_json == from_langchain_messages(original)
    assert from_json[2].usage == {"input_tokens": 5, "output_tokens": 3, "total_tokens": 8, "cached_tokens": 2}
    assert to_langchain_messages(from_json) == original
    streamed = lc.AIMessageChunk("he", tool_call_chunks=[{"name": "f", "args": '{"x":', "id": "c9", "index": 0}]) \
        + lc.AIMessageChunk("y", tool_call_chunks=[{"name": None, "args": "1}", "id": None, "index": 0}])
    (dump,) = json.loads(json.dumps(lc.messages_to_dict([streamed])))
    assert message_from_dict(dump) == AIMessage("hey", tool_calls=[{"name": "f", "args": {"x": 1}, "id": "c9"}])


def test_langchain_anthropic_turn_with_tool_use_blocks_is_not_sent_twice():
    lc = pytest.importorskip("langchain_core.messages")
    history = [lc.HumanMessage("Weather in SF?"),
               lc.AIMessage([{"type": "thinking", "thinking": "hmm", "signature": "SIG"},
                             {"type": "text", "text": "I'll check."},
                             {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "SF"}}],
                            tool_calls=[{"name": "get_weather", "args": {"city": "SF"}, "id": "toolu_1"}]),
               lc.ToolMessage("15 C", tool_call_id="toolu_1"), lc.AIMessage("It is 15 C.")]
    messages = [message_from_dict(d) for d in json.loads(json.dumps(lc.messages_to_dict(history)))]
    _, turns = lower_anthropic.lower_messages(messages)
    assert [b["type"] for b in turns[1]["content"]] == ["thinking", "text", "tool_use"]
    chat = lower_openai.lower_messages(messages)
    assert chat[1]["content"] == "I'll check." and len(chat[1]["tool_calls"]) == 1


def test_agent_continues_a_restored_conversation_as_the_original():
    def script(skip: int) -> ScriptedChatModel:
        model = ScriptedChatModel([
            AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Tóquio"}, "id": "c1"},
                                      {"name": "calculate", "args": {"expression": "123 * 456"}, "id": "c2"}]),
            "Sunny, 56088.",
            AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "2 * 2"}, "id": "c1"}]),
            "4.",
        ])
        for _ in range(skip):  # the first session's replies are used up
            model.invoke("x")
        return model

    first = Agent(script(0), [get_weather, calculate]).invoke("Clima em Tóquio e 123*456?")
    text = stored(first.messages)
    live_model, back_model = script(2), script(2)
    live = Agent(live_model, [get_weather, calculate]).invoke([*first.messages, HumanMessage("e 2*2?")])
    back = Agent(back_model, [get_weather, calculate]).invoke([*restored(text), HumanMessage("e 2*2?")])
    assert back.messages == live.messages and back.output == "4."
    assert back_model.requests[-1].messages == live_model.requests[-1].messages
    raw = Agent(script(2), [get_weather, calculate]).invoke([*json.loads(text), {"role": "user", "content": "e 2*2?"}])
    assert raw.messages == back.messages  # the stored dicts can be passed as they are


@pytest.mark.parametrize(("data", "words"), [
    ({"type": "tool", "content": "x"}, "without 'tool_call_id'"),
    ({"type": "ai", "content": "x", "usage": "n/a"}, "'usage' must be a dict"),
    ({"type": "human", "content": 5}, "content is int"),
    ({"type": "ai", "content": "x", "tool_calls": {"name": "f"}}, "'tool_calls' must be a list"),
    ({"role": "model", "parts": [{"text": "hi"}]}, "the role 'model'"),  # (review 170 #7)
    ({"type": "tool", "content": "x", "tool_call_id": "c", "status": "failed"}, "status is 'failed'"),
])
def test_bad_stored_data_is_one_clear_error(data, words):
    with pytest.raises(UserError, match=re.escape(words)) as failed:
        message_from_dict(data)
    assert "\n" not in str(failed.value)


# --------------------------------------------------------------------------- faults


def test_integer_message_id_survives_copy_pickle_and_restore():
    try:
        message = HumanMessage("hi", id=42)  # HumanMessage(text, id=row.pk): today accepted without a word
    except (TypeError, UserError):
        return  # refusing it when the message is made is a fix too
    assert copy.deepcopy(message) == message
    assert pickle.loads(pickle.dumps(message)) == message
    assert message_from_dict(json.loads(json.dumps(message.to_dict()))).id in (42, "42")


def test_stored_numeric_call_ids_are_read_on_both_sides():
    conversation = coerce_messages([
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "tool_calls": [
            {"id": 7, "type": "function", "function": {"name": "calculate", "arguments": '{"expression": "2+2"}'}}]},
        {"role": "tool", "tool_call_id": 7, "content": "4"},
    ])
    assert conversation[1].tool_calls[0]["id"] == conversation[2].tool_call_id == "7"


def test_restored_empty_ids_still_pair_call_and_result_for_model_invoke():
    history = [  # an OpenAI-compatible server that sent no call ids, stored as its SDK gave the messages
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "", "type": "function", "function": {"name": "calculate", "arguments": '{"expression": "2+2"}'}}]},
        {"role": "tool", "tool_call_id": "", "content": "4"},
        {"role": "assistant", "content": "4."},
        {"role": "user", "content": "and 3+3?"},
    ]
    model = ScriptedChatModel(["ok"]).bind_tools([get_weather, calculate])
    request = model._request(history, {})  # what model.invoke(history) sends on (the pairing is done there)
    body = lower_openai.lower_request(request, "gpt-5-mini")
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant", "user"]
    assert body["messages"][2]["tool_call_id"] == body["messages"][1]["tool_calls"][0]["id"]


def test_foreign_call_ids_are_valid_when_continuing_with_anthropic():
    history = [  # Kimi K2 (and other OpenAI-compatible servers) name calls "functions.<name>:<n>"
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "functions.get_weather:0", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
        {"role": "tool", "tool_call_id": "functions.get_weather:0", "content": "sunny"},
        {"role": "assistant", "content": "Sunny."},
        {"role": "user", "content": "Thanks; and Rome?"},
    ]
    body = lower_anthropic.lower_request(ChatRequest(restored(stored(coerce_messages(history))), TOOLS),
                                         "claude-sonnet-4-6")
    use = body["messages"][1]["content"][0]
    result = body["messages"][2]["content"][0]
    assert re.fullmatch(r"[a-zA-Z0-9_-]+", use["id"])
    assert result["tool_use_id"] == use["id"]


def test_tool_result_blocks_have_lone_surrogates_replaced():
    @tool
    def list_files() -> list:
        """List the files."""
        return [{"type": "text", "text": NOT_UTF8}]

    result = list_files.invoke({"name": "list_files", "args": {}, "id": "c1", "type": "tool_call"})
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")  # what a database driver does


def test_to_dict_of_a_file_listing_artifact_can_be_written_as_utf8():
    @tool(response_format="content_and_artifact")
    def list_files() -> tuple:
        """List the files."""
        return f"1 file: {NOT_UTF8}", [NOT_UTF8]

    result = list_files.invoke({"name": "list_files", "args": {}, "id": "c1", "type": "tool_call"})
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")


def test_numpy_artifact_is_stored_without_loss():
    np = pytest.importorskip("numpy")
    message = ToolMessage("stats", tool_call_id="c1",
                          artifact={"values": np.arange(2000), "count": np.int64(3), "mean": np.float64(1.5)})
    artifact: Any = restored(stored([message]))[0].artifact
    assert artifact["values"] == list(range(2000))
    assert artifact["count"] == 3 and artifact["mean"] == 1.5
