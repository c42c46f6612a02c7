"""Review 82: today's changes to the stream bridge, the default values the value check finds, and cut-off calls."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from toolwire._concurrency import iterate_in_thread
from toolwire.messages import AIMessageChunk, merge_chunks
from toolwire.models.lowering.anthropic import StreamState


def _anthropic_reply(events: list[dict[str, Any]]) -> Any:
    state = StreamState()
    chunks = [chunk for event in events if (chunk := state.feed(event)) is not None]
    return merge_chunks([*chunks, state.finish()], as_chunk=False)


def test_a_complete_call_without_arguments_in_a_reply_stopped_at_max_tokens_still_runs():
    # the reply's zero-argument call was whole (its block closed); the token limit cut the text after it. Read as
    # "cut off before its arguments began", the call was refused and never run
    events = [
        {"type": "message_start", "message": {"id": "m1", "model": "claude", "usage": {"input_tokens": 5}}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "tu1", "name": "get_time", "input": {}}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": ""}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Then I will"}},
        {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 10}},
    ]
    reply = _anthropic_reply(events)
    assert reply.tool_calls == [{"name": "get_time", "args": {}, "id": "tu1", "type": "tool_call"}]
    assert reply.invalid_tool_calls == []


def test_an_earlier_call_with_empty_argument_text_at_the_token_limit_was_not_cut():
    # only the reply's last call can be the one the limit cut; a server that sends "" for a call without
    # arguments has the earlier one run, the last one refused as cut off
    parts = [{"name": "get_time", "args": "", "id": "c1", "index": 0},
             {"name": "ping", "args": "", "id": "c2", "index": 1}]
    chunk = AIMessageChunk(tool_call_chunks=parts, response_metadata={"finish_reason": "length"})  # type: ignore[arg-type]
    merged = merge_chunks([chunk], as_chunk=False)
    assert [call["id"] for call in merged.tool_calls] == ["c1"]
    assert [bad["id"] for bad in merged.invalid_tool_calls] == ["c2"]


def test_a_parameter_named_default_or_const_is_no_default_value():
    # properties map parameter names to schemas: a parameter called "default" is not a default, and its
    # schema's words (its description's example, "string") were counted as found by the value check
    from toolwire.models._tool_text import default_values
    from toolwire.tools import ToolSpec

    parameters = {"type": "object", "properties": {
        "default": {"type": "string", "description": "The fallback city, such as Paris."},
        "const": {"type": "integer", "enum": [7, 8]},
        "unit": {"type": "string", "default": "celsius"},
        "mode": {"const": "fast"},
    }, "required": ["default"]}
    assert default_values([ToolSpec("set_city", "Set the city.", parameters)]) == {
        "set_city": {"unit": ["celsius"], "mode": ["fast"]}}


def test_default_values_still_reads_nested_and_listed_schemas():
    from toolwire.models._tool_text import default_values
    from toolwire.tools import ToolSpec

    parameters = {"type": "object", "properties": {
        "address": {"type": "object", "properties": {"zip": {"type": "string", "default": "00000"},
                                                      "default": {"type": "string", "default": "home"}}},
        "size": {"anyOf": [{"type": "integer", "default": 3}, {"type": "null"}]},
        "tags": {"type": "array", "items": {"type": "string", "const": "x"}, "default": ["a", "b"]},
    }}
    found = default_values([ToolSpec("ship", "Ship it.", parameters)])["ship"]
    assert found == {"address": ["00000", "home"], "size": ["3"], "tags": ["a", "b", "x"]}


def _collect(produce: Any) -> list[Any]:
    async def run() -> list[Any]:
        return [item async for item in iterate_in_thread(produce, "review82")]

    async def limited() -> list[Any]:
        return await asyncio.wait_for(run(), 30)  # a limit only: the stream ends at once

    return asyncio.run(limited())


def test_an_item_that_is_an_exception_is_passed_on_not_raised():
    # "Yields: the iterator's items, in order": an exception the iterator yields (a list of errors, say) was
    # raised at the consumer as if the iterator had raised it, and the items after it were lost
    error = ValueError("an item")

    def produce(stop: threading.Event) -> Iterator[Any]:
        yield error
        yield 2

    assert _collect(produce) == [error, 2]


def test_an_exception_the_iterator_raises_still_reaches_the_consumer():
    def produce(stop: threading.Event) -> Iterator[int]:
        yield 1
        raise KeyError("gone")

    with pytest.raises(KeyError, match="gone"):
        _collect(produce)


class _ClosingExits:
    """An iterator (not a generator) whose close() raises SystemExit, as a library's cleanup may."""

    def __init__(self) -> None:
        self.items = iter([1, 2])

    def __iter__(self) -> _ClosingExits:
        return self

    def __next__(self) -> int:
        return next(self.items)

    def close(self) -> None:
        raise SystemExit(3)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # (the SystemExit ends the thread)
def test_a_consumer_is_not_left_waiting_when_closing_the_iterator_raises_a_base_exception():
    # the end marker was put only after close() returned or raised an Exception: a SystemExit (or a
    # KeyboardInterrupt) out of close() left the consumer waiting for ever
    async def run() -> list[int]:
        return [item async for item in iterate_in_thread(lambda stop: _ClosingExits(), "review82-exit")]

    async def limited() -> list[int]:
        return await asyncio.wait_for(run(), 10)  # a limit only: it ends at once when right

    assert asyncio.run(limited()) == [1, 2]
    for thread in threading.enumerate():
        if thread.name == "review82-exit":
            thread.join(10)  # (its SystemExit is reported within this test)


@pytest.mark.skipif(sys.platform == "win32", reason="the C library is read with ctypes.CDLL(None) (POSIX)")
def test_what_c_code_prints_during_ask_json_does_not_follow_the_json_on_stdout():
    # printf in C code stays in the C library's buffer (stdout is a pipe: fully buffered) until the process
    # exits, by when file descriptor 1 is stdout again: it came after the JSON, which then did not parse
    script = textwrap.dedent("""
        import ctypes, json
        from toolwire._std_streams import output_to_stderr
        with output_to_stderr():
            ctypes.CDLL(None).printf(b"from C code\\n")
        print(json.dumps({"answer": 1}))
    """)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # (-u makes C stdio unbuffered too)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"answer": 1}
    assert "from C code" in done.stderr


def test_one_rule_makes_a_valid_tool_name_for_mcp_tools_and_structured_output() -> None:
    # the self-review found the structured-output naming written again beside MCP's; both now call valid_name
    from toolwire._tool_checks import NAME_RE, valid_name
    from toolwire.mcp.common import _free_name
    from toolwire.models.structured import _output_name

    cases = {"a.b": "a_b", "météo": "meteo", "Page[Item]": "Page_Item", "a..b": "a_b", "ok_name": "ok_name",
             "x" * 70: "x" * 64}
    for name, made in cases.items():
        assert valid_name(name, "tool") == _free_name(name, set()) == made
        assert _output_name(name) == made and NAME_RE.fullmatch(made)
    assert (_free_name("天气", set()), _output_name("天气")) == ("tool", "Answer")
    assert _free_name("a.b", {"a_b"}) == "a_b_2"
