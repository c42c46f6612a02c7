"""Review 113 (concurrency and cancellation): a stopped run's conversation keeps every call that ran, in the
stream's ``.messages`` too; an async call stopped while it ran is answered, so a resumed run does not run it again;
and a stream closed from another thread stops at its next event."""

from __future__ import annotations

import asyncio
import threading

import pytest

from toolwire import Agent, AIMessage, ToolExecutor, ToolMessage, tool
from toolwire.testing import ScriptedChatModel

LIMIT = 30.0  # seconds a test waits for a condition before it fails (never reached when the code is right)


def _calls(*names: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": n, "args": {}, "id": f"c{i}"} for i, n in enumerate(names, 1)])


def test_a_cancelled_astream_keeps_every_answer_in_the_streams_messages() -> None:
    sent: list[str] = []

    @tool
    def send_email() -> str:
        """Send an email (a side effect)."""
        sent.append("bob")
        return "sent"

    async def scenario() -> None:
        blocker = asyncio.Event()  # (never set: the report is still running at the cancel)

        @tool
        async def report() -> str:
            """A slow report."""
            await blocker.wait()
            return "report"

        agent = Agent(ScriptedChatModel([_calls("send_email", "report"), "done"]), [send_email, report])
        stream = agent.astream("go")

        async def consume() -> None:
            async for _ in stream:
                pass

        task = asyncio.create_task(consume())
        async with asyncio.timeout(LIMIT):
            while not sent:
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)  # (the email's answer is in)
        task.cancel()
        with pytest.raises(asyncio.CancelledError) as error:
            await task
        answers = {m.tool_call_id: m for m in stream.messages if isinstance(m, ToolMessage)}
        assert answers["c1"].text == "sent"  # was: only on the error's .messages
        assert answers["c2"].status == "error" and "stopped while it ran" in answers["c2"].text
        assert [m.type for m in error.value.messages] == [m.type for m in stream.messages]  # type: ignore[attr-defined]
        resumed = await Agent(ScriptedChatModel(["done"]), [send_email, report]).ainvoke(stream.messages)
        assert resumed.output == "done" and sent == ["bob"]  # resuming sent no second email

    asyncio.run(scenario())


def test_a_started_async_call_is_answered_and_one_still_waiting_for_its_turn_is_not() -> None:
    started: list[str] = []

    @tool
    async def pay(to: str) -> str:
        """Pay someone (a side effect, then a slow confirmation)."""
        started.append(to)
        await asyncio.Event().wait()
        return "paid"

    executor = ToolExecutor([pay], max_concurrency=1)
    calls = [{"name": "pay", "args": {"to": who}, "id": who} for who in ("bob", "eve")]

    async def scenario() -> BaseException:
        task = asyncio.ensure_future(executor.acall(calls))
        async with asyncio.timeout(LIMIT):
            while not started:
                await asyncio.sleep(0.01)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError as exc:
            return exc
        raise AssertionError("not cancelled")

    error = asyncio.run(scenario())
    answers = error.tool_messages  # type: ignore[attr-defined]
    assert started == ["bob"] and [(m.tool_call_id, m.status) for m in answers] == [("bob", "error")]
    assert "may have taken effect" in answers[0].text  # eve's call never started: left to run on resume


def test_closing_a_stream_from_another_thread_stops_it_at_its_next_event() -> None:
    running, release = threading.Event(), threading.Event()

    @tool
    def slow() -> str:
        """A slow tool."""
        running.set()
        release.wait(LIMIT)
        return "done"

    model = ScriptedChatModel([_calls("slow"), "the answer"])
    stream = Agent(model, [slow]).stream("go")
    seen: list[str] = []
    consumer = threading.Thread(target=lambda: seen.extend(event.type for event in stream))
    consumer.start()
    assert running.wait(LIMIT)
    stream.close()  # from this thread, while the consumer's thread runs the tool: was "generator already executing"
    release.set()
    consumer.join(LIMIT)
    assert not consumer.is_alive() and "final" not in seen and len(model.requests) == 1  # no second model call
