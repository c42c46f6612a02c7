"""Faults a reviewer's pass found (review 63), each kept fixed by a test here; no model is loaded.

1. A schema tool's whole floats (``2.0``) became ``int`` only under a plain ``"type": "integer"``, not under an
   ``anyOf``/``oneOf``/``allOf``, an ``additionalProperties`` schema or ``prefixItems``.
2. "It takes no arguments: send {}." was said of a schema that takes keys other than ``properties`` (through
   ``patternProperties``, or a combinator's properties).
3. An MCP client whose server went away still said "server gone" after it was closed and opened again.
4. A wrapper ``{"name": ..., "arguments": {...}}`` naming this very tool spelled another way (``getWeather``,
   ``functions.get_weather``) was refused as a call of another tool; ``tool_call_from_native`` with a schema did
   not refuse a call of another tool at all.
5. A pattern's note in a Gemini description had no full stop, so the next note read as part of the pattern.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from toolwire import Tool, tool
from toolwire.interop.openai_tools import schema_validator
from toolwire.parsing.arguments import tool_call_from_native


def _typed(**kw: Any) -> dict[str, Any]:
    return {k: (v, type(v).__name__) for k, v in kw.items()}


def test_whole_floats_become_integers_through_combinators_maps_and_tuples() -> None:
    """Review 63 #1: ``2.0`` (an integer to JSON Schema) reached the function as a float for an integer under
    ``anyOf``/``oneOf``/``allOf``, in a map (``additionalProperties``) or a tuple (``prefixItems``); it is an
    ``int`` now, but stays a float where a branch allows ``number`` or the schema is untyped."""
    params = {"type": "object", "properties": {
        "b": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "d": {"type": "object", "additionalProperties": {"type": "integer"}},
        "e": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": {"type": "integer"}},
        "f": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
        "g": {"allOf": [{"type": "integer"}, {"minimum": 0}]},
        "o": {"anyOf": [{"type": "object", "properties": {"n": {"type": "integer"}}}, {"type": "null"}]},
        "p": {"type": "object", "patternProperties": {"^n_": {"type": "integer"}}, "additionalProperties": False},
        "keep_number": {"anyOf": [{"type": "integer"}, {"type": "number"}]},
        "keep_untyped": {"anyOf": [{"type": "integer"}, {}]},
        "keep_float": {"type": "number"},
    }}
    t = Tool.from_schema(_typed, "f", "d", params)
    out = t.invoke({"b": 2.0, "d": {"k": 2.0}, "e": [2.0, "x", 3.0], "f": 2.0, "g": 2.0, "o": {"n": 4.0},
                    "p": {"n_a": 5.0}, "keep_number": 2.0, "keep_untyped": 2.0, "keep_float": 2.0})
    assert out == {"b": (2, "int"), "d": ({"k": 2}, "dict"), "e": ([2, "x", 3], "list"), "f": (2, "int"),
                   "g": (2, "int"), "o": ({"n": 4}, "dict"), "p": ({"n_a": 5}, "dict"),
                   "keep_number": (2.0, "float"), "keep_untyped": (2.0, "float"), "keep_float": (2.0, "float")}
    assert type(out["d"][0]["k"]) is int and type(out["e"][0][2]) is int and type(out["o"][0]["n"]) is int

    # draft-07's tuple form (items: [...], additionalItems) is walked the same way
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {
        "t": {"type": "array", "items": [{"type": "integer"}], "additionalItems": {"type": "integer"}}}}
    assert Tool.from_schema(_typed, "f", "d", draft7).invoke({"t": [1.0, 2.0]}) == {"t": ([1, 2], "list")}

    # copies only what changes: unchanged parts are the caller's own objects
    validate = schema_validator(params, "f")
    args = {"d": {"k": 2}, "e": [1, "x"], "o": {"n": 4.0}}
    checked = validate(args)
    assert checked["d"] is args["d"] and checked["e"] is args["e"] and checked["o"] == {"n": 4}
    assert args["o"] == {"n": 4.0} and type(args["o"]["n"]) is float


def test_the_no_arguments_hint_is_only_for_a_schema_that_takes_no_keys() -> None:
    """Review 63 #2: a schema without ``properties`` whose keys come from ``patternProperties`` or from an
    ``allOf`` branch (``unevaluatedProperties: false``) was answered "It takes no arguments: send {}.", which
    would make the model drop arguments the tool needs; only a schema that takes no key at all says it."""
    pattern_only = {"type": "object", "patternProperties": {"^x_": {"type": "integer"}},
                    "additionalProperties": False}
    in_a_branch = {"type": "object", "allOf": [{"properties": {"a": {"type": "integer"}}}],
                   "unevaluatedProperties": False}
    for params in (pattern_only, in_a_branch):
        with pytest.raises(Exception, match="'q' is not a parameter of this tool") as info:
            schema_validator(params, "t")({"q": 1})
        assert "takes no arguments" not in str(info.value)
    for params in ({"type": "object"}, {"type": "object", "properties": {}, "additionalProperties": False}):
        with pytest.raises(Exception, match=r"It takes no arguments: send \{\}\.$"):
            schema_validator(params, "t")({"q": 1})


@pytest.mark.timeout(120)
def test_an_mcp_client_opened_again_after_its_server_went_away_says_open() -> None:
    """Review 63 #3: after a call found the server gone, the client's repr said "server gone (close it, then
    start it again)" even once it had been closed and opened again, until a call succeeded."""
    pytest.importorskip("mcp")
    from toolwire.mcp import MCPClient
    from toolwire.mcp.common import StdioServer

    demo = StdioServer(sys.executable, (str(Path(__file__).parent / "interop" / "mcp_servers" / "demo.py"),))

    async def main() -> None:
        client = MCPClient(demo)
        async with client:
            crash = next(t for t in client if t.name == "crash")
            await crash.ainvoke({"name": "crash", "args": {}, "id": "x1", "type": "tool_call"})
            assert "server gone" in repr(client)
        assert ", closed," in repr(client)
        async with client:
            assert ", open," in repr(client), repr(client)

    asyncio.run(main())


def test_a_wrapper_naming_this_tool_spelled_otherwise_is_unwrapped() -> None:
    """Review 63 #4: ``{"name": "getWeather", "arguments": {...}}`` sent as ``get_weather``'s arguments was refused
    as "a call of another tool" (also ``get-weather``, ``"get_weather "``, ``functions.get_weather``); and
    ``tool_call_from_native(name, raw, schema=...)`` unwrapped a call of another tool instead of refusing it."""

    @tool
    def get_weather(city: str) -> str:
        """Get the weather."""
        return f"sun in {city}"

    def run(inner_name: str) -> Any:
        args = json.dumps({"name": inner_name, "arguments": {"city": "Oslo"}})
        return get_weather.invoke({"name": "get_weather", "args": args, "id": "c", "type": "tool_call"})

    for spelled in ("getWeather", "get-weather", "get_weather ", "functions.get_weather", "GetWeather"):
        message = run(spelled)
        assert message.status == "success" and message.content == "sun in Oslo", (spelled, message.content)
    for other in ("read_file", "functions.read_file", "get_weather_v2"):
        message = run(other)
        assert message.status == "error" and "a call of another tool" in message.content, other

    schema = get_weather.parameters
    refused = tool_call_from_native("get_weather", '{"name": "read_file", "arguments": {"city": "x"}}', "i",
                                    schema=schema)
    assert refused["type"] == "invalid_tool_call" and "a call of another tool, 'read_file'" in refused["error"]
    same = tool_call_from_native("get_weather", '{"name": "functions.getWeather", "arguments": {"city": "x"}}',
                                 "i", schema=schema)
    assert same["type"] == "tool_call" and same["args"] == {"city": "x"}
    no_schema = tool_call_from_native("get_weather", {"name": "get-weather", "arguments": {"city": "x"}}, "i")
    assert no_schema["type"] == "tool_call" and no_schema["args"] == {"city": "x"}


def test_a_patterns_note_ends_its_sentence() -> None:
    """Review 63 #5: Gemini's description of a field with a pattern and a default read 'zip code (Must match the
    regular expression ^\\d{5}$ Default: "00000".)': the pattern's note had no full stop, so the default's
    sentence looked like part of the expression. The pattern is now between backticks and the sentence ends."""
    from toolwire.models.lowering._common import constraint_notes
    from toolwire.models.lowering.gemini import convert_to_gemini_tool

    class Addr(BaseModel):
        """An address."""

        zip: Annotated[str, Field(pattern=r"^\d{5}$", description="zip code")] = "00000"

    @tool
    def ship(to: Addr) -> str:
        """Ship a parcel."""
        return "ok"

    zip_node = convert_to_gemini_tool(ship)["parameters"]["properties"]["to"]["properties"]["zip"]
    assert zip_node["description"] == r'zip code (Must match the regular expression `^\d{5}$`. Default: "00000".)'
    assert constraint_notes({"pattern": "a`b", "minLength": 1}) == \
        ["Must be at least 1 character long.", "Must match the regular expression `` a`b ``."]
