"""Review 271: Gemini's value of any type (sent as JSON text) losing the keywords it drops (#1), annotation-only
keywords said as rules (#6), pydantic's made-up title of a generic with a disambiguated name (#3), a tuple position's
user title (#4) and the strict-mode advice for ``extra='allow'`` (#5)."""

from __future__ import annotations

import logging
from typing import Annotated, Any, Generic, NamedTuple, TypeVar

import pytest
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model

from toolwire import StructuredTool
from toolwire.interop.openai_tools import tool_from_schema
from toolwire.models._tool_text import python_signature
from toolwire.models.base import to_tool_spec
from toolwire.models.lowering._gemini_schema import gemini_schema
from toolwire.models.lowering.anthropic import convert_to_anthropic_tool
from toolwire.models.lowering.gemini import convert_to_gemini_tool
from toolwire.models.lowering.openai import StrictSchemaWarning, convert_to_openai_tool

_ANY_HINT = ("Any JSON value written as JSON text, e.g. '42', '\"text\"', '[1, 2]' or '{\"key\": 1}'; it is decoded "
             "before the tool runs")


def _model_tool(args: type[BaseModel], name: str = "t") -> StructuredTool:
    return StructuredTool.from_function(lambda **k: "ok", name=name, description="T.", args_schema=args)


def _gemini_props(tool: Any) -> dict[str, Any]:
    logging.disable(logging.CRITICAL)
    try:
        return convert_to_gemini_tool(tool)["parameters"]["properties"]  # type: ignore[no-any-return]
    finally:
        logging.disable(logging.NOTSET)


# -- #1: a value of any type sent as JSON text keeps its notes ---------------------------------------------------

class _Cells(BaseModel):
    value: Any = Field(description="The cell value.", examples=[42, "N/A"])
    legacy: Any = Field(None, deprecated=True)
    fallback: Any = Field(5)
    maybe: Any | None = Field(5, examples=[1])
    cell: int = Field(description="The cell index.", examples=[3])


def test_gemini_any_value_says_examples_deprecated_and_default() -> None:
    props = _gemini_props(_model_tool(_Cells))
    assert props["value"] == {"type": "STRING", "description": f'The cell value. ({_ANY_HINT}. Examples: 42, "N/A".)'}
    assert props["legacy"]["description"] == f"{_ANY_HINT}. Deprecated."
    assert props["fallback"]["description"] == f"{_ANY_HINT}. Default: 5."
    # (an Optional value of any type: the notes beside its anyOf follow the hint as sentences)
    assert props["maybe"] == {"type": "STRING", "description": f"{_ANY_HINT}. Default: 5. Examples: 1.",
                              "nullable": True}
    assert props["cell"]["description"] == "The cell index. (Examples: 3.)"


def test_gemini_any_value_of_a_tool_dict_says_not_and_examples() -> None:
    schema = {"type": "object", "properties": {
        "value": {"description": "The new value.", "not": {"type": "null"}},
        "mode": {"enum": ["auto", 0, 1], "description": "Mode.", "examples": ["auto"]},
        "bounded": {"minimum": 1, "format": "x-count"}}, "required": ["value"]}
    props = _gemini_props(tool_from_schema(schema, lambda **k: "ok", name="put", description="Put."))
    assert props["value"]["description"] == \
        f'The new value. ({_ANY_HINT}. Must also meet the JSON Schema {{"not": {{"type": "null"}}}}.)'
    assert props["mode"]["description"] == f'Mode. (One of: "auto", 0, 1. {_ANY_HINT}. Examples: "auto".)'
    assert props["bounded"]["description"] == f"{_ANY_HINT}. Must be at least 1. Format: x-count."


def test_gemini_any_value_without_notes_is_unchanged() -> None:
    out, _ = gemini_schema({"type": "object", "properties": {"v": {}, "w": {"description": "W."}}})
    assert out is not None
    assert out["properties"]["v"] == {"type": "STRING", "description": _ANY_HINT}
    assert out["properties"]["w"] == {"type": "STRING", "description": f"W. ({_ANY_HINT})"}


def test_gemini_any_value_in_a_described_union_keeps_its_notes() -> None:
    schema = {"type": "object", "properties": {
        "v": {"anyOf": [{"examples": [7]}, {"type": "null"}], "description": "V."}}}
    out, _ = gemini_schema(schema)
    assert out is not None
    assert out["properties"]["v"] == {"type": "STRING", "description": f"V. ({_ANY_HINT}. Examples: 7.)",
                                      "nullable": True}


# -- #6: annotation-only keywords are no rules ---------------------------------------------------------------------

_ANNOTATED = {"type": "object", "properties": {
    "day": {"type": "string", "description": "The day.", "example": "2024-05-01", "x-order": 2},
    "opts": {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "string"}},
             "propertyOrdering": ["b", "a"], "externalDocs": {"url": "https://example.com"}},
    "n": {"type": "integer", "$comment": "internal", "x-nullable": False},
    "both": {"type": "string", "examples": ["a"], "example": "b"}},
    "required": ["day", "opts", "n", "both"]}


def test_gemini_does_not_say_annotations_as_rules() -> None:
    props = _gemini_props(tool_from_schema(_ANNOTATED, lambda **k: "", name="t", description="T."))
    assert props["day"]["description"] == 'The day. (Examples: "2024-05-01".)'
    assert "description" not in props["opts"]
    assert props["n"] == {"type": "INTEGER"}
    assert props["both"]["description"] == 'Examples: "a", "b".'


def test_strict_lowerings_do_not_say_annotations_as_rules() -> None:
    t = tool_from_schema(_ANNOTATED, lambda **k: "", name="t", description="T.")
    for props in (convert_to_openai_tool(t, strict=True)["function"]["parameters"]["properties"],
                  convert_to_anthropic_tool(t, strict=True)["input_schema"]["properties"]):
        assert props["day"]["description"] == 'The day. (Examples: "2024-05-01".)'
        assert "description" not in props["opts"]
        assert "description" not in props["n"]
        assert "Must also meet" not in str(props)


# -- #3: pydantic's made-up title of a generic whose name was disambiguated ---------------------------------------

_T = TypeVar("_T")
_U = TypeVar("_U")


class _Page(BaseModel, Generic[_T, _U]):
    items: list[_T]
    extra: _U


_ItemA = create_model("Item", sku=(str, ...), __module__="shop.catalog")
_ItemB = create_model("Item", sku=(int, ...), __module__="shop.orders")
_Street = create_model("Straße", n=(int, ...))


def _all_titles(value: Any) -> list[Any]:
    if isinstance(value, dict):
        own = [value["title"]] if "title" in value else []
        return own + [t for v in value.values() for t in _all_titles(v)]
    return [t for v in value for t in _all_titles(v)] if isinstance(value, list) else []


def test_a_generic_title_pydantic_made_up_is_dropped_when_two_classes_share_a_name() -> None:
    args = create_model("Args", catalog=(_Page[_ItemA, int], ...), orders=(_Page[_ItemB, int], ...),
                        streets=(_Page[_Street, int], ...), first=(_ItemA, ...), second=(_ItemB, ...))
    titles = {d.get("title") for d in args.model_json_schema()["$defs"].values()}
    assert {"_Page[Item, int]", "_Page[Straße, int]"} <= titles  # (named "tests__..___Page_Item_int___1"...)
    t = _model_tool(args, "sync")
    assert _all_titles(convert_to_openai_tool(t)) == []
    assert _all_titles(convert_to_openai_tool(t, strict=True)) == []
    assert _all_titles(convert_to_anthropic_tool(t)) == []
    assert _all_titles(convert_to_anthropic_tool(t, strict=True)) == []
    assert "Page[" not in str(convert_to_gemini_tool(t))
    assert "Page[" not in python_signature(to_tool_spec(t))


def test_a_title_written_on_a_model_is_still_kept() -> None:
    class Address(BaseModel):
        model_config = ConfigDict(title="Where the parcel goes")
        street: str

    class Adresse(BaseModel):
        model_config = ConfigDict(title="Адрес доставки")
        street: str

    args = create_model("Args", a=(Address, ...), b=(Adresse, ...))
    props = convert_to_openai_tool(_model_tool(args))["function"]["parameters"]["properties"]
    assert props["a"]["title"] == "Where the parcel goes"
    assert props["b"]["title"] == "Адрес доставки"


# -- #4: a tuple position's title the user wrote --------------------------------------------------------------------

_POINT = {"type": "object", "properties": {"point": {"type": "array", "description": "A point.", "prefixItems": [
    {"type": "number", "title": "Latitude in degrees"}, {"type": "number", "title": "Longitude in degrees"}],
    "items": False}}, "required": ["point"]}


def test_a_tuple_position_title_written_by_the_user_is_kept() -> None:
    class Args(BaseModel):
        point: tuple[Annotated[float, Field(title="Latitude in degrees")],
                     Annotated[float, Field(title="Longitude in degrees")]]

    for t in (tool_from_schema(_POINT, lambda **k: "", name="goto", description="Go."), _model_tool(Args)):
        for props in (convert_to_openai_tool(t)["function"]["parameters"]["properties"],
                      convert_to_anthropic_tool(t)["input_schema"]["properties"]):
            assert [p.get("title") for p in props["point"]["prefixItems"]] == \
                ["Latitude in degrees", "Longitude in degrees"]
        gemini = _gemini_props(t)["point"]
        assert [b.get("description") for b in gemini["items"]["any_of"]] == \
            ["Latitude in degrees", "Longitude in degrees"]


def test_a_named_tuple_field_name_stays_dropped() -> None:
    class Point(NamedTuple):
        lat: float
        lon_deg: float

    schema = TypeAdapter(Point).json_schema()  # (as an MCP server made with pydantic writes it)
    assert [p["title"] for p in schema["prefixItems"]] == ["Lat", "Lon Deg"]
    tool_schema = {"type": "object", "properties": {"p": schema}, "required": ["p"]}
    t = tool_from_schema(tool_schema, lambda **k: "", name="goto", description="Go.")
    for out in (convert_to_openai_tool(t), convert_to_anthropic_tool(t), convert_to_gemini_tool(t)):
        assert _all_titles(out) == []
        assert "Lat" not in str(out)


# -- #5: the strict fallback's advice for extra='allow' --------------------------------------------------------------

_EXTRA_ADVICE = ("Drop extra='allow' from the pydantic model or set extra='forbid' (in a JSON Schema: "
                 "additionalProperties false) to make it strict.")


def test_strict_advice_for_a_model_with_extra_allow() -> None:
    class Rec(BaseModel):
        model_config = ConfigDict(extra="allow")
        name: str

    class Out(BaseModel):
        rec: Rec

    open_dict = {"name": "t", "description": "d", "parameters": {"type": "object", "properties": {
        "rec": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": True}}}}
    for tool in (_model_tool(Rec, "Rec"), _model_tool(Out, "Out"), open_dict):
        for convert in (convert_to_openai_tool, convert_to_anthropic_tool):
            with pytest.warns(StrictSchemaWarning) as record:
                convert(tool, strict=True)
            text = str(record[0].message)
            assert _EXTRA_ADVICE.lower() in text.lower(), text
            assert "named fields" not in text


def test_strict_advice_for_a_dict_is_unchanged() -> None:
    free = {"name": "t", "description": "d", "parameters": {"type": "object", "properties": {
        "d": {"type": "object", "additionalProperties": {"type": "string"}}}}}
    for convert in (convert_to_openai_tool, convert_to_anthropic_tool):
        with pytest.warns(StrictSchemaWarning) as record:
            convert(free, strict=True)
        assert "pydantic model with named fields instead of a dict to make it strict" in str(record[0].message)


# -- #2: the embedded model's prompt says uniqueItems, examples and not at every level --------------------------------

def test_the_pythonic_prompt_says_rules_in_unions_items_and_at_the_root() -> None:
    schema = {"type": "object", "properties": {
        "labels": {"description": "One label or several.", "anyOf": [
            {"type": "string"}, {"type": "array", "items": {"type": "string"}, "uniqueItems": True}]},
        "groups": {"description": "Groups of labels.", "type": "array",
                   "items": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}},
        "unit": {"description": "Unit or code.", "anyOf": [
            {"type": "string", "examples": ["celsius"], "not": {"const": "C"}}, {"type": "integer"}]}},
        "required": ["labels", "groups", "unit"], "not": {"required": ["labels", "unit"]}}
    text = python_signature(to_tool_spec(tool_from_schema(schema, lambda **k: "ok", name="tag",
                                                          description="Tag things")))
    assert '"""Tag things. Must also meet the JSON Schema {"not": {"required": ["labels", "unit"]}}.' in text
    assert "labels: One label or several. Items must be unique.\n" in text
    assert "groups: Groups of labels. Each item: Items must be unique.\n" in text
    assert 'unit: Unit or code. Examples: "celsius". Must also meet the JSON Schema {"not": {"const": "C"}}.\n' in text


def test_the_pythonic_prompt_says_an_optional_rule_once() -> None:
    class Args(BaseModel):
        tags: set[str] | None = Field(None, examples=[["a"]])

    text = python_signature(to_tool_spec(_model_tool(Args)))
    assert text.count("Items must be unique.") == 1
    assert text.count('Examples: ["a"].') == 1
