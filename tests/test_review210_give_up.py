"""Review 210 #2: a tool that awaits a helper task ignoring its cancellation (``asyncio.ensure_future``,
``asyncio.shield``, ``asyncio.gather``, a ``TaskGroup``) no longer holds a stopped run: a second Ctrl-C ends it at
once, inside ``asyncio.run`` (``agent.ainvoke``) and in a sync call (``agent.invoke``), without "cannot reuse already
awaited coroutine", "Task was destroyed but it is pending" or a wait of the whole grace at the loop's end; and the
call given up at the end of the grace no longer leaves ``asyncio.run`` waiting for ever."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys

import pytest

from _interrupt_scripts import RUN_AND_CTRL_C
from toolwire import _grace

_SCRIPT = """
import asyncio, os, signal, sys, threading, time
import toolwire._tool_run
from toolwire import Agent, tool
from toolwire.messages import AIMessage, ToolMessage
from toolwire.testing import ScriptedChatModel

api, how, twice, timed = sys.argv[1], sys.argv[2], sys.argv[3] == "twice", sys.argv[4:] == ["timed"]
toolwire._tool_run.CANCEL_GRACE = 5.0 if twice else 0.5  # (a wait of 5 s would show)
started, ignored = threading.Event(), threading.Event()

async def stubborn_inner():
    while True:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            ignored.set()

async def t(x: int) -> str:
    \"\"\"Awaits a helper that ignores its cancellation.\"\"\"
    started.set()
    if how == "task":
        await asyncio.ensure_future(stubborn_inner())
    elif how == "shield":
        while True:
            try:
                await asyncio.shield(stubborn_inner())
            except asyncio.CancelledError:
                ignored.set()
    elif how == "taskgroup":
        async with asyncio.TaskGroup() as group:
            group.create_task(stubborn_inner())
    elif how == "gather":
        await asyncio.gather(stubborn_inner(), stubborn_inner())
    elif how == "nested":
        await stubborn_inner()
    return "x"

t = tool(timeout=30)(t) if timed else tool(t)

@tool
def quick(x: int) -> str:
    \"\"\"Answers at once.\"\"\"
    return "quick"

""" + RUN_AND_CTRL_C + """threading.Thread(target=ctrl_c, daemon=True).start()
began = time.monotonic()
try:
    asyncio.run(main()) if api == "async" else main_sync()
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
print(f"took {time.monotonic() - began:.2f}", flush=True)
for exc in raised:
    messages = getattr(exc, "messages", None) or []
    print("answers", sorted(m.tool_call_id for m in messages if isinstance(m, ToolMessage)), flush=True)
"""

_SHAPES = ["task", "shield", "gather", "taskgroup"]


def _run(api: str, how: str, times: str, *timed: str) -> tuple[str, str]:
    try:
        done = subprocess.run([sys.executable, "-c", _SCRIPT, api, how, times, *timed], capture_output=True,
                              text=True, timeout=20)
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


@pytest.mark.parametrize("how", _SHAPES)
def test_a_second_ctrl_c_inside_asyncio_run_ends_a_call_awaiting_a_stubborn_helper(how: str) -> None:
    out, err = _run("async", how, "twice")
    _check(out, err, 2.5)  # the second Ctrl-C ended the 5 s grace at once
    assert "answers ['c1', 'c2']" in out, out  # each call's one answer


@pytest.mark.parametrize("how", _SHAPES)
def test_a_second_ctrl_c_in_a_sync_call_ends_a_call_awaiting_a_stubborn_helper(how: str) -> None:
    out, err = _run("sync", how, "twice")
    _check(out, err, 2.5)


@pytest.mark.parametrize("how", ["task", "gather", "taskgroup"])
def test_a_call_given_up_at_the_end_of_the_grace_lets_asyncio_run_end(how: str) -> None:
    out, err = _run("async", how, "once")  # one Ctrl-C: the 0.5 s grace runs out (asyncio.run waited for ever)
    _check(out, err, 2.5)
    assert "answers ['c1', 'c2']" in out, out


@pytest.mark.parametrize(("api", "how", "times"), [("async", "nested", "once"), ("async", "task", "once"),
                                                    ("sync", "task", "once"), ("async", "task", "twice")])
def test_a_timed_call_whose_run_is_cancelled_gets_the_same_grace_as_an_untimed_one(api: str, how: str,
                                                                                   times: str) -> None:
    out, err = _run(api, how, times, "timed")  # (asyncio.run waited for ever; the sync run logged a traceback)
    _check(out, err, 2.5)
    assert "answers ['c1', 'c2']" in out, out


def test_a_helper_nobody_cancelled_is_left_running_while_the_loop_goes_on() -> None:
    async def main() -> None:
        release = asyncio.Event()

        async def helper() -> str:
            await release.wait()
            return "kept"

        helpers: list[asyncio.Task[str]] = []

        async def call() -> None:  # a call that shields its helper and ignores its own cancellation
            _grace.mark_call()
            helpers.append(asyncio.ensure_future(helper()))
            while True:
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.shield(helpers[0])

        task = asyncio.ensure_future(call())
        await asyncio.sleep(0.01)
        task.cancel()
        await asyncio.sleep(0.01)
        given_up = await _grace.give_up_calls([task])
        await asyncio.sleep(0.01)
        assert given_up == [task] and task.cancelled()
        assert not helpers[0].done()  # shielded, not cancelled: the event loop goes on, so it is kept
        release.set()
        assert await helpers[0] == "kept"

    asyncio.run(main())


def test_a_stubborn_helper_the_call_awaits_ends_cancelled_with_it() -> None:
    cleaned: list[str] = []

    async def main() -> None:
        async def helper() -> None:
            try:
                while True:
                    with contextlib.suppress(asyncio.CancelledError):
                        await asyncio.sleep(30)
            finally:
                cleaned.append("helper")

        helpers: list[asyncio.Task[None]] = []

        async def call() -> None:
            _grace.mark_call()
            helpers.append(asyncio.ensure_future(helper()))
            await helpers[0]

        task = asyncio.ensure_future(call())
        await asyncio.sleep(0.01)
        task.cancel()  # handed on to the helper, which ignores it: the call never wakes up
        await asyncio.sleep(0.01)
        assert not task.done()
        given_up = await _grace.give_up_calls([task])
        await asyncio.sleep(0)
        assert given_up == [task, helpers[0]]
        assert task.cancelled() and helpers[0].cancelled()  # (not "cannot reuse already awaited coroutine")

    asyncio.run(main())
    assert cleaned == ["helper"]  # its finally block ran
