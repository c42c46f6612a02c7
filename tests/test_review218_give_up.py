"""Review 218: the give-up of a stopped run's stubborn calls, in the shapes review 210 #2's fix left out.

* #1: a tool that runs tools through a :class:`~toolwire.execution.ToolExecutor` of its own, whose inner tool
  ignores its cancellation: one Ctrl-C under ``asyncio.run`` no longer leaves it waiting for ever, and a sync run
  no longer logs "cannot reuse already awaited coroutine" (the inner executor's calls count as the outer call's).
* #2: a sync run stopped by a second Ctrl-C carries the answer of the call it gave up on its ``KeyboardInterrupt``
  (``.messages``), as the async API does, so a resumed run does not run that call again.
* #4: a stubborn helper task a tool awaits, whose cleanup awaits (``async with``, ``finally: await ...``) or that
  polls with ``await asyncio.sleep(0)``, is given up without "cannot reuse already awaited coroutine".
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import subprocess
import sys
from typing import Any

import pytest

import toolwire._tool_run
from _interrupt_scripts import RUN_AND_CTRL_C
from toolwire import tool
from toolwire.execution import ToolExecutor

_SCRIPT = """
import asyncio, os, signal, sys, threading, time
import toolwire._tool_run
from toolwire import Agent, tool
from toolwire.execution import ToolExecutor
from toolwire.messages import AIMessage, ToolMessage
from toolwire.testing import ScriptedChatModel

api, how, twice = sys.argv[1], sys.argv[2], sys.argv[3] == "twice"
toolwire._tool_run.CANCEL_GRACE = 5.0 if twice else 0.5  # (a wait of 5 s would show)
started, ignored = threading.Event(), threading.Event()
runs = []

@tool
async def inner(x: int) -> str:
    \"\"\"Ignores its cancellation.\"\"\"
    started.set()
    while True:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            ignored.set()

@tool
async def t(x: int) -> str:
    \"\"\"Runs inner through an executor of its own, or ignores its cancellation itself.\"\"\"
    runs.append(x)
    if how == "nested_executor":
        answers = await ToolExecutor([inner]).acall([{"name": "inner", "args": {"x": x}, "id": "i1",
                                                      "type": "tool_call"}])
        return answers[0].content
    if len(runs) > 1:
        return "ran again"
    if how == "cleanup":  # a helper task whose cleanup awaits
        return await asyncio.ensure_future(cleaned())
    return await inner.ainvoke({"x": x})

async def cleaned():
    try:
        await inner.ainvoke({"x": 1})
    finally:
        await asyncio.sleep(0.01)

@tool
def quick(x: int) -> str:
    \"\"\"Answers at once.\"\"\"
    return "quick"

""" + RUN_AND_CTRL_C + """
async def main_in_loop():  # a sync call from a running loop (Jupyter): on a worker thread's loop
    main_sync()

threading.Thread(target=ctrl_c, daemon=True).start()
began = time.monotonic()
try:
    if api == "async":
        asyncio.run(main())
    elif api == "in_loop":
        asyncio.run(main_in_loop())
    else:
        main_sync()
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
print(f"took {time.monotonic() - began:.2f}", flush=True)
for exc in raised:
    messages = getattr(exc, "messages", None) or []
    print("answers", sorted(m.tool_call_id for m in messages if isinstance(m, ToolMessage)), flush=True)
    if how != "nested_executor":
        agent.invoke(messages)  # resumed: the call given up is not run again
        print("runs", runs, flush=True)
"""


def _run(api: str, how: str, times: str) -> tuple[str, str]:
    try:
        done = subprocess.run([sys.executable, "-c", _SCRIPT, api, how, times], capture_output=True, text=True,
                              timeout=25)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the run did not end: {exc.stdout!r} {exc.stderr!r}")
    return done.stdout, done.stderr


def _check(out: str, err: str, within: float) -> None:
    assert "KeyboardInterrupt" in out, (out, err)
    assert "cannot reuse already awaited coroutine" not in err, err
    assert "Task was destroyed but it is pending" not in err, err
    assert "left behind by a tool" not in err, err  # (the sync loop's end did not wait for them)
    assert "Traceback" not in err and "unhandled exception" not in err, err
    took = float(out.split("took ")[1].split()[0])
    assert took < within, (out, err)


@pytest.mark.parametrize(("api", "times"), [("async", "once"), ("sync", "once"), ("sync", "twice"),
                                            ("async", "twice")])
def test_a_tool_running_a_stubborn_tool_through_its_own_executor_is_given_up_with_it(api: str, times: str) -> None:
    out, err = _run(api, "nested_executor", times)  # (asyncio.run waited for ever; sync logged a RuntimeError)
    _check(out, err, 2.5)
    assert "answers ['c1', 'c2']" in out or api == "sync", out


def _run_briefly(coro: Any) -> Any:
    """Run ``coro`` on a new event loop and close it without waiting for the tasks left (asyncio.run would wait for
    ever for ones that ignore their cancellation)."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(asyncio.wait_for(coro, 5))
    finally:
        loop.close()


def _quiet_loop_end(loop: asyncio.AbstractEventLoop, logged: list[Any]) -> None:
    loop.set_exception_handler(lambda _, context: logged.append(context))


def test_a_nested_executor_s_calls_end_with_the_outer_call_on_a_loop_that_goes_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolwire._tool_run, "CANCEL_GRACE", 0.2)
    logged: list[Any] = []

    @tool
    async def inner(x: int) -> str:
        """Ignores its cancellation."""
        while True:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(30)

    @tool
    async def outer(x: int) -> str:
        """Runs inner through an executor of its own."""
        answers = await ToolExecutor([inner]).acall([{"name": "inner", "args": {"x": x}, "id": "i1",
                                                      "type": "tool_call"}])
        return str(answers[0].content)

    async def main() -> list[asyncio.Task[Any]]:
        _quiet_loop_end(asyncio.get_running_loop(), logged)
        before = asyncio.all_tasks()
        run = asyncio.ensure_future(ToolExecutor([outer]).acall([{"name": "outer", "args": {"x": 1}, "id": "c1",
                                                                   "type": "tool_call"}]))
        await asyncio.sleep(0.05)
        run.cancel()
        with pytest.raises(asyncio.CancelledError) as caught:
            await run
        assert [m.tool_call_id for m in caught.value.tool_messages] == ["c1"]  # type: ignore[attr-defined]
        await asyncio.sleep(0.2)
        return [task for task in asyncio.all_tasks() if task not in before]

    left = _run_briefly(main())
    assert left == [], left  # (the inner call's tasks were left pending for ever)
    assert not logged, logged


@pytest.mark.parametrize("api", ["sync", "in_loop"])
def test_a_call_given_up_at_a_second_ctrl_c_of_a_sync_run_is_answered_on_the_interrupt(api: str) -> None:
    out, err = _run(api, "plain", "twice")  # (#2: its answer was missing, and the resumed run ran it again)
    _check(out, err, 4)
    assert "answers ['c1', 'c2']" in out, (out, err)
    assert "runs [1]" in out, (out, err)


class _Connection:
    async def __aenter__(self) -> _Connection:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.sleep(0.01)  # closing the connection


@pytest.mark.parametrize("shape", ["async_with", "finally_await", "poll"])
def test_a_stubborn_helper_whose_cleanup_awaits_or_that_polls_is_given_up_quietly(
        monkeypatch: pytest.MonkeyPatch, shape: str) -> None:
    monkeypatch.setattr(toolwire._tool_run, "CANCEL_GRACE", 0.2)
    logged: list[Any] = []
    helpers: list[asyncio.Task[None]] = []

    async def stubborn() -> None:
        while True:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0 if shape == "poll" else 30)

    async def helper() -> None:
        if shape == "async_with":
            async with _Connection():
                await stubborn()
        elif shape == "finally_await":
            try:
                await stubborn()
            finally:
                await asyncio.sleep(0.01)
        else:
            await stubborn()

    @tool
    async def fetch(x: int) -> str:
        """Awaits a helper that ignores its cancellation."""
        helpers.append(asyncio.ensure_future(helper()))
        await helpers[0]
        return "x"

    async def main() -> list[asyncio.Task[Any]]:
        _quiet_loop_end(asyncio.get_running_loop(), logged)
        before = asyncio.all_tasks()
        run = asyncio.ensure_future(ToolExecutor([fetch]).acall([{"name": "fetch", "args": {"x": 1}, "id": "c1",
                                                                   "type": "tool_call"}]))
        await asyncio.sleep(0.05)
        run.cancel()
        with pytest.raises(asyncio.CancelledError) as caught:
            await run
        assert [m.tool_call_id for m in caught.value.tool_messages] == ["c1"]  # type: ignore[attr-defined]
        await asyncio.sleep(0.1)
        gc.collect()  # (a task's exception never retrieved is logged when it is collected)
        await asyncio.sleep(0.05)
        return [task for task in asyncio.all_tasks() if task not in before]

    left = _run_briefly(main())
    assert left == [], left
    assert helpers[0].done() and (helpers[0].cancelled() or helpers[0].exception() is None)
    assert not logged, logged  # (the helper ended with "cannot reuse already awaited coroutine", logged)


@pytest.mark.parametrize(("api", "times"), [("async", "twice"), ("sync", "twice"), ("sync", "once")])
def test_a_ctrl_c_gives_up_a_helper_whose_cleanup_awaits_quietly(api: str, times: str) -> None:
    out, err = _run(api, "cleanup", times)  # (an unhandled 'cannot reuse already awaited coroutine' was logged)
    _check(out, err, 4)
    assert "answers ['c1', 'c2']" in out, (out, err)
