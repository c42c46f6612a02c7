"""Review 125 (concurrency and cancellation): a sync ``Agent.batch`` that has raised stops its other runs at their
next step; a sync generator tool given up by its run is closed, not drained; a sync token stream inside
``asyncio.run`` holds asyncio's Ctrl-C handler only while toolwire's code blocks; one error object raised in
several threads carries each run's own conversation."""

from __future__ import annotations

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
