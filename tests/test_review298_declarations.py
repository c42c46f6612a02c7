"""Review 298 #2, the Gemini provider: a tool in Gemini's own shapes is bound: a google-genai ``FunctionDeclaration``
(object or its dict, whose ``Schema`` types are upper case: ``"OBJECT"``), a ``Tool`` and a ``{"function_declarations":
[...]}`` dict; its schema is read as JSON Schema (types lower-cased, snake_case fields renamed) and sent to Gemini as
toolwire writes any tool. Before, each was refused (the dict as "must be an object schema ..., not type 'OBJECT'").

Gemini is driven through its SDK against a small local server that answers with queued JSON bodies.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from _queued_http import QueuedServer, serving
from toolwire.errors import ToolValidationError

types = pytest.importorskip("google.genai.types")


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    with serving('') as found:
        yield found


def _gemini(server: QueuedServer) -> Any:
    from toolwire.models.google import ChatGoogleGenAI

    return ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-test-0123456789", base_url=server.url, max_retries=0)


def _declaration() -> Any:
    return types.FunctionDeclaration(
        name="get_weather", description="Weather of a city.",
        parameters=types.Schema(type="OBJECT", properties={
            "city": types.Schema(type="STRING", description="The city."),
            "days": types.Schema(type="INTEGER", nullable=True),
            "units": types.Schema(type="ARRAY", items=types.Schema(type="STRING", enum=["c", "f"]), min_items=1),
        }, required=["city"]))


_SENT = {"type": "OBJECT", "properties": {"city": {"type": "STRING", "description": "The city."},
                                          "days": {"type": "INTEGER", "nullable": True},
                                          "units": {"type": "ARRAY", "items": {"type": "STRING", "enum": ["c", "f"]},
                                                    "minItems": "1"}},
         "required": ["city"]}


def _forms() -> dict[str, Any]:
    fd = _declaration()
    dumped = fd.model_dump(mode="json", exclude_none=True)
    return {"dict": dumped, "full dict": fd.model_dump(mode="json"), "object": fd,
            "tool": types.Tool(function_declarations=[fd]), "tool dict": {"function_declarations": [dumped]},
            "REST dict": {"name": "get_weather", "description": "Weather of a city.", "parameters": _SENT}}


@pytest.mark.parametrize("form", list(_forms()))
def test_a_gemini_declaration_is_bound_and_sent(server: QueuedServer, form: str) -> None:
    server.queue = [{"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris", "units": ["c"]}}}]},
        "finishReason": "STOP"}]}]
    bound = _gemini(server).bind_tools([_forms()[form]], tool_choice="get_weather")
    (tool,) = bound.tools
    assert tool.name == "get_weather" and tool.description == "Weather of a city."
    assert tool.parameters["properties"]["city"] == {"type": "string", "description": "The city."}
    assert tool.parameters["properties"]["units"]["minItems"] == 1
    assert tool.parameters["required"] == ["city"]
    reply = bound.invoke("weather?")
    assert reply.tool_calls[0]["args"] == {"city": "Paris", "units": ["c"]}
    sent = server.requests[0]["tools"][0]["functionDeclarations"][0]
    assert sent["name"] == "get_weather"
    assert sent["parameters"]["properties"]["city"]["type"] == "STRING"
    assert sent["parameters"]["properties"]["days"] == {"type": "INTEGER", "nullable": True}
    assert server.requests[0]["toolConfig"]["functionCallingConfig"]["allowedFunctionNames"] == ["get_weather"]


def test_the_converted_schema_validates_the_arguments(server: QueuedServer) -> None:
    from toolwire.interop.openai_tools import schema_validator

    (tool,) = _gemini(server).bind_tools([_declaration()]).tools
    validate = schema_validator(tool.parameters, tool.name)
    assert validate({"city": "Paris", "days": None}) == {"city": "Paris", "days": None}
    for bad in ({"units": ["c"]}, {"city": "Paris", "units": []}, {"city": "Paris", "units": ["k"]}):
        with pytest.raises(ToolValidationError):
            validate(bad)


def test_parameters_json_schema_is_taken_as_it_is(server: QueuedServer) -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string", "minLength": 2}}, "required": ["q"]}
    fd = types.FunctionDeclaration(name="search", description="Search.", parameters_json_schema=schema)
    (tool,) = _gemini(server).bind_tools([fd]).tools
    assert tool.parameters["properties"] == schema["properties"] and tool.parameters["required"] == ["q"]


def test_a_tool_with_a_server_tool_and_declarations_gives_both(server: QueuedServer) -> None:
    both = types.Tool(function_declarations=[_declaration()], google_search=types.GoogleSearch())
    names = [t.name for t in _gemini(server).bind_tools([both]).tools]
    assert names == ["get_weather", "google_search"]


def test_refs_and_any_of_in_gemini_form() -> None:
    from toolwire.models.lowering._gemini_declarations import gemini_declaration

    given = {"name": "f", "parameters": {"type": "OBJECT", "defs": {"P": {"type": "STRING"}},
                                         "properties": {"a": {"ref": "#/defs/P"},
                                                        "b": {"any_of": [{"type": "STRING"}, {"type": "NULL"}]}},
                                         "property_ordering": ["a", "b"]}}
    assert gemini_declaration(given) == {"name": "f", "parameters": {
        "type": "object", "$defs": {"P": {"type": "string"}},
        "properties": {"a": {"$ref": "#/$defs/P"}, "b": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}}


def test_a_json_schema_tool_dict_is_left_alone() -> None:
    from toolwire.models.lowering._gemini_declarations import gemini_tools

    plain = {"name": "f", "parameters": {"type": "object", "properties": {"any_of": {"type": "string"}}}}
    openai = {"type": "function", "function": {"name": "g", "parameters": {"type": "object"}}}
    assert all(a is b for a, b in zip(gemini_tools([plain, openai]), [plain, openai], strict=True))


def test_convert_to_gemini_tool_takes_a_declaration() -> None:
    from toolwire.models.lowering.gemini import convert_to_gemini_tool

    out = convert_to_gemini_tool(_declaration())
    assert out["name"] == "get_weather" and out["parameters"]["properties"]["city"]["type"] == "STRING"


def test_a_tool_of_server_tools_only_is_a_server_tool(server: QueuedServer) -> None:
    (tool,) = _gemini(server).bind_tools([types.Tool(google_search=types.GoogleSearch())]).tools
    assert tool.name == "google_search"
