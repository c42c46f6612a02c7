"""Review 6 regressions in tools: JSON-encoded nested objects/arrays in dict arguments (finding 5)."""

from __future__ import annotations

from typing import Any, NotRequired

from pydantic import BaseModel
from typing_extensions import TypedDict

from toolwire import ToolExecutor, tool
from toolwire.interop import tool_from_schema
from toolwire.models.lowering.anthropic import parse_response
from toolwire.parsing.arguments import decode_json_strings, json_string_plan


class Addr(TypedDict):
    street: str
    zip: NotRequired[int]


class Geo(BaseModel):
    lat: float
    lon: float


class Place(BaseModel):
    name: str
    geo: Geo
    tags: list[str] = []


@tool
def ship(addr: Addr, items: list[str], note: str = "") -> str:
    """Ship items to an address."""
    return repr((addr, items, note))


@tool
def visit(place: Place, stops: list[Place] | None = None, maybe: Geo | None = None, text: str | dict = "") -> str:
    """Visit a place."""
    return repr((place, stops, maybe, text))


def call(args: Any, name: str = "ship") -> dict[str, Any]:
    return {"name": name, "args": args, "id": "c1", "type": "tool_call"}


def test_claude_style_encoded_object_and_array_are_decoded() -> None:
    msg = ship.invoke(call({"addr": '{"street": "Main"}', "items": '["a", "b"]'}))
    assert msg.status == "success", msg.content
    assert msg.content == repr(({"street": "Main"}, ["a", "b"], ""))


def test_through_the_anthropic_reply_and_the_executor() -> None:
    reply = parse_response({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "stop_reason": "tool_use",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "ship",
                     "input": {"addr": '{"street": "Main"}', "items": '["a"]'}}],
        "usage": {"input_tokens": 1, "output_tokens": 1},
    })
    [result] = ToolExecutor([ship]).call(reply.tool_calls)
    assert result.status == "success", result.content
    assert result.content == repr(({"street": "Main"}, ["a"], ""))


def test_a_string_parameter_keeps_json_text() -> None:
    msg = ship.invoke(call({"addr": {"street": "Main"}, "items": [], "note": '{"not": "decoded"}'}))
    assert msg.content == repr(({"street": "Main"}, [], '{"not": "decoded"}'))
    # str | dict admits a string: the text is kept
    msg = visit.invoke(call({"place": {"name": "p", "geo": {"lat": 1, "lon": 2}}, "text": '{"a": 1}'}, "visit"))
    assert msg.status == "success", msg.content
    assert msg.content.endswith("'{\"a\": 1}')")


def test_nested_optional_and_list_elements_are_decoded() -> None:
    args = {
        "place": {"name": "p", "geo": '{"lat": 1, "lon": 2}', "tags": '["x"]'},
        "stops": '[{"name": "q", "geo": "{\\"lat\\": 3, \\"lon\\": 4}"}]',
        "maybe": '{"lat": 5, "lon": 6}',
    }
    msg = visit.invoke(call(args, "visit"))
    assert msg.status == "success", msg.content
    place, stops, maybe, _ = (Place(name="p", geo=Geo(lat=1, lon=2), tags=["x"]),
                              [Place(name="q", geo=Geo(lat=3, lon=4))], Geo(lat=5, lon=6), "")
    assert msg.content == repr((place, stops, maybe, ""))


def test_only_json_of_the_wanted_kind_is_decoded() -> None:
    for bad in ('["a"]', "not json", '{"street": NaN}'):  # an array for an object; text; a non-finite number
        msg = ship.invoke(call({"addr": bad, "items": []}))
        assert msg.status == "error"
        assert "'addr': Input should be a valid dictionary" in msg.content


def test_schema_tools_decode_too() -> None:
    params = {"type": "object", "properties": {"filter": {"type": "object", "properties": {"q": {"type": "string"}}},
                                               "ids": {"type": "array", "items": {"type": "integer"}}},
              "required": ["filter"]}
    t = tool_from_schema({"name": "find", "description": "Find.", "parameters": params}, lambda **k: k)
    msg = t.invoke(call({"filter": '{"q": "x"}', "ids": "[1, 2]"}, "find"))
    assert msg.status == "success", msg.content
    assert msg.artifact is None and msg.content == '{"filter": {"q": "x"}, "ids": [1, 2]}'


def test_plan_is_none_without_object_or_array_parameters_and_input_is_not_changed() -> None:
    @tool
    def add(a: int, b: int, label: str = "") -> int:
        """Add."""
        return a + b

    assert json_string_plan(add.parameters) is None
    plan = json_string_plan(ship.parameters)
    assert plan is not None
    args = {"addr": '{"street": "Main"}', "items": ["a"]}
    out = decode_json_strings(args, plan)
    assert out == {"addr": {"street": "Main"}, "items": ["a"]}
    assert args["addr"] == '{"street": "Main"}'  # a copy, the caller's dict is kept
    same = {"addr": {"street": "Main"}, "items": ["a"]}
    assert decode_json_strings(same, plan) is same
