"""Review 253 #1: an int literal too long for Python to write as text (over ``sys.get_int_max_str_digits()``
digits, 4300 by default) written in hexadecimal, octal or binary in a text tool call.

Python's parser refuses such a number written in decimal, and the pythonic reader makes that call invalid with
advice; written as ``0x...``, ``0o...`` or ``0b...`` it parsed into an int that ``json.dumps`` cannot write, so
``parse_tool_calls`` gave arguments no message could carry and a model's reply became a ProviderError. Now every
reader of model text treats the three forms as the decimal one: an invalid call saying what to send instead, and
never an argument ``json.dumps`` refuses.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from _queued_http import serving
from toolwire import Agent, tool
from toolwire.chunks import merge_chunks
from toolwire.messages import AIMessageChunk
from toolwire.models import ChatOpenAI
from toolwire.models._text_calls import TextCallStream, read_text_calls
from toolwire.parsing import parse_tool_calls

TOOLS = {"get_weather": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                                                          "m": {"type": "object"}}}}
DEC = "9" * 5000
HEX = "0x" + "f" * 4000  # 4817 digits
NUMBERS = {"decimal": DEC, "hex": HEX, "HEX": "0X" + "F" * 4000, "negative hex": "-" + HEX, "octal": "0o" + "7" * 5000,
           "binary": "0b" + "1" * 16000, "hex with underscores": "0x" + "f_" * 4000 + "f"}
PY_DIGITS = "A number in the call to get_weather has too many digits to read; send it with fewer digits, or as a " \
            "string if the tool takes one."
CALL_OF = "<tool_call>{'name': 'get_weather', 'arguments': {'city': 'Oslo', 'days': NUMBER}}</tool_call>"
DICT_DIGITS = "A number in the call has too many digits to read; send it with fewer digits, or as a string if the " \
              "tool takes one."


def _writable(args: Any) -> None:
    json.dumps(args)  # (raises ValueError on an int too long to write)


def _only_invalid(text: str) -> list[str]:
    """The errors of the invalid calls ``text`` holds, after checking it holds no call and each is writable."""
    parsed = parse_tool_calls(text, TOOLS)
    for call in parsed.tool_calls:
        _writable(call["args"])
    assert parsed.tool_calls == [], text[:60]
    assert parsed.invalid_tool_calls, text[:60]
    return [c["error"] for c in parsed.invalid_tool_calls]


@pytest.mark.parametrize("number", NUMBERS.values(), ids=NUMBERS.keys())
@pytest.mark.parametrize("form", [
    "get_weather(city='Oslo', days={n})",
    "[get_weather(city='Oslo', days={n})]",
    "Sure. [get_weather(city='Oslo', days=1), get_weather(city='Rome', days={n})]",
    "get_weather(city='Oslo', m={{'a': [1, {n}]}})",
    "get_weather(city='Oslo', m={{{n}: 'a'}})",
    "<tool_call>get_weather(city='Oslo', days={n})</tool_call>",
    "```python\nget_weather(city='Oslo', days={n})\n```",
])
def test_a_pythonic_call_with_a_long_number_is_invalid_as_the_decimal_one(form: str, number: str) -> None:
    errors = _only_invalid(form.format(n=number))
    assert errors == [PY_DIGITS], errors


@pytest.mark.parametrize("number", NUMBERS.values(), ids=NUMBERS.keys())
@pytest.mark.parametrize("form", [
    "<tool_call>{{'name': 'get_weather', 'arguments': {{'city': 'Oslo', 'days': {n}}}}}</tool_call>",
    "[TOOL_CALLS][{{'name': 'get_weather', 'arguments': {{'days': {n}}}}}]",
    "{{'name': 'get_weather', 'arguments': {{'m': {{{n}: 1}}}}}}",
    "<|python_tag|>{{'name': 'get_weather', 'parameters': {{'days': {n}}}}}",
])
def test_a_python_dict_call_with_a_long_number_is_invalid_saying_so(form: str, number: str) -> None:
    errors = _only_invalid(form.format(n=number))
    assert len(errors) == 1 and errors[0].startswith(DICT_DIGITS), errors


@pytest.mark.parametrize("number", NUMBERS.values(), ids=NUMBERS.keys())
def test_a_function_tag_parameter_with_a_long_number_stays_its_text(number: str) -> None:
    text = f"<function=get_weather><parameter=m>{{'a': {number}}}</parameter></function>"
    parsed = parse_tool_calls(text, TOOLS)
    assert [c["args"] for c in parsed.tool_calls] == [{"m": f"{{'a': {number}}}"}]  # (validation then refuses it)


@pytest.mark.parametrize("dialect", ["hermes", "mistral", "json", "llama", "function_tag"])
def test_json_with_a_long_decimal_number_is_an_invalid_call_in_each_dialect(dialect: str) -> None:
    text = {"hermes": '<tool_call>{"name": "get_weather", "arguments": {"days": %s}}</tool_call>',
            "mistral": '[TOOL_CALLS][{"name": "get_weather", "arguments": {"days": %s}}]',
            "json": '{"name": "get_weather", "arguments": {"days": %s}}',
            "llama": '<|python_tag|>{"name": "get_weather", "parameters": {"days": %s}}',
            "function_tag": '<function=get_weather>{"days": %s}</function>'}[dialect] % DEC
    parsed = parse_tool_calls(text, TOOLS, dialect=None if dialect == "llama" else dialect)  # (llama: auto)
    for call in parsed.tool_calls:
        _writable(call["args"])
    assert parsed.tool_calls == [] and len(parsed.invalid_tool_calls) == 1
    assert "too large to read" in parsed.invalid_tool_calls[0]["error"]


@pytest.mark.parametrize("number", NUMBERS.values(), ids=NUMBERS.keys())
def test_a_reply_s_text_calls_never_hold_an_unwritable_number(number: str) -> None:
    text = CALL_OF.replace("NUMBER", number)
    found = read_text_calls(text, ["get_weather"])
    assert found is not None
    _content, calls, invalid = found
    assert calls == [] and len(invalid) == 1 and invalid[0]["error"].startswith(DICT_DIGITS)
    stream = TextCallStream(["get_weather"])
    chunks = [*stream.feed(AIMessageChunk(text[:50])), *stream.feed(AIMessageChunk(text[50:])), *stream.finish()]
    reply = merge_chunks(chunks, as_chunk=False)
    assert reply.tool_calls == [] and len(reply.invalid_tool_calls) == 1  # type: ignore[union-attr]
    assert reply.invalid_tool_calls[0]["error"].startswith(DICT_DIGITS)  # type: ignore[union-attr]


@tool
def get_weather(city: str, days: int = 1) -> str:
    """Weather forecast for a city."""
    return f"sunny in {city}"


@pytest.mark.parametrize("number", [DEC, HEX])
def test_tool_invoke_with_python_dict_text_holding_a_long_number_is_refused(number: str) -> None:
    args = "{'city': 'Oslo', 'days': NUMBER}".replace("NUMBER", number)
    reply = get_weather.invoke({"name": "get_weather", "args": args, "id": "1", "type": "tool_call"})
    assert reply.status == "error", reply.content[:200]


def _completion(text: str) -> dict[str, Any]:
    return {"id": "c", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}


def _chunks(text: str) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    return [chunk({"role": "assistant", "content": text[:50]}), chunk({"content": text[50:]}), chunk({}, "stop")]


CALL = CALL_OF.replace("NUMBER", HEX)


def test_an_agent_run_goes_on_when_a_text_call_holds_a_long_hex_number() -> None:
    with serving("/v1", done=True) as server:
        server.queue.extend([_completion(CALL), _completion("Done.")])
        model = ChatOpenAI("m", base_url=server.url, api_key="x", max_retries=0)
        result = Agent(model, [get_weather]).invoke("weather in Oslo?")
        assert result.output == "Done." and len(server.requests) == 2
        told = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
        assert len(told) == 1 and "too many digits" in told[0]["content"]


def test_a_streamed_reply_with_a_long_hex_number_in_a_text_call_is_an_invalid_call() -> None:
    with serving("/v1", done=True) as server:
        server.queue.extend([_chunks(CALL), _chunks("Done.")])
        model = ChatOpenAI("m", base_url=server.url, api_key="x", max_retries=0).bind_tools([get_weather])
        reply = merge_chunks(list(model.stream("weather?")), as_chunk=False)
        assert reply.tool_calls == [] and len(reply.invalid_tool_calls) == 1  # type: ignore[union-attr]
        assert reply.invalid_tool_calls[0]["error"].startswith(DICT_DIGITS)  # type: ignore[union-attr]
        json.dumps(reply.model_dump(), default=str)


def test_a_parsed_call_json_cannot_write_is_an_invalid_call_not_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import _text_calls
    from toolwire.parsing import ParsedReply

    def parsed(text: str, names: Any, dialect: str = "auto") -> ParsedReply:  # (a reader that let one through)
        return ParsedReply("", [{"name": "get_weather", "args": {"days": int(HEX, 16)}, "id": "c1",
                                 "type": "tool_call"}], [])

    monkeypatch.setattr(_text_calls, "parse_tool_calls", parsed)
    found = read_text_calls("<tool_call>{'name': 'get_weather', 'arguments': {}}</tool_call>", ["get_weather"])
    assert found is not None
    _content, calls, invalid = found
    assert calls == [] and [(c["name"], c["id"], c["error"]) for c in invalid] == [("get_weather", "c1", DICT_DIGITS)]
