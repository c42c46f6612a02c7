"""Review 62 (a code review of reviews 57-61): calls left in a server's text are found in about linear time, an
earlier code block's closing fence stays in the text before them, and the end tokens of Gemma, Llama 2 and
DeepSeek may follow them; a result that cannot be written (nested too deeply, a dict key whose ``str()`` fails,
bytes keys) is reported as a tool that ran, and ``hide_error_details`` keeps the writer's message out of it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel, field_serializer

from toolwire import ToolExecutor, ToolResultError, merge_chunks, tool
from toolwire.messages import AIMessageChunk, tool_call
from toolwire.models import _text_calls
from toolwire.models._text_calls import TextCallStream, read_text_calls
from toolwire.results import result_to_content

NAMES = ("get_weather", "calculate")
CALL = '{"name": "get_weather", "arguments": {"city": "Oslo"}}'
LIST = '[get_weather(city="Oslo")]'


def _streamed(text: str, size: int = 5) -> Any:
    reader = TextCallStream(NAMES)
    out = [c for i in range(0, len(text), size) for c in reader.feed(AIMessageChunk(text[i:i + size]))]
    return merge_chunks([*out, *reader.finish()], as_chunk=False, tool_names=NAMES)


def _parsed_chars(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text ``read_text_calls`` hands the parser, from now on."""
    sizes: list[int] = []
    parse = _text_calls.parse_tool_calls

    def counting(text: str, *args: Any, **kwargs: Any) -> Any:
        sizes.append(len(text))
        return parse(text, *args, **kwargs)

    monkeypatch.setattr(_text_calls, "parse_tool_calls", counting)
    return sizes


# -- #1: linear time --------------------------------------------------------------------------------------------

SLOW = {  # each took quadratic time: every later JSON line (or call list) was parsed again to the end
    "JSON data, a call, then prose": "Data:\n" + "".join(f'{{"id": {i}, "v": "row {i}"}}\n' for i in range(2000))
                                     + CALL + "\nShall I run it?",
    "calls, each followed by a note": (CALL + "\nnote\n") * 1000,
    "calls, then prose": (CALL + "\n") * 1000 + "Shall I run them?",
    "call lists, then prose": (LIST + "\n") * 1000 + "Shall I run them?",
    "fenced calls, then prose": ("```json\n" + CALL + "\n```\n") * 500 + "Shall I run them?",
}


@pytest.mark.parametrize("text", SLOW.values(), ids=list(SLOW))
def test_calls_followed_by_prose_are_found_to_be_text_in_linear_time(text: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Review 62 #1: 2,000 JSON lines, a call and a line of prose took 3.7 s (0.004 s before review 60): an
    unmarked call followed by text did not end the reading of that format, so each later line starting with
    ``{`` was parsed again to the end of the reply."""
    sizes = _parsed_chars(monkeypatch)
    assert read_text_calls(text, NAMES) is None  # (calls followed by prose are not calls)
    assert sum(sizes) <= 4 * len(text), (len(sizes), sum(sizes), len(text))


def test_the_calls_that_end_the_reply_are_still_found_after_json_lines_in_linear_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Review 62 #1: the faster reading still finds the run of calls that ends the reply, and only that run."""
    data = "".join(f'{{"id": {i}}}\n' for i in range(2000))
    text = f"Data:\n{data}{CALL}\nnot yet\n{CALL}\n{CALL}\n"
    sizes = _parsed_chars(monkeypatch)
    content, calls, invalid = read_text_calls(text, NAMES)  # type: ignore[misc]
    assert sum(sizes) <= 4 * len(text)
    assert [c["args"] for c in calls] == [{"city": "Oslo"}] * 2 and not invalid
    assert content == f"Data:\n{data}{CALL}\nnot yet"
    pretty = '[\n  {"name": "get_weather", "arguments": {"city": "A"}},\n  {"name": "calculate", "arguments": ' \
             '{"expression": "1"}}\n]'
    for text, args in ((f'{{"a": [\n{CALL}\n]}}', None),  # a call inside data: not one that ends the reply
                       (f"{CALL}\nnote\n{pretty}", [{"city": "A"}, {"expression": "1"}]),
                       (f"{LIST}\nnote\n{LIST}\n{LIST}", [{"city": "Oslo"}] * 2)):
        found = read_text_calls(text, NAMES)
        assert (found and [c["args"] for c in found[1]]) == (args or None), text


# -- #2: an earlier code block's closing fence ------------------------------------------------------------------

def test_the_closing_fence_of_an_earlier_code_block_stays_in_the_text() -> None:
    """Review 62 #2: the fence line before the calls was dropped even when it closed an earlier code block,
    leaving that block open in the text: 'See:\\n```\\nx = 1' for 'See:\\n```\\nx = 1\\n```'."""
    text = f"See:\n```\nx = 1\n```\n{CALL}\n<|im_end|>"
    content, calls, _ = read_text_calls(text, NAMES)  # type: ignore[misc]
    assert content == "See:\n```\nx = 1\n```" and [c["args"] for c in calls] == [{"city": "Oslo"}]
    assert _streamed(text).content == content
    for fence in ("```", "~~~"):  # the fence that opens the calls' block still goes
        for opening in (f"{fence}tool_code", f"{fence}json", fence):
            for calls_text in (LIST, CALL):
                text = f"See:\n{fence}\nx = 1\n{fence}\n{opening}\n{calls_text}\n{fence}"
                content, calls, _ = read_text_calls(text, NAMES)  # type: ignore[misc]
                assert content == f"See:\n{fence}\nx = 1\n{fence}", text
                assert [c["args"] for c in calls] == [{"city": "Oslo"}]


# -- #3: end tokens ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    f"```tool_code\n{LIST}\n```<end_of_turn>",  # Gemma
    f"{CALL}</s>",  # Llama 2, Mistral
    f"{LIST}<eos>",  # Gemma
    f"{CALL}<end_of_turn>\n<eos>",
    f"{CALL}\n<|eot_id|>",  # Llama 3
    f"{CALL}<\uff5cend\u2581of\u2581sentence\uff5c>",  # DeepSeek
])
def test_a_call_followed_by_a_models_end_token_is_read_and_the_token_dropped(text: str) -> None:
    """Review 62 #3: only ``<|...|>`` tokens could follow calls that end the reply; Gemma's ``<end_of_turn>``
    and ``<eos>`` and Llama 2's ``</s>`` made the call text (they were read before review 60)."""
    content, calls, invalid = read_text_calls(text, NAMES)  # type: ignore[misc]
    assert content == "" and [c["args"] for c in calls] == [{"city": "Oslo"}] and not invalid
    merged = _streamed(text)
    assert merged.content == "" and [c["args"] for c in merged.tool_calls] == [{"city": "Oslo"}]
    assert read_text_calls(text + " But I will not run it.", NAMES) is None  # (prose after the token: text)


# -- #4: results that cannot be written -------------------------------------------------------------------------

class _BadStr:
    def __str__(self) -> str:
        raise RuntimeError("nope")

    __repr__ = __str__

    def __hash__(self) -> int:
        return 1


def _nested() -> list[Any]:
    x: list[Any] = []
    for _ in range(100_000):
        x = [x]
    return x


@tool
def deep() -> list:
    """A list nested 100,000 deep."""
    return _nested()


@tool
def bad_key() -> dict:
    """A dict whose key's str() fails."""
    return {_BadStr(): 1}


@tool
def bytes_keys(text_only: bool) -> dict:
    """Bytes as dict keys."""
    return {b"ok": 1} if text_only else {b"\xff": 1, b"ok": 2}


def test_a_result_nested_too_deeply_or_with_a_broken_key_is_a_tool_that_ran() -> None:
    """Review 62 #4: a tool that ran and returned a list nested 100,000 deep gave "raised RecursionError" (read
    as a failed call, so a model makes it again), a dict key whose ``str()`` raises gave "raised RuntimeError",
    and a bytes key that is not UTF-8 became "b'\\\\xff'" while such a bytes value is refused."""
    executor = ToolExecutor([deep, bad_key, bytes_keys])
    calls = [tool_call("deep", {}, "c1"), tool_call("bad_key", {}, "c2"),
             tool_call("bytes_keys", {"text_only": True}, "c3"), tool_call("bytes_keys", {"text_only": False}, "c4")]
    for messages in (executor.call(calls), asyncio.run(executor.acall(calls))):
        nested, key, text_key, raw_key = messages
        assert nested.status == "error" and nested.content.startswith("Error: tool 'deep' ran, but its result")
        assert "nested too deeply" in nested.content and "Do not call it again" in nested.content
        assert key.status == "success" and key.content == '{"<_BadStr object>": 1}'
        assert text_key.status == "success" and text_key.content == '{"ok": 1}'
        assert raw_key.status == "error" and raw_key.content.startswith("Error: tool 'bytes_keys' ran, but")
        assert "not UTF-8" in raw_key.content
    with pytest.raises(ToolResultError, match="nested too deeply"):
        result_to_content(_nested())


# -- #5: hide_error_details -------------------------------------------------------------------------------------

class _Secret(BaseModel):
    token: str

    @field_serializer("token")
    def _write(self, value: str) -> str:
        raise ValueError(f"cannot serialise token {value}")


@tool(hide_error_details=True)
def leak() -> _Secret:
    """Return a secret that cannot be written."""
    return _Secret(token="sk-SECRET-123")


@tool
def shown() -> _Secret:
    """The same, details shown."""
    return _Secret(token="sk-SHOWN-456")


def test_hide_error_details_keeps_the_writers_message_out_of_a_result_error() -> None:
    """Review 62 #5: with ``hide_error_details`` the text of a result that could not be written still quoted
    the error writing it, and so the secret a model's serialiser put in its message."""
    executor = ToolExecutor([leak, shown])
    hidden, plain = executor.call([tool_call("leak", {}, "c1"), tool_call("shown", {}, "c2")])
    assert hidden.status == "error" and "sk-SECRET" not in hidden.content
    assert hidden.content.startswith("Error: tool 'leak' ran, but its result could not be sent back")
    assert "SerializationError" in hidden.content  # (the error's type at most)
    assert "sk-SHOWN-456" in plain.content  # (without hide_error_details the message stays, as before)
    again = ToolExecutor([leak], hide_error_details=True).call([tool_call("leak", {}, "c")])[0]
    assert "sk-SECRET" not in again.content
