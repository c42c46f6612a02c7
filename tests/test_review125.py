"""Review 125 (concurrency and cancellation): a sync ``Agent.batch`` that has raised stops its other runs at their
next step; a sync generator tool given up by its run is closed, not drained; a sync token stream inside
``asyncio.run`` holds asyncio's Ctrl-C handler only while toolwire's code blocks; one error object raised in
several threads carries each run's own conversation."""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import pytest

from toolwire import Agent, AIMessage, HumanMessage, ToolMessage, tool
from toolwire.testing import ScriptedChatModel

_WAIT = 10.0  # a bound on waits for another thread (never reached when the code works): not a timing assertion


def _question(messages: list[Any]) -> str:
    return next(str(m.content) for m in messages if isinstance(m, HumanMessage))


def _call(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])


# -- #3: Agent.batch stops its other runs once it has raised ---------------------------------------------------------

def test_a_sync_agent_batch_that_raised_stops_its_other_runs_at_their_next_step(monkeypatch: pytest.MonkeyPatch
                                                                                 ) -> None:
    import toolwire._batch as batching

    sent_once, release = threading.Event(), threading.Event()
    sends: list[int] = []
    asked: list[str] = []
    ended: dict[str, threading.Event] = {"ok": threading.Event(), "fail": threading.Event()}

    @tool
    def send(n: int) -> str:
        """Send a message (a side effect).

        Args:
            n: the message number
        """
        sends.append(n)
        sent_once.set()
        release.wait(_WAIT)  # still running when the batch raises
        return f"sent {n}"

    def reply(messages: list[Any]) -> AIMessage | str:
        question = _question(messages)
        asked.append(question)
        if question == "fail":
            assert sent_once.wait(_WAIT)  # fails once "ok" is inside its tool call
            raise RuntimeError("input failed")
        n = sum(isinstance(m, ToolMessage) for m in messages)
        return _call("send", {"n": n}, f"c{n}")  # a model that would go on sending until max_steps

    inner = batching._unless_stopped

    def watched(stop: threading.Event, invoke: Any, item: Any, options: dict[str, Any]) -> Any:
        try:
            return inner(stop, invoke, item, options)
        finally:
            ended[item].set()  # this input's run is over, whatever it ended with

    monkeypatch.setattr(batching, "_unless_stopped", watched)
    agent = Agent(ScriptedChatModel([reply], cycle=True), [send], max_steps=5)
    with pytest.raises(RuntimeError, match="input failed"):
        agent.batch(["ok", "fail"])
    release.set()  # the call already running finishes ...
    assert ended["ok"].wait(_WAIT)
    assert sends == [0]  # ... and no new model call or tool call follows (was: 5 sends, 5 model calls)
    assert asked.count("ok") == 1


# -- #4: a sync generator tool without a timeout, given up by its run, is closed between items ------------------------

class _Feed:
    """A generator tool's body that pauses after its first item until ``go_on`` is set, and records how it ended."""

    def __init__(self) -> None:
        self.first, self.go_on, self.ended = threading.Event(), threading.Event(), threading.Event()
        self.items: list[int] = []
        self.how: list[str] = []

    def run(self) -> Any:
        try:
            for i in range(1000):
                self.items.append(i)
                yield f"record {i}"
                if i == 0:
                    self.first.set()
                    self.go_on.wait(_WAIT)  # the run gives the call up meanwhile
        except GeneratorExit:
            self.how.append("closed")
            raise
        else:
            self.how.append("drained")
        finally:
            self.ended.set()


def _feed_tool(feed: _Feed) -> Any:
    from collections.abc import Iterator

    @tool
    def records() -> Iterator[str]:
        """Read the records of a feed."""
        return feed.run()

    return records


def test_an_untimed_generator_tool_whose_ainvoke_is_cancelled_is_closed_not_drained() -> None:
    import asyncio

    feed = _Feed()
    records = _feed_tool(feed)

    async def main() -> None:
        task = asyncio.ensure_future(records.ainvoke({}))
        assert await asyncio.to_thread(feed.first.wait, _WAIT)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    feed.go_on.set()
    assert feed.ended.wait(_WAIT)
    assert feed.how == ["closed"]  # was: "drained", all 1000 items read for nobody
    assert feed.items == [0, 1]


def test_an_untimed_generator_tool_an_agent_run_gives_up_is_closed_not_drained(monkeypatch: pytest.MonkeyPatch
                                                                              ) -> None:
    import asyncio

    import toolwire._tool_run as tool_run

    monkeypatch.setattr(tool_run, "CANCEL_GRACE", 0.01)  # settled() gives the running thread up at once
    feed = _Feed()
    agent = Agent(ScriptedChatModel([_call("records", {}, "c1"), "done"]), [_feed_tool(feed)])

    async def main() -> Any:
        task = asyncio.ensure_future(agent.ainvoke("read the feed"))
        assert await asyncio.to_thread(feed.first.wait, _WAIT)
        task.cancel()
        with pytest.raises(asyncio.CancelledError) as caught:
            await task
        return caught.value

    error = asyncio.run(main())
    answer = error.messages[-1]  # type: ignore[attr-defined]
    assert isinstance(answer, ToolMessage) and "still running" in str(answer.content)
    feed.go_on.set()
    assert feed.ended.wait(_WAIT)
    assert feed.how == ["closed"]  # was: "drained"
    assert feed.items == [0, 1]


# -- #5: a sync token stream inside asyncio.run swaps asyncio's Ctrl-C handler only while the model blocks ------------

def test_a_sync_token_stream_inside_asyncio_run_gives_asyncio_its_ctrl_c_handler_back_at_each_chunk() -> None:
    import asyncio
    import signal

    while_blocked: list[Any] = []

    def reply(messages: list[Any]) -> str:
        while_blocked.append(signal.getsignal(signal.SIGINT))  # the model's stream is working: Ctrl-C must stop it
        return "hello there, a long answer"

    async def main() -> tuple[Any, list[Any], Any]:
        runners = signal.getsignal(signal.SIGINT)  # asyncio.run's (it cancels the main task)
        agent = Agent(ScriptedChatModel([reply], stream_pieces=5), [])
        stream = agent.stream("hi", stream_tokens=True)
        at_chunks: list[Any] = []
        for event in stream:
            if event.type == "model_chunk":
                at_chunks.append(signal.getsignal(signal.SIGINT))  # paused at a yield: the caller's code runs
                if len(at_chunks) == 2:
                    break
        kept = signal.getsignal(signal.SIGINT)  # the stream left after break, kept to read .messages
        await asyncio.sleep(0)
        stream.close()
        return runners, at_chunks, kept

    runners, at_chunks, kept = asyncio.run(main())
    assert getattr(runners, "func", None) is not None  # (asyncio.run did install its handler here)
    assert while_blocked == [signal.default_int_handler]  # what ctrl_c_interrupts is for (review 65) still holds
    assert at_chunks == [runners, runners]  # was: Python's default handler, asyncio's replaced across the yields
    assert kept is runners
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # (asyncio.run put the outer one back)


# -- #6: one error object raised in several threads at once carries each run's own state ----------------------------

class _SharedError(RuntimeError):
    """One error object raised in two threads at once. Writing ``watched`` on it waits (at most ``_MEET`` seconds)
    until the other thread writes it too: without an atomic claim both threads have checked the object by then, found
    it free, and write on it, so the race the review widened with a tiny switch interval happens every time."""

    watched = ""
    meeting: threading.Barrier | None = None

    def __setattr__(self, name: str, value: Any) -> None:
        meeting = type(self).meeting
        if name == type(self).watched and meeting is not None:
            with contextlib.suppress(threading.BrokenBarrierError):  # (the claim under a lock: the other thread
                meeting.wait(_MEET)  # cannot come, and the wait times out)
        super().__setattr__(name, value)


_MEET = 0.5


def _in_threads(work: Any, inputs: list[Any]) -> list[Any]:
    results: list[Any] = [None] * len(inputs)

    def run(i: int) -> None:
        results[i] = work(inputs[i])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(inputs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(_WAIT)
    return results


def test_one_error_raised_in_two_threads_at_once_carries_each_runs_own_conversation(monkeypatch: pytest.MonkeyPatch
                                                                                    ) -> None:
    shared = _SharedError("provider down")
    monkeypatch.setattr(_SharedError, "watched", "messages")
    monkeypatch.setattr(_SharedError, "meeting", threading.Barrier(2))

    def reply(messages: list[Any]) -> AIMessage:
        raise shared

    agent = Agent(ScriptedChatModel([reply], cycle=True), [])

    def ask(question: str) -> Any:
        try:
            agent.invoke(question)
        except _SharedError as exc:
            return exc
        raise AssertionError("the run did not fail")

    errors = _in_threads(ask, ["question 1", "question 2"])
    assert [_question(e.messages) for e in errors] == ["question 1", "question 2"]  # was: one held the other's
    assert sum(e is shared for e in errors) == 1  # the first run to claim it keeps it; the other gets a copy


def test_one_error_raised_in_two_threads_at_once_carries_each_rounds_own_tool_answers(monkeypatch: pytest.MonkeyPatch
                                                                                     ) -> None:
    from toolwire.execution import _keep_answers

    shared = _SharedError("tool failed")
    monkeypatch.setattr(_SharedError, "watched", "tool_messages")
    monkeypatch.setattr(_SharedError, "meeting", threading.Barrier(2))
    answers = [[ToolMessage("first run's", "a1", name="t")], [ToolMessage("second run's", "b1", name="t")]]
    errors = _in_threads(lambda mine: _keep_answers(shared, mine), answers)
    assert [e.tool_messages for e in errors] == answers  # was: both the same object, holding one run's answers
