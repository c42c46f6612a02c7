"""Anthropic strict tool use (``"strict": true``): schemas lowered to its subset, fallbacks, per-request limits, wire.

Rules: Anthropic's "Strict tool use" and "Structured outputs" guides (JSON Schema limitations, schema complexity
limits), and anthropic-python's ``transform_schema``; see ``toolwire/models/lowering/_anthropic_strict.py``.
"""

from __future__ import annotations

import warnings
from datetime import date
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from toolwire import Agent, HumanMessage, tool
from toolwire.examples.book import get_weather
from toolwire.models.base import ChatRequest
from toolwire.models.lowering._anthropic_strict import anthropic_strict_schema, strict_counts
from toolwire.models.lowering.anthropic import convert_to_anthropic_tool, lower_request
from toolwire.models.lowering.openai import StrictSchemaWarning

from .conftest import build_model
from .wire_anthropic import Anthropic, _strict_subset
from .wire_servers import Checker, Reply, WireServer


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = Field(ge=0, le=9, description="Lives left.")


class Dog(BaseModel):
    kind: Literal["dog"]
    name: str = Field(pattern="^[A-Z][a-z]+$", min_length=2)


@tool
def adopt(pet: Annotated[Cat | Dog, Field(discriminator="kind")], when: date, tags: list[str] = [],  # noqa: B006
          note: str | None = None, weight: Annotated[float, Field(gt=0, multiple_of=0.5)] = 1.5,
          size: Literal["s", "m", "l"] = "m", codes: Annotated[list[int], Field(min_length=2, max_length=4)] = [1, 2],  # noqa: B006
          ) -> str:
    """Adopt a pet.

    Args:
        pet: the pet.
        when: the day.
        tags: labels.
        note: anything else.
        weight: kilograms.
        size: its size.
        codes: chip codes.
    """
    return "ok"


def _problems(schema: Any) -> list[str]:
    checker = Checker()
    _strict_subset(checker, schema, "input_schema")
    return checker.problems


def test_a_strict_tool_is_sent_in_the_subset_with_nothing_it_said_lost() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = convert_to_anthropic_tool(adopt, strict=True)
    schema = out["input_schema"]
    assert out["strict"] is True and _problems(schema) == []
    assert schema["required"] == ["pet", "when"]  # optional parameters stay optional (unlike OpenAI strict mode)
    props = schema["properties"]
    cat, dog = props["pet"]["anyOf"]  # the discriminated oneOf: its branches cannot overlap, so anyOf says the same
    assert cat["properties"]["kind"] == {"const": "cat"} and dog["properties"]["kind"] == {"const": "dog"}
    assert cat["properties"]["lives"]["description"] == "Lives left. (Must be at least 0, at most 9.)"
    assert "Must be at least 2 characters long." in dog["properties"]["name"]["description"]
    assert "`^[A-Z][a-z]+$`" in dog["properties"]["name"]["description"]
    assert props["when"]["format"] == "date"
    assert "Must be more than 0, a multiple of 0.5." in props["weight"]["description"]
    assert "Default: 1.5." in props["weight"]["description"]
    assert props["size"]["enum"] == ["s", "m", "l"] and "type" not in props["size"]
    assert "Must have at least 2 items. Must have at most 4 items." in props["codes"]["description"]
    assert props["note"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert adopt.spec.parameters["properties"]["weight"]["exclusiveMinimum"] == 0  # the tool's own schema unchanged


def test_a_type_list_is_split_into_an_anyof_with_each_types_own_keywords() -> None:
    schema = {"type": "object", "properties": {"x": {"type": ["string", "integer", "null"], "minLength": 2,
                                                     "minimum": 3, "description": "X."}}, "required": ["x"]}
    out = anthropic_strict_schema(schema)
    x = out["properties"]["x"]
    assert x["description"] == "X."
    assert x["anyOf"] == [{"type": "string", "description": "Must be at least 2 characters long."},
                          {"type": "integer", "description": "Must be at least 3."}, {"type": "null"}]
    assert _problems(out) == []


@pytest.mark.parametrize(("parameters", "reason"), [
    ({"type": "object", "properties": {"d": {"type": "object", "additionalProperties": {"type": "integer"}}}},
     "keys beyond its declared properties"),
    ({"type": "object", "properties": {"d": {"type": "object"}}}, "keys beyond its declared properties"),
    ({"type": "object", "properties": {"v": {}}}, "any type"),
    ({"type": "object", "properties": {"t": {"type": "array", "prefixItems": [{"type": "integer"}]}}}, "a tuple"),
    ({"type": "object", "properties": {"e": {"enum": [{"a": 1}, 2]}}}, "an enum of objects"),
    ({"type": "object", "properties": {"u": {"oneOf": [{"type": "integer"}, {"type": "number"}]}}},
     "may overlap"),
])
def test_what_the_subset_cannot_say_goes_non_strict_with_a_warning(parameters: dict[str, Any], reason: str) -> None:
    spec = {"name": "f", "description": "F.", "parameters": parameters}
    with pytest.warns(StrictSchemaWarning, match=f"Tool 'f' cannot use Anthropic strict tool use .*{reason}"):
        out = convert_to_anthropic_tool(spec, strict=True)
    assert "strict" not in out and out["input_schema"] == parameters  # sent as it is, its meaning kept


def test_a_recursive_or_dangling_ref_is_refused_by_the_schema_rewrite_itself() -> None:
    # (toolwire refuses recursive tool schemas when a tool is made; the rewrite refuses them too, for direct callers)
    node = {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
    with pytest.raises(ValueError, match=r"a recursive schema \('Node' refers to itself\)"):
        anthropic_strict_schema({"type": "object", "properties": {"n": {"$ref": "#/$defs/Node"}},
                                 "$defs": {"Node": node}})
    with pytest.raises(ValueError, match="'Gone', which is not a local definition"):
        anthropic_strict_schema({"type": "object", "properties": {"n": {"$ref": "#/$defs/Gone"}}})


def test_a_tool_dicts_own_strict_flag_is_taken_and_strict_false_is_plain() -> None:
    spec = {"name": "get_weather", "description": "W.", "strict": True,
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
    assert convert_to_anthropic_tool(spec, strict=None)["strict"] is True
    assert "strict" not in convert_to_anthropic_tool(spec)  # strict=False: not sent at all
    body = lower_request(ChatRequest(messages=[HumanMessage("q")], tools=(spec,)), "claude")
    assert body["tools"][0]["strict"] is True


def _tool_with_optional(name: str, count: int) -> dict[str, Any]:
    props = {f"p{i}": {"type": "string"} for i in range(count)}
    return {"name": name, "description": "T.", "parameters": {"type": "object", "properties": props}}


def test_the_per_request_limits_keep_the_first_tools_strict_and_say_which_are_not() -> None:
    many = tuple({"name": f"t{i}", "description": "T.", "parameters": {
        "type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}} for i in range(21))
    with pytest.warns(StrictSchemaWarning, match=r"at most 20 strict tools.* so 't20' is sent non-strict"):
        body = lower_request(ChatRequest(messages=[HumanMessage("q")], tools=many, strict=True), "claude")
    assert [t.get("strict") for t in body["tools"]] == [True] * 20 + [None]
    optional = tuple(_tool_with_optional(f"o{i}", 10) for i in range(3))  # 10 + 10 fit in 24, the third does not
    with pytest.warns(StrictSchemaWarning, match=r"so 'o2' is sent non-strict"):
        body = lower_request(ChatRequest(messages=[HumanMessage("q")], tools=optional, strict=True), "claude")
    assert [t.get("strict") for t in body["tools"]] == [True, True, None]
    assert body["tools"][2]["input_schema"] == optional[2]["parameters"]


def test_strict_counts_counts_optional_properties_and_unions_at_every_depth() -> None:
    schema = anthropic_strict_schema(adopt.spec.parameters)
    optional, unions = strict_counts(schema)
    assert optional == 5  # tags, note, weight, size, codes (every nested field of Cat and Dog is required)
    assert unions == 2  # pet's anyOf, note's anyOf


def test_strict_on_the_wire_sends_strict_tools_and_the_calls_come_back() -> None:
    with WireServer(Anthropic()) as wire:
        wire.queue(Reply(calls=[("get_weather", {"city": "Paris"})]), Reply(text="Sunny."))
        model = build_model("anthropic", wire.url)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            bound = model.bind_tools([get_weather, adopt], strict=True)
        result = Agent(bound, [get_weather, adopt]).invoke("Weather in Paris?")
        sent = wire.requests[0].body["tools"]
    assert not wire.problems, wire.problems
    assert [t["strict"] for t in sent] == [True, True]
    assert sent[0]["input_schema"]["additionalProperties"] is False
    assert result.output == "Sunny." and result.messages[1].tool_calls[0]["args"] == {"city": "Paris"}


def test_structured_output_on_anthropic_uses_a_strict_forced_tool() -> None:
    class Person(BaseModel):
        name: str
        age: int = Field(ge=0)

    with WireServer(Anthropic()) as wire:
        wire.queue(Reply(calls=[("Person", {"name": "Ann", "age": 30})]))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = build_model("anthropic", wire.url).with_structured_output(Person, strict=True).invoke("Ann, 30")
        sent = wire.requests[0].body
    assert not wire.problems, wire.problems
    assert sent["tools"][0]["strict"] is True and sent["tool_choice"]["name"] == "Person"
    assert out == Person(name="Ann", age=30)


# -- review 98 -----------------------------------------------------------------------------------------------------


def _accepts(schema: dict[str, Any], value: Any) -> bool:
    import jsonschema

    return jsonschema.Draft202012Validator(schema).is_valid(value)


@pytest.mark.parametrize(("parameters", "value"), [
    ({"allOf": [{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
                {"type": "object", "properties": {"units": {"type": "string"}}}]}, {"city": "Paris"}),
    ({"type": "object", "allOf": [{"properties": {"city": {"type": "string"}}, "required": ["city"]}]},
     {"city": "Paris"}),
    ({"type": "object", "properties": {"p": {"allOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}]}}, "required": ["p"]},
     {"p": {"a": "x", "b": 1}}),
    ({"type": "object", "properties": {"a": {"type": "string"}}, "allOf": [{"properties": {"b": {"type": "integer"}}}]},
     {"a": "x", "b": 2}),
])
def test_an_allof_of_objects_is_joined_so_the_strict_schema_takes_what_the_tool_takes(
        parameters: dict[str, Any], value: Any) -> None:
    # review 98 #1: the parts were closed one by one (or the arguments dropped), so no call the tool takes could be made
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = convert_to_anthropic_tool({"name": "f", "description": "F.", "parameters": parameters}, strict=True)
    assert out["strict"] is True and _problems(out["input_schema"]) == []
    assert _accepts(parameters, value) and _accepts(out["input_schema"], value)
    assert _accepts(out["input_schema"], {}) == _accepts(parameters, {})  # what the tool refuses stays refused


def test_an_allof_whose_parts_disagree_goes_non_strict_with_its_advice() -> None:
    parameters = {"type": "object", "properties": {"p": {"allOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}},
        {"type": "object", "properties": {"a": {"type": "integer"}}}]}}}
    with pytest.warns(StrictSchemaWarning, match=r"give 'a' different schemas\); it is sent non-strict: write the "
                                                 r"allOf's parts as one object schema to make it strict\."):
        out = convert_to_anthropic_tool({"name": "f", "description": "F.", "parameters": parameters}, strict=True)
    assert "strict" not in out


class Bird(BaseModel):
    kind: Literal["bird"] = "bird"
    wings: int = 2


class Fish(BaseModel):
    kind: Literal["fish"] = "fish"
    fins: int = 4


@tool
def keep(pet: Annotated[Bird | Fish, Field(discriminator="kind")]) -> str:
    """Keep a pet."""
    return type(pet).__name__


def test_a_discriminated_union_with_defaulted_tags_stays_strict_with_the_tag_required() -> None:
    # review 98 #2: pydantic leaves a defaulted tag out of "required", yet its discriminator needs it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = convert_to_anthropic_tool(keep, strict=True)
    bird, fish = out["input_schema"]["properties"]["pet"]["anyOf"]
    assert "kind" in bird["required"] and "kind" in fish["required"]
    assert not _accepts(out["input_schema"], {"pet": {}})  # the tool refuses it too:
    assert keep.invoke({"pet": {"kind": "fish"}}) == "Fish"


def test_a_nullable_enum_is_one_enum_and_a_typed_enum_keeps_only_its_type() -> None:
    # review 98 #12: a type list beside an enum became an anyOf that used one of the 16 unions for nothing
    out = anthropic_strict_schema({"type": "object", "properties": {
        "unit": {"type": ["string", "null"], "enum": ["C", "F", None]},
        "e": {"type": "string", "enum": ["a", 1]}}, "required": ["unit"]})
    assert out["properties"]["unit"] == {"enum": ["C", "F", None]} and strict_counts(out) == (1, 0)
    assert out["properties"]["e"] == {"enum": ["a"]}  # 1 was refused by the type, and still is


def test_strict_warnings_come_at_the_bind_line_once_and_per_call_tools_count() -> None:
    # review 98 #9: they came at the first invoke, pointing into toolwire; tools given per call were not counted
    @tool
    def loose(d: dict[str, int]) -> str:
        """Loose."""
        return ""

    with WireServer(Anthropic()) as wire:
        wire.queue(Reply(text="ok"), Reply(text="ok"))
        with pytest.warns(StrictSchemaWarning, match="instead of a dict to make it strict") as caught:
            bound = build_model("anthropic", wire.url).bind_tools([loose, get_weather], strict=True)
        assert caught[0].filename == __file__
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            bound.invoke("x")  # not again at the call
        extra = [{"name": f"x{i}", "description": "X.", "strict": True, "input_schema": {
            "type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
            "additionalProperties": False}} for i in range(20)]
        with pytest.warns(StrictSchemaWarning, match=r"at most 20 strict tools in one request, so 'x19' is sent"):
            bound.invoke("x", tools=extra)
        sent = wire.requests[-1].body["tools"]
    assert not wire.problems, wire.problems
    assert sum(t.get("strict") is True for t in sent) == 20 and "strict" not in sent[-1]
