"""with_structured_output: one forced tool call read as a value of a schema (pydantic model, TypedDict,
dataclass, JSON Schema dict, tool dict), its errors, include_raw, and the lowering to each provider."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Annotated, Literal, TypedDict

import pytest
from pydantic import BaseModel, Field

from toolwire import AIMessage, SchemaError, ToolCallParseError
from toolwire.messages import tool_call
from toolwire.models.structured import StructuredOutput, output_tool
from toolwire.testing import ScriptedChatModel


class Weather(BaseModel):
    """The weather in a city."""

    city: str = Field(description="the city's name")
    celsius: float
    sky: Literal["clear", "cloudy", "rain"] = "clear"


class Person(TypedDict):
    """A person."""

    name: str
    age: Annotated[int, Field(ge=0, description="age in years")]


@dataclasses.dataclass
class Point:
    x: int
    y: int


def _reply(name: str, args: dict, text: str = "") -> AIMessage:
    return AIMessage(text, tool_calls=[tool_call(name, args, "c1")])


def test_a_pydantic_model_is_forced_and_read_as_an_instance() -> None:
    model = ScriptedChatModel([_reply("Weather", {"city": "Paris", "celsius": 21.5})])
    structured = model.with_structured_output(Weather)
    value = structured.invoke("Weather in Paris?")
    assert value == Weather(city="Paris", celsius=21.5)
    request = model.requests[0]
    assert request.tools == ["Weather"] and request.tool_choice == "Weather"
    assert model.tools == () and model.tool_choice != "Weather"  # the original model is unchanged


def test_the_tool_carries_the_schema_and_descriptions() -> None:
    spec, _ = output_tool(Weather)
    assert spec.name == "Weather" and spec.description == "The weather in a city."
    assert spec.parameters["properties"]["city"]["description"] == "the city's name"
    assert spec.parameters["properties"]["sky"]["enum"] == ["clear", "cloudy", "rain"]
    assert spec.parameters["required"] == ["city", "celsius"]
    person, _ = output_tool(Person)
    assert person.name == "Person" and person.description == "A person."
    assert person.parameters["properties"]["age"] == {"type": "integer", "minimum": 0, "description": "age in years"}
    point, _ = output_tool(Point)
    assert point.description == "Give the answer as Point."  # not the signature dataclass writes as its doc


def test_typeddict_dataclass_json_schema_and_tool_dict_values() -> None:
    cases = [
        (Person, {"name": "Ana", "age": 30}, {"name": "Ana", "age": 30}),
        (Point, {"x": 1, "y": 2}, Point(1, 2)),
        ({"title": "Answer", "type": "object", "properties": {"n": {"type": "integer"}}}, {"n": 3}, {"n": 3}),
        ({"type": "function", "function": {"name": "pick", "parameters": {"type": "object", "properties": {
            "k": {"type": "string"}}}}}, {"k": "v"}, {"k": "v"}),
    ]
    for schema, args, expected in cases:
        _, read = output_tool(schema)
        name = output_tool(schema)[0].name
        structured = ScriptedChatModel([_reply(name, args)]).with_structured_output(schema)
        assert structured.invoke("q") == expected
        assert read(args) == expected


def test_values_the_schema_refuses_and_replies_without_the_call_raise_one_sentence() -> None:
    structured = ScriptedChatModel([_reply("Weather", {"city": "Paris", "celsius": "warm"})]).with_structured_output(
        Weather)
    with pytest.raises(ToolCallParseError, match=r"Weather does not fit the schema: celsius: ") as caught:
        structured.invoke("q")
    assert isinstance(caught.value.raw, AIMessage)
    negative = ScriptedChatModel([_reply("Person", {"name": "Ana", "age": -1})]).with_structured_output(Person)
    with pytest.raises(ToolCallParseError, match="age: Input should be greater than or equal to 0"):
        negative.invoke("q")
    text = ScriptedChatModel(["It is sunny."]).with_structured_output(Weather)
    with pytest.raises(ToolCallParseError, match=r"did not call Weather \(it answered in text: 'It is sunny.'\)"):
        text.invoke("q")
    other = ScriptedChatModel([_reply("Other", {})]).with_structured_output(Weather)
    with pytest.raises(ToolCallParseError, match="did not call Weather"):
        other.invoke("q")


def test_unreadable_arguments_are_said_with_the_parsers_reason() -> None:
    bad = AIMessage("", invalid_tool_calls=[{"name": "Weather", "args": '{"city": ', "id": "c1",
                                            "error": "the arguments are not JSON", "type": "invalid_tool_call"}])
    structured = ScriptedChatModel([bad]).with_structured_output(Weather)
    with pytest.raises(ToolCallParseError, match="could not be read: the arguments are not JSON"):
        structured.invoke("q")


def test_include_raw_returns_the_reply_and_the_error_instead_of_raising() -> None:
    good = _reply("Weather", {"city": "Rome", "celsius": 30})
    structured = ScriptedChatModel([good, "no call"]).with_structured_output(Weather, include_raw=True)
    first = structured.invoke("q")
    assert first["raw"] == good and first["parsed"] == Weather(city="Rome", celsius=30)
    assert first["parsing_error"] is None
    second = structured.invoke("q")
    assert second["parsed"] is None and isinstance(second["parsing_error"], ToolCallParseError)
    assert second["raw"].content == "no call"


def test_the_first_call_of_the_tool_is_read_and_ainvoke_agrees() -> None:
    two = AIMessage("", tool_calls=[tool_call("Point", {"x": 1, "y": 1}, "a"),
                                    tool_call("Point", {"x": 2, "y": 2}, "b")])
    structured = ScriptedChatModel([two, two]).with_structured_output(Point)
    assert structured.invoke("q") == Point(1, 1)
    assert asyncio.run(structured.ainvoke("q")) == Point(1, 1)
    assert "StructuredOutput(" in repr(structured) and "tool='Point'" in repr(structured)
    assert isinstance(structured, StructuredOutput)


def test_bound_tools_are_replaced_and_strict_is_passed_on() -> None:
    def helper(a: int) -> int:
        """Help."""
        return a

    model = ScriptedChatModel([_reply("Point", {"x": 0, "y": 0})]).bind_tools([helper])
    structured = model.with_structured_output(Point, strict=True)
    assert structured.model.strict is True and [t.name for t in structured.model.tools] == ["Point"]
    structured.invoke("q")
    assert model.requests[-1].tools == ["Point"]


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {}},  # no title: nothing to name the tool
    {"title": "Bad", "type": "string"},  # not an object
    int,
    "Weather",
])
def test_schemas_that_cannot_be_a_tool_are_refused_with_what_is_taken(schema: object) -> None:
    with pytest.raises(SchemaError):
        ScriptedChatModel([]).with_structured_output(schema)
