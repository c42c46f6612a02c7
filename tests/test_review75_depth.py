"""Review 75, finding 1: arguments nested hundreds of levels deep (about 1 KB a model can write) crashed the readers
of a reply with RecursionError; now every path refuses them as the model's mistake, past MAX_DEPTH levels, with one
sentence, and the call gets its error result."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import AIMessage, tool
from toolwire.errors import ToolCallParseError
from toolwire.messages import merge_chunks
from toolwire.models.lowering import gemini
from toolwire.models.lowering import openai as openai_codec
from toolwire.parsing import normalize_arguments, parse_tool_calls
from toolwire.parsing._scan import MAX_DEPTH, clean_value

DEEP = "The arguments are nested too deeply to read (more than 64 levels of objects and arrays)"


def _nested(depth: int) -> str:
    return '{"a": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


def test_the_limit_is_64_levels_and_just_below_it_is_read() -> None:
    assert MAX_DEPTH == 64
    assert normalize_arguments(_nested(64))["a"] is not None
    for text in (_nested(65), _nested(500), _nested(990), _nested(5000),
                 "{'a': " + "[" * 70 + "]" * 70 + "}", "{'a': " + "[" * 300 + "]" * 300 + "}"):
        with pytest.raises(ToolCallParseError, match=r"nested too deeply to read \(more than 64 levels"):
            normalize_arguments(text)


def test_a_chat_completions_reply_and_stream_refuse_them_as_invalid_calls() -> None:
    args = _nested(500)
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": args}}
    reply = {"id": "x", "model": "m", "object": "chat.completion", "choices": [{
        "index": 0, "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": None, "tool_calls": [call]}}]}
    message = openai_codec.parse_response(reply, tool_names=["f"])
    assert message.tool_calls == [] and message.invalid_tool_calls[0]["error"].startswith(DEEP)
    assert message.invalid_tool_calls[0]["args"] == args  # the text is kept
    state = openai_codec.StreamState()
    chunks = []
    for delta in ({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                   "function": {"name": "f", "arguments": ""}}]},
                  {"tool_calls": [{"index": 0, "function": {"arguments": args}}]}):
        chunk = state.feed({"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m",
                            "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        if chunk is not None:
            chunks.append(chunk)
    state.feed({"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    chunks.append(state.finish())
    merged = merge_chunks(chunks, as_chunk=False, tool_names=["f"])
    assert merged.tool_calls == [] and merged.invalid_tool_calls[0]["error"].startswith(DEEP)


def test_text_dialects_and_decoded_objects_refuse_them() -> None:
    parsed = parse_tool_calls(f'<tool_call>{{"name": "f", "arguments": {_nested(500)}}}</tool_call>', ["f"])
    assert parsed.tool_calls == [] and parsed.invalid_tool_calls[0]["error"].startswith(DEEP)
    AIMessage(parsed.content, tool_calls=parsed.tool_calls, invalid_tool_calls=parsed.invalid_tool_calls)

    @tool
    def store(value: Any) -> str:
        """Store any JSON value."""
        return "stored"

    deep_object: Any = []
    for _ in range(300):
        deep_object = [deep_object]
    for value, refused in (("[" * 100_000 + "]" * 100_000, False), ("[" * 500 + "]" * 500, True),
                           (deep_object, True)):
        reply = {"candidates": [{"content": {"role": "model", "parts": [{"function_call": {
            "name": "store", "args": {"value": value}}}]}, "finish_reason": "STOP"}]}
        message = gemini.parse_response(reply, tool_names=["store"], json_text=gemini.json_text_plan([store]))
        if refused:  # an Any value's JSON text is decoded first, then refused like a decoded object
            assert message.tool_calls == [] and message.invalid_tool_calls[0]["error"].startswith(DEEP)
        else:  # too deep for json.loads (RecursionError, uncaught before): it stays the text it was
            assert message.tool_calls[0]["args"]["value"] == value


def test_a_json_text_value_too_deep_is_left_as_text_and_the_tool_does_not_run() -> None:
    ran: list[Any] = []

    @tool
    def f(a: list) -> str:
        """Take a list."""
        ran.append(a)
        return "ran"

    message = f.invoke({"type": "tool_call", "id": "1", "name": "f", "args": {"a": "[" * 600 + "]" * 600}})
    assert message.status == "error" and "Input should be a valid list" in message.content
    assert "RecursionError" not in message.content and not ran


def test_clean_value_refuses_past_the_limit_whatever_the_containers() -> None:
    from toolwire.parsing._scan import NestedTooDeep

    value: Any = "x"
    for index in range(MAX_DEPTH):
        value = [value] if index % 2 else {"k": value}
    assert clean_value(value) is value
    with pytest.raises(NestedTooDeep):
        clean_value([value])
