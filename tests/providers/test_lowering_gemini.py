"""Golden tests of the Gemini codec (no client, no network): schemas (case S3), messages, requests, replies.

Reply examples follow the Gemini API reference and function-calling guide (``functionCall`` parts,
``thoughtSignature``, ``usageMetadata``), in their REST (camelCase) form.
"""

from __future__ import annotations

import base64
import logging
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from toolwire import AIMessage, HumanMessage, SchemaError, SystemMessage, ToolMessage, tool
from toolwire.examples.book import get_weather
from toolwire.messages import merge_chunks
from toolwire.models.base import ChatRequest
from toolwire.models.lowering.gemini import (
    StreamState,
    convert_to_gemini_tool,
    gemini_schema,
    lower_messages,
    lower_request,
    parse_response,
)
from toolwire.models.lowering.openai import convert_to_openai_tool

FORBIDDEN = {"$defs", "$ref", "default", "title", "additionalProperties", "$schema", "definitions"}


def keys_in(node: Any) -> set[str]:
    if isinstance(node, dict):
        return set(node).union(*(keys_in(v) for v in node.values())) if node else set()
    if isinstance(node, list):
        return set().union(*(keys_in(v) for v in node)) if node else set()
    return set()


class Addr(BaseModel):
    city: str


@tool
def ship(to: Addr, express: bool = False) -> str:
    """Send a parcel."""
    return f"shipped to {to.city}"


@tool
def reset() -> str:
    """Reset everything."""
    return "done"


@tool
def latest(major: int | None = None, channel: str = "stable") -> str:
    """Latest release."""
    return channel


# --------------------------------------------------------------------------- schemas (S3)


def test_s3_nested_model_and_defaults():
    assert convert_to_gemini_tool(ship) == {
        "name": "ship",
        "description": "Send a parcel.",
        "parameters": {"type": "OBJECT", "properties": {
            "to": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}, "required": ["city"]},
            "express": {"type": "BOOLEAN", "description": "Default: false."},
        }, "required": ["to"]},
    }
    # the OpenAI form keeps the nested object as it is
    assert convert_to_openai_tool(ship)["function"]["parameters"]["properties"]["to"]["properties"] == {
        "city": {"type": "string"}}


def test_s3_zero_parameter_tool_sends_no_parameters():
    assert convert_to_gemini_tool(reset) == {"name": "reset", "description": "Reset everything."}


def test_s3_optional_becomes_nullable():
    params = convert_to_gemini_tool(latest)["parameters"]
    assert params["properties"]["major"] == {"type": "INTEGER", "nullable": True}
    assert params["properties"]["channel"] == {"type": "STRING", "description": 'Default: "stable".'}
    assert "required" not in params


def test_s3_refs_inlined_and_forbidden_keywords_removed():
    raw = {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Args", "type": "object",
        "additionalProperties": False,
        "$defs": {"Addr": {"title": "Addr", "type": "object", "properties": {"city": {"title": "City",
                                                                                   "type": "string"}},
                           "required": ["city"], "additionalProperties": False}},
        "properties": {
            "to": {"$ref": "#/$defs/Addr", "description": "where"},
            "alt": {"anyOf": [{"$ref": "#/$defs/Addr"}, {"type": "null"}], "default": None},
            "tags": {"type": "array", "items": {"type": "string"}, "default": [], "title": "Tags"},
            "mode": {"type": "string", "enum": ["fast", "slow"], "default": "fast"},
            "when": {"type": ["string", "null"], "format": "date-time"},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        },
        "required": ["to"],
    }
    schema, dropped = gemini_schema(raw)
    assert not keys_in(schema) & FORBIDDEN
    addr = {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}, "required": ["city"]}
    assert schema == {"type": "OBJECT", "required": ["to"], "properties": {
        "to": {**addr, "description": "where"},
        "alt": {**addr, "nullable": True},
        "tags": {"type": "ARRAY", "items": {"type": "STRING"}, "description": "Default: []."},
        "mode": {"type": "STRING", "enum": ["fast", "slow"], "description": 'Default: "fast".'},
        "when": {"type": "STRING", "nullable": True, "format": "date-time"},
        "either": {"any_of": [{"type": "STRING"}, {"type": "INTEGER"}]},
    }}
    assert "default at alt" in dropped and "additionalProperties at the top" in dropped


ID_OR_NAME = {"type": "object",
              "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "verbose": {"type": "boolean"}},
              "anyOf": [{"required": ["id"]}, {"required": ["name"]}]}
WHO = {"type": "OBJECT", "description": "Give id or name.", "properties": {
    "id": {"type": "INTEGER"}, "name": {"type": "STRING"}, "verbose": {"type": "BOOLEAN"}}}


def test_object_with_properties_and_a_union_keeps_its_properties():
    # review 3 #9: the union won and the parameters became {"any_of": [{}, {}]}, nothing in `dropped`
    assert gemini_schema(ID_OR_NAME, "get_user") == (WHO, ["anyOf at the top"])
    move = {"type": "object", "properties": {"speed": {"type": "number"}}, "required": ["speed"],
            "oneOf": [{"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]},
                      {"$ref": "#/$defs/Target"}],
            "$defs": {"Target": {"type": "object", "properties": {"target": {"type": "string", "minLength": 1}},
                                 "required": ["target"]}}}
    schema, dropped = gemini_schema(move, "move")
    assert schema == {"type": "OBJECT", "description": "Give x or target (only one of them).",
                      "properties": {"speed": {"type": "NUMBER"}, "x": {"type": "NUMBER"},
                                     "target": {"type": "STRING", "description": "Must be at least 1 character long."}},
                      "required": ["speed"]}
    assert dropped == ["oneOf at the top", "minLength at target"]
    nested, dropped = gemini_schema({"type": "object", "properties": {"who": {**ID_OR_NAME, "description": "Who."}},
                                     "required": ["who"]})
    assert nested == {"type": "OBJECT", "required": ["who"], "properties": {
        "who": {**WHO, "description": "Who. Give id or name."}}}
    assert dropped == ["anyOf at who"]
    # an object of required-only branches, with no properties of its own
    assert gemini_schema({"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}) == (
        None, ["anyOf at the top"])
    # a union of objects (no properties beside it) is still sent as any_of
    either = {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}},
                        {"type": "object", "properties": {"b": {"type": "string"}}}]}
    assert gemini_schema({"type": "object", "properties": {"e": either}})[0]["properties"]["e"] == {"any_of": [
        {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}},
        {"type": "OBJECT", "properties": {"b": {"type": "STRING"}}}]}


def test_declaration_of_an_id_or_name_tool_is_an_object():
    spec = {"name": "get_user", "description": "Find a user.", "parameters": ID_OR_NAME}
    assert convert_to_gemini_tool(spec) == {"name": "get_user", "description": "Find a user.", "parameters": WHO}


def test_dropped_constraints_are_logged_and_still_validated(caplog):
    @tool
    def restock(count: Annotated[int, Field(ge=0, description="units")],
                sku: Annotated[str, Field(pattern=r"^[A-Z]{3}-\d+$")]) -> str:
        """Order more units of a product."""
        return f"{count} x {sku}"

    with caplog.at_level(logging.DEBUG, logger="toolwire.lowering"):
        declaration = convert_to_gemini_tool(restock)
    props = declaration["parameters"]["properties"]
    # ...and still told in the descriptions (review 61)
    assert props == {"count": {"type": "INTEGER", "description": "units (Must be at least 0.)"},
                     "sku": {"type": "STRING", "description": r"Must match the regular expression `^[A-Z]{3}-\d+$`."}}
    assert "minimum at count" in caplog.text and "pattern at sku" in caplog.text
    # what Gemini was not told is still enforced before the tool runs (full pydantic schema)
    result = restock.invoke({"name": "restock", "args": {"count": -1, "sku": "ABC-1"}, "id": "c1",
                             "type": "tool_call"})
    assert result.status == "error" and "count" in result.text
    bad_sku = restock.invoke({"name": "restock", "args": {"count": 1, "sku": "abc"}, "id": "c2", "type": "tool_call"})
    assert bad_sku.status == "error" and "sku" in bad_sku.text
    assert restock.invoke({"count": 2, "sku": "ABC-7"}) == "2 x ABC-7"


def test_schema_errors():
    recursive = {"type": "object", "properties": {"node": {"$ref": "#/$defs/N"}},
                 "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}}
    with pytest.raises(SchemaError, match="recursive"):
        gemini_schema(recursive, "tree")
    with pytest.raises(SchemaError, match="not valid for Gemini"):
        convert_to_gemini_tool({"name": "1st-tool", "description": "", "parameters": {"type": "object"}})


# --------------------------------------------------------------------------- messages and requests

SIG = base64.b64encode(b"opaque-signature").decode()


def test_lower_messages_groups_results_in_call_order():
    calls = [{"name": "get_weather", "args": {"city": "Paris"}, "id": "a1"},
             {"name": "calculate", "args": {"expression": "2 + 2"}, "id": "a2"}]
    system, contents = lower_messages([
        SystemMessage("Seja breve."),
        HumanMessage("Clima e conta?"),
        AIMessage("", tool_calls=calls),
        ToolMessage("4", tool_call_id="a2"),
        ToolMessage([{"type": "text", "text": "sol"}, {"type": "text", "text": "22 C"}], tool_call_id="a1"),
        AIMessage("Pronto."),
        HumanMessage(""),
        HumanMessage(["", "E amanhã?"]),
    ])
    assert system == {"parts": [{"text": "Seja breve."}]}
    assert contents == [
        {"role": "user", "parts": [{"text": "Clima e conta?"}]},
        {"role": "model", "parts": [{"function_call": {"name": "get_weather", "args": {"city": "Paris"}}},
                                    {"function_call": {"name": "calculate", "args": {"expression": "2 + 2"}}}]},
        {"role": "user", "parts": [
            {"function_response": {"name": "get_weather", "response": {"result": "sol\n22 C"}}},
            {"function_response": {"name": "calculate", "response": {"result": "4"}}}]},
        {"role": "model", "parts": [{"text": "Pronto."}]},
        {"role": "user", "parts": [{"text": "E amanhã?"}]},
    ]


def test_thought_signatures_go_back_unchanged():
    reply = parse_response({"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Vou ver.", "thoughtSignature": SIG},
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}, "id": "g-1"}, "thoughtSignature": SIG},
    ]}, "finishReason": "STOP"}]})
    assert reply.provider_data == {"gemini": {"parts": [
        {"text": "Vou ver.", "thought_signature": SIG},
        {"function_call": {"name": "get_weather", "args": {"city": "Paris"}, "id": "g-1"}, "thought_signature": SIG},
    ]}}
    assert reply.tool_calls[0]["id"] == "g-1"
    _, contents = lower_messages([HumanMessage("clima?"), reply,
                                  ToolMessage("sol", tool_call_id="g-1", status="error")])
    raw = base64.b64decode(SIG)
    assert contents[1]["parts"] == [
        {"text": "Vou ver.", "thought_signature": raw},
        {"function_call": {"name": "get_weather", "args": {"city": "Paris"}, "id": "g-1"}, "thought_signature": raw},
    ]
    assert contents[2]["parts"] == [{"function_response": {"name": "get_weather", "response": {"error": "sol"},
                                                           "id": "g-1"}}]


@pytest.mark.parametrize(("choice", "config"), [
    ("auto", {"mode": "AUTO"}), ("none", {"mode": "NONE"}), ("required", {"mode": "ANY"}),
    ("get_weather", {"mode": "ANY", "allowed_function_names": ["get_weather"]}),
])
def test_lower_request_tool_config(choice, config):
    request = ChatRequest([HumanMessage("oi")], (get_weather.spec,), choice, None, None,
                          {"max_tokens": 50, "stop": "FIM", "temperature": 0.2, "seed": 7})
    kwargs = lower_request(request, "gemini-2.5-flash", {"temperature": 1.0, "top_p": 0.9})
    assert kwargs["model"] == "gemini-2.5-flash"
    assert kwargs["config"] == {
        "tools": [{"function_declarations": [convert_to_gemini_tool(get_weather)]}],
        "tool_config": {"function_calling_config": config},
        "automatic_function_calling": {"disable": True},
        "temperature": 0.2, "top_p": 0.9, "max_output_tokens": 50, "stop_sequences": ["FIM"], "seed": 7,
    }


# --------------------------------------------------------------------------- replies

DOC_REPLY = {
    "candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "set_light_values", "args": {"brightness": 25, "color_temp": "warm"}}},
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
    ]}, "finishReason": "STOP", "index": 0}],
    "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 20, "thoughtsTokenCount": 5,
                      "totalTokenCount": 75, "cachedContentTokenCount": 10},
    "modelVersion": "gemini-2.5-flash", "responseId": "r-1",
}


def test_parse_response():
    reply = parse_response(DOC_REPLY)
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [
        ("set_light_values", {"brightness": 25, "color_temp": "warm"}), ("get_weather", {"city": "Paris"})]
    assert len({c["id"] for c in reply.tool_calls}) == 2
    assert reply.usage == {"input_tokens": 50, "output_tokens": 25, "total_tokens": 75, "cached_tokens": 10,
                           "output_token_details": {"reasoning": 5}}  # (thoughtsTokenCount: review 298 #1)
    assert reply.response_metadata == {"model": "gemini-2.5-flash",
                                       "model_name": "gemini-2.5-flash", "finish_reason": "STOP"}
    assert reply.id == "r-1" and reply.provider_data is None
    single = parse_response(DOC_REPLY, single_call=True)  # every call read: the model keeps one (review 185 #2)
    assert len(single.tool_calls) == 2
    from toolwire.models._one_call import one_call

    kept = one_call(single)
    assert len(kept.tool_calls) == 1 and kept.response_metadata["dropped_tool_calls"] == 1


def test_parse_response_with_no_candidates():
    reply = parse_response({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 3}})
    assert reply.text == "" and reply.tool_calls == []


def test_stream_state_equals_whole_reply():
    whole = {"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Vou verificar.", "thoughtSignature": SIG},
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
        {"functionCall": {"name": "calculate", "args": {"expression": "1+1"}}},
    ]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 7,
                                                     "totalTokenCount": 12}, "modelVersion": "m", "responseId": "r"}
    events = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Vou "}]}}], "responseId": "r",
         "modelVersion": "m"},
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "verificar."}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "", "thoughtSignature": SIG}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": whole["candidates"][0]["content"]["parts"][1:]},
                         "finishReason": "STOP"}], "usageMetadata": whole["usageMetadata"]},
    ]
    state = StreamState()
    chunks = [c for c in (state.feed(e) for e in events) if c is not None] + [state.finish()]
    merged = merge_chunks(chunks, as_chunk=False)
    expected = parse_response(whole)
    assert merged.text == expected.text and merged.usage == expected.usage
    assert [(c["name"], c["args"]) for c in merged.tool_calls] == [(c["name"], c["args"]) for c in expected.tool_calls]
    assert merged.provider_data == expected.provider_data
    assert merged.response_metadata == expected.response_metadata and merged.id == "r"


def test_a_nameless_call_names_the_bound_tools_or_none_of_them():
    """Finding 5: the error names the bound tools when they are given, and never says there are none."""
    reply = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "", "args": {}}}]}}]}
    (bad,) = parse_response(reply, tool_names=["get_weather"]).invalid_tool_calls
    assert bad["error"] == "The tool call has no name; call one of the available tools: get_weather."
    (bad,) = parse_response(reply).invalid_tool_calls
    assert "available tools" not in bad["error"] and bad["error"].startswith("The tool call has no name;")


def test_review58_a_url_block_without_a_mime_type_takes_the_one_its_path_names():
    from toolwire.models.lowering._gemini_parts import user_parts

    def sent(block: dict[str, Any]) -> Any:
        return user_parts([block])[0]["file_data"].get("mime_type")

    assert sent({"type": "image", "url": "https://example.org/cat.jpg?size=2"}) == "image/jpeg"
    assert sent({"type": "image", "url": "https://example.org/a.webp"}) == "image/webp"
    assert sent({"type": "image", "url": "https://example.org/doc.pdf"}) == "application/pdf"
    assert sent({"type": "image", "url": "https://example.org/render"}) == "image/png"  # nothing to go by
    assert sent({"type": "image", "url": "https://example.org/page.html"}) == "image/png"  # not a media type
    assert sent({"type": "image", "url": "https://example.org/a.jpg", "mime_type": "image/gif"}) == "image/gif"
    assert sent({"type": "image", "source": {"type": "url", "url": "https://example.org/x.jpeg"}}) == "image/jpeg"
    assert sent({"type": "document", "source": {"type": "url", "url": "https://example.org/y"}}) == "application/pdf"
    assert sent({"type": "audio", "url": "https://example.org/s.mp3"}) == "audio/mpeg"
