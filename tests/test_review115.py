"""Review 115 (a skeptic on the forty-second session's changes): a stream closed from another thread while its
reader is between events, ``$NAME`` in a command line's leading ``NAME=value`` words, more secret forms, an
all-ASCII image inside a dict, a finished call's result kept when its run is cancelled during its conversion, and
``aload_tools``' warnings."""

from __future__ import annotations

import asyncio
import base64
import threading
from typing import Any

import pytest

from toolwire import Agent, AIMessage, ToolExecutor, tool
from toolwire.results import result_to_content
from toolwire.testing import ScriptedChatModel

LIMIT = 30.0
ASCII_GIF = b"GIF89a\x01\x00\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"


class _HeldClose(ScriptedChatModel):
    """A model whose stream, once closed, waits for ``release`` in its cleanup (closing a network response)."""

    closing = threading.Event()
    release = threading.Event()

    def _stream(self, request: Any) -> Any:
        try:
            yield from super()._stream(request)
        finally:
            type(self).closing.set()
            type(self).release.wait(LIMIT)


def test_a_stream_closed_from_another_thread_between_events_ends_cleanly_for_its_reader() -> None:
    calls = [{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}]
    agent = Agent(_HeldClose([AIMessage("", tool_calls=calls), "three"], stream_pieces=4),
                  [tool(lambda a, b: a + b, name="add", description="Add.")])
    stream = agent.stream("1+2?", stream_tokens=True)
    next(stream)  # the reader has an event and is between events
    closer = threading.Thread(target=stream.close)
    closer.start()  # the generator's cleanup runs in the closer's thread, held there
    assert _HeldClose.closing.wait(LIMIT)
    outcome: list[Any] = []

    def read() -> None:
        try:
            outcome.append(list(stream))
        except Exception as exc:  # was: ValueError: generator already executing
            outcome.append(exc)

    reader = threading.Thread(target=read)
    reader.start()
    _HeldClose.release.set()
    reader.join(LIMIT)
    closer.join(LIMIT)
    assert outcome == [[]]


def test_variables_in_a_leading_assignment_are_read_from_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.mcp import server_from

    monkeypatch.setenv("TW_TEST_TOKEN", "ghp_from_the_shell")
    server = server_from("GITHUB_TOKEN=$TW_TEST_TOKEN OTHER=${TW_TEST_TOKEN}x npx server")
    assert dict(server.env or {}) == {"GITHUB_TOKEN": "ghp_from_the_shell", "OTHER": "ghp_from_the_shellx"}
    assert "ghp_from_the_shell" not in repr(server)


@pytest.mark.parametrize(("command", "secret"), [
    ("npx srv --config '{\"apiKeys\": [\"SECRET_L1\", \"SECRET_L2\"]}'", "SECRET_L"),
    ("npx mcp-remote https://x/mcp --header 'X-Access: Bearer SECRET_B2'", "SECRET_B2"),
    ("npx server --github-pat SECRET_P3", "SECRET_P3"),
    ("npx server GITHUB_PAT=SECRET_P4", "SECRET_P4")])
def test_more_secret_forms_are_masked(command: str, secret: str) -> None:
    from toolwire.mcp import server_from

    server = server_from(command)
    assert secret not in server.label and secret not in repr(server)
    assert "--path /tmp" in server_from("npx server --path /tmp").label  # ("pat" only as a word of its own)


def test_an_all_ascii_image_inside_a_dict_or_defaultdict_is_an_image() -> None:
    import collections

    for holder in ({"chart": ASCII_GIF}, collections.defaultdict(list, chart=ASCII_GIF)):
        text, image = result_to_content(holder)
        assert text["text"] == '{"chart": "<image 1>"}' and base64.b64decode(image["base64"]) == ASCII_GIF


def test_a_call_whose_tool_returned_keeps_its_result_when_the_run_stops_during_its_conversion(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire import execution

    converting = threading.Event()
    release = threading.Event()
    original = execution.ToolExecutor._finish_big

    def held(self: Any, *args: Any) -> Any:
        converting.set()
        release.wait(LIMIT)
        return original(self, *args)

    monkeypatch.setattr(execution.ToolExecutor, "_finish_big", held)

    @tool
    async def receipts() -> list[str]:
        """Many receipt lines (a big result, turned into text on a worker thread)."""
        return ["receipt"] * 200_000

    executor = ToolExecutor([receipts])

    async def scenario() -> BaseException:
        task = asyncio.ensure_future(executor.acall([{"name": "receipts", "args": {}, "id": "r"}]))
        await asyncio.to_thread(converting.wait, LIMIT)
        task.cancel()
        release.set()
        try:
            await task
        except asyncio.CancelledError as exc:
            return exc
        raise AssertionError("not cancelled")

    answer, = asyncio.run(scenario()).tool_messages  # type: ignore[attr-defined]
    assert answer.status == "success" and "receipt" in answer.text  # was: "stopped while it ran"


def test_an_async_stream_closed_by_another_task_between_events_ends_cleanly_for_its_reader() -> None:
    from toolwire._agent_stream import AsyncAgentStream

    async def scenario() -> list[Any]:
        closing, release = asyncio.Event(), asyncio.Event()

        async def events() -> Any:
            try:
                yield "first"
                yield "second"
            finally:  # (closing the model's HTTP stream takes a moment)
                closing.set()
                await release.wait()

        stream = AsyncAgentStream(events(), [])  # type: ignore[arg-type]
        assert await stream.__anext__() == "first"
        closer = asyncio.create_task(stream.aclose())
        await asyncio.wait_for(closing.wait(), LIMIT)
        reader = asyncio.create_task(_rest(stream))  # was: "asynchronous generator is already running"
        await asyncio.sleep(0)
        release.set()
        await asyncio.wait_for(closer, LIMIT)
        return await asyncio.wait_for(reader, LIMIT)

    assert asyncio.run(scenario()) == []


async def _rest(stream: Any) -> list[Any]:
    return [event async for event in stream]


def test_a_secret_value_that_starts_with_a_dash_is_masked() -> None:
    from toolwire.mcp import server_from

    server = server_from("npx server --token -Xy9SECRET_D1 --verbose")
    assert "SECRET_D1" not in server.label and "SECRET_D1" not in repr(server)
    assert "--verbose" in server.label
