"""Review 196 #1: a run cancelled by an anyio cancel scope (level cancellation: the CancelledError comes again at
every await, as on a Starlette/FastAPI client's disconnect) or a task cancelled twice gives its tools the same
cancellation and grace as under ``asyncio.timeout``: an async tool gets its CancelledError and can await in its
cleanup, a sync tool's answer ready within its grace is kept, no call is falsely "given up", and the cancellation
still reaches the caller after the grace."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
import time

import pytest

import toolwire._tool_run
from toolwire import Agent, ToolExecutor, tool
from toolwire._grace import interrupt_waits, wait_through
from toolwire._tool_run import settled
from toolwire.messages import AIMessage, HumanMessage, ToolMessage
from toolwire.testing import ScriptedChatModel

anyio = pytest.importorskip("anyio")


class Booking:
    """An async tool with the documented cleanup shape, and a sync tool that finishes only after the stop."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.started = asyncio.Event()
        self.thread_started = threading.Event()
        self.release = threading.Event()

        @tool
        async def book_room(room: str) -> str:
            """Book a room."""
            self.started.set()
            try:
                await asyncio.sleep(30)
                return "booked"
            except asyncio.CancelledError:
                self.seen.append("cancelled")
                self.release.set()  # the sync tool finishes now, after the stop
                await asyncio.sleep(0.01)  # async cleanup: an await in the except block
                self.seen.append("released")
                raise
            finally:
                self.seen.append("finally")

        @tool
        def quick_sync(x: int) -> str:
            """A sync tool still running when the run stops."""
            self.thread_started.set()
            self.release.wait(10)
            time.sleep(0.02)
            return "sync-done"

        self.tools = [book_room, quick_sync]
        self.reply = AIMessage(content="", tool_calls=[{"name": "book_room", "args": {"room": "A"}, "id": "c1"},
                                                       {"name": "quick_sync", "args": {"x": 1}, "id": "c2"}])

    async def until_running(self) -> None:
        await self.started.wait()
        while not self.thread_started.is_set():
            await asyncio.sleep(0.005)

    def check(self, answers: list[ToolMessage], caplog: pytest.LogCaptureFixture) -> None:
        assert self.seen == ["cancelled", "released", "finally"]
        by_id = {m.tool_call_id: m for m in answers}
        assert by_id["c1"].status == "error" and "was stopped while it ran" in by_id["c1"].content
        assert by_id["c2"].status == "success" and by_id["c2"].content == "sync-done"
        text = caplog.text
        assert "given up" not in text
        assert "cannot reuse already awaited coroutine" not in text


def test_anyio_scope_gives_the_tools_their_cancellation_and_grace(caplog: pytest.LogCaptureFixture) -> None:
    booking = Booking()
    caplog.set_level(logging.WARNING)

    async def main() -> tuple[list[ToolMessage], bool]:
        stream = Agent(ScriptedChatModel([booking.reply, "done"]), booking.tools).astream("book room A")
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as group:
                async def stop() -> None:
                    await booking.until_running()
                    scope.cancel()  # as Starlette's StreamingResponse does on a client's disconnect

                group.start_soon(stop)
                async for _ in stream:
                    pass
        return [m for m in stream.messages if isinstance(m, ToolMessage)], scope.cancelled_caught

    answers, caught = anyio.run(main)
    assert caught  # the cancellation reached the scope after the grace
    booking.check(answers, caplog)


def test_anyio_scope_on_ainvoke_raises_the_cancellation_after_the_grace(caplog: pytest.LogCaptureFixture) -> None:
    booking = Booking()
    caplog.set_level(logging.WARNING)
    raised: list[BaseException] = []

    async def main() -> bool:
        agent = Agent(ScriptedChatModel([booking.reply, "done"]), booking.tools)
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as group:
                async def stop() -> None:
                    await booking.until_running()
                    scope.cancel()

                group.start_soon(stop)
                try:
                    await agent.ainvoke("book room A")
                except asyncio.CancelledError as exc:
                    raised.append(exc)
                    raise
        return scope.cancelled_caught

    assert anyio.run(main)
    booking.check(getattr(raised[0], "messages", None) and
                  [m for m in raised[0].messages if isinstance(m, ToolMessage)], caplog)  # type: ignore[attr-defined]


def test_a_task_cancelled_twice_keeps_the_grace(caplog: pytest.LogCaptureFixture) -> None:
    booking = Booking()
    caplog.set_level(logging.WARNING)

    async def main() -> list[ToolMessage]:
        agent = Agent(ScriptedChatModel([booking.reply, "done"]), booking.tools)
        task = asyncio.create_task(agent.ainvoke("book room A"))
        await booking.until_running()
        task.cancel()
        await asyncio.sleep(0)
        task.cancel()  # a second cancellation during the grace is not a reason to give the tools up
        with pytest.raises(asyncio.CancelledError) as caught:
            await task
        return [m for m in caught.value.messages if isinstance(m, ToolMessage)]  # type: ignore[attr-defined]

    booking.check(asyncio.run(main()), caplog)


def test_executor_under_anyio_keeps_the_sync_answer(caplog: pytest.LogCaptureFixture) -> None:
    booking = Booking()
    caplog.set_level(logging.WARNING)
    raised: list[BaseException] = []

    async def main() -> None:
        executor = ToolExecutor(booking.tools)
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as group:
                async def stop() -> None:
                    await booking.until_running()
                    scope.cancel()

                group.start_soon(stop)
                try:
                    await executor.aexecute(booking.reply)
                except asyncio.CancelledError as exc:
                    raised.append(exc)
                    raise
        assert scope.cancelled_caught

    anyio.run(main)
    booking.check(raised[0].tool_messages, caplog)  # type: ignore[attr-defined]


def test_a_tool_that_ignores_its_cancellation_is_still_given_up_under_anyio(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(toolwire._tool_run, "CANCEL_GRACE", 0.2)
    caplog.set_level(logging.WARNING)
    started = asyncio.Event()

    @tool
    async def stubborn(x: int) -> str:
        """Ignores its cancellation."""
        started.set()
        while True:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(30)

    reply = AIMessage(content="", tool_calls=[{"name": "stubborn", "args": {"x": 1}, "id": "c1"}])

    async def main() -> tuple[list[ToolMessage], float]:
        stream = Agent(ScriptedChatModel([reply, "done"]), [stubborn]).astream("go")
        cancelled_at: list[float] = []
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as group:
                async def stop() -> None:
                    await started.wait()
                    cancelled_at.append(time.monotonic())
                    scope.cancel()

                group.start_soon(stop)
                async for _ in stream:
                    pass
        return [m for m in stream.messages if isinstance(m, ToolMessage)], time.monotonic() - cancelled_at[0]

    answers, waited = anyio.run(main)
    assert waited >= 0.2  # it had its grace, not given up at once
    assert [(m.tool_call_id, m.status) for m in answers] == [("c1", "error")]
    assert "still running 0.2s after the run stopped" in caplog.text
    assert "cannot reuse already awaited coroutine" not in caplog.text


def test_abatch_under_anyio_waits_for_its_runs() -> None:
    ended: list[str] = []
    started: list[int] = []

    @tool
    async def slow(n: int) -> str:
        """Slow."""
        started.append(n)
        try:
            await asyncio.sleep(30)
            return "x"
        except asyncio.CancelledError:
            await asyncio.sleep(0.01)  # cleanup that awaits
            raise
        finally:
            ended.append(f"tool {n}")

    def brain(messages: list) -> AIMessage | str:
        if isinstance(messages[-1], HumanMessage):
            return AIMessage(content="", tool_calls=[{"name": "slow", "args": {"n": int(messages[-1].content)},
                                                      "id": "c"}])
        return "final"

    async def main() -> int:
        agent = Agent(ScriptedChatModel([brain], cycle=True), [slow])
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as group:
                async def stop() -> None:
                    while len(started) < 2:
                        await asyncio.sleep(0.005)
                    scope.cancel()

                group.start_soon(stop)
                await agent.abatch(["1", "2"])
        assert scope.cancelled_caught
        return len([t for t in asyncio.all_tasks() if t is not asyncio.current_task()])

    assert anyio.run(main) == 0  # no run left going after abatch returned
    assert sorted(ended) == ["tool 1", "tool 2"]


def test_settled_keeps_a_sync_answer_through_a_second_cancellation() -> None:
    release = threading.Event()

    def work() -> str:
        release.wait(10)
        return "done"

    async def main() -> str:
        pool_future = toolwire._tool_run.thread_pool().submit(work)
        while not pool_future.running():
            await asyncio.sleep(0.005)
        waiter = asyncio.ensure_future(settled(pool_future, "work"))
        await asyncio.sleep(0.01)
        waiter.cancel()
        await asyncio.sleep(0.01)
        waiter.cancel()  # again, during the grace
        await asyncio.sleep(0.01)
        release.set()
        return await waiter

    assert asyncio.run(main()) == "done"


def test_wait_through_ends_at_a_new_interrupt_and_hands_the_cancellation_back() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        never = loop.create_future()
        waiter = asyncio.ensure_future(wait_through([never], 10))
        await asyncio.sleep(0.01)
        waiter.cancel()
        await asyncio.sleep(0.01)
        assert not waiter.done()  # the cancellation does not end the wait
        interrupt_waits(loop)  # a second Ctrl-C does
        interrupted, cancellation = await asyncio.wait_for(waiter, 1)
        assert interrupted and isinstance(cancellation, asyncio.CancelledError)
        interrupted, cancellation = await wait_through([never], 10)  # and every later wait on that loop
        assert interrupted and cancellation is None
        never.cancel()

    asyncio.run(main())


on_main_thread = pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                                    reason="signals reach the main thread")


@on_main_thread
@pytest.mark.parametrize("how", ["sync", "asyncio.run"])
def test_a_second_ctrl_c_still_ends_the_grace_at_once(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolwire._tool_run, "CANCEL_GRACE", 5.0)  # (a wait that long would show)
    started, ignored = threading.Event(), threading.Event()

    @tool
    async def stubborn(x: int) -> str:
        """Ignores its cancellation."""
        started.set()
        while True:
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                ignored.set()

    main = threading.main_thread().ident
    assert main is not None

    def ctrl_c_twice() -> None:  # the second once the first reached the tool: during its grace
        if started.wait(10):
            time.sleep(0.1)  # (the loop back waiting: the signal does not land inside the tool's own code)
            signal.pthread_kill(main, signal.SIGINT)  # type: ignore[arg-type]
            if ignored.wait(10):
                time.sleep(0.1)
                signal.pthread_kill(main, signal.SIGINT)  # type: ignore[arg-type]

    reply = AIMessage(content="", tool_calls=[{"name": "stubborn", "args": {"x": 1}, "id": "c1"}])
    agent = Agent(ScriptedChatModel([reply, "done"]), [stubborn])
    threading.Thread(target=ctrl_c_twice, daemon=True).start()
    began = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        if how == "sync":
            agent.invoke("go")
        else:
            asyncio.run(agent.ainvoke("go"))
    assert time.monotonic() - began < 2.0  # not the 5 s grace
