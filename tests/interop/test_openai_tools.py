"""Tools from an OpenAI tool dict or a JSON Schema plus a callable, validated with jsonschema before the
call, exactly like a decorated tool."""

from __future__ import annotations

import asyncio

import pytest

from toolwire import (
    Agent,
    AIMessage,
    SchemaError,
    Tool,
    ToolExecutor,
    ToolMessage,
    ToolValidationError,
    convert_to_openai_tool,
    tool,
)
from toolwire.interop import tool_from_schema
from toolwire.interop.openai_tools import split_tool_definition
from toolwire.testing import ScriptedChatModel

SEARCH = {
    "type": "function",
    "function": {
        "name": "search_flights",
        "description": "Find flights between two airports.",
        "parameters": {
            "type": "object",
            "properties": {
                "origin": {"type": "string", "description": "IATA code", "pattern": "^[A-Z]{3}$"},
                "destination": {"type": "string", "description": "IATA code"},
                "passengers": {"type": "integer", "minimum": 1, "default": 1},
                "filters": {"$ref": "#/$defs/Filters"},
                "cabin": {"type": "string", "enum": ["economy", "business"]},
            },
            "required": ["origin", "destination"],
            "$defs": {"Filters": {"type": "object", "properties": {"max_stops": {"type": "integer"}},
                                  "required": ["max_stops"], "additionalProperties": False}},
        },
    },
}


def search_flights(origin: str, destination: str, passengers: int = 1, filters: dict | None = None,
                   cabin: str = "economy") -> dict:
    return {"route": f"{origin}-{destination}", "passengers": passengers, "filters": filters, "cabin": cabin}


def call(name: str, args: dict, id: str = "c1") -> dict:
    return {"name": name, "args": args, "id": id, "type": "tool_call"}


def test_openai_dict_tool_runs_and_keeps_its_schema():
    t = tool_from_schema(SEARCH, search_flights)
    assert isinstance(t, Tool)
    assert (t.name, t.description) == ("search_flights", "Find flights between two airports.")
    assert t.parameters["properties"]["filters"] == {
        "type": "object", "properties": {"max_stops": {"type": "integer"}}, "required": ["max_stops"],
        "additionalProperties": False}  # $ref inlined
    assert "$defs" not in t.parameters
    assert t.invoke({"origin": "LIS", "destination": "GRU"}) == {
        "route": "LIS-GRU", "passengers": 1, "filters": None, "cabin": "economy"}
    msg = t.invoke(call("search_flights", {"origin": "LIS", "destination": "GRU", "passengers": 2}))
    assert isinstance(msg, ToolMessage) and msg.status == "success"
    assert msg.content == '{"route": "LIS-GRU", "passengers": 2, "filters": null, "cabin": "economy"}'
    # what the model is told is the definition it came from
    lowered = convert_to_openai_tool(t)["function"]
    assert (lowered["name"], lowered["description"]) == ("search_flights", "Find flights between two airports.")
    assert lowered["parameters"]["properties"]["origin"] == SEARCH["function"]["parameters"]["properties"]["origin"]


@pytest.mark.parametrize(("args", "expected"), [
    ({"destination": "GRU"}, "'origin' is required but missing"),
    ({"origin": "lis", "destination": "GRU"}, "'origin': 'lis' does not match"),
    ({"origin": "LIS", "destination": "GRU", "passengers": 0}, "'passengers': 0 is less than the minimum of 1"),
    ({"origin": "LIS", "destination": "GRU", "passengers": "2"}, "'passengers': '2' is not of type 'integer'"),
    ({"origin": "LIS", "destination": "GRU", "cabin": "first"}, "'cabin': 'first' is not one of"),
    ({"origin": "LIS", "destination": "GRU", "filters": {}}, "'filters.max_stops' is required but missing"),
    ({"origin": "LIS", "destination": "GRU", "filters": {"max_stops": 1, "x": 2}},
     "'filters.x' is not an allowed field here (got 2)"),
    ({"origin": "LIS", "destination": "GRU", "seat": "1A"}, "'seat' is not a parameter of this tool (got '1A')"),
])
def test_invalid_arguments_name_the_field(args, expected):
    t = tool_from_schema(SEARCH, search_flights)
    with pytest.raises(ToolValidationError) as info:
        t.invoke(args)
    assert str(info.value).startswith("Invalid arguments for tool 'search_flights': ")
    assert expected in str(info.value)
    assert info.value.tool_name == "search_flights"
    msg = t.invoke(call("search_flights", args, "bad"))
    assert (msg.status, msg.tool_call_id) == ("error", "bad")
    assert msg.content == f"Error: {info.value}"


def test_same_errors_as_a_decorated_tool():
    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    schema_add = tool_from_schema(convert_to_openai_tool(add), lambda a, b: a + b)
    assert schema_add.parameters == add.parameters
    for args in ({"a": 1}, {"a": 1, "b": 2, "c": 3}):
        decorated = add.invoke(call("add", args))
        from_schema = schema_add.invoke(call("add", args))
        assert decorated.status == from_schema.status == "error"
        assert decorated.content == from_schema.content
    out = ToolExecutor([schema_add]).execute(AIMessage("", tool_calls=[call("add", {"a": 2, "b": 3}, "x"),
                                                                       call("add", {"a": "2"}, "y")]))
    assert [(m.content, m.status) for m in out] == [
        ("5", "success"), ("Error: Invalid arguments for tool 'add': 'b' is required but missing; "
                           "'a': '2' is not of type 'integer'.", "error")]


def test_null_for_a_left_out_optional_parameter_is_dropped():
    t = tool_from_schema(SEARCH, search_flights)
    assert t.invoke({"origin": "LIS", "destination": "GRU", "passengers": None, "cabin": None})["passengers"] == 1


def test_definition_forms():
    params = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}

    def lookup(q: str) -> str:
        """Look something up."""
        return q.upper()

    forms = [
        {"type": "function", "name": "lookup", "description": "Look it up.", "parameters": params},  # Responses API
        {"name": "lookup", "description": "Look it up.", "parameters": params},
        {"name": "lookup", "description": "Look it up.", "input_schema": params},  # Anthropic
        {"name": "lookup", "description": "Look it up.", "inputSchema": params},  # MCP
    ]
    for form in forms:
        t = tool_from_schema(form, lookup)
        assert (t.name, t.description, t.invoke({"q": "x"})) == ("lookup", "Look it up.", "X")
    # a bare JSON Schema: name and description from the function
    t = tool_from_schema(params, lookup)
    assert (t.name, t.description, t.parameters) == ("lookup", "Look something up.", params)
    # ... or from the schema's title/description, or given
    titled = {**params, "title": "find", "description": "Find a thing."}
    t = tool_from_schema(titled, lambda q: q)
    assert (t.name, t.description) == ("find", "Find a thing.")
    assert "description" not in t.parameters
    t = tool_from_schema(params, lambda q: q, name="other", description="Other.", return_direct=True, timeout=5)
    assert (t.name, t.description, t.return_direct, t.timeout) == ("other", "Other.", True, 5)
    assert split_tool_definition(SEARCH)[0] == "search_flights"
    # no parameters at all: a tool without arguments
    t = tool_from_schema({"type": "function", "function": {"name": "now", "description": "The time."}},
                         lambda: "noon")
    assert t.parameters == {"type": "object", "properties": {}} and t.invoke({}) == "noon"
    with pytest.raises(ToolValidationError, match="'x' is not a parameter"):
        t.invoke({"x": 1})


def test_open_schemas_pass_extra_keys_through():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}}
    t = tool_from_schema(schema, lambda **kw: sorted(kw.items()), name="kw", description="Keyword arguments.")
    assert t.invoke({"a": 1, "note": "x"}) == [("a", 1), ("note", "x")]
    with pytest.raises(ToolValidationError, match="'note': 5 is not of type 'string'"):
        t.invoke({"a": 1, "note": 5})


def test_async_callable_and_timeout():
    async def slow(seconds: float) -> str:
        await asyncio.sleep(seconds)
        return "done"

    schema = {"type": "object", "properties": {"seconds": {"type": "number"}}, "required": ["seconds"]}
    t = tool_from_schema(schema, slow, description="Sleep a while.", timeout=0.5)
    assert t.is_async
    assert t.invoke({"seconds": 0}) == "done"
    msg = asyncio.run(t.ainvoke(call("slow", {"seconds": 30})))
    assert msg.status == "error" and "did not finish within 0.5 seconds" in msg.content


def test_agent_with_an_openai_dict_tool():
    t = tool_from_schema(SEARCH, search_flights)
    model = ScriptedChatModel([
        AIMessage("", tool_calls=[call("search_flights", {"origin": "LIS"}, "f1")]),
        AIMessage("", tool_calls=[call("search_flights", {"origin": "LIS", "destination": "GRU"}, "f2")]),
        "There is a flight LIS-GRU.",
    ])
    result = Agent(model, [t]).invoke("Flights from Lisbon to São Paulo?")
    f1, f2 = (m for m in result.messages if isinstance(m, ToolMessage))
    assert f1.status == "error" and "'destination' is required but missing" in f1.content
    assert f2.status == "success" and "LIS-GRU" in f2.content
    assert result.output == "There is a flight LIS-GRU."
    assert model.requests[0].tools == ["search_flights"]


def test_definition_errors():
    params = {"type": "object", "properties": {"a": {"type": "integer"}}}
    with pytest.raises(SchemaError, match="no description"):
        tool_from_schema(params, lambda a: a, name="f")
    with pytest.raises(SchemaError, match="not allowed"):
        tool_from_schema(params, lambda a: a, name="bad name", description="d")
    with pytest.raises(SchemaError, match="no name"):
        tool_from_schema(params, lambda a: a, description="d")
    with pytest.raises(SchemaError, match="object schema"):
        tool_from_schema({"type": "string"}, lambda a: a, name="f", description="d")
    with pytest.raises(SchemaError, match="not valid JSON Schema"):
        tool_from_schema({"type": "object", "properties": {"a": {"type": 5}}}, lambda a: a, name="f", description="d")
    with pytest.raises(SchemaError, match="refers to itself"):
        tool_from_schema({"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}},
                          "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}},
                         lambda n: n, name="f", description="d")
    with pytest.raises(SchemaError, match="function that implements"):
        tool_from_schema(SEARCH, None)  # type: ignore[arg-type]
    with pytest.raises(SchemaError, match="must be a dict"):
        tool_from_schema("nope", lambda: 1)  # type: ignore[arg-type]


def test_tool_from_schema_classmethod_with_a_custom_validator():
    seen = []

    def validate(args):
        seen.append(dict(args))
        if "a" not in args:
            raise ToolValidationError("Invalid arguments for tool 'f': 'a' is required but missing.", "f")
        return {"a": int(args["a"])}

    t = Tool.from_schema(lambda a: a * 2, "f", "Double.", {"type": "object", "properties": {"a": {}}}, validate)
    assert t.invoke({"a": "4"}) == 8 and seen == [{"a": "4"}]
    assert t.invoke(call("f", {})).status == "error"
