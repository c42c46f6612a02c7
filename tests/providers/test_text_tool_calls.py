"""Tool calls an OpenAI-compatible server left in the reply's text (review 7 #8): read for bound tools, the
same in invoke and stream, never over native calls, off for OpenAI itself and with tool_choice="none"."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from toolwire import AIMessage, HumanMessage, ToolMessage, merge_chunks
from toolwire.examples.book import BOOK_TOOLS
from toolwire.models._text_calls import TextCallStream, read_text_calls
from toolwire.models.openai import ChatOpenAI

from .wire_raw import Raw, RawServer, chunk, completion

NAMES = ("get_weather", "calculate")


def _events(text: str, size: int = 3) -> list[Any]:
    """The text streamed in pieces of ``size`` characters, then the end of the stream."""
    pieces = [text[i:i + size] for i in range(0, len(text), size)]
    return [chunk({"role": "assistant", "content": ""}), *(chunk({"content": p}) for p in pieces),
            chunk({}, "stop"), "[DONE]"]


def _both(raw: RawServer, model: ChatOpenAI, text: str, **bind: Any) -> tuple[AIMessage, AIMessage, list[str]]:
    """invoke's reply and stream's merged reply to a server answering ``text``, and the stream's text pieces."""
    raw.queue(Raw(body=completion({"role": "assistant", "content": text})), Raw(events=_events(text)))
    bound = model.bind_tools(BOOK_TOOLS, **bind)
    whole = bound.invoke("q")
    chunks = list(bound.stream("q"))
    return whole, merge_chunks(chunks, as_chunk=False), [c.content for c in chunks if c.content]  # type: ignore[return-value]


def _calls(message: AIMessage) -> list[tuple[str, dict[str, Any]]]:
    return [(c["name"], c["args"]) for c in message.tool_calls]


@pytest.mark.parametrize("text", [
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    '```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```',
    '{"name": "get_weather", "parameters": {"city": "Paris"}}',
    '[get_weather(city="Paris")]',
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
    '<function=get_weather>{"city": "Paris"}</function>',
])
def test_a_call_left_in_the_text_is_read_in_invoke_and_stream(raw: RawServer, make: Callable[..., ChatOpenAI],
                                                              text: str) -> None:
    whole, streamed, pieces = _both(raw, make(), text)
    for reply in (whole, streamed):
        assert _calls(reply) == [("get_weather", {"city": "Paris"})], text
        assert reply.content == "" and reply.response_metadata["tool_calls_from_text"] is True
    assert whole.tool_calls[0]["id"] and pieces == []  # nothing of the call was shown as text


def test_prose_before_and_after_the_calls_stays_text_and_streams_as_it_comes(raw: RawServer,
                                                                           make: Callable[..., ChatOpenAI]) -> None:
    text = ('Let me look both up.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n'
            '<tool_call>{"name": "calculate", "arguments": {"expression": "2*3"}}</tool_call>\nOne moment.')
    whole, streamed, pieces = _both(raw, make(), text)
    for reply in (whole, streamed):
        assert _calls(reply) == [("get_weather", {"city": "Paris"}), ("calculate", {"expression": "2*3"})]
        assert reply.content == "Let me look both up.\n\nOne moment."
    assert "".join(pieces[:-1]) == "Let me look both up."  # shown before the reply ended
    assert len({c["id"] for c in whole.tool_calls}) == 2


@pytest.mark.parametrize("text", [
    "Paris is sunny today.",
    "Here is a list:\n[1] sunny\n[2] warm\n{not a call}",
    '```json\n{"name": "Ann", "age": 3}\n```',  # JSON that names no bound tool is prose
    '[get_time(zone="CET")]',  # an unbound name outside any marker
])
def test_text_without_a_call_is_unchanged(raw: RawServer, make: Callable[..., ChatOpenAI], text: str) -> None:
    whole, streamed, pieces = _both(raw, make(), text)
    for reply in (whole, streamed):
        assert reply.content == text and not reply.tool_calls and not reply.invalid_tool_calls
        assert "tool_calls_from_text" not in reply.response_metadata
    assert "".join(pieces) == text


def test_an_unknown_tool_inside_a_call_marker_is_an_invalid_call_naming_the_tools(
        raw: RawServer, make: Callable[..., ChatOpenAI]) -> None:
    text = '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>'
    whole, streamed, _ = _both(raw, make(), text)
    for reply in (whole, streamed):
        assert not reply.tool_calls and len(reply.invalid_tool_calls) == 1
        assert "get_weather" in reply.invalid_tool_calls[0]["error"]


def test_not_read_when_off_for_openai_itself_or_with_tool_choice_none(raw: RawServer,
                                                                     make: Callable[..., ChatOpenAI]) -> None:
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    for model, bind in ((make(text_tool_calls=False), {}), (make(), {"tool_choice": "none"})):
        whole, streamed, _ = _both(raw, model, text, **bind)
        for reply in (whole, streamed):
            assert reply.content == text and not reply.tool_calls
    assert ChatOpenAI("gpt-5-mini", api_key="sk-test").text_tool_calls is False
    assert ChatOpenAI("m", base_url="http://127.0.0.1:9/v1").text_tool_calls is True


def test_native_calls_are_never_read_again(raw: RawServer, make: Callable[..., ChatOpenAI]) -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "calculate", "arguments": '{"expression": "1+1"}'}}
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    events = [chunk({"role": "assistant", "content": text}),
              chunk({"tool_calls": [{"index": 0, **call}]}), chunk({}, "tool_calls"), "[DONE]"]
    raw.queue(Raw(body=completion({"role": "assistant", "content": text, "tool_calls": [call]}, "tool_calls")),
              Raw(events=events))
    bound = make().bind_tools(BOOK_TOOLS)
    whole, streamed = bound.invoke("q"), merge_chunks(list(bound.stream("q")), as_chunk=False)
    for reply in (whole, streamed):
        assert _calls(reply) == [("calculate", {"expression": "1+1"})] and reply.content == text  # type: ignore[arg-type]


def test_the_whole_cycle_with_calls_left_in_the_text_async(raw: RawServer, make: Callable[..., ChatOpenAI]) -> None:
    text = 'Checking.\n```json\n[{"name": "get_weather", "arguments": {"city": "Paris"}}]\n```'
    raw.queue(Raw(events=_events(text, 5)),
              Raw(body=completion({"role": "assistant", "content": "It is sunny in Paris."})))
    bound = make().bind_tools(BOOK_TOOLS)

    async def run() -> tuple[AIMessage, AIMessage]:
        first = merge_chunks([c async for c in bound.astream("q")], as_chunk=False)
        result = ToolMessage("sunny", first.tool_calls[0]["id"])  # type: ignore[union-attr]
        second = await bound.ainvoke([HumanMessage("q"), first, result])
        return first, second  # type: ignore[return-value]

    first, second = asyncio.run(run())
    assert first.content == "Checking." and _calls(first) == [("get_weather", {"city": "Paris"})]
    assert second.content == "It is sunny in Paris." and not second.tool_calls


def test_the_stream_reader_alone_matches_the_whole_reply_reader_for_any_cut() -> None:
    text = 'Sure.\n  \n<tool_call>{"name": "calculate", "arguments": {"expression": "6*7"}}</tool_call>\nDone.'
    content, calls, invalid = read_text_calls(text, NAMES)  # type: ignore[misc]
    for size in range(1, len(text) + 1):
        reader = TextCallStream(NAMES)
        out = [c for i in range(0, len(text), size) for c in reader.feed(_chunk(text[i:i + size]))]
        merged = merge_chunks([*out, *reader.finish()], as_chunk=False)
        assert merged.content == content == "Sure.\n\nDone.", size  # type: ignore[union-attr]
        assert [(c["name"], c["args"]) for c in merged.tool_calls] == [("calculate", {"expression": "6*7"})]
        assert "".join(c.content for c in out) == "Sure.", size  # type: ignore[misc]
    assert read_text_calls("no call here", NAMES) is None and read_text_calls(text, ()) is None
    assert json.loads(json.dumps(calls[0]["args"])) == {"expression": "6*7"} and invalid == []


def _chunk(text: str) -> Any:
    from toolwire.messages import AIMessageChunk

    return AIMessageChunk(text)


# -- review 15 ------------------------------------------------------------------------------------------------

NOT_CALLS = [  # a bound name used in code, prose or reasoning is not a call
    'You can do it yourself in Python:\n```python\nresult = get_weather(city="Oslo")\nprint(result)\n```',
    'In your own script:\n```python\nif confirmed:\n    calculate(expression="1/0")\n```',
    'Notes:\n- see [the docs](https://x)\n\nOne would write calculate(expression="2") but I will not.',
    'Sources:\n[1] https://example.com/weather-api\nThe call would be get_weather(city="Oslo").',
    '<b>Note</b>: the call would be get_weather(city="Oslo"), which I will not make.',
    '<think>\nI could call get_weather(city="Paris") but no tool is needed.\n</think>\n\nFrance won in 1998.',
    '```python\nget_weather(city="Oslo")\n```',  # a bare call in a code block: code, not a call list
    # review 57: an unmarked call with more text after it is an example the reply shows, maybe one it declines
    ('I won\'t check that yet. For reference, the call would be:\n```json\n'
     '{"name": "calculate", "arguments": {"expression": "1/0"}}\n```\nPlease confirm first.'),
    'You could run it yourself like this:\n\n[calculate(expression="1/0")]\n\nbut I will not do it.',
    '{"name": "get_weather", "arguments": {"city": "Oslo"}} is what the call looks like.',
    '[get_weather(city="Oslo")] would do it; say yes and I will.',
]


@pytest.mark.parametrize("text", NOT_CALLS)
def test_a_bound_name_in_code_prose_or_reasoning_is_not_a_call(text: str) -> None:
    assert read_text_calls(text, NAMES) is None, text
    reader = TextCallStream(NAMES)
    out = [c for i in range(0, len(text), 4) for c in reader.feed(_chunk(text[i:i + 4]))]
    merged = merge_chunks([*out, *reader.finish()], as_chunk=False)
    assert merged.content == text and not merged.tool_calls  # type: ignore[union-attr]


def test_calls_after_reasoning_and_consecutive_call_lists_are_read() -> None:
    text = ('<think>\nThe user wants the weather; get_weather(city="x") is the tool.\n</think>\n'
            '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>')
    content, calls, _ = read_text_calls(text, NAMES)  # type: ignore[misc]
    assert content.startswith("<think>") and [c["args"] for c in calls] == [{"city": "Paris"}]
    text = 'Both:\n```python\n[get_weather(city="Oslo")]\n[calculate(expression="2*3")]\n```\n'
    content, calls, _ = read_text_calls(text, NAMES)  # type: ignore[misc]
    assert [c["name"] for c in calls] == ["get_weather", "calculate"] and content == "Both:"
    # more text after a call list (even a list of an unknown function): an example, not calls
    assert read_text_calls(text + "[x(1)] stays.", NAMES) is None
    assert read_text_calls('[get_weather(city="Oslo")]\n\n[x(1)]', NAMES) is None


def test_a_split_fence_and_a_call_wrapped_twice_read_alike_in_invoke_and_stream() -> None:
    wrapped = '<tool_call>{"name": "get_weather", "arguments": {"name": "get_weather", "arguments": {"city": "Oslo"}}}'
    for text in ('Let me check.\n```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```\n',
                 wrapped + "</tool_call>", '[get_weather(name="get_weather", arguments={"city": "Oslo"})]'):
        whole = read_text_calls(text, NAMES)
        assert whole is not None, text
        for size in (1, 2, 3, 7):
            reader = TextCallStream(NAMES)
            out = [c for i in range(0, len(text), size) for c in reader.feed(_chunk(text[i:i + size]))]
            merged = merge_chunks([*out, *reader.finish()], as_chunk=False, tool_names=NAMES)
            assert merged.content == whole[0], (text, size)  # type: ignore[union-attr]
            assert [c["args"] for c in merged.tool_calls] == [c["args"] for c in whole[1]]  # type: ignore[union-attr]
            assert "`" not in "".join(c.content for c in out)  # type: ignore[misc]
        assert whole[1][0]["args"] in ({"city": "Paris"}, {"city": "Oslo"})


def test_qwen3_coder_values_left_in_the_text_are_typed_by_the_bound_tools_schema(
        raw: RawServer, make: Callable[..., ChatOpenAI]) -> None:
    from toolwire import tool

    @tool
    def add(a: int, b: float, exact: bool = False) -> str:
        """Add two numbers."""
        return str(a + b)

    text = ("<tool_call>\n<function=add>\n<parameter=a>\n2\n</parameter>\n<parameter=b>\n0.5\n</parameter>\n"
            "<parameter=exact>\ntrue\n</parameter>\n</function>\n</tool_call>")
    raw.queue(Raw(body=completion({"role": "assistant", "content": text})), Raw(events=_events(text)))
    bound = make().bind_tools([add])
    whole = bound.invoke("q")
    streamed = merge_chunks(list(bound.stream("q")), as_chunk=False)
    for reply in (whole, streamed):
        assert _calls(reply) == [("add", {"a": 2, "b": 0.5, "exact": True})] and reply.content == ""


# -- review 60: what may follow calls that end the reply, and calls after other JSON ---------------------------

ENDING = [
    '```tool_code\n[get_weather(city="Oslo")]\n```',  # Gemma's fence
    '```JSON\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n```',
    '```Python\n[get_weather(city="Oslo")]\n```',
    '~~~json\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n~~~',
    '```json\r\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\r\n```\r\n',  # CRLF
    '```json\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n```<|im_end|>',  # an end token left in
    'The last result was:\n{"temp": 5}\nNow I call:\n{"name": "get_weather", "arguments": {"city": "Oslo"}}',
    'For example:\n{"name": "get_weather", "arguments": {"city": "X"}}\nNow:\n'
    '{"name": "get_weather", "arguments": {"city": "Oslo"}}',
]


@pytest.mark.parametrize("text", ENDING)
def test_calls_that_end_the_reply_are_read_whatever_fence_or_json_comes_before(text: str) -> None:
    content, calls, invalid = read_text_calls(text, NAMES)  # type: ignore[misc]
    assert [(c["name"], c["args"]) for c in calls] == [("get_weather", {"city": "Oslo"})] and not invalid
    assert "```" not in content and "~~~" not in content and "Oslo" not in content
    for size in (1, 5):  # the stream reads them alike
        reader = TextCallStream(NAMES)
        out = [c for i in range(0, len(text), size) for c in reader.feed(_chunk(text[i:i + size]))]
        merged = merge_chunks([*out, *reader.finish()], as_chunk=False, tool_names=NAMES)
        assert merged.content == content and [c["args"] for c in merged.tool_calls] == [{"city": "Oslo"}]  # type: ignore[union-attr]
