"""Review 67: structured output streams too (LangChain's with_structured_output runnable has stream/astream)."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from toolwire import AIMessage, ToolCallParseError
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel


class City(BaseModel):
    name: str
    country: str


def _reply(*calls: tuple[str, dict]) -> AIMessage:
    return AIMessage("", tool_calls=[tool_call(name, args, f"c{i}") for i, (name, args) in enumerate(calls)])


def test_stream_and_astream_yield_the_value_once_as_invoke_returns_it():
    reply = _reply(("City", {"name": "Paris", "country": "France"}), ("City", {"name": "Rome", "country": "Italy"}))
    model = ScriptedChatModel([reply], cycle=True).with_structured_output(City)

    async def collect(structured):
        return [value async for value in structured.astream("Where is the Eiffel Tower?")]

    want = City(name="Paris", country="France")  # the first call (one call per reply)
    assert list(model.stream("Where is the Eiffel Tower?")) == [want] == asyncio.run(collect(model))
    assert model.invoke("Where is the Eiffel Tower?") == want
    raw = ScriptedChatModel([reply]).with_structured_output(City, include_raw=True)
    (only,) = list(raw.stream("Where?"))
    assert only["parsed"] == want and only["parsing_error"] is None


def test_stream_raises_as_invoke_when_the_model_does_not_call_the_output_tool():
    model = ScriptedChatModel(["It is in Paris."]).with_structured_output(City)
    with pytest.raises(ToolCallParseError, match="did not call City"):
        list(model.stream("Where?"))
