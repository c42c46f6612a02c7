"""toolwire.models.lowering.openai: tools to the Chat Completions format, strict mode included (issue [1])."""

from __future__ import annotations

import json
import warnings
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from toolwire import SchemaError, convert_to_openai_tool, tool
from toolwire.models.lowering.openai import StrictSchemaWarning, strict_schema


class Address(BaseModel):
    city: str
    zip_code: str = ""


class Filters(BaseModel):
    """Search filters."""

    query: str = Field(description="what to look for", examples=[{"default": "kept"}])
    max_results: int = 10


def lookup(q: str, k: int = 5) -> list[str]:
    """Look up documents.

    Args:
        q: the query.
        k: how many.
    """
    return [q] * k


def test_function_non_strict() -> None:
    assert convert_to_openai_tool(lookup) == {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look up documents.",
            "parameters": {
                "type": "object",
                "properties": {"q": {"type": "string", "description": "the query."},
                               "k": {"type": "integer", "description": "how many.", "default": 5}},
                "required": ["q"],
                "additionalProperties": False,
            },
        },
    }


def test_function_strict() -> None:
    assert convert_to_openai_tool(lookup, strict=True)["function"] == {
        "name": "lookup",
        "description": "Look up documents.",
        "parameters": {
            "type": "object",
            "properties": {"q": {"type": "string", "description": "the query."},
                           "k": {"type": ["integer", "null"], "description": "how many. (Default: 5.)"}},
            "required": ["q", "k"],
            "additionalProperties": False,
        },
        "strict": True,
    }


def test_a_tool_the_pydantic_model_and_the_dict_forms() -> None:
    made = tool(lookup)
    assert convert_to_openai_tool(made) == convert_to_openai_tool(lookup)
    assert convert_to_openai_tool(Filters) == {
        "type": "function",
        "function": {
            "name": "Filters",
            "description": "Search filters.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "what to look for", "examples": [{"default": "kept"}]},
                    "max_results": {"type": "integer", "default": 10},
                },
                "required": ["query"],
                "additionalProperties": False,
            },
        },
    }
    openai_dict = {"type": "function", "function": {"name": "f", "description": "F.",
                                                    "parameters": {"type": "object", "properties": {}}}}
    assert convert_to_openai_tool(openai_dict) == openai_dict
    with pytest.raises(SchemaError, match="Cannot use int as a tool"):
        convert_to_openai_tool(5)


def test_strict_leaves_data_inside_the_schema_alone() -> None:
    # "examples" holds data, not schemas: its {"default": ...} is not a keyword to drop; strict mode does not take
    # "examples" (review 94 #8), so the data is said, as it is, in the description
    params = convert_to_openai_tool(Filters, strict=True)["function"]["parameters"]
    assert "examples" not in params["properties"]["query"]
    assert params["properties"]["query"]["description"] == 'what to look for (Examples: {"default": "kept"}.)'
    assert params["properties"]["max_results"] == {"type": ["integer", "null"], "description": "Default: 10."}


def test_strict_nested_objects_and_lists() -> None:
    def ship(to: Address, stops: list[Address], express: bool = False) -> str:
        """Ship."""
        return ""

    params = convert_to_openai_tool(ship, strict=True)["function"]["parameters"]
    address = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "zip_code": {"type": ["string", "null"]}},
        "required": ["city", "zip_code"],
        "additionalProperties": False,
    }
    assert params == {
        "type": "object",
        "properties": {
            "to": address,
            "stops": {"type": "array", "items": address},
            "express": {"type": ["boolean", "null"], "description": "Default: false."},
        },
        "required": ["to", "stops", "express"],
        "additionalProperties": False,
    }
    assert "default" not in json.dumps(params)


def test_strict_enum_and_union_become_nullable_correctly() -> None:
    def f(mode: Literal["a", "b"] = "a", value: int | str = 0, note: str | None = None) -> None:
        """F."""

    props = convert_to_openai_tool(f, strict=True)["function"]["parameters"]["properties"]
    assert props["mode"] == {"type": ["string", "null"], "enum": ["a", "b", None], "description": 'Default: "a".'}
    assert props["value"] == {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}],
                              "description": "Default: 0."}
    assert props["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}


def test_strict_with_no_parameters() -> None:
    def reset() -> str:
        """Reset."""
        return "ok"

    assert convert_to_openai_tool(reset, strict=True)["function"]["parameters"] == {
        "type": "object", "properties": {}, "required": [], "additionalProperties": False}


# the advice fits the reason, in the Anthropic strict warning's words (review 264 #3)
_DICT_ADVICE = "Give the parameter a pydantic model with named fields instead of a dict"


@pytest.mark.parametrize(
    ("annotation", "reason", "advice"),
    [
        (dict[str, str], "an object with free-form keys", _DICT_ADVICE),
        (dict, "an object with free-form keys", _DICT_ADVICE),
        (dict[str, Any] | None, "an object with free-form keys", _DICT_ADVICE),
        (list[dict[str, int]], "an object with free-form keys", _DICT_ADVICE),
        (Any, "a parameter that takes a value of any type", "Give the parameter a type"),
    ],
)
def test_schemas_that_cannot_be_strict_warn_and_stay_non_strict(annotation: Any, reason: str, advice: str) -> None:
    def f(value) -> str:
        """F."""
        return ""

    f.__annotations__["value"] = annotation
    with pytest.warns(StrictSchemaWarning) as record:
        out = convert_to_openai_tool(f, strict=True)
    assert "strict" not in out["function"]
    assert out["function"]["parameters"] == tool(f).parameters
    assert str(record[0].message) == (
        f"Tool 'f' cannot use OpenAI strict mode ({reason}); it is sent non-strict. {advice} to make it strict.")
    with pytest.raises(ValueError, match=reason.replace("(", r"\(")):
        strict_schema(tool(f).parameters)


def test_strict_does_not_change_the_tool_schema() -> None:
    made = tool(lookup)
    before = json.dumps(made.parameters)
    convert_to_openai_tool(made, strict=True)
    assert json.dumps(made.parameters) == before


def test_strict_false_or_none_never_warns() -> None:
    def f(value: dict[str, str]) -> str:
        """F."""
        return ""

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "strict" not in convert_to_openai_tool(f, strict=False)["function"]
        assert "strict" not in convert_to_openai_tool(f, strict=None)["function"]


def test_nulls_a_strict_model_sends_for_defaults_are_replaced_before_the_call() -> None:
    @tool
    def ship(to: Address, express: bool = False, note: str | None = "none given") -> str:
        """Ship."""
        return f"{to.city}|{to.zip_code!r}|{express}|{note}"

    # what a strict-mode model sends when it leaves optional values out
    assert ship.invoke({"to": {"city": "Oslo", "zip_code": None}, "express": None, "note": None}) == \
        "Oslo|''|False|None"


def test_an_object_with_no_declared_properties_cannot_be_strict() -> None:
    spec = {"name": "g", "description": "G.",
            "parameters": {"type": "object", "properties": {"opts": {"type": "object"}}, "required": ["opts"]}}
    with pytest.warns(StrictSchemaWarning, match=r"an object with no declared properties"):
        out = convert_to_openai_tool(spec, strict=True)
    assert out == {"type": "function", "function": {"name": "g", "description": "G.",
                                                    "parameters": spec["parameters"]}}
