"""Review 124, provider lowering: #1 tuples sent to OpenAI get an ``items`` (OpenAI answers an array with
``prefixItems`` and no ``items`` with 400 "array schema missing items"); #9 Gemini, ``str | dict[str, X]``: JSON
object text is read as the dict; #10 Gemini, a tuple of mixed types says its positions in the description."""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import pytest

from toolwire import HumanMessage, tool
from toolwire.models.base import ChatRequest
from toolwire.models.lowering.anthropic import convert_to_anthropic_tool
from toolwire.models.lowering.openai import (
    StrictSchemaWarning,
    convert_to_openai_responses_tool,
    convert_to_openai_tool,
    lower_request,
    lower_responses_request,
)


class Stay(NamedTuple):
    city: str
    nights: int


@tool
def view(path: str, view_range: tuple[int, int] | None = None, pairs: list[tuple[int, str]] | None = None,
         stay: Stay | None = None) -> str:
    """Show part of a file.

    Args:
        path: the file
        view_range: first and last line
        pairs: line numbers and their labels
        stay: the city and the number of nights
    """
    return path


def _arrays(node: Any, where: str = "parameters") -> list[tuple[str, dict[str, Any]]]:
    """Every array schema of ``node`` with where it is."""
    out = []
    if isinstance(node, dict):
        if node.get("type") == "array":
            out.append((where, node))
        for key, value in node.items():
            out += _arrays(value, f"{where}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _arrays(value, f"{where}[{i}]")
    return out


def _openai_parameter_sets() -> list[dict[str, Any]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        strict = convert_to_openai_tool(view, strict=True)["function"]
    assert "strict" not in strict and any(issubclass(w.category, StrictSchemaWarning) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StrictSchemaWarning)
        responses_strict = convert_to_openai_responses_tool(view, strict=True)
    assert responses_strict["strict"] is False
    return [convert_to_openai_tool(view)["function"]["parameters"], strict["parameters"],
            convert_to_openai_responses_tool(view)["parameters"], responses_strict["parameters"]]


def test_openai_tuple_arrays_have_items_strict_fallback_and_not_strict():
    for parameters in _openai_parameter_sets():
        arrays = _arrays(parameters)
        assert [where for where, node in arrays if "items" not in node] == []
        tuples = {where: node for where, node in arrays if "prefixItems" in node}
        assert len(tuples) == 2  # (the NamedTuple is an object of its fields since review 175 #3)
        props = parameters["properties"]
        view_range = props["view_range"]["anyOf"][0]
        assert view_range["items"] == {"type": "integer"}
        assert view_range["prefixItems"] == [{"type": "integer"}, {"type": "integer"}]
        assert (view_range["minItems"], view_range["maxItems"]) == (2, 2)
        assert "description" not in view_range  # (one type: nothing to say of the order)
        pair = props["pairs"]["anyOf"][0]["items"]
        assert pair["items"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
        assert pair["prefixItems"] == [{"type": "integer"}, {"type": "string"}]
        assert pair["description"] == "Items by position: 1. integer, 2. string."
        stay = props["stay"]["anyOf"][0] if "anyOf" in props["stay"] else props["stay"]
        assert stay["type"] in ("object", ["object", "null"]) and list(stay["properties"]) == ["city", "nights"]


def test_openai_request_bodies_tuple_items_chat_compatible_and_responses():
    request = ChatRequest(messages=[HumanMessage("hi")], tools=(view,))
    bodies = [lower_request(request, "gpt-4o")["tools"][0]["function"]["parameters"],
              lower_request(request, "qwen", max_tokens_field="max_tokens", compatible=True)["tools"][0]["function"][
                  "parameters"],
              lower_responses_request(request, "gpt-4o")["tools"][0]["parameters"]]
    for parameters in bodies:
        assert [where for where, node in _arrays(parameters) if "items" not in node] == []


def test_openai_tool_dict_closed_tuple_and_refs():
    spec = {"type": "function", "function": {"name": "pin", "description": "Pin a place.", "parameters": {
        "type": "object", "properties": {
            "at": {"type": "array", "prefixItems": [{"$ref": "#/$defs/Lat"}, {"type": "number"}], "items": False},
        }, "required": ["at"], "$defs": {"Lat": {"type": "number", "minimum": -90, "maximum": 90}}}}}
    at = convert_to_openai_tool(spec)["function"]["parameters"]["properties"]["at"]
    assert at["items"]["anyOf"][1] == {"type": "number"} and len(at["items"]["anyOf"]) == 2  # ($ref inlined or not)
    assert at["maxItems"] == 2  # (items: false said by the count)
    assert at["description"] == "Items by position: 1. number, 2. number."
    assert spec["function"]["parameters"]["properties"]["at"]["items"] is False  # (the input is not changed)


def test_anthropic_keeps_tuples_as_json_schema_2020_12():
    pair = convert_to_anthropic_tool(view)["input_schema"]["properties"]["pairs"]["anyOf"][0]["items"]
    assert "items" not in pair and [p["type"] for p in pair["prefixItems"]] == ["integer", "string"]


@pytest.mark.parametrize("strict", [False, True])
def test_openai_named_tuple_is_an_object_of_its_fields(strict):  # (an array before review 175 #3)
    @tool
    def go(stay: Stay) -> str:
        """Go.

        Args:
            stay: where and how long
        """
        return stay.city

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StrictSchemaWarning)
        node = convert_to_openai_tool(go, strict=strict)["function"]["parameters"]["properties"]["stay"]
    assert node["type"] == "object" and list(node["properties"]) == ["city", "nights"]
    assert node["description"] == "where and how long"
    assert go.invoke({"stay": {"city": "Oslo", "nights": 3}}) == "Oslo"
    assert go.invoke({"stay": ["Oslo", 3]}) == "Oslo"  # (the array form is still taken)


# --------------------------------------------------------------------------- #10 Gemini, tuples of mixed types


def test_gemini_mixed_tuple_says_positions():
    from datetime import date

    from toolwire.models.lowering.gemini import convert_to_gemini_tool

    @tool
    def stay(city_nights: tuple[str, int], rooms: list[tuple[str, int, bool]] | None = None,
             when: tuple[date, str] | None = None, span: tuple[int, int] = (1, 2)) -> str:
        """Book a stay.

        Args:
            city_nights: the city and the number of nights
            rooms: room type, guests, and whether breakfast is included, for each room
            when: the day and a note
            span: first and last night
        """
        return "ok"

    props = convert_to_gemini_tool(stay)["parameters"]["properties"]
    city = props["city_nights"]
    assert city["items"] == {"any_of": [{"type": "STRING"}, {"type": "INTEGER"}]}
    assert city["description"] == "the city and the number of nights (Items by position: 1. string, 2. integer.)"
    assert (city["min_items"], city["max_items"]) == (2, 2)
    assert props["rooms"]["items"]["description"] == "Items by position: 1. string, 2. integer, 3. boolean."
    assert props["rooms"]["nullable"] is True
    assert "Items by position: 1. string (format date), 2. string." in props["when"]["description"]
    assert "Items by position" not in props["span"]["description"]  # (one type: the order says nothing)
    assert props["span"]["items"] == {"type": "INTEGER"}


# --------------------------------------------------------------------------- #9 Gemini, str | dict[str, X]


class _Meta(NamedTuple):
    owner: str


@tool
def tag(labels: str | dict[str, str], counts: list[str | dict[str, int]] | None = None,
        extra: list[str] | dict[str, int] | None = None) -> str:
    """Tag a resource.

    Args:
        labels: one label, or labels by key
        counts: names, or counts by name
        extra: a list of names, or counts by name
    """
    return f"{labels!r}|{counts!r}|{extra!r}"


def _gemini_call(args: dict[str, Any]) -> dict[str, Any]:
    from toolwire.models.lowering.gemini import StreamState, json_text_plan, parse_response

    raw = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "tag", "args": args}}]},
                           "finishReason": "STOP", "index": 0}], "modelVersion": "gemini-2.5-flash"}
    plan = json_text_plan([tag])
    message = parse_response(raw, json_text=plan)
    state = StreamState(json_text=plan)
    chunks = [c for c in (state.feed(raw), state.finish()) if c]
    from toolwire.messages import merge_chunks
    assert merge_chunks(chunks).to_message().tool_calls[0]["args"] == message.tool_calls[0]["args"]
    return message.tool_calls[0]["args"]


def test_gemini_str_or_map_lowered_as_two_strings():
    from toolwire.models.lowering.gemini import convert_to_gemini_tool

    labels = convert_to_gemini_tool(tag)["parameters"]["properties"]["labels"]
    assert labels["any_of"][0] == {"type": "STRING"}
    assert labels["any_of"][1]["type"] == "STRING" and "A JSON object written as a string" in labels["any_of"][1][
        "description"]


def test_gemini_str_or_map_json_object_text_reaches_the_tool_as_the_map():
    args = _gemini_call({"labels": '{"env": "prod"}', "counts": ["a", '{"b": 2}'], "extra": '{"a": 1}'})
    # (extra takes no string: its text is decoded when the call is validated, as before)
    assert args == {"labels": {"env": "prod"}, "counts": ["a", {"b": 2}], "extra": '{"a": 1}'}
    assert tag.invoke({**args, "extra": None}) == "{'env': 'prod'}|['a', {'b': 2}]|None"


def test_gemini_str_or_map_other_text_stays_a_string():
    texts = ["prod", '["env"]', "42", '"quoted"', "{not json", '{"env": "prod"', "{}x"]
    cases = [(t, t) for t in texts] + [('{"env": 1}', '{"b": "two"}')]  # (objects the map's schema refuses)
    for label, count in cases:  # (the string member's)
        args = _gemini_call({"labels": label, "counts": [count]})
        assert args == {"labels": label, "counts": [count]}, label
        assert tag.invoke(args) == f"{label!r}|[{count!r}]|None"


def test_gemini_str_or_map_of_models_checks_the_referenced_model():
    from pydantic import BaseModel

    from toolwire.models.lowering._gemini_schema import decode_json_text
    from toolwire.models.lowering.gemini import json_text_plan

    class Room(BaseModel):
        beds: int

    @tool
    def book(rooms: str | dict[str, Room]) -> str:
        """Book.

        Args:
            rooms: "any", or rooms by name
        """
        return repr(rooms)

    plan = json_text_plan([book])["book"]
    assert decode_json_text({"rooms": '{"a": {"beds": 2}}'}, plan) == {"rooms": {"a": {"beds": 2}}}
    assert decode_json_text({"rooms": '{"a": {"beds": "many"}}'}, plan) == {"rooms": '{"a": {"beds": "many"}}'}
    assert book.invoke(decode_json_text({"rooms": '{"a": {"beds": 2}}'}, plan)) == "{'a': Room(beds=2)}"
