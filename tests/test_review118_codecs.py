"""Review 118 #3, #4, #5: the output tool's call kept by with_structured_output, a tool dict's own ``strict`` kept by
tool_from_schema, and a message's participant ``name`` sent to OpenAI Chat Completions."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from pydantic import BaseModel, Field

from toolwire.chunks import merge_chunks
from toolwire.messages import AIMessage
from toolwire.testing import ScriptedChatModel


class Weather(BaseModel):
    """Weather report."""

    city: str
    celsius: float = Field(ge=-90, le=60)


def _two_weathers() -> AIMessage:
    """A reply whose first call of the output tool breaks the schema and whose second fits."""
    return AIMessage("", tool_calls=[{"name": "Weather", "args": {"city": "Oslo", "celsius": 99}, "id": "s1"},
                                     {"name": "Weather", "args": {"city": "Oslo", "celsius": 12}, "id": "s2"}])


# -- #3: with_structured_output keeps the first call of its tool that fits -----------------------------------------



def _recording_chat_openai() -> tuple[Any, list[dict[str, Any]]]:
    """A ChatOpenAI whose SDK client answers every request through httpx.MockTransport, and the request bodies it
    received."""
    import httpx
    import openai

    from toolwire.models import ChatOpenAI

    bodies: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json={"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                                         "choices": [{"index": 0, "finish_reason": "stop",
                                                      "message": {"role": "assistant", "content": "x"}}]})

    model = ChatOpenAI("gpt-5-mini", api_key="sk-test", max_retries=0)
    model._clients.sync = openai.OpenAI(api_key="sk-test", max_retries=0,
                                        http_client=httpx.Client(transport=httpx.MockTransport(answer)))
    return model, bodies

def test_structured_output_keeps_the_first_call_that_fits_in_invoke_and_streams(
        caplog: pytest.LogCaptureFixture) -> None:
    """The first call (celsius 99, le=60) was kept and the valid second one dropped: ToolCallParseError with
    retries=0; the log blamed parallel_tool_calls=False, which was neither set nor sent."""
    structured = ScriptedChatModel([_two_weathers()], cycle=True).with_structured_output(Weather)
    with caplog.at_level(logging.WARNING, "toolwire.models"):
        assert structured.invoke("q") == Weather(city="Oslo", celsius=12)
    assert "with_structured_output keeps one call of its output tool Weather" in caplog.text
    assert "call 2 of the reply" in caplog.text and "parallel_tool_calls" not in caplog.text
    assert list(structured.stream("q")) == [Weather(city="Oslo", celsius=12)]

    async def both() -> tuple[Any, list[Any]]:
        return await structured.ainvoke("q"), [value async for value in structured.astream("q")]

    assert asyncio.run(both()) == (Weather(city="Oslo", celsius=12), [Weather(city="Oslo", celsius=12)])
    raw = structured.model.invoke("q")  # the model's reply: one call
    assert [c["id"] for c in raw.tool_calls] == ["s2"] and raw.response_metadata["dropped_tool_calls"] == 1


def test_the_model_stream_keeps_the_call_invoke_keeps() -> None:
    """The bound model's stream (the pieces merged) keeps the same call as its invoke, sync and async."""
    bound = ScriptedChatModel([_two_weathers()], cycle=True, stream_pieces=4).with_structured_output(Weather).model
    merged = merge_chunks(list(bound.stream("q")), as_chunk=False)
    assert merged.tool_calls == bound.invoke("q").tool_calls
    assert [c["id"] for c in merged.tool_calls] == ["s2"] and merged.response_metadata["dropped_tool_calls"] == 1

    async def chunks() -> list[Any]:
        return [chunk async for chunk in bound.astream("q")]

    assert merge_chunks(asyncio.run(chunks()), as_chunk=False).tool_calls == merged.tool_calls


def test_no_call_fits_the_first_is_kept_and_the_error_is_as_before() -> None:
    """When no call of the output tool fits, the first is kept: the error (and a retry's feedback) names it."""
    from toolwire.errors import ToolCallParseError

    reply = AIMessage("", tool_calls=[{"name": "Weather", "args": {"city": "Oslo", "celsius": 99}, "id": "s1"},
                                      {"name": "Weather", "args": {"city": "Oslo", "celsius": 70}, "id": "s2"}])
    structured = ScriptedChatModel([reply], cycle=True).with_structured_output(Weather)
    with pytest.raises(ToolCallParseError, match="celsius: Input should be less than or equal to 60"):
        structured.invoke("q")
    out = structured.model.invoke("q")
    assert [c["id"] for c in out.tool_calls] == ["s1"]
    assert [c["id"] for c in merge_chunks(list(structured.model.stream("q")), as_chunk=False).tool_calls] == ["s1"]
    retried = ScriptedChatModel([reply, _two_weathers()]).with_structured_output(Weather, retries=1)
    assert retried.invoke("q") == Weather(city="Oslo", celsius=12)


def test_parallel_tool_calls_false_still_keeps_the_first_call(caplog: pytest.LogCaptureFixture) -> None:
    """A plain request bound with parallel_tool_calls=False keeps the reply's first call, with its log line."""
    bound = ScriptedChatModel([_two_weathers()], cycle=True).bind_tools([Weather], parallel_tool_calls=False)
    with caplog.at_level(logging.WARNING, "toolwire.models"):
        assert [c["id"] for c in bound.invoke("q").tool_calls] == ["s1"]
    assert "parallel_tool_calls=False: kept the first tool call of the reply, dropped 1" in caplog.text
    assert [c["id"] for c in merge_chunks(list(bound.stream("q")), as_chunk=False).tool_calls] == ["s1"]


# -- #4: tool_from_schema keeps the definition's own "strict" -------------------------------------------------------


_ADD_PARAMETERS = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                   "required": ["a", "b"], "additionalProperties": False}
_CHAT_ADD = {"type": "function", "function": {"name": "add", "description": "Add two integers.", "strict": True,
                                              "parameters": _ADD_PARAMETERS}}
_RESPONSES_ADD = {"type": "function", "name": "add", "description": "Add two integers.", "strict": True,
                  "parameters": _ADD_PARAMETERS}


def _add(a: int, b: int) -> int:
    return a + b


def _tools_sent(spec: Any, strict: bool | None = None) -> list[Any]:
    """The tools of the Chat Completions, Responses and Anthropic requests binding ``spec`` alone."""
    from toolwire.messages import HumanMessage
    from toolwire.models.base import ChatRequest, to_tool_spec
    from toolwire.models.lowering import anthropic, openai

    request = ChatRequest([HumanMessage("q")], (to_tool_spec(spec),), "auto", None, strict)
    return [openai.lower_request(request, "gpt-5-mini")["tools"],
            openai.lower_responses_request(request, "gpt-5-mini")["tools"],
            anthropic.lower_request(request, "claude-sonnet-4-6")["tools"]]


@pytest.mark.parametrize("definition", [_CHAT_ADD, _RESPONSES_ADD], ids=["chat", "responses"])
def test_tool_from_schema_sends_the_definitions_strict_as_the_dict_alone(definition: dict[str, Any]) -> None:
    """bind_tools([spec]) sent strict: true, bind_tools([tool_from_schema(spec, f)]) sent no strict."""
    from toolwire.interop import tool_from_schema

    add = tool_from_schema(definition, _add)
    sent = _tools_sent(add)
    assert sent == _tools_sent(definition)
    assert sent[0][0]["function"]["strict"] is True and sent[1][0]["strict"] is True
    assert _tools_sent(add, strict=False) == _tools_sent(definition, strict=False)  # bind_tools(strict=...) first
    assert _tools_sent(add, strict=False)[0][0]["function"].get("strict") is None
    plain = tool_from_schema({**definition, "strict": False} if "name" in definition else
                             {"type": "function", "function": {**definition["function"], "strict": False}}, _add)
    assert _tools_sent(plain)[0][0]["function"].get("strict") is None and add.invoke({"a": 2, "b": 3}) == 5


def test_a_bound_tool_and_an_agent_send_strict_through_the_client() -> None:
    """The whole path the reviewer ran: ChatOpenAI (the SDK on httpx.MockTransport), bind_tools and an Agent."""


    from toolwire import Agent
    from toolwire.interop import tool_from_schema

    model, bodies = _recording_chat_openai()
    add = tool_from_schema(_CHAT_ADD, _add)
    model.bind_tools([add]).invoke("q")
    Agent(model, [add]).invoke("q")
    assert [body["tools"][0]["function"].get("strict") for body in bodies] == [True, True]


# -- #5: a message's participant name goes to Chat Completions ------------------------------------------------------


def _named_conversation() -> list[Any]:
    from toolwire.messages import HumanMessage, SystemMessage, ToolMessage

    return [SystemMessage("Be brief.", name="rules"), HumanMessage("I'll take the blue one", name="alice"),
            AIMessage("", tool_calls=[{"name": "stock", "args": {}, "id": "c1"}], name="clerk"),
            ToolMessage("3 left", tool_call_id="c1", name="stock"),
            HumanMessage("Which one did Alice take?", name="bob"), HumanMessage("and me?")]


@pytest.mark.parametrize("compatible", [False, True], ids=["openai", "compatible"])
def test_chat_completions_sends_the_participant_name(compatible: bool) -> None:
    """HumanMessage(name="alice") was sent as {"role": "user", "content": ...}: the name was left out."""
    from toolwire.models.lowering.openai import lower_messages

    sent = lower_messages(_named_conversation(), compatible=compatible)
    names = [("system", "rules"), ("user", "alice"), ("assistant", "clerk"), ("tool", None), ("user", "bob"),
             ("user", None)]
    assert [(m["role"], m.get("name")) for m in sent] == (  # (not to a compatible server: Mistral's API and
        [(role, None) for role, _ in names] if compatible else names)  # vLLM's Mistral mode refuse it, review 122)


def test_a_name_openai_refuses_is_sent_with_underscores_and_a_role_dict_name_goes_too() -> None:
    """OpenAI refuses whitespace and <|\\/> in a name (400 for the whole request): those are written _."""
    from toolwire.messages import HumanMessage, messages_from_dict
    from toolwire.models.lowering.openai import lower_messages

    sent = lower_messages([HumanMessage("hi", name="Alice Smith</x>"), HumanMessage("hey", name="José")])
    assert [m["name"] for m in sent] == ["Alice_Smith__x_", "José"]
    dicts = [{"role": "developer", "name": "ops", "content": "Be brief."}, {"role": "user", "name": "alice",
                                                                          "content": "hi"}]
    assert [m.get("name") for m in lower_messages(messages_from_dict(dicts))] == ["ops", "alice"]


def test_the_name_reaches_the_server_and_other_apis_are_unchanged() -> None:
    """Through ChatOpenAI (the SDK on httpx.MockTransport); the Responses API input items, Anthropic and Gemini
    take no participant name, and get none."""
    import json

    from toolwire.messages import HumanMessage
    from toolwire.models.base import ChatRequest
    from toolwire.models.lowering import anthropic, gemini
    from toolwire.models.lowering.openai import lower_responses_messages

    model, bodies = _recording_chat_openai()
    model.invoke([HumanMessage("I'll take the blue one", name="alice")])
    assert bodies[0]["messages"] == [{"role": "user", "content": "I'll take the blue one", "name": "alice"}]
    conversation = _named_conversation()
    assert "alice" not in json.dumps(lower_responses_messages(conversation))
    request = ChatRequest(conversation)
    assert "alice" not in json.dumps(anthropic.lower_request(request, "claude-sonnet-4-6"), default=str)
    assert "alice" not in json.dumps(gemini.lower_request(request, "gemini-2.5-flash"), default=str)
