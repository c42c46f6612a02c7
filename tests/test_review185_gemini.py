"""Review 185 #2: Gemini, like OpenAI and Anthropic, keeps the first call of a structured output's tool whose
arguments fit the schema when a reply has several (the lowering kept the first call, before the structured output
could pick); a plain ``parallel_tool_calls=False`` still keeps one call, and the turn goes back with its thought
signature. #3 for Gemini: a safety stop is a refusal, not asked again.

Gemini is driven through its SDK against a small local server that answers with queued JSON bodies.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from _queued_http import QueuedServer, serving
from toolwire.messages import HumanMessage, ToolMessage


class Addr(BaseModel):
    street: str


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    with serving('') as found:
        yield found


def _gemini_reply(parts: list[dict[str, Any]] | None, finish: str = "STOP") -> dict[str, Any]:
    candidate: dict[str, Any] = {"finishReason": finish, "index": 0}
    if parts is not None:
        candidate["content"] = {"role": "model", "parts": parts}
    return {"candidates": [candidate], "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 5,
                                                          "totalTokenCount": 10}, "modelVersion": "gemini-2.5-flash"}


def _gemini(server: QueuedServer) -> Any:
    from toolwire.models.google import ChatGoogleGenAI

    return ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-test-0123456789", base_url=server.url, max_retries=0)


_TWO_CALLS = [{"functionCall": {"name": "Addr", "args": {"street": 1}}},
              {"functionCall": {"name": "Addr", "args": {"street": "Main St"}}}]


@pytest.mark.parametrize("how", ["invoke", "stream", "ainvoke"])
def test_gemini_keeps_the_first_call_of_the_output_tool_that_fits(server: QueuedServer, how: str) -> None:
    server.queue = [_gemini_reply(_TWO_CALLS)]
    structured = _gemini(server).with_structured_output(Addr, include_raw=True)
    if how == "invoke":
        result = structured.invoke("x")
    elif how == "stream":
        result = list(structured.stream("x"))[-1]
    else:
        result = asyncio.run(structured.ainvoke("x"))
    assert result["parsed"] == Addr(street="Main St") and result["parsing_error"] is None
    assert result["raw"].response_metadata["dropped_tool_calls"] == 1
    assert len(server.requests) == 1


def test_gemini_with_parallel_tool_calls_false_still_keeps_one_call(server: QueuedServer) -> None:
    server.queue = [_gemini_reply([{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                                    "thoughtSignature": "c2lnbmVk"},
                                   {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}])]
    spec = {"name": "get_weather", "description": "Weather.", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
    reply = _gemini(server).bind_tools([spec], parallel_tool_calls=False).invoke("x")
    assert [c["args"] for c in reply.tool_calls] == [{"city": "Paris"}]
    assert reply.response_metadata["dropped_tool_calls"] == 1
    # sent back: the kept call with its thought signature, the dropped call's part left out
    from toolwire.models.lowering.gemini import lower_messages

    answer = ToolMessage("Sunny", tool_call_id=reply.tool_calls[0]["id"], name="get_weather")
    _, contents = lower_messages([HumanMessage("x"), reply, answer])
    parts = contents[1]["parts"]
    assert len(parts) == 1 and parts[0]["function_call"]["args"] == {"city": "Paris"}
    assert "thought_signature" in parts[0]


def test_a_dropped_signed_call_makes_the_turn_rebuilt() -> None:
    """When the call that carried the signature was dropped for a later one, the turn is rebuilt from the message
    (a signature belongs to its own part), as any edited turn is."""
    from toolwire.models.lowering.gemini import lower_messages, parse_response

    reply = parse_response(_gemini_reply([{"functionCall": {"name": "Addr", "args": {"street": 1}},
                                           "thoughtSignature": "c2lnbmVk"}, *_TWO_CALLS[1:]]), single_call=True)
    assert len(reply.tool_calls) == 2
    kept = reply.copy(tool_calls=reply.tool_calls[1:])
    _, contents = lower_messages([HumanMessage("x"), kept])
    assert contents[1]["parts"] == [{"function_call": {"name": "Addr", "args": {"street": "Main St"}}}]


def test_gemini_safety_stop_is_a_refusal(server: QueuedServer) -> None:
    server.queue = [_gemini_reply(None, "SAFETY")]
    result = _gemini(server).with_structured_output(Addr, include_raw=True, retries=1).invoke("x")
    assert "refused" in str(result["parsing_error"]) and len(server.requests) == 1
