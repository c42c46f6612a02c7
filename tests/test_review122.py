"""Review 122 (a second skeptic on the session's last commits): a dataclass holding a dict keyed by a huge integer is
saved, not a RecursionError; the parse cache does not outlive the parse; structured output keeps in a stream the
call invoke keeps; a participant name is not sent to OpenAI-compatible servers; two tools taking turns stop."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from pydantic import BaseModel, Field

from toolwire import Agent, AIMessage, tool
from toolwire.chunks import AIMessageChunk, merge_chunks
from toolwire.testing import ScriptedChatModel


@dataclasses.dataclass
class _Report:
    counts: dict[int, str]


def test_a_dataclass_holding_a_huge_integer_key_is_saved_as_text() -> None:
    from toolwire.results import json_ready

    ready = json_ready([_Report({10 ** 5000: "x"}), 1])  # was: RecursionError
    json.dumps(ready)


def test_the_parse_cache_does_not_outlive_the_parse() -> None:
    from toolwire.models._text_calls import read_text_calls
    from toolwire.parsing import _scan
    from toolwire.parsing.dialects import parse_tool_calls

    text = 'get_weather(city="Paris") ' + '{""""' * 200
    parse_tool_calls(text, ["get_weather"], dialect="pythonic")
    assert not _scan._KEPT.last  # was: the facts of the whole reply, about 100 bytes a character, kept
    read_text_calls('[get_weather(city="Paris")]', ["get_weather"])
    assert not _scan._KEPT.last


class _Weather(BaseModel):
    """Weather report."""

    city: str
    celsius: float = Field(ge=-90, le=60)


_CHUNKS = [
    AIMessageChunk("", invalid_tool_calls=[{"name": "_Weather", "args": '{"city": "Os', "id": "bad", "error": "cut"}]),
    AIMessageChunk("", tool_call_chunks=[{"name": "_Weather", "args": '{"city": "Oslo", "celsius": 12}', "id": "s2",
                                          "index": 1}]),
    AIMessageChunk("", usage={"input_tokens": 5, "output_tokens": 7, "total_tokens": 12}),
]


class _Streams(ScriptedChatModel):
    def _stream(self, request: Any) -> Any:
        self._next(request)
        yield from _CHUNKS


def test_structured_output_keeps_in_a_stream_the_call_invoke_keeps() -> None:
    merged = merge_chunks(_CHUNKS, as_chunk=False)
    structured = _Streams([merged], cycle=True).with_structured_output(_Weather)
    assert structured.invoke("q") == _Weather(city="Oslo", celsius=12)
    assert list(structured.stream("q")) == [_Weather(city="Oslo", celsius=12)]  # was: ToolCallParseError ("cut")
    streamed = merge_chunks(list(structured.model.stream("q")), as_chunk=False)
    assert streamed.tool_calls == structured.model.invoke("q").tool_calls
    assert streamed.usage_metadata is not None and streamed.usage_metadata["total_tokens"] == 12


def test_a_participant_name_is_sent_to_openai_but_not_to_a_compatible_server() -> None:
    from toolwire.messages import HumanMessage
    from toolwire.models.lowering.openai import lower_messages

    sent = [HumanMessage("hi", name="alice")]
    assert lower_messages(sent)[0]["name"] == "alice"
    assert "name" not in lower_messages(sent, compatible=True)[0]  # (Mistral's API refuses the field)


def test_two_tools_taking_turns_stop_after_the_same_reply_three_times() -> None:
    ran: list[str] = []

    @tool
    def get_weather(city: str) -> str:
        """Weather of a city."""
        ran.append("weather")
        return "sunny"

    @tool
    def get_time(city: str) -> str:
        """Time in a city."""
        ran.append("time")
        return "12:00"

    def call(name: str, i: int) -> dict[str, Any]:
        return {"name": name, "args": {"city": "Oslo"}, "id": f"{name}{i}", "type": "tool_call"}

    both = [AIMessage("", tool_calls=[call("get_weather", i), call("get_time", i)]) for i in range(1, 4)]
    model = ScriptedChatModel([AIMessage("", tool_calls=[call("get_weather", 0)]), *both, "Sunny at 12:00."])
    result = Agent(model, [get_weather, get_time], max_steps=12).invoke("weather and time in Oslo")
    assert [r.tool_choice for r in model.requests] == ["auto"] * 4 + ["none"]  # was: tools on until max_steps
    assert result.output == "Sunny at 12:00." and len(ran) == 4
