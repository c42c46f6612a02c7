"""Faults a reviewer's pass found (review 65), each kept fixed by a test here; no model is loaded.

1. Ctrl-C (or a cancellation) while the calls of one reply ran, one of them an async tool that catches its
   ``CancelledError`` and goes on: the answers of the calls that had finished were lost (sync run), or the run never
   ended (async run: the executor waited for every cancelled call). A Ctrl-C that hit an async tool blocking the
   event loop was raised again by each task awaiting it, which cut the wind-down short and lost them too.
2. A sync ``agent.invoke`` inside ``asyncio.run``: Ctrl-C only asked ``asyncio.run`` to cancel its main task, which
   could not happen while it was blocked in the call; the run went on to its end, and ``asyncio.run`` then raised a
   ``KeyboardInterrupt`` without ``.messages``.
3. The MCP client said "server gone" (and "did not answer") for a JSON-RPC error answer with code -32000, the
   generic server error a live server may send.
4. A results turn (``pythonic``/``json`` dialects) merged with the user turn after it lost its answer line: the user's
   new request came bare after the results.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import toolwire._tool_run
from toolwire import Agent, AIMessage, HumanMessage, ToolExecutor, ToolMessage, tool
from toolwire.messages import tool_call
from toolwire.models.dialects import _REPEAT_LIMIT, get_dialect
from toolwire.testing import ScriptedChatModel
from toolwire.tools import ToolSpec

on_main_thread = pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                                    reason="signals reach the main thread")


@pytest.fixture
def short_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolwire._tool_run, "CANCEL_GRACE", 0.2)  # 2 s by default, shortened for the tests


def _kinds(messages: list[Any]) -> list[tuple[str, str | None]]:
    return [(m.type, getattr(m, "tool_call_id", None)) for m in messages]


def _ctrl_c_after(event: threading.Event, pause: float = 0.5) -> None:
    """Send SIGINT to the main thread once ``event`` is set and ``pause`` seconds more (the main thread is back
    waiting, and the tool that set ``event`` has returned: 0.5 s, not 0.2, as the short grace leaves a call still
    running at the Ctrl-C only 0.16 s more, which a loaded machine could miss)."""
    main = threading.main_thread().ident
    assert main is not None

    def fire() -> None:
        if event.wait(10):
            threading.Event().wait(pause)
            signal.pthread_kill(main, signal.SIGINT)

    threading.Thread(target=fire, daemon=True).start()


def _pay_tools(paid: threading.Event, released: threading.Event) -> list[Any]:
    """``pay`` (sync, quick, a side effect) and ``stubborn`` (async, ignores its cancellation until ``released``)."""

    @tool
    def pay(amount: int) -> str:
        """Pay an amount (a side effect)."""
        paid.set()
        return f"paid {amount}"

    @tool
    async def stubborn(x: int) -> str:
        """A report that catches its cancellation and goes on."""
        while True:
            try:
                await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                if released.is_set():
                    raise
                continue
            if released.is_set():
                return "late report"

    return [pay, stubborn]


def _release_later(released: threading.Event, after: float = 10.0) -> None:
    """End the stubborn tool after ``after`` seconds, so that the code before the fix fails rather than hangs (10 s,
    far above the runs' bounds below, which leave a loaded machine several seconds for a run of about 0.5 s)."""
    threading.Thread(target=lambda: (threading.Event().wait(after), released.set()), daemon=True).start()


_CALLS = [tool_call("pay", {"amount": 10}, "c1"), tool_call("stubborn", {"x": 1}, "c2")]


# -- 1. a call that ignores its cancellation ------------------------------------------------------------------


@on_main_thread
@pytest.mark.parametrize("inside_a_loop", [False, True])
def test_ctrl_c_keeps_the_finished_answers_when_another_call_ignores_its_cancellation(
        short_grace: None, inside_a_loop: bool) -> None:
    paid, released = threading.Event(), threading.Event()
    tools = _pay_tools(paid, released)
    agent = Agent(ScriptedChatModel([AIMessage("", tool_calls=_CALLS), "done"]), tools)
    _release_later(released)
    _ctrl_c_after(paid)

    async def in_a_loop() -> None:  # (a loop runs here: the sync run goes to a worker thread)
        agent.invoke("pay 10")

    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt) as caught:
            if inside_a_loop:
                loop = asyncio.new_event_loop()
                try:
                    loop.run_until_complete(in_a_loop())
                finally:
                    loop.close()
            else:
                agent.invoke("pay 10")
    finally:
        released.set()
    assert time.monotonic() - started < 5.0  # the stubborn call was given up after the grace
    messages = caught.value.messages  # type: ignore[attr-defined]
    assert _kinds(messages)[:3] == [("human", None), ("ai", None), ("tool", "c1")]  # was: the answer of c1 lost
    assert messages[2].content == "paid 10"
    assert _stopped_answer(messages[3:], "c2")  # the stubborn call, given up, answered (review 113)


def test_a_cancelled_async_run_ends_and_keeps_the_answers_when_a_call_ignores_its_cancellation(
        short_grace: None) -> None:
    paid, released = threading.Event(), threading.Event()
    agent = Agent(ScriptedChatModel([AIMessage("", tool_calls=_CALLS), "done"]), _pay_tools(paid, released))
    _release_later(released)

    async def main() -> tuple[Any, float]:
        started = time.monotonic()
        try:
            await asyncio.wait_for(agent.ainvoke("pay 10"), 1.0)  # (pay has run by then, however loaded the machine)
        except TimeoutError as exc:
            return exc, time.monotonic() - started
        raise AssertionError("the run was not stopped")

    try:
        error, took = asyncio.run(main())
    finally:
        released.set()
    assert took < 5.0  # was: the executor waited for the stubborn call to end (here until it was released, 10 s)
    kept = error.__cause__.messages
    assert _kinds(kept) == [("human", None), ("ai", None), ("tool", "c1"), ("tool", "c2")]
    assert _stopped_answer(kept[3:], "c2")  # the stubborn call had started: answered (review 113)
    # resuming runs neither call again: the model is told what became of each
    ran: list[int] = []
    quick = tool(lambda x: ran.append(x) or "report", name="stubborn", description="The report, quick now.")
    resumed = Agent(ScriptedChatModel(["done"]), [agent.executor.tools["pay"], quick]).invoke(kept)
    assert resumed.output == "done" and ran == []
    assert [m.tool_call_id for m in resumed.messages if isinstance(m, ToolMessage)] == ["c1", "c2"]


def test_the_executor_cancelled_gives_up_a_stuck_call_and_keeps_the_others_answers(short_grace: None) -> None:
    paid, released = threading.Event(), threading.Event()
    executor = ToolExecutor(_pay_tools(paid, released))
    _release_later(released)
    closed: list[bool] = []

    async def main() -> BaseException:
        task = asyncio.ensure_future(executor.aexecute(AIMessage("", tool_calls=_CALLS)))
        while not paid.is_set():
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)  # the answer of c1 is in
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=5.0)
        assert done, "the executor still waited for the stubborn call"
        for _ in range(3):
            await asyncio.sleep(0)
        closed.append(len(asyncio.all_tasks()) == 1)  # the stubborn tool's own task is not left running
        try:
            task.result()
        except asyncio.CancelledError as exc:
            return exc
        raise AssertionError("not cancelled")

    try:
        error = asyncio.run(main())
    finally:
        released.set()
    answers = error.tool_messages  # type: ignore[attr-defined]
    assert [(m.tool_call_id, m.content) for m in answers[:1]] == [("c1", "paid 10")]
    assert _stopped_answer(answers[1:], "c2")  # given up, and answered (review 113)
    assert closed == [True]


@on_main_thread
def test_ctrl_c_that_hits_an_async_tool_blocking_the_loop_keeps_the_other_answers(short_grace: None) -> None:
    """``pay`` finishes on its thread while the async tool ``blocking`` holds the event loop (a sync client inside
    ``async def``), and the Ctrl-C is raised inside ``blocking``: stopping the run cancelled ``pay``'s call before the
    loop could take its answer, which was lost; and each task awaiting ``blocking`` raises the Ctrl-C again, which
    must not cut the wind-down short."""
    holding, paid = threading.Event(), threading.Event()
    main = threading.main_thread().ident
    assert main is not None

    @tool
    def pay(amount: int) -> str:
        """Pay an amount (a side effect)."""
        assert holding.wait(5)
        paid.set()
        return f"paid {amount}"

    @tool
    async def blocking(x: int) -> str:
        """A sync client inside ``async def`` (it blocks the event loop)."""
        holding.set()
        assert paid.wait(5)
        time.sleep(0.5)  # pay's thread hands its answer to the loop, which cannot take it yet (0.5 s, not 0.1: it
        # may still be returning on a loaded machine, with only the 0.16 s of its grace left after the Ctrl-C)
        signal.pthread_kill(main, signal.SIGINT)  # Ctrl-C, while this tool holds the loop
        time.sleep(0.5)
        return "never"

    calls = [tool_call("pay", {"amount": 10}, "c1"), tool_call("blocking", {"x": 1}, "c2")]
    agent = Agent(ScriptedChatModel([AIMessage("", tool_calls=calls), "done"]), [pay, blocking])
    with pytest.raises(KeyboardInterrupt) as caught:
        agent.invoke("pay 10")
    messages = caught.value.messages  # type: ignore[attr-defined]
    # the Ctrl-C landed inside ``blocking``, which had started: answered too, so a resumed run does not run it again
    assert _kinds(messages) == [("human", None), ("ai", None), ("tool", "c1"), ("tool", "c2")]  # (review 137 #3)
    assert messages[2].content == "paid 10" and "raised KeyboardInterrupt" in messages[3].content


# -- 2. a sync run inside asyncio.run ---------------------------------------------------------------------------


@on_main_thread
@pytest.mark.parametrize("where", ["tools", "model"])
def test_ctrl_c_stops_a_sync_run_inside_asyncio_run_and_carries_the_conversation(where: str) -> None:
    paid, released, asking = threading.Event(), threading.Event(), threading.Event()

    @tool
    def pay(amount: int) -> str:
        """Pay an amount (a side effect)."""
        paid.set()
        return f"paid {amount}"

    @tool
    async def report(x: int) -> str:
        """A slow report."""
        while not released.is_set():
            await asyncio.sleep(0.02)
        return "report"

    def slow_answer(messages: list[Any]) -> str:  # a model call that blocks (an HTTP request, a local model)
        asking.set()
        released.wait(10)
        return "done"

    calls = [tool_call("pay", {"amount": 10}, "c1")]
    if where == "tools":
        calls.append(tool_call("report", {"x": 1}, "c2"))
    agent = Agent(ScriptedChatModel([AIMessage("", tool_calls=calls), slow_answer]), [pay, report])
    _release_later(released)
    _ctrl_c_after(paid if where == "tools" else asking)
    after: list[str] = []

    async def main() -> None:
        agent.invoke("pay 10")  # a notebook cell or a script calling the sync API from async code
        after.append("went on")
        await asyncio.sleep(0)

    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt) as caught:
            asyncio.run(main())
    finally:
        released.set()
    assert time.monotonic() - started < 5.0 and after == []  # was: the run went on to its end
    messages = caught.value.messages  # type: ignore[attr-defined]  # was: no .messages
    assert _kinds(messages)[:3] == [("human", None), ("ai", None), ("tool", "c1")]
    assert where != "tools" or _stopped_answer(messages[3:], "c2")  # (review 113)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # left as asyncio.run leaves it


def test_a_sync_run_inside_asyncio_run_gives_ctrl_c_back_to_asyncio_run_after_it() -> None:
    agent = Agent(ScriptedChatModel([AIMessage("", tool_calls=[tool_call("pay", {"amount": 1}, "c1")]), "done"]),
                  [tool(lambda amount: "paid", name="pay", description="Pay.")])
    seen: list[bool] = []

    async def main() -> str:
        before = signal.getsignal(signal.SIGINT)
        output = agent.invoke("pay").output
        seen.append(signal.getsignal(signal.SIGINT) is before)
        return output

    assert asyncio.run(main()) == "done" and seen == [True]


# -- 3. MCP: a -32000 answer is an answer ----------------------------------------------------------------------

ODD = [sys.executable, str(Path(__file__).parent / "mcp_review46" / "odd_server.py"), "conforming"]


@pytest.fixture(scope="module")
def odd() -> Iterator[Any]:
    pytest.importorskip("mcp")
    from toolwire.mcp import load_tools

    with load_tools(ODD, timeout=10) as tools:
        yield tools


def _call(name: str, call_id: str = "c1") -> dict[str, Any]:
    return {"name": name, "args": {}, "id": call_id, "type": "tool_call"}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", ["busy", "upstream_closed"])
def test_an_mcp_error_answer_with_code_32000_is_no_server_gone(odd: Any, name: str) -> None:
    """``busy`` answers -32000 "the server is busy, try again"; ``upstream_closed`` answers -32000 "Connection closed"
    (the SDK's own words for a closed connection, which a gateway may send about its upstream): the server answered
    a ping, so it is not gone either."""
    by_name = {t.name: t for t in odd}
    message = by_name[name].invoke(_call(name))
    assert message.status == "error"
    assert "answered the call with an error" in message.text and "did not answer" not in message.text, message.text
    assert "server gone" not in repr(odd.client) and ", open," in repr(odd.client), repr(odd.client)
    assert by_name["add"].invoke({"a": 2, "b": 3})[0] == "5"  # it is alive


@pytest.mark.timeout(120)
def test_an_mcp_server_that_exits_mid_call_is_still_gone() -> None:
    pytest.importorskip("mcp")
    from toolwire.mcp import connect

    async def main() -> None:
        async with connect(ODD) as client:
            crash = next(t for t in client if t.name == "crash")
            message = await crash.ainvoke(_call("crash"))
            assert message.status == "error" and "did not answer" in message.text, message.text
            assert "server gone (close it, then start it again)" in repr(client)

    asyncio.run(main())


def test_server_gone_reads_only_the_sdks_own_connection_closed_as_gone() -> None:
    pytest.importorskip("mcp")
    from toolwire.mcp.common import _call_error, server_gone

    def rpc_error(code: int, message: str) -> Exception:  # what the SDK raises for a JSON-RPC error
        try:
            from mcp.shared.exceptions import MCPError  # mcp 2.x
        except ImportError:  # mcp 1.x
            from mcp.shared.exceptions import McpError
            from mcp.types import ErrorData

            return McpError(ErrorData(code=code, message=message))
        return MCPError(code, message)

    busy = rpc_error(-32000, "the server is busy, try again")
    closed = rpc_error(-32000, "Connection closed")
    assert not server_gone(busy) and server_gone(closed)
    assert server_gone(ConnectionResetError("pipe")) and not server_gone(TimeoutError())
    assert "answered the call with an error" in _call_error("srv", busy)
    assert "did not answer" in _call_error("srv", closed)
    assert "answered the call with an error" in _call_error("srv", closed, gone=False)  # the server answered a ping


# -- 4. the answer line of a results turn merged with the user turn after it -----------------------------------

WEATHER = ToolSpec("get_weather", "Current weather.", {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})


def _after_results(*later: Any) -> list[Any]:
    ai = AIMessage("", tool_calls=[tool_call("get_weather", {"city": "Oslo"}, "c1")])
    return [HumanMessage("Weather in Oslo?"), ai, ToolMessage("sunny, 21 C", "c1", name="get_weather"), *later]


@pytest.mark.parametrize("name", ["pythonic", "json"])
def test_a_user_turn_after_the_results_is_the_request_the_answer_line_says(name: str) -> None:
    chat = get_dialect(name).render(_after_results(HumanMessage("Do I need an umbrella?")), [WEATHER]).messages
    last = chat[-1]["content"]
    assert last.startswith("Function results:\n") and "sunny, 21 C" in last
    # was: "...sunny, 21 C\n\nDo I need an umbrella?", the results' answer line gone
    assert last.endswith("\n\nUsing these results, answer this request in its own language"
                         ": Do I need an umbrella?"), last
    assert last.count("Do I need an umbrella?") == 1 and "Weather in Oslo?" not in last
    # a long interjection is said in full (the limit is for a request said again)
    long = "Tell me more. " * (_REPEAT_LIMIT // 10)
    chat = get_dialect(name).render(_after_results(HumanMessage(long)), [WEATHER]).messages
    assert chat[-1]["content"].endswith("Using these results, answer this request in its own language: " + long.strip())
    # a blank one leaves the earlier request to answer
    chat = get_dialect(name).render(_after_results(HumanMessage(" ")), [WEATHER]).messages
    assert chat[-1]["content"].endswith("Using these results, answer this request in its own language"
                                        ": Weather in Oslo?")


@pytest.mark.parametrize("name", ["pythonic", "json"])
def test_a_results_turn_with_a_user_turn_renders_alike_in_longer_conversations(name: str) -> None:
    first = get_dialect(name).render(_after_results(HumanMessage("Do I need an umbrella?")), [WEATHER]).messages
    again = get_dialect(name).render(_after_results(HumanMessage("Do I need an umbrella?")), [WEATHER]).messages
    assert again == first  # deterministic
    ai = AIMessage("", tool_calls=[tool_call("get_weather", {"city": "Bergen"}, "c2")])
    later = get_dialect(name).render(
        _after_results(HumanMessage("Do I need an umbrella?"), ai, ToolMessage("rain", "c2", name="get_weather")),
        [WEATHER]).messages
    assert later[: len(first)] == first  # the longer conversation's prompt begins with the shorter one's
    assert later[-1]["content"].endswith("Using these results, answer this request in its own language"
                                         ": Do I need an umbrella?")  # the newest request
    text = get_dialect(name).render(_after_results(HumanMessage("Do I need an umbrella?"), AIMessage("No."),
                                                   HumanMessage("Thanks!")), [WEATHER]).messages
    assert text[: len(first)] == first


def _stopped_answer(answers: list[Any], call_id: str) -> bool:
    """Whether ``answers`` is exactly the error answer of call ``call_id``, stopped (or given up) while it ran."""
    return len(answers) == 1 and answers[0].tool_call_id == call_id and answers[0].status == "error" and (
        "stopped while it ran" in answers[0].text or "still running when the run was stopped" in answers[0].text)
