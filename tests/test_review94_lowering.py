"""Review 94: per-provider lowering and argument decoding.

#2 Gemini gets a dict inside a union member as JSON text, which must be decoded back; #3 OpenAI strict mode makes an
optional ``const`` nullable for real; #8 OpenAI strict mode drops (and says) the keywords outside the Structured
Outputs subset; #13 Gemini says the dict key and key-count limits it drops.
"""

from __future__ import annotations

import json
import uuid
from typing import Annotated, Any, Literal, NotRequired

import jsonschema
import pytest
from pydantic import BaseModel, Field, HttpUrl, Json, SecretStr
from typing_extensions import TypedDict

from toolwire import tool
from toolwire.models.lowering._gemini_schema import gemini_schema
from toolwire.models.lowering.gemini import convert_to_gemini_tool, json_text_plan, parse_response
from toolwire.models.lowering.openai import convert_to_openai_tool
from toolwire.parsing.arguments import decode_json_strings, json_string_plan

# ---------------------------------------------------------------------------------------------- #2 Gemini unions


class Filter(BaseModel):
    field: str
    options: dict[str, int] = {}


class Sort(BaseModel):
    key: str
    options: str = ""  # the same name, a string: never decoded in this branch


@tool
def search(q: Filter | Sort) -> str:
    """Search.

    Args:
        q: a filter or a sort
    """
    return repr(q)


def _gemini_call(t: Any, args: dict[str, Any]) -> Any:
    reply = {"candidates": [{"content": {"role": "model", "parts": [{"function_call": {
        "name": t.name, "args": args}}]}, "finish_reason": "STOP"}]}
    msg = parse_response(reply, tool_names=[t.name], json_text=json_text_plan([t]))
    return t.invoke(msg.tool_calls[0])


def test_gemini_dict_in_a_union_member_round_trips() -> None:
    branches = convert_to_gemini_tool(search)["parameters"]["properties"]["q"]["any_of"]
    assert branches[0]["properties"]["options"]["type"] == "STRING"  # (JSON text: Gemini's OBJECT needs properties)
    # what Gemini sends, following that schema, reaches the tool as the dict
    result = _gemini_call(search, {"q": {"field": "color", "options": json.dumps({"red": 1})}})
    assert result.status == "success", result.content
    assert result.content == "Filter(field='color', options={'red': 1})"
    # the other branch's string of the same name is kept as it is, JSON or not
    result = _gemini_call(search, {"q": {"key": "name", "options": '{"a": 1}'}})
    assert result.content == "Sort(key='name', options='{\"a\": 1}')"


def test_union_branch_plan_follows_the_branch_the_dict_belongs_to() -> None:
    plan = json_string_plan(search.parameters)
    assert plan is not None
    filt = decode_json_strings({"q": {"field": "f", "options": '{"x": 2}'}}, plan)
    assert filt == {"q": {"field": "f", "options": {"x": 2}}}
    sort = {"q": {"key": "k", "options": '{"x": 2}'}}
    assert decode_json_strings(sort, plan) is sort  # (nothing changed: the same object back)


class Lookup(BaseModel):
    email: str


@tool
def find_user(who: uuid.UUID | Lookup, tag: str | dict[str, int] = "") -> str:
    """Find a user.

    Args:
        who: an id or {"email": ...}
        tag: a tag
    """
    return repr(who)


def test_json_object_text_decoded_where_the_string_branch_cannot_take_it() -> None:
    plan = json_string_plan(find_user.parameters)
    assert plan is not None
    # a uuid never starts with "{": the object branch is meant (Anthropic JSON-encodes nested objects too)
    out = decode_json_strings({"who": '{"email": "a@b.c"}'}, plan)
    assert out == {"who": {"email": "a@b.c"}}
    call = {"name": "find_user", "args": {"who": '{"email": "a@b.c"}'}, "id": "c1", "type": "tool_call"}
    assert find_user.invoke(call).content == "Lookup(email='a@b.c')"
    # a real uuid stays text; a branch taking any string keeps the JSON text as it is
    same = {"who": "12345678-1234-5678-1234-567812345678", "tag": '{"a": 1}'}
    assert decode_json_strings(same, plan) is same


# ------------------------------------------------------------------------------------ #3 strict optional const


class Opts(TypedDict):
    name: str
    force: NotRequired[Literal[True]]


@tool
def deploy(opts: Opts, fmt: Literal["csv"] = "csv") -> str:
    """Deploy a service.

    Args:
        opts: the service name, and force=true to skip the checks
        fmt: the output format
    """
    return repr((opts, fmt))


def test_strict_optional_const_takes_null() -> None:
    params = convert_to_openai_tool(deploy, strict=True)["function"]["parameters"]
    force = params["properties"]["opts"]["properties"]["force"]
    assert force["enum"] == [True, None] and "const" not in force
    check = jsonschema.Draft202012Validator(params)
    assert check.is_valid({"opts": {"name": "api", "force": None}, "fmt": "csv"})
    assert check.is_valid({"opts": {"name": "api", "force": True}, "fmt": "csv"})
    assert not check.is_valid({"opts": {"name": "api", "force": False}, "fmt": "csv"})
    # a const whose default is its value: sending it is the default, so it stays a plain required const
    assert params["properties"]["fmt"]["const"] == "csv"


# ------------------------------------------------------------------------------ #8 strict unsupported keywords


@tool
def sample(name: Annotated[str, Field(min_length=2, max_length=40)], url: HttpUrl, pw: SecretStr,
           data: Json[list[int]], score: Annotated[float, Field(ge=0, le=1, multiple_of=0.5)] = 0,
           tags: Annotated[list[str] | None, Field(min_length=1, max_length=3)] = None) -> str:
    """Sample.

    Args:
        name: a name
        url: a url
        pw: a password
        data: numbers as JSON text
        score: a score
        tags: some tags
    """
    return name


_SUPPORTED = {"type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const",
              "description", "title", "pattern", "format", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
              "exclusiveMinimum", "minItems", "maxItems"}


def _keywords(node: Any) -> set[str]:
    if not isinstance(node, dict):
        return set()
    found = set(node)
    for key, sub in node.items():
        if key == "properties":
            for value in sub.values():
                found |= _keywords(value)
        elif key == "items":
            found |= _keywords(sub)
        elif key == "anyOf":
            for value in sub:
                found |= _keywords(value)
    return found


def test_strict_keeps_only_the_documented_keywords_and_says_the_rest() -> None:
    params = convert_to_openai_tool(sample, strict=True)["function"]["parameters"]
    assert _keywords(params) <= _SUPPORTED
    props = params["properties"]
    assert props["name"]["description"] == "a name (Must be at least 2 characters long, at most 40 characters long.)"
    assert "Must be at least 1 character long, at most 2083 characters long." in props["url"]["description"]
    assert "writeOnly" not in props["pw"]
    assert "Holds application/json text." in props["data"]["description"]
    assert 'JSON Schema {"items": {"type": "integer"}, "type": "array"}' in props["data"]["description"]
    # the documented keywords stay (numbers' bounds and multipleOf, arrays' item counts)
    score = next(b for b in props["score"]["anyOf"] if b.get("type") == "number") if "anyOf" in props["score"] \
        else props["score"]
    assert (score["minimum"], score["maximum"], score["multipleOf"]) == (0, 1, 0.5)
    tags = next(b for b in props["tags"]["anyOf"] if b.get("type") == "array")
    assert (tags["minItems"], tags["maxItems"]) == (1, 3)
    # toolwire still validates what strict mode dropped
    call = {"name": "sample", "args": {"name": "x", "url": "https://a.b", "pw": "p", "data": "[1]"}, "id": "c1",
            "type": "tool_call"}
    assert "at least 2 characters" in sample.invoke(call).content


# -------------------------------------------------------------------------- #13 Gemini map keys and key counts


@tool
def sizes(a: dict[Literal["small", "large"], int], b: Annotated[dict[str, int], Field(min_length=1, max_length=3)],
          c: dict[str, int] | None = None) -> str:
    """Sizes.

    Args:
        a: per size
        b: counts
        c: anything
    """
    return repr((a, b, c))


def test_gemini_says_the_map_keys_and_key_count_it_drops() -> None:
    props = convert_to_gemini_tool(sizes)["parameters"]["properties"]
    assert props["a"]["type"] == "STRING" and 'Keys: one of "small", "large".' in props["a"]["description"]
    assert "At least 1 key and at most 3 keys." in props["b"]["description"]
    assert "Keys" not in props["c"]["description"] and "key and" not in props["c"]["description"]
    # hand-written key schemas: a pattern, integer enum values (said as the text JSON keys are)
    lowered, dropped = gemini_schema({"type": "object", "properties": {
        "ids": {"type": "object", "additionalProperties": {"type": "string"},
                "propertyNames": {"pattern": "^-?[0-9]+$"}},
        "lv": {"type": "object", "additionalProperties": {"type": "string"}, "propertyNames": {"enum": [1, 2]},
               "maxProperties": 1}}})
    assert lowered is not None
    assert "Keys must match the regular expression `^-?[0-9]+$`." in lowered["properties"]["ids"]["description"]
    assert 'Keys: one of "1", "2". At most 1 key.' in lowered["properties"]["lv"]["description"]
    assert "propertyNames at ids" in dropped and "maxProperties at lv" in dropped


class Page(BaseModel):
    size: int
    meta: dict[str, str] | None = None


@tool
def browse(steps: list[Filter | Page], extra: Filter | dict[str, int] | None = None) -> str:
    """Browse.

    Args:
        steps: filters and pages
        extra: a filter, or counts
    """
    return repr((steps, extra))


def _as_gemini_sends(value: Any, node: dict[str, Any]) -> Any:
    """``value`` as Gemini sends it for the lowered ``node``: a dict where the node is a JSON-text STRING as that
    text (the first ``any_of`` branch that takes the value decides)."""
    if value is None:
        return None
    if "any_of" in node:
        for branch in node["any_of"]:
            if branch["type"] == "OBJECT" and isinstance(value, dict) and set(value) <= set(branch["properties"]):
                return _as_gemini_sends(value, branch)
            if branch["type"] == "STRING" and isinstance(value, dict):
                return json.dumps(value)
        return value
    if node["type"] == "STRING" and isinstance(value, dict):
        return json.dumps(value)
    if node["type"] == "ARRAY":
        return [_as_gemini_sends(v, node["items"]) for v in value]
    if node["type"] == "OBJECT":
        return {k: _as_gemini_sends(v, node["properties"][k]) for k, v in value.items()}
    return value


@pytest.mark.parametrize("args", [
    {"steps": [{"field": "a", "options": {"x": 1}}, {"size": 2, "meta": {"k": "v"}}, {"size": 3}]},
    {"steps": [], "extra": {"field": "b", "options": {"y": 2, "z": 3}}},
    {"steps": [{"size": 1, "meta": None}], "extra": {"n": 4}},
])
def test_gemini_round_trip_through_unions(args: dict[str, Any]) -> None:
    params = convert_to_gemini_tool(browse)["parameters"]
    sent = _as_gemini_sends(args, params)
    assert sent != args  # (some dict went as JSON text)
    result = _gemini_call(browse, sent)
    assert result.status == "success", result.content
    assert result.content == browse.invoke({"name": "browse", "args": args, "id": "c1", "type": "tool_call"}).content
