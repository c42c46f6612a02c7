"""Review 264: keywords Gemini (and the embedded model's prompt) dropped unsaid (#1), a parameter's explicit
``title`` stripped for every provider (#2), and the OpenAI strict-mode fallback warning's one-size advice (#3)."""

from __future__ import annotations

import json
import logging
import warnings
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from toolwire import tool
from toolwire.interop.openai_tools import tool_from_schema
from toolwire.models._tool_text import python_signature
from toolwire.models.base import to_tool_spec
from toolwire.models.lowering.anthropic import convert_to_anthropic_tool
from toolwire.models.lowering.gemini import convert_to_gemini_tool
from toolwire.models.lowering.openai import StrictSchemaWarning, convert_to_openai_tool
from toolwire.schema import inline_refs

# -- #1: Gemini says what it drops ----------------------------------------------------------------------------

_SCHEMA = {"type": "object", "properties": {
    "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    "filters": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                "minProperties": 1},
    "unit": {"type": "string", "examples": ["celsius", "kelvin"]},
    "code": {"type": "string", "not": {"const": "XX"}},
    "old": {"type": "string", "deprecated": True},
    "sevens": {"type": "array", "items": {"type": "integer"}, "contains": {"const": 7}},
    "pair": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
             "dependentRequired": {"a": ["b"]}}},
    "required": ["tags", "filters", "unit", "code"]}


def _gemini_props(schema: dict[str, Any]) -> dict[str, Any]:
    tool_dict = {"name": "t", "description": "d", "parameters": schema}
    logging.disable(logging.CRITICAL)
    try:
        return convert_to_gemini_tool(tool_dict)["parameters"]["properties"]
    finally:
        logging.disable(logging.NOTSET)


def test_gemini_describes_the_keywords_it_drops() -> None:
    props = _gemini_props(_SCHEMA)
    assert props["tags"]["description"] == "Items must be unique."
    assert props["filters"]["description"] == "Must have at least 1 key."
    assert props["unit"]["description"] == 'Examples: "celsius", "kelvin".'
    assert props["code"]["description"] == 'Must also meet the JSON Schema {"not": {"const": "XX"}}.'
    assert props["old"]["description"] == "Deprecated."
    assert props["sevens"]["description"] == 'Must also meet the JSON Schema {"contains": {"const": 7}}.'
    assert props["pair"]["description"] == 'Must also meet the JSON Schema {"dependentRequired": {"a": ["b"]}}.'


def test_gemini_notes_match_the_strict_lowerings_and_keep_the_description() -> None:
    schema = {"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "description": "Tags"}},
        "required": ["tags"]}
    assert _gemini_props(schema)["tags"]["description"] == "Tags (Items must be unique.)"
    strict = convert_to_openai_tool({"name": "t", "description": "d", "parameters": schema}, strict=True)
    assert strict["function"]["parameters"]["properties"]["tags"]["description"] == "Tags (Items must be unique.)"


def test_gemini_map_key_counts_said_once_and_optional_examples_said() -> None:
    schema = {"type": "object", "properties": {
        "m": {"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 3},
        "o": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "examples": ["x"]},
        "closed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False,
                   "$comment": "internal", "readOnly": False}}}
    props = _gemini_props(schema)
    assert props["m"]["description"].count("3 keys") == 1
    assert 'Examples: "x".' in props["o"]["description"]
    assert "description" not in props["closed"]  # (a closed object and annotations say nothing to the model)


def test_embedded_prompt_tells_unique_examples_and_not() -> None:
    t = tool_from_schema(_SCHEMA, lambda **k: "", name="search", description="Search.")
    text = python_signature(to_tool_spec(t))
    assert "tags: Items must be unique." in text
    assert 'unit: Examples: "celsius", "kelvin".' in text
    assert 'code: Must also meet the JSON Schema {"not": {"const": "XX"}}.' in text


# -- #2: an explicit title reaches the model ------------------------------------------------------------------

_TITLED = {"type": "function", "function": {"name": "lookup", "description": "Look a place up.", "parameters": {
    "type": "object", "title": "LookupArgs", "properties": {
        "cc": {"type": "string", "title": "ISO 3166-1 alpha-2 country code"},
        "zip_code": {"type": "string", "title": "Zip Code"}}, "required": ["cc"]}}}


def test_inline_refs_keeps_explicit_titles_and_drops_pydantic_ones() -> None:
    class Address(BaseModel):
        street_name: str
        country: Annotated[str, Field(title="Country, as its English name")]

    class Args(BaseModel):
        home: Address
        city_name: str

    out = inline_refs(Args.model_json_schema())
    assert "title" not in out
    assert "title" not in out["properties"]["home"]  # (the $defs entry's class name)
    assert "title" not in out["properties"]["city_name"]
    assert "title" not in out["properties"]["home"]["properties"]["street_name"]
    assert out["properties"]["home"]["properties"]["country"]["title"] == "Country, as its English name"
    params = inline_refs(_TITLED["function"]["parameters"])
    assert params["properties"]["cc"]["title"] == "ISO 3166-1 alpha-2 country code"
    assert "title" not in params["properties"]["zip_code"]  # (says only the name)
    assert "title" not in params


def test_explicit_title_reaches_openai_anthropic_and_gemini() -> None:
    want = "ISO 3166-1 alpha-2 country code"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for strict in (False, True):
            props = convert_to_openai_tool(_TITLED, strict=strict)["function"]["parameters"]["properties"]
            assert props["cc"]["title"] == want
            props = convert_to_anthropic_tool(_TITLED, strict=strict)["input_schema"]["properties"]
            assert props["cc"]["title"] == want
    props = _gemini_props(to_tool_spec(_TITLED).parameters)
    assert props["cc"]["description"] == want  # (Gemini's Schema has no title here: said in the description)
    assert "description" not in props["zip_code"]


def test_explicit_title_in_the_embedded_prompt_when_no_description() -> None:
    text = python_signature(to_tool_spec(_TITLED))
    assert "cc: ISO 3166-1 alpha-2 country code" in text


def test_pydantic_tool_schema_has_no_auto_titles() -> None:
    @tool
    def find(city_name: str, max_results: int = 3) -> str:
        """Find."""
        return ""

    assert "title" not in json.dumps(find.parameters)


# -- #3: the OpenAI strict fallback gives the fix that fits --------------------------------------------------

_CASES = {
    "untyped": ({"x": {"description": "anything"}}, "Give the parameter a type to make it strict."),
    "array without items": ({"xs": {"type": "array"}}, "Give the array an items schema"),
    "tuple": ({"p": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}},
              "Write the parameter as a plain object, list or value type (a tuple as a list or a model) to make it "
              "strict."),
    "not": ({"c": {"type": "string", "not": {"const": "XX"}}},
            "Write the parameter as a plain object, list or value type"),
    "overlapping oneOf": ({"v": {"oneOf": [{"type": "integer"}, {"type": "number"}]}},
                          "Give the union's members a tag field (a Literal) that tells them apart to make it strict."),
    "free-form dict": ({"d": {"type": "object", "additionalProperties": {"type": "string"}}},
                       "Give the parameter a pydantic model with named fields instead of a dict to make it strict."),
}


@pytest.mark.parametrize("label", list(_CASES))
def test_openai_strict_fallback_advice_fits_the_reason(label: str) -> None:
    props, advice = _CASES[label]
    d = {"name": "t", "description": "d", "parameters": {"type": "object", "properties": props,
                                                         "required": list(props)}}
    with pytest.warns(StrictSchemaWarning) as record:
        convert_to_openai_tool(d, strict=True)
    text = str(record[0].message)
    assert advice in text, text
    assert "pydantic model with named fields to make it strict" not in text or label == "free-form dict"


def test_openai_and_anthropic_share_the_advice() -> None:
    for label in ("untyped", "tuple", "overlapping oneOf", "free-form dict"):
        props, _ = _CASES[label]
        d = {"name": "t", "description": "d", "parameters": {"type": "object", "properties": props,
                                                             "required": list(props)}}
        texts = []
        for convert in (convert_to_openai_tool, convert_to_anthropic_tool):
            with pytest.warns(StrictSchemaWarning) as record:
                convert(d, strict=True)
            texts.append(str(record[0].message).rsplit("non-strict", 1)[1].lstrip(".: ").lower())
        assert texts[0] == texts[1], (label, texts)
