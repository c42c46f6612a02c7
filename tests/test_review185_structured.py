"""Review 185: structured output on every model.

#1 an OpenAI response-format schema dict is read as that schema (a tool dict carrying one elsewhere is refused);
#3 a refusal is said as one and not asked again (Gemini's in test_review185_gemini.py); #4 any exception of a
user's validator is a ``parsing_error`` with ``include_raw``; #5 a dict schema's value is checked against the schema
the user gave; #6 ``structured | step`` and ``step | structured``; #8 the ``stream`` docstring says what LangChain
does. (#2: test_review185_gemini.py; #7: test_review185_response_format.py.)
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel, model_validator

from toolwire import Agent
from toolwire.errors import SchemaError, ToolCallParseError
from toolwire.messages import AIMessage, ToolMessage
from toolwire.models.structured import StructuredOutput
from toolwire.testing import ScriptedChatModel


def _call(name: str, args: Any, call_id: str = "c1") -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id}


# --------------------------------------------------------------------------- #1 response-format schema dicts

_CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
         "additionalProperties": False}


@pytest.mark.parametrize("schema", [
    {"name": "Answer", "description": "The answer.", "strict": True, "schema": _CITY},
    {"type": "json_schema", "json_schema": {"name": "Answer", "description": "The answer.", "schema": _CITY}},
    {"name": "Answer", "schema": _CITY},
])
def test_a_response_format_schema_dict_is_read_as_that_schema(schema: dict[str, Any]) -> None:
    model = ScriptedChatModel([AIMessage("", tool_calls=[_call("Answer", {"city": "Paris"})]),
                               AIMessage("", tool_calls=[_call("Answer", {})])])
    structured = model.with_structured_output(schema)
    spec = structured.model.tool_specs[0]
    assert spec.name == "Answer" and spec.parameters["properties"] == {"city": {"type": "string"}}
    assert spec.parameters["required"] == ["city"]
    assert structured.invoke("Where is the Eiffel Tower?") == {"city": "Paris"}
    with pytest.raises(ToolCallParseError, match="'city' is required"):  # {} no longer fits
        structured.invoke("Where is the Eiffel Tower?")


def test_a_response_format_dict_keeps_strict_for_the_provider() -> None:
    from toolwire.models.lowering.openai import convert_to_openai_tool

    structured = ScriptedChatModel([]).with_structured_output({"name": "Answer", "strict": True, "schema": _CITY})
    sent = convert_to_openai_tool(structured.model.tool_specs[0], strict=None)  # (the tool dict's own flag)
    assert sent["function"]["strict"] is True and "city" in sent["function"]["parameters"]["properties"]


@pytest.mark.parametrize("tool", [
    {"name": "Answer", "schema": _CITY},
    {"type": "function", "function": {"name": "Answer", "schema": _CITY}},
    {"name": "Answer", "type": "object", "properties": {"city": {"type": "string"}}},
])
def test_bind_tools_refuses_a_tool_dict_whose_schema_is_under_another_key(tool: dict[str, Any]) -> None:
    with pytest.raises(SchemaError, match="'parameters'"):
        ScriptedChatModel([]).bind_tools([tool])


def test_a_tool_dict_with_no_schema_is_still_a_tool_without_arguments() -> None:
    bound = ScriptedChatModel([]).bind_tools([{"name": "ping", "description": "Ping."}])
    assert bound.tool_specs[0].parameters == {"type": "object", "properties": {}}


def test_a_response_format_dict_without_a_name_or_schema_is_refused() -> None:
    with pytest.raises(SchemaError, match="'name'"):
        ScriptedChatModel([]).with_structured_output({"type": "json_schema", "json_schema": {"schema": _CITY}})
    with pytest.raises(SchemaError, match="json_schema"):
        ScriptedChatModel([]).with_structured_output({"type": "json_schema"})


# --------------------------------------------------------------------------- #3 refusals

class Addr(BaseModel):
    street: str



@pytest.mark.parametrize(("metadata", "text", "said"), [
    ({"finish_reason": "refusal", "refusal": "I'm sorry, I can't help with that."},
     "I'm sorry, I can't help with that.", "I'm sorry"),
    ({"finish_reason": "refusal"}, "I can't help with that.", "I can't help"),
    ({"finish_reason": "refusal", "server_finish_reason": "SAFETY"}, "", "(SAFETY)"),
    ({"block_reason": "PROHIBITED_CONTENT"}, "", "(PROHIBITED_CONTENT)"),
])
def test_a_refusal_is_said_as_one_and_not_asked_again(metadata: dict[str, Any], text: str, said: str) -> None:
    refusal = AIMessage(text, response_metadata=metadata)
    model = ScriptedChatModel([refusal], cycle=True)
    with pytest.raises(ToolCallParseError, match="refused") as caught:
        model.with_structured_output(Addr, retries=2).invoke("Give me the home address of a private person.")
    assert said in str(caught.value) and "tool_choice" not in str(caught.value)
    assert caught.value.raw is not None and len(model.requests) == 1
    result = model.with_structured_output(Addr, include_raw=True, retries=2).invoke("x")
    assert result["parsed"] is None and "refused" in str(result["parsing_error"])
    assert result["raw"].response_metadata == metadata and len(model.requests) == 2


# --------------------------------------------------------------------------- #4 any validator exception

class Temp(BaseModel):
    celsius: float

    @model_validator(mode="before")
    @classmethod
    def from_fahrenheit(cls, value: Any) -> Any:
        if "fahrenheit" in value:
            return {"celsius": (value["fahrenheit"] - 32) / 1.8}
        return {"celsius": value["celsius"]}  # a KeyError when the model sent another key


_KELVIN = AIMessage("", tool_calls=[_call("Temp", {"kelvin": 300})])


def test_a_validator_exception_is_a_parsing_error_with_include_raw() -> None:
    result = ScriptedChatModel([_KELVIN]).with_structured_output(Temp, include_raw=True).invoke("How warm is it?")
    error = result["parsing_error"]
    assert result["parsed"] is None and isinstance(error, ToolCallParseError) and result["raw"] is not None
    assert "KeyError" in str(error) and isinstance(error.__cause__, KeyError)


def test_a_validator_exception_is_raised_as_a_parse_error_and_asked_again() -> None:
    with pytest.raises(ToolCallParseError, match="KeyError") as caught:
        ScriptedChatModel([_KELVIN]).with_structured_output(Temp).invoke("x")
    assert isinstance(caught.value.__cause__, KeyError)
    model = ScriptedChatModel([_KELVIN, AIMessage("", tool_calls=[_call("Temp", {"celsius": 27}, "c2")])])
    assert model.with_structured_output(Temp, retries=1).invoke("x") == Temp(celsius=27)
    sent_back = model.requests[1].messages[-1]
    assert isinstance(sent_back, ToolMessage) and "KeyError" in sent_back.text


def test_an_agent_with_an_include_raw_response_format_does_not_raise() -> None:
    model = ScriptedChatModel([AIMessage("It is 27 degrees."), _KELVIN])
    result = Agent(model, [], response_format=model.with_structured_output(Temp, include_raw=True)).invoke("x")
    assert result.structured_response["parsed"] is None
    assert "KeyError" in str(result.structured_response["parsing_error"])


# --------------------------------------------------------------------------- #5 dict schemas checked locally

_REVIEW = {"title": "Review", "type": "object",
           "properties": {"summary": {"type": "string", "maxLength": 20},
                          "stars": {"type": "integer", "minimum": 1, "maximum": 5},
                          "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}},
           "required": ["summary", "stars", "tags"], "additionalProperties": False}


@pytest.mark.parametrize("schema", [_REVIEW, {"name": "Review", "schema": _REVIEW},
                                    {"type": "function", "function": {"name": "Review", "parameters": _REVIEW}}])
def test_a_dict_schema_value_is_checked_against_the_schema_given(schema: dict[str, Any]) -> None:
    bad = {"summary": "A very long summary that goes on and on", "stars": 11, "tags": ["a", "a"]}
    model = ScriptedChatModel([AIMessage("", tool_calls=[_call("Review", bad)])])
    with pytest.raises(ToolCallParseError) as caught:
        model.with_structured_output(schema, strict=True).invoke("Review this film")
    text = str(caught.value)
    assert "'stars'" in text and "'summary'" in text and "non-unique" in text


def test_a_dict_schema_value_that_fits_comes_back_as_written() -> None:
    schema = {"title": "Point", "type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    model = ScriptedChatModel([AIMessage("", tool_calls=[_call("Point", {"x": 3.0, "note": "kept"})])])
    # keys the schema does not refuse are kept (JSON Schema's rule), a whole float at an integer key is an int
    assert model.with_structured_output(schema).invoke("x") == {"x": 3, "note": "kept"}


def test_a_dict_schema_value_that_breaks_it_is_sent_back_with_retries() -> None:
    model = ScriptedChatModel([AIMessage("", tool_calls=[_call("Review", {"summary": "ok", "stars": 9, "tags": []})]),
                               AIMessage("", tool_calls=[_call("Review", {"summary": "ok", "stars": 4, "tags": []},
                                                               "c2")])])
    assert model.with_structured_output(_REVIEW, retries=1).invoke("x") == {"summary": "ok", "stars": 4, "tags": []}
    assert "maximum of 5" in model.requests[1].messages[-1].text


# --------------------------------------------------------------------------- #6 pipes

class A(BaseModel):
    x: int


def test_structured_output_pipes_both_ways() -> None:
    model = ScriptedChatModel([AIMessage("", tool_calls=[_call("A", {"x": 1})])], cycle=True)
    assert (model.with_structured_output(A) | (lambda a: a.x * 2)).invoke("hi") == 2
    assert ((lambda q: q.strip()) | model.with_structured_output(A)).invoke(" hi ") == A(x=1)
    assert model.requests[-1].messages[-1].text == "hi"
    assert list(((lambda q: q) | model.with_structured_output(A)).stream("hi")) == [A(x=1)]
    assert asyncio.run((model.with_structured_output(A) | (lambda a: a.x)).ainvoke("hi")) == 1


# --------------------------------------------------------------------------- #8 the stream docstring

def test_the_stream_docstring_says_langchain_streams_partial_objects() -> None:
    doc = " ".join((StructuredOutput.stream.__doc__ or "").split())
    assert "also yields the whole object" not in doc and "partial object" in doc
