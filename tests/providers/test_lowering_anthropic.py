"""Golden tests of the Anthropic codec (no client, no network): tools, messages (E3, E4), requests, replies.

Reply and stream examples follow the Anthropic API reference ("Messages", "Streaming Messages") and the
tool-use and extended-thinking guides.
"""

from __future__ import annotations

import pytest

from toolwire import AIMessage, HumanMessage, ProviderError, SchemaError, SystemMessage, Tool, ToolMessage, UserError
from toolwire.examples.book import calculate, get_weather
from toolwire.messages import merge_chunks
from toolwire.models.base import ChatRequest
from toolwire.models.lowering.anthropic import (
    StreamState,
    convert_to_anthropic_tool,
    lower_messages,
    lower_request,
    parse_response,
)

CALLS = [{"name": "get_weather", "args": {"city": "Paris"}, "id": "a1"},
         {"name": "calculate", "args": {"expression": "2 + 2"}, "id": "a2"}]


def test_convert_tool():
    assert convert_to_anthropic_tool(get_weather) == {
        "name": "get_weather", "description": "Obtém o clima atual de uma determinada cidade.",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
                         "additionalProperties": False}}
    bare = convert_to_anthropic_tool({"name": "ping", "parameters": {"type": "object", "properties": {}}})
    assert bare == {"name": "ping", "input_schema": {"type": "object", "properties": {}}}


def test_top_level_union_is_wrapped_or_refused():
    union = {"name": "find", "description": "Find by id or by name.", "parameters": {"anyOf": [
        {"type": "object", "properties": {"id": {"type": "integer"}, "kind": {"type": "string"}},
         "required": ["id", "kind"]},
        {"type": "object", "properties": {"name": {"type": "string"}, "kind": {"type": "string"}},
         "required": ["name", "kind"]},
    ]}}
    assert convert_to_anthropic_tool(union)["input_schema"] == {
        "type": "object", "properties": {"id": {"type": "integer"}, "kind": {"type": "string"},
                                         "name": {"type": "string"}}, "required": ["kind"],
        "description": "Give id or name."}
    scalar = {"name": "pick", "parameters": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}
    with pytest.raises(SchemaError, match="must be an object schema"):  # refused as the tool dict is read
        convert_to_anthropic_tool(scalar)


ID_OR_NAME = {"type": "object", "description": "Who.",
              "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "verbose": {"type": "boolean"}},
              "anyOf": [{"required": ["id"]}, {"required": ["name"]}]}


def test_top_level_properties_with_a_required_only_union_are_kept():
    # review 3 #8 (a): the usual "give id or name" schema was refused as a union of non-object schemas
    spec = {"name": "get_user", "description": "Find a user.", "parameters": ID_OR_NAME}
    out = convert_to_anthropic_tool(spec)
    assert out["input_schema"] == {
        "type": "object", "description": "Who. Give id or name.",
        "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "verbose": {"type": "boolean"}}}
    assert out["description"] == "Find a user."
    assert ID_OR_NAME["anyOf"] == [{"required": ["id"]}, {"required": ["name"]}]  # the input is not changed
    both = {**ID_OR_NAME, "required": ["verbose"], "oneOf": [{"required": ["id", "verbose"]}, {"required": ["name"]}]}
    del both["anyOf"]
    assert convert_to_anthropic_tool({"name": "u", "parameters": both})["input_schema"] == {
        "type": "object", "description": "Who. Give id or name (only one of them).",
        "properties": ID_OR_NAME["properties"], "required": ["verbose"]}


def test_top_level_properties_with_object_branches_keep_their_required():
    # review 3 #8 (b): the top-level properties and required were dropped when the branches were objects
    move = {"type": "object", "properties": {"speed": {"type": "number"}}, "required": ["speed"],
            "oneOf": [{"type": "object", "properties": {"x": {"type": "number"}, "unit": {"type": "string"}},
                       "required": ["x", "unit"]},
                      {"type": "object", "properties": {"target": {"type": "string"}}, "required": ["target"]},
                      {"type": "string"}]}
    schema = convert_to_anthropic_tool({"name": "move", "parameters": move})["input_schema"]
    assert schema == {"type": "object", "properties": {"speed": {"type": "number"}, "x": {"type": "number"},
                                                       "unit": {"type": "string"}, "target": {"type": "string"}},
                      "required": ["speed"], "description": "Give (x and unit) or target (only one of them)."}
    every = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
             "allOf": [{"properties": {"b": {"type": "integer"}}, "required": ["b"]}, {"required": ["a"]}]}
    assert convert_to_anthropic_tool({"name": "every", "parameters": every})["input_schema"] == {
        "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a", "b"]}


def test_folded_union_tool_still_validates_the_full_schema():
    def get_user(**kwargs):
        return repr(sorted(kwargs))

    user = Tool.from_schema(get_user, "get_user", "Find a user.", ID_OR_NAME)
    assert "anyOf" not in convert_to_anthropic_tool(user)["input_schema"]
    assert user.invoke({"name": "Ann"}) == "['name']"
    refused = user.invoke({"name": "get_user", "args": {"verbose": True}, "id": "c1", "type": "tool_call"})
    assert refused.status == "error"


def test_e3_results_in_one_user_turn_in_call_order():
    system, messages = lower_messages([
        SystemMessage("Seja breve."),
        HumanMessage("Clima e conta?"),
        AIMessage("Vou ver.", tool_calls=CALLS),
        ToolMessage("4", tool_call_id="a2"),
        ToolMessage("sol", tool_call_id="a1"),
        HumanMessage("E amanhã?"),
        SystemMessage("Use Celsius."),
    ])
    assert system == "Seja breve.\n\nUse Celsius."
    assert messages == [
        {"role": "user", "content": [{"type": "text", "text": "Clima e conta?"}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Vou ver."},
            {"type": "tool_use", "id": "a1", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "a2", "name": "calculate", "input": {"expression": "2 + 2"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a1", "content": "sol"},
            {"type": "tool_result", "tool_use_id": "a2", "content": "4"},
            {"type": "text", "text": "E amanhã?"}]},
    ]


def test_e4_list_results_errors_invalid_calls_and_empty_text():
    invalid = {"name": "calculate", "args": '{"expression": "2 +', "id": "bad", "error": "cut off",
               "type": "invalid_tool_call"}
    _, messages = lower_messages([
        HumanMessage(["", {"type": "text", "text": " "}, "Oi",
                      {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"}]),
        AIMessage("", tool_calls=CALLS[:1], invalid_tool_calls=[invalid]),
        ToolMessage([{"type": "text", "text": "sol"}, {"type": "text", "text": "22 C"}], tool_call_id="a1"),
        ToolMessage("Error: the arguments are cut off", tool_call_id="bad", status="error"),
    ])
    assert messages[0]["content"] == [
        {"type": "text", "text": "Oi"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]
    assert messages[1]["content"] == [
        {"type": "tool_use", "id": "a1", "name": "get_weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "bad", "name": "calculate", "input": {"expression": "2 +"}}]
    assert messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "a1",
         "content": [{"type": "text", "text": "sol"}, {"type": "text", "text": "22 C"}]},
        {"type": "tool_result", "tool_use_id": "bad", "content": "Error: the arguments are cut off", "is_error": True}]


@pytest.mark.parametrize(("choice", "parallel", "expected"), [
    ("auto", None, {"type": "auto"}),
    ("none", None, {"type": "none"}),
    ("required", None, {"type": "any"}),
    ("calculate", None, {"type": "tool", "name": "calculate"}),
    ("required", False, {"type": "any", "disable_parallel_tool_use": True}),
    (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
    (None, None, None),
])
def test_lower_request_tool_choice(choice, parallel, expected):
    request = ChatRequest([HumanMessage("oi")], (get_weather.spec, calculate.spec), choice, parallel, None,
                          {"stop": "FIM"})
    body = lower_request(request, "claude-sonnet-4-6", {"temperature": 0.0})
    assert body.get("tool_choice") == expected
    assert body["max_tokens"] == 4096 and body["stop_sequences"] == ["FIM"] and body["temperature"] == 0.0
    assert [t["name"] for t in body["tools"]] == ["get_weather", "calculate"]


def test_lower_request_refuses_seed():
    with pytest.raises(UserError, match="seed"):
        lower_request(ChatRequest([HumanMessage("oi")], options={"seed": 1}), "claude-sonnet-4-6")


DOC_REPLY = {
    "id": "msg_01Aq9w938a90dw8q", "type": "message", "role": "assistant", "model": "claude-opus-4-1-20250805",
    "stop_reason": "tool_use", "stop_sequence": None,
    "content": [
        {"type": "thinking", "thinking": "The user wants the weather.", "signature": "WaUjzkypQ2mUEVM36O2TxuC06KN8"},
        {"type": "text", "text": "I'll check the current weather in San Francisco for you."},
        {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather",
         "input": {"location": "San Francisco, CA", "unit": "celsius"}},
    ],
    "usage": {"input_tokens": 472, "output_tokens": 89, "cache_read_input_tokens": 100,
              "cache_creation_input_tokens": 0},
}


def test_parse_response_keeps_thinking_and_sends_it_back():
    reply = parse_response(DOC_REPLY)
    assert reply.text == "I'll check the current weather in San Francisco for you."
    assert reply.tool_calls == [{"name": "get_weather", "args": {"location": "San Francisco, CA", "unit": "celsius"},
                                 "id": "toolu_01A09q90qw90lq917835lq9", "type": "tool_call"}]
    assert reply.usage == {"input_tokens": 572, "output_tokens": 89, "total_tokens": 661, "cached_tokens": 100}
    assert reply.response_metadata == {"model": "claude-opus-4-1-20250805", "model_name": "claude-opus-4-1-20250805",
                                       "finish_reason": "tool_use", "stop_reason": "tool_use"}
    assert reply.provider_data == {"anthropic": {"content": DOC_REPLY["content"]}}
    _, messages = lower_messages([HumanMessage("Weather in SF?"), reply,
                                  ToolMessage("15 C", tool_call_id="toolu_01A09q90qw90lq917835lq9")])
    assert messages[1]["content"] == DOC_REPLY["content"]  # unchanged, thinking block first


def test_thinking_kept_when_the_turn_was_changed():
    reply = parse_response(DOC_REPLY).copy(tool_calls=[{"name": "get_weather", "args": {"location": "SF"},
                                                        "id": "other", "type": "tool_call"}])
    _, messages = lower_messages([HumanMessage("?"), reply, ToolMessage("15 C", tool_call_id="other")])
    assert messages[1]["content"][0] == DOC_REPLY["content"][0]
    assert messages[1]["content"][-1] == {"type": "tool_use", "id": "other", "name": "get_weather",
                                          "input": {"location": "SF"}}


def _events() -> list[dict]:
    json_parts = ['', '{"location":', ' "San', ' Francisc', 'o,', ' CA"', ', ', '"unit": "fah', 'renheit"}']
    events = [
        {"type": "message_start", "message": {"id": "msg_014p7gG3wDgGV9EUtLvnow3U", "type": "message",
                                              "role": "assistant", "model": "claude-opus-4-1-20250805",
                                              "content": [], "stop_reason": None, "stop_sequence": None,
                                              "usage": {"input_tokens": 472, "output_tokens": 2}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "",
                                                                       "signature": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Need SF "}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "weather."}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAh"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Okay, let's check "}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "the weather:"}},
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": {
            "type": "tool_use", "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "name": "get_weather", "input": {}}},
        *({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": p}}
          for p in json_parts),
        {"type": "content_block_stop", "index": 2},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
         "usage": {"output_tokens": 89}},
        {"type": "message_stop"},
    ]
    return events


def test_stream_state_matches_the_whole_reply():
    state = StreamState()
    chunks = [c for c in (state.feed(e) for e in _events()) if c is not None] + [state.finish()]
    merged = merge_chunks(chunks, as_chunk=False)
    whole = parse_response({
        "id": "msg_014p7gG3wDgGV9EUtLvnow3U", "model": "claude-opus-4-1-20250805", "stop_reason": "tool_use",
        "content": [{"type": "thinking", "thinking": "Need SF weather.", "signature": "EqQBCgIYAh"},
                    {"type": "text", "text": "Okay, let's check the weather:"},
                    {"type": "tool_use", "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "name": "get_weather",
                     "input": {"location": "San Francisco, CA", "unit": "fahrenheit"}}],
        "usage": {"input_tokens": 472, "output_tokens": 89}})
    assert merged == whole
    pieces = [p for c in chunks for p in c.tool_call_chunks]
    assert {p["index"] for p in pieces} == {0} and {p["id"] for p in pieces} == {"toolu_01T1x1fJ34qAmk2tNTrN7Up6"}


def test_stream_error_event():
    state = StreamState()
    with pytest.raises(ProviderError) as failed:
        state.feed({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    assert failed.value.retryable and failed.value.status == 529


def test_result_blocks_a_tool_result_cannot_hold_become_text_not_lost():
    """An audio block, or a document without its ``source``, is not taken in a tool_result: its JSON goes to the
    model as text, with the base64 payload replaced by its length. A PDF file block is a ``document`` there
    (review 74: tool_result content takes documents)."""
    _, messages = lower_messages([
        HumanMessage("Abra."),
        AIMessage("", tool_calls=CALLS[:1]),
        ToolMessage([{"type": "text", "text": "ok"},
                     {"type": "audio", "base64": "UklGRg==", "mime_type": "audio/wav"},
                     {"type": "file", "base64": "JVBERi0x", "mime_type": "application/pdf"},
                     {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"}], tool_call_id="a1"),
    ])
    assert messages[2]["content"][0]["content"] == [
        {"type": "text", "text": "ok"},
        {"type": "text", "text": '{"type": "audio", "data": "<8 base64 characters not sent>", '
                                 '"mime_type": "audio/wav"}'},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0x"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]


def test_a_nameless_call_names_the_bound_tools_or_none_of_them():
    """Finding 5: the error names the bound tools when they are given, and never says there are none."""
    reply = {"content": [{"type": "tool_use", "id": "t1", "name": "", "input": {"city": "Oslo"}}]}
    (bad,) = parse_response(reply, tool_names=["get_weather"]).invalid_tool_calls
    assert bad["error"] == "The tool call has no name; call one of the available tools: get_weather."
    assert bad["args"] == '{"city": "Oslo"}'
    (bad,) = parse_response(reply).invalid_tool_calls
    assert "available tools" not in bad["error"] and bad["error"].startswith("The tool call has no name;")
