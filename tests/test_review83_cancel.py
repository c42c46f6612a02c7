"""Review 83 (a new user breaking the execution side): a stopped run always ends, and the error that stopped it is
the one raised.

An async tool that ignores its cancellation held a cancelled run for ever when it was the reply's only call (that
path awaited it in the run's own task, without the grace period the several-calls path has), and giving it up closed
its coroutine from another context, where resetting the current tool call raised a ValueError in place of the
tool's own error.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

import pytest

from toolwire import Agent, AIMessage, ToolExecutor, tool
from toolwire.testing import ScriptedChatModel

LIMIT = 30  # seconds: a limit only, so that a regression fails instead of hanging; the runs end in about GRACE
GRACE = 0.05


@pytest.fixture(autouse=True)
def _short_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolwire._tool_run as tool_run

    monkeypatch.setattr(tool_run, "CANCEL_GRACE", GRACE)


_STUBBORN_STARTED = threading.Event()


@tool
async def stubborn(x: int) -> int:
    """Ignore every cancellation."""
    _STUBBORN_STARTED.set()
    while True:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0.01)


@tool
async def boom(x: int) -> int:
    """Fail after a moment."""
    await asyncio.sleep(0.01)
    raise ValueError("boom")


_ONE = [{"name": "stubborn", "args": {"x": 1}, "id": "a"}]
_TWO = [*_ONE, {"name": "boom", "args": {"x": 2}, "id": "b"}]


def _agent() -> Agent:
    return Agent(ScriptedChatModel([AIMessage("", tool_calls=_ONE), "done"]), [stubborn])


async def _cancel_soon(coro: Any) -> BaseException:
    _STUBBORN_STARTED.clear()
    task = asyncio.ensure_future(coro)
    for _ in range(LIMIT * 100):  # the stubborn call runs (was: a fixed 50 ms, maybe before it started when loaded)
        if _STUBBORN_STARTED.is_set() or task.done():
            break
        await asyncio.sleep(0.01)
    task.cancel()
    done, _ = await asyncio.wait([task], timeout=LIMIT)
    assert done, "the cancelled run did not end"
    with pytest.raises(asyncio.CancelledError) as error:
        task.result()
    return error.value


def test_a_cancelled_execute_of_one_stubborn_call_ends(caplog: pytest.LogCaptureFixture) -> None:
    asyncio.run(_cancel_soon(ToolExecutor([stubborn]).aexecute(_ONE)))
    assert "given up" in caplog.text and "stubborn" in caplog.text


def test_a_cancelled_agent_run_with_one_stubborn_call_ends() -> None:
    asyncio.run(_cancel_soon(_agent().ainvoke("q")))


def test_an_agent_run_under_wait_for_with_one_stubborn_call_ends() -> None:
    async def main() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(_agent().ainvoke("q"), 0.05)

    asyncio.run(asyncio.wait_for(main(), LIMIT))


def test_a_cancelled_consumer_of_an_agent_stream_ends() -> None:
    async def consume() -> None:
        async for _ in _agent().astream("q"):
            pass

    asyncio.run(_cancel_soon(consume()))


@pytest.mark.parametrize("how", ["sync", "async"])
def test_handle_errors_false_raises_the_tools_own_error_beside_a_stubborn_call(how: str) -> None:
    executor = ToolExecutor([stubborn, boom], handle_errors=False)
    with pytest.raises(ValueError, match=r"^boom$") as error:
        if how == "sync":
            executor.execute(_TWO)
        else:
            asyncio.run(asyncio.wait_for(executor.aexecute(_TWO), LIMIT))
    answers = error.value.tool_messages  # (no call finished: the stubborn one, given up, is answered: review 113)
    assert [(m.tool_call_id, m.status) for m in answers] == [("a", "error")]
    assert "stopped while it ran" in answers[0].text


def test_one_call_still_runs_in_a_task_of_its_own_and_answers_as_before() -> None:
    from toolwire import current_tool_call

    @tool
    async def who(x: int) -> str:
        """Say the id of the call being run."""
        return str(current_tool_call()["id"])

    assert [m.content for m in ToolExecutor([who]).execute([{"name": "who", "args": {"x": 1}, "id": "c9"}])] == ["c9"]


def test_an_async_generator_tool_that_never_awaits_is_stopped_at_its_timeout() -> None:
    # the items were gathered in a loop that never gave the event loop a turn, so the timeout never fired
    made = [0]
    closed: list[str] = []

    @tool(timeout=0.05)
    async def numbers(limit: int):  # type: ignore[no-untyped-def]
        """Yield numbers for ever (a buggy tool: it ignores limit)."""
        try:
            while made[0] < 50_000_000:  # (a valve, so that a regression fails rather than hangs)
                made[0] += 1
                yield made[0]
        finally:
            closed.append("closed")

    [answer] = ToolExecutor([numbers]).execute([{"name": "numbers", "args": {"limit": 3}, "id": "a"}])
    assert answer.status == "error" and "did not finish within 0.05 seconds" in answer.text
    assert made[0] < 50_000_000 and closed == ["closed"]


def test_an_async_generator_tool_still_gives_every_item() -> None:
    @tool
    async def numbers(limit: int):  # type: ignore[no-untyped-def]
        """Yield the numbers below limit."""
        for n in range(limit):
            yield n

    [answer] = ToolExecutor([numbers]).execute([{"name": "numbers", "args": {"limit": 200}, "id": "a"}])
    assert answer.content == str(list(range(200)))


def _blocking_tool(ran: list[str], started: threading.Event, release: threading.Event) -> Any:
    @tool
    def send_email(to: str) -> str:
        """Send an email (a side effect that cannot be undone)."""
        started.set()
        release.wait(LIMIT)
        ran.append(to)
        return f"sent to {to}"

    return send_email


async def _cancelled_while_running(coro: Any, started: threading.Event, release: threading.Event | None
                                   ) -> BaseException:
    task = asyncio.ensure_future(coro)
    while not started.is_set():
        await asyncio.sleep(0.001)
    task.cancel()
    await asyncio.sleep(0)
    if release is not None:
        release.set()  # the thread finishes within its grace
    done, _ = await asyncio.wait([task], timeout=LIMIT)
    assert done
    with pytest.raises(asyncio.CancelledError) as error:
        task.result()
    return error.value


def test_a_sync_call_that_finishes_within_the_grace_keeps_its_answer_and_is_not_run_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import toolwire._tool_run as tool_run

    monkeypatch.setattr(tool_run, "CANCEL_GRACE", LIMIT)  # (the thread is released at once: no wait that long)
    ran: list[str] = []
    started, release = threading.Event(), threading.Event()
    send = _blocking_tool(ran, started, release)
    calls = [{"name": "send_email", "args": {"to": "bob"}, "id": "e1"}]
    agent = Agent(ScriptedChatModel([AIMessage("", tool_calls=calls), "sent"]), [send])
    error = asyncio.run(_cancelled_while_running(agent.ainvoke("mail bob"), started, release))
    answers = [m for m in error.messages if m.type == "tool"]
    assert [(m.tool_call_id, m.content, m.status) for m in answers] == [("e1", "sent to bob", "success")]
    assert agent.invoke(error.messages).output == "sent" and ran == ["bob"]  # resumed: not sent twice


def test_a_sync_call_still_running_after_the_grace_is_answered_as_maybe_done_and_not_run_again() -> None:
    ran: list[str] = []
    started, release = threading.Event(), threading.Event()
    send = _blocking_tool(ran, started, release)
    calls = [{"name": "send_email", "args": {"to": "ann"}, "id": "e1"}]
    try:
        error = asyncio.run(_cancelled_while_running(ToolExecutor([send]).aexecute(calls), started, None))
    finally:
        release.set()
    [answer] = error.tool_messages
    assert answer.status == "error" and answer.tool_call_id == "e1"
    assert "still running when the run was stopped; it may still finish and take effect" in answer.text


def test_answers_of_calls_sharing_an_id_reach_the_model_paired_in_call_order() -> None:
    from toolwire import HumanMessage

    @tool
    def echo(a: int) -> int:
        """Give a back."""
        return a

    reply = AIMessage("", tool_calls=[{"name": "echo", "args": {"a": 1}, "id": "d"},
                                      {"name": "echo", "args": {"a": 2}, "id": "d"}])
    answers = ToolExecutor([echo]).execute(reply)
    assert [(m.tool_call_id, m.content) for m in answers] == [("d", "1"), ("d", "2")]
    model = ScriptedChatModel(["ok"]).bind_tools([echo])
    model.invoke([HumanMessage("q"), reply, *answers])
    sent = model.requests[0].messages
    assert [c["id"] for c in sent[1].tool_calls] == ["d", "d_2"]
    assert [(m.tool_call_id, m.content) for m in sent[2:]] == [("d", "1"), ("d_2", "2")]


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals reach the main thread")
def test_ctrl_c_during_a_sync_run_whose_only_call_ignores_it_blames_no_toolwire_task(
        caplog: pytest.LogCaptureFixture) -> None:
    # the only call ran in the run's own task: the end of the loop then named toolwire's tasks "left behind by a
    # tool" (Task-1 (_Main.run), Task-2 (guarded)), printed a "cannot reuse already awaited coroutine" traceback
    # and waited the grace twice
    import signal

    started = threading.Event()

    @tool
    async def stubborn_report(x: int) -> int:
        """Catch every cancellation and go on."""
        started.set()
        while True:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0.01)

    main = threading.main_thread().ident
    assert main is not None

    def ctrl_c() -> None:
        if started.wait(LIMIT):
            signal.pthread_kill(main, signal.SIGINT)

    threading.Thread(target=ctrl_c, daemon=True).start()
    agent = Agent(ScriptedChatModel([AIMessage("", tool_calls=[{"name": "stubborn_report", "args": {"x": 1},
                                                                "id": "a"}]), "done"]), [stubborn_report])
    with pytest.raises(KeyboardInterrupt) as error:
        agent.invoke("q")
    assert [m.type for m in error.value.messages] == ["human", "ai", "tool"]  # the call, given up, is answered
    assert "stopped while it ran" in error.value.messages[-1].text  # (review 113: it was left to run again)
    assert "left behind by a tool" not in caplog.text and "_Main" not in caplog.text
    assert "given up" in caplog.text and "stubborn_report" in caplog.text


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals reach the main thread")
def test_ctrl_c_in_an_async_run_under_asyncio_run_keeps_the_answers_on_the_interrupts_context() -> None:
    # asyncio.run answers Ctrl-C by cancelling its main task, then raises a KeyboardInterrupt of its own: the run's
    # CancelledError, which carries the conversation, is that interrupt's __context__ (as the README says)
    import signal

    started = threading.Event()
    fast_ran = threading.Event()

    @tool
    def fast(x: int) -> int:
        """Give x back at once."""
        fast_ran.set()
        return x

    @tool
    async def slow(x: int) -> int:
        """Give x back after a long while."""
        while not fast_ran.is_set():  # (the Ctrl-C comes once fast ran: its answer is one that finished)
            await asyncio.sleep(0.001)
        started.set()
        for _ in range(LIMIT * 100):  # (short sleeps: asyncio.run's Ctrl-C handler runs when the loop wakes up)
            await asyncio.sleep(0.01)
        return x

    main = threading.main_thread().ident
    assert main is not None
    threading.Thread(target=lambda: started.wait(LIMIT) and signal.pthread_kill(main, signal.SIGINT),
                     daemon=True).start()
    calls = [{"name": "fast", "args": {"x": 1}, "id": "a"}, {"name": "slow", "args": {"x": 2}, "id": "b"}]
    agent = Agent(ScriptedChatModel([AIMessage("", tool_calls=calls), "done"]), [fast, slow])
    with pytest.raises(KeyboardInterrupt) as error:
        asyncio.run(agent.ainvoke("q"))
    kept = error.value.__context__.messages  # type: ignore[union-attr]
    assert [(m.type, getattr(m, "tool_call_id", None)) for m in kept][:3] == [("human", None), ("ai", None),
                                                                              ("tool", "a")]


def test_a_method_read_from_its_class_is_refused_when_the_executor_or_agent_is_made() -> None:
    from toolwire import UserError

    class Service:
        @tool
        def lookup(self, x: int) -> int:
            """Look x up."""
            return x

    for make in (lambda: ToolExecutor([Service.lookup]), lambda: Agent(ScriptedChatModel([]), [Service.lookup])):
        with pytest.raises(UserError, match=r"method of Service: call it on an instance"):
            make()
    assert [m.content for m in ToolExecutor([Service().lookup]).execute(
        [{"name": "lookup", "args": {"x": 4}, "id": "a"}])] == ["4"]


def test_an_injected_call_id_needs_a_tool_call_or_a_default() -> None:
    # tool.invoke(args) gave the str parameter None; LangChain refuses such a call, and so does toolwire now
    from typing import Annotated

    pytest.importorskip("langchain_core")
    from langchain_core.tools import InjectedToolCallId

    from toolwire import UserError

    @tool
    def remember(fact: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Remember a fact."""
        return f"{fact} ({tool_call_id})"

    with pytest.raises(UserError, match=r"invoke it with a tool call"):
        remember.invoke({"fact": "sky"})
    assert remember.invoke({"name": "remember", "args": {"fact": "sky"}, "id": "c1", "type": "tool_call"}
                           ).content == "sky (c1)"

    @tool
    def note(fact: str, tool_call_id: Annotated[str | None, InjectedToolCallId] = None) -> str:
        """Note a fact."""
        return f"{fact} ({tool_call_id})"

    assert note.invoke({"fact": "sky"}) == "sky (None)"
