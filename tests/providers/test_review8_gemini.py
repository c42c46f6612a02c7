"""Review 8, Gemini findings 1, 2, 3, 8 and 10: codec tests and scripted flows through the Gemini wire server.

1. thought signatures go back byte-identical whatever their bytes (the SDK dumps bytes as URL-safe base64);
2. every schema node has a type (``Any``, bare ``list``, tuples), and the JSON text sent for untyped values is
   decoded before the tool runs;
3. block reasons, finish reasons and ``finishMessage`` kept; ``MALFORMED_FUNCTION_CALL`` is an invalid call
   the Agent answers, so the model retries;
8. file, audio and Anthropic-style image blocks become ``inline_data``/``file_data``; others a UserError;
10. no empty text part kept from a stream.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest
from google.genai import types as gtypes

from toolwire import Agent, AIMessage, HumanMessage, ToolMessage, UserError, tool
from toolwire.examples.book import get_weather
from toolwire.messages import merge_chunks
from toolwire.models.base import ChatRequest
from toolwire.models.lowering.gemini import (
    StreamState,
    gemini_schema,
    json_text_plan,
    lower_messages,
    lower_request,
    parse_response,
)

from .conftest import build_model
from .wire_gemini import Gemini, check_schema
from .wire_servers import Checker, Reply, WireServer

SIG = b"\xfb\xef\xbe\xff\xff\xff sig \x00\x01\xfe?>~~"  # "+" and "/" in standard base64, "-" and "_" URL-safe
SIG_TEXT = base64.b64encode(SIG).decode()


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer(Gemini(), brain=None) as server:
        yield server
    assert not server.problems, f"requests the real API would reject: {server.problems}"


def reply_json(parts: list[dict[str, Any]], finish: str = "STOP", **candidate: Any) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0,
                            **candidate}], "modelVersion": "gemini-2.5-flash", "responseId": "r1"}


def answered(message: AIMessage) -> list[dict[str, Any]]:
    """The contents of a conversation in which ``message``'s first call is answered."""
    return lower_messages([HumanMessage("q"), message, ToolMessage("ok", tool_call_id=message.tool_calls[0]["id"])])[1]


def sent_signature(message: AIMessage) -> bytes:
    contents = answered(message)
    return contents[1]["parts"][0]["thought_signature"]  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- 1: thought signatures


def test_signature_read_from_the_sdk_object_goes_back_byte_identical():
    """The SDK object dumps bytes as URL-safe base64: once decoded with the standard decoder (b'+/' lost)."""
    raw = reply_json([{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                       "thoughtSignature": SIG_TEXT}])
    sdk_reply = gtypes.GenerateContentResponse.model_validate(raw)
    assert sdk_reply.candidates[0].content.parts[0].thought_signature == SIG
    for obj in (sdk_reply, raw):
        message = parse_response(obj)
        assert message.provider_data["gemini"]["parts"][0]["thought_signature"] == SIG_TEXT
        assert sent_signature(message) == SIG


def test_streamed_signature_goes_back_byte_identical():
    raw = reply_json([{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                       "thoughtSignature": SIG_TEXT}])
    state = StreamState()
    chunks = [state.feed(gtypes.GenerateContentResponse.model_validate(raw)), state.finish()]
    message = merge_chunks([c for c in chunks if c]).to_message()
    assert sent_signature(message) == SIG


@pytest.mark.parametrize("text", ["----____", "++++////", "++++//8", "++++//8="])
def test_signatures_in_either_alphabet_with_or_without_padding(text):
    raw = reply_json([{"functionCall": {"name": "get_weather", "args": {}}, "thoughtSignature": text}])
    expected = base64.urlsafe_b64decode(text.replace("+", "-").replace("/", "_") + "=" * (-len(text) % 4))
    assert sent_signature(parse_response(raw)) == expected


def test_a_signature_that_is_not_base64_is_a_user_error():
    message = AIMessage("", tool_calls=[{"name": "get_weather", "args": {}, "id": "c1", "type": "tool_call"}],
                        provider_data={"gemini": {"parts": [{"function_call": {"name": "get_weather", "args": {}},
                                                             "thought_signature": "not base64!"}]}})
    with pytest.raises(UserError, match="thought signature"):
        lower_messages([HumanMessage("q"), message, ToolMessage("ok", tool_call_id="c1")])


@pytest.mark.parametrize("streaming", [False, True])
def test_agent_sends_the_random_signature_back_through_the_sdk(wire, streaming):
    """The wire server's signatures are random bytes with '+' and '/' (so '-' and '_' on the way back)."""
    wire.queue(Reply(calls=[("get_weather", {"city": "Paris"})], opaque="t"), Reply(text="Sunny."))
    result = Agent(build_model("gemini", wire.url, streaming=streaming), [get_weather]).invoke("Weather in Paris?")
    assert result.output == "Sunny." and wire.returned == [base64.b64encode(b"sig-t").decode()]
    first = wire.requests[0]
    issued = [v[0] for v in wire.issued.values()]
    assert first and any("+" in s and "/" in s for s in issued)


# --------------------------------------------------------------------------- 2: untyped schema nodes


def all_nodes(node: Any) -> Iterator[dict[str, Any]]:
    yield node
    for sub in node.get("any_of", []):
        yield from all_nodes(sub)
    if "items" in node:
        yield from all_nodes(node["items"])
    for sub in node.get("properties", {}).values():
        yield from all_nodes(sub)


stored: list[Any] = []


@tool
def store(key: str, value: Any, tags: list, pair: tuple[int, str], rest: tuple[Any, ...] = ()) -> str:
    """Store a value under a key."""
    stored.append((value, tags, pair, rest))
    return "ok"


def test_every_schema_node_has_a_type():
    schema, dropped = gemini_schema(store.spec.parameters)
    for node in all_nodes(schema):
        assert "type" in node or "any_of" in node, node
    props = schema["properties"]
    assert props["value"]["type"] == "STRING" and "JSON text" in props["value"]["description"]
    assert props["tags"]["type"] == "ARRAY" and props["tags"]["items"]["type"] == "STRING"
    assert props["pair"] == {"type": "ARRAY", "items": {"any_of": [{"type": "INTEGER"}, {"type": "STRING"}]},
                             "min_items": 2, "max_items": 2,
                             "description": "Items by position: 1. integer, 2. string."}  # (review 124 #10)
    assert props["rest"]["items"]["type"] == "STRING"
    assert "untyped value (sent as JSON text) at value" in dropped
    assert "untyped value (sent as JSON text) at tags[]" in dropped
    assert any(d.startswith("prefixItems") and d.endswith("at pair") for d in dropped)
    c = Checker()
    check_schema(c, schema, "parameters")
    assert not c.problems


def test_a_tuple_of_one_type_and_a_typed_enum():
    schema, _ = gemini_schema({"type": "object", "properties": {
        "xy": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}]},
        "n": {"enum": [1, 2, 3]}, "flag": {"const": True}}})
    assert schema["properties"]["xy"]["items"] == {"type": "NUMBER"}
    assert schema["properties"]["n"]["type"] == "INTEGER" and schema["properties"]["flag"]["type"] == "BOOLEAN"


def test_json_text_of_untyped_values_is_decoded_in_the_call_invoke_and_stream():
    plan = json_text_plan([store])
    args = {"key": "k", "value": '{"a": [1, 2]}', "tags": ["1", '"x"', "not json"], "pair": [1, "a"]}
    raw = reply_json([{"functionCall": {"name": "store", "args": args}, "thoughtSignature": SIG_TEXT}])
    message = parse_response(raw, json_text=plan)
    assert message.tool_calls[0]["args"] == {"key": "k", "value": {"a": [1, 2]}, "tags": [1, "x", "not json"],
                                             "pair": [1, "a"]}
    state = StreamState(json_text=plan)
    streamed = merge_chunks([c for c in (state.feed(raw), state.finish()) if c]).to_message()
    assert streamed.tool_calls[0]["args"] == message.tool_calls[0]["args"]
    # the kept parts still hold the text as sent, and still count as the same call: the signature goes back
    assert message.provider_data["gemini"]["parts"][0]["function_call"]["args"] == args
    assert sent_signature(message) == SIG


@pytest.mark.parametrize("streaming", [False, True])
def test_agent_runs_a_tool_with_any_list_and_tuple_arguments(wire, streaming):
    stored.clear()
    args = {"key": "k", "value": '{"a": [1, 2]}', "tags": ["1", '"x"'], "pair": [3, "b"], "rest": ['[1]', "2"]}
    wire.queue(Reply(calls=[("store", args)]), Reply(text="Stored."))
    result = Agent(build_model("gemini", wire.url, streaming=streaming), [store]).invoke("Store it.")
    assert result.output == "Stored."
    assert stored == [({"a": [1, 2]}, [1, "x"], (3, "b"), ([1], 2))]


# --------------------------------------------------------------------------- 3: block and finish reasons

BLOCKED = {"promptFeedback": {"blockReason": "SAFETY", "blockReasonMessage": "blocked"},
           "usageMetadata": {"promptTokenCount": 8, "totalTokenCount": 8}, "modelVersion": "gemini-2.5-flash"}
MALFORMED = {"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL", "index": 0,
                             "finishMessage": "Malformed function call: print(default_api.get_weather(city='Paris'))"}],
             "modelVersion": "gemini-2.5-flash"}
SAFETY = {"candidates": [{"content": {"role": "model"}, "finishReason": "SAFETY", "index": 0}],
          "modelVersion": "gemini-2.5-flash"}


def both(raw: dict[str, Any], **kwargs: Any) -> tuple[AIMessage, AIMessage]:
    state = StreamState(**kwargs)
    chunks = [state.feed(raw), state.finish()]
    return parse_response(raw, **kwargs), merge_chunks([c for c in chunks if c]).to_message()


def test_block_and_finish_reasons_are_kept_invoke_and_stream_alike():
    for message in both(BLOCKED):
        assert message.response_metadata == {"model": "gemini-2.5-flash",
                                             "model_name": "gemini-2.5-flash", "block_reason": "SAFETY",
                                             "block_reason_message": "blocked"}
    for message in both(SAFETY):
        assert message.response_metadata["finish_reason"] == "SAFETY" and not message.invalid_tool_calls


def test_a_malformed_function_call_is_an_invalid_call_to_retry():
    invoked, streamed = both(MALFORMED, tool_names=["get_weather"])
    for message in (invoked, streamed):
        assert message.response_metadata["finish_reason"] == "MALFORMED_FUNCTION_CALL"
        assert message.response_metadata["finish_message"] == MALFORMED["candidates"][0]["finishMessage"]
        [bad] = message.invalid_tool_calls
        assert bad["name"] == "get_weather" and bad["args"] == MALFORMED["candidates"][0]["finishMessage"]
        assert "again" in bad["error"] and bad["id"]
    unknown = parse_response(MALFORMED, tool_names=["other"]).invalid_tool_calls[0]
    assert unknown["name"] is None


@pytest.mark.parametrize("streaming", [False, True])
def test_agent_answers_a_malformed_call_and_the_model_retries(wire, streaming):
    wire.queue(Reply(calls=[("get_weather", {})], raw_arguments={0: "city='Paris'"}),
               Reply(calls=[("get_weather", {"city": "Paris"})]), Reply(text="Sunny in Paris."))
    result = Agent(build_model("gemini", wire.url, streaming=streaming), [get_weather]).invoke("Weather?")
    assert result.output == "Sunny in Paris." and result.stop_reason == "answer"
    first = result.messages[1]
    assert first.response_metadata["finish_reason"] == "MALFORMED_FUNCTION_CALL" and first.invalid_tool_calls
    answer = result.messages[2]
    assert isinstance(answer, ToolMessage) and answer.status == "error" and "again" in answer.text
    retry = wire.requests[1].body["contents"]  # (google-genai drops finishMessage: no name to read)
    assert retry[1]["parts"][0]["functionCall"]["name"] in ("get_weather", "unknown_tool")
    assert "error" in retry[2]["parts"][0]["functionResponse"]["response"]


def test_gemini_3_rebuilt_calls_carry_the_documented_placeholder_signature():
    bad = parse_response(MALFORMED, tool_names=["get_weather"])
    messages = [HumanMessage("q"), bad, ToolMessage("retry", tool_call_id=bad.invalid_tool_calls[0]["id"],
                                                    status="error")]
    request = ChatRequest(messages, (get_weather.spec,))
    three = lower_request(request, "gemini-3-pro-preview")["contents"][1]["parts"][0]
    assert base64.urlsafe_b64encode(three["thought_signature"]) == b"skip_thought_signature_validator"
    assert "thought_signature" not in lower_request(request, "gemini-2.5-flash")["contents"][1]["parts"][0]


# --------------------------------------------------------------------------- 8: content blocks

DATA = base64.b64encode(b"%PDF-1.4 \xfb\xff").decode()


@pytest.mark.parametrize(("block", "expected"), [
    ({"type": "file", "base64": DATA, "mime_type": "application/pdf"},
     {"inline_data": {"mime_type": "application/pdf", "data": base64.b64decode(DATA)}}),
    ({"type": "input_audio", "input_audio": {"data": DATA, "format": "mp3"}},
     {"inline_data": {"mime_type": "audio/mp3", "data": base64.b64decode(DATA)}}),
    ({"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": DATA}},
     {"inline_data": {"mime_type": "image/jpeg", "data": base64.b64decode(DATA)}}),
    ({"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}},
     {"file_data": {"file_uri": "https://x.test/a.png", "mime_type": "image/png"}}),
    ({"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": DATA}},
     {"inline_data": {"mime_type": "application/pdf", "data": base64.b64decode(DATA)}}),
    ({"type": "file", "url": "gs://bucket/a.pdf", "mime_type": "application/pdf"},
     {"file_data": {"file_uri": "gs://bucket/a.pdf", "mime_type": "application/pdf"}}),
    ({"type": "file", "file": {"file_data": f"data:application/pdf;base64,{DATA}", "filename": "a.pdf"}},
     {"inline_data": {"mime_type": "application/pdf", "data": base64.b64decode(DATA)}}),
    ({"inlineData": {"mimeType": "audio/wav", "data": DATA}},
     {"inline_data": {"mime_type": "audio/wav", "data": DATA}}),
])
def test_content_blocks_become_gemini_parts(block, expected):
    _, contents = lower_messages([HumanMessage([{"type": "text", "text": "look"}, block])])
    assert contents[0]["parts"] == [{"text": "look"}, expected]


@pytest.mark.parametrize(("block", "named"), [
    ({"type": "video_url", "video_url": "x"}, "'video_url'"),
    ({"type": "file", "base64": DATA}, "mime_type"),
    ({"type": "image", "source": {"type": "file", "file_id": "f1"}}, "file ids are not supported"),
    ({"type": "file", "base64": "%%%", "mime_type": "application/pdf"}, "not base64"),
])
def test_unknown_blocks_are_a_user_error_naming_them(block, named):
    with pytest.raises(UserError, match=named):
        lower_messages([HumanMessage([block])])


def test_a_file_block_reaches_the_api(wire):
    wire.queue(Reply(text="A PDF."))
    reply = build_model("gemini", wire.url).invoke([HumanMessage(
        [{"type": "text", "text": "read"}, {"type": "file", "base64": DATA, "mime_type": "application/pdf"}])])
    assert reply.text == "A PDF."
    part = wire.requests[0].body["contents"][0]["parts"][1]["inlineData"]
    assert part.get("mimeType", part.get("mime_type")) == "application/pdf"
    assert base64.urlsafe_b64decode(part["data"]) == base64.b64decode(DATA)


# --------------------------------------------------------------------------- 10: empty text parts


def test_stream_keeps_no_trailing_empty_text_part():
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": SIG_TEXT}
    events = [reply_json([{"text": "Let me "}], finish=None), reply_json([{"text": "check."}], finish=None),
              reply_json([call], finish=None), reply_json([{"text": ""}])]
    for event in events[:3]:
        del event["candidates"][0]["finishReason"]
    state = StreamState()
    streamed = merge_chunks([c for c in [*map(state.feed, events), state.finish()] if c]).to_message()
    whole = parse_response(reply_json([{"text": "Let me check."}, call, {"text": ""}]))
    assert streamed.provider_data == whole.provider_data
    assert [p for p in streamed.provider_data["gemini"]["parts"] if p.get("text") == ""] == []
    assert all(p.get("text", "x") for p in answered(streamed)[1]["parts"])


def test_an_empty_text_part_with_a_signature_is_kept():
    message = parse_response(reply_json([{"text": "Hi"}, {"text": "", "thoughtSignature": SIG_TEXT}]))
    assert message.provider_data["gemini"]["parts"][-1] == {"text": "", "thought_signature": SIG_TEXT}


# -- review 8 #6, the Gemini side: server tools go through unchanged, model_kwargs tools come after bound ones --

def test_gemini_server_tools_are_sent_as_their_own_tool_entries_after_the_functions() -> None:
    from toolwire import HumanMessage
    from toolwire.errors import UserError
    from toolwire.models.google import ChatGoogleGenAI
    from toolwire.models.lowering.gemini import lower_request

    model = ChatGoogleGenAI("gemini-2.5-flash", api_key="x").bind_tools([get_weather, {"google_search": {}}])
    config = lower_request(model._request([HumanMessage("oi")], {}), "gemini-2.5-flash",
                           {"tools": [{"code_execution": {}}]})["config"]
    assert [sorted(t) for t in config["tools"]] == [["function_declarations"], ["google_search"], ["code_execution"]]
    assert [f["name"] for f in config["tools"][0]["function_declarations"]] == ["get_weather"]
    alone = ChatGoogleGenAI("gemini-2.5-flash", api_key="x").bind_tools([{"google_search": {}}])
    config = lower_request(alone._request([HumanMessage("oi")], {}), "gemini-2.5-flash")["config"]
    assert config["tools"] == [{"google_search": {}}] and "tool_config" not in config
    with pytest.raises(UserError, match="Anthropic"):
        ChatGoogleGenAI("gemini-2.5-flash", api_key="x").bind_tools([{"type": "web_search_20250305",
                                                                       "name": "web_search"}])
