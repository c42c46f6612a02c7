"""Review 203 #1: a second Ctrl-C during the stop grace inside ``asyncio.run`` (``agent.ainvoke``, ``agent.abatch``)
ends the run at once without asyncio logging "cannot reuse already awaited coroutine" tracebacks for the calls given
up (their tasks end cancelled, not with that RuntimeError), and every call still gets exactly one ToolMessage."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import subprocess
import sys
import threading
import time

import pytest

from toolwire import _grace

_SCRIPT = """
import asyncio, os, signal, sys, threading, time
import toolwire._tool_run
from toolwire import Agent, tool
from toolwire.messages import AIMessage, ToolMessage
from toolwire.testing import ScriptedChatModel

toolwire._tool_run.CANCEL_GRACE = 5.0  # (a wait that long would show)
started, ignored = threading.Event(), threading.Event()

@tool
async def stubborn(x: int) -> str:
    \"\"\"Ignores its cancellation.\"\"\"
    started.set()
    while True:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            ignored.set()

@tool
def slow(x: int) -> str:
    \"\"\"A sync tool that runs past the grace.\"\"\"
    started.set()
    ignored.set()
    time.sleep(8)
    return "slow"

@tool
def quick(x: int) -> str:
    \"\"\"Answers at once.\"\"\"
    return "quick"

how, name = sys.argv[1], sys.argv[2]
reply = AIMessage(content="", tool_calls=[{"name": name, "args": {"x": 1}, "id": "c1"},
                                          {"name": "quick", "args": {"x": 2}, "id": "c2"}])
runs = 2 if how == "abatch" else 1
agent = Agent(ScriptedChatModel([reply] * runs + ["done"] * runs), [stubborn, slow, quick])

def ctrl_c_twice():  # the second once the first reached the tool: during its grace
    if started.wait(10):
        time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGINT)
        if ignored.wait(10):
            time.sleep(0.3)
            os.kill(os.getpid(), signal.SIGINT)

raised = []

async def main():
    try:
        if how == "abatch":
            await agent.abatch(["go", "go again"])
        else:
            await agent.ainvoke("go")
    except BaseException as exc:
        raised.append(exc)
        raise

threading.Thread(target=ctrl_c_twice, daemon=True).start()
began = time.monotonic()
try:
    asyncio.run(main())
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
print(f"took {time.monotonic() - began:.2f}", flush=True)
for exc in raised:
    messages = getattr(exc, "messages", None) or []
    print("answers", sorted(m.tool_call_id for m in messages if isinstance(m, ToolMessage)), flush=True)
"""


def _run(how: str, name: str) -> tuple[str, str]:
    done = subprocess.run([sys.executable, "-c", _SCRIPT, how, name], capture_output=True, text=True, timeout=30)
    return done.stdout, done.stderr


@pytest.mark.parametrize(("how", "name"), [("ainvoke", "stubborn"), ("ainvoke", "slow"), ("abatch", "stubborn")])
def test_a_second_ctrl_c_inside_asyncio_run_logs_no_traceback(how: str, name: str) -> None:
    out, err = _run(how, name)
    assert "KeyboardInterrupt" in out, (out, err)
    assert "cannot reuse already awaited coroutine" not in err, err
    assert "unhandled exception" not in err and "Traceback" not in err, err
    took = float(out.split("took ")[1].split()[0])
    assert took < 2.5, out  # the second Ctrl-C ended the 5 s grace at once
    if how == "ainvoke":  # the run's own error keeps every call's one answer
        assert "answers ['c1', 'c2']" in out, out


def test_a_call_given_up_ends_cancelled_and_asyncio_run_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    cleaned = threading.Event()

    async def stubborn() -> None:  # ignores its cancellation (for 3 s at most: the test cannot hang)
        end = time.monotonic() + 3
        try:
            while time.monotonic() < end:
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.sleep(0.05)
        finally:
            cleaned.set()

    async def call() -> None:  # the shape of the executor's answer() and _tool_run.guarded()
        try:
            await stubborn()
        except RuntimeError:
            if _grace.given_up():
                raise asyncio.CancelledError from None
            raise

    tasks: list[asyncio.Task[None]] = []

    async def main() -> None:
        task = asyncio.ensure_future(call())
        tasks.append(task)
        await asyncio.sleep(0.01)
        task.cancel()
        await asyncio.sleep(0.01)
        _grace.give_up(task)  # and the run returns at once: the task still pending at asyncio.run's end

    began = time.monotonic()
    asyncio.run(main())
    assert time.monotonic() - began < 1
    assert cleaned.is_set()  # its finally blocks ran
    assert tasks[0].cancelled()  # not ended with "cannot reuse already awaited coroutine", which asyncio.run logs
    assert not [r for r in caplog.records if r.name == "asyncio"], caplog.text


def test_a_coroutine_that_ignores_generator_exit_is_abandoned_as_before(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="toolwire.tools")
    closings: list[str] = []

    async def deaf() -> None:
        try:
            await asyncio.sleep(30)
        except GeneratorExit:
            closings.append("GeneratorExit")
            if len(closings) == 1:
                await asyncio.sleep(0)  # ignores the first closing
            raise

    async def wrapper() -> None:
        await deaf()

    async def main() -> asyncio.Task[None]:
        task = asyncio.ensure_future(wrapper())
        await asyncio.sleep(0.01)
        _grace.give_up(task)
        await asyncio.wait([task], timeout=1)
        return task

    task = asyncio.run(main())
    assert closings == ["GeneratorExit"]  # the second closing, of the task's own coroutine, ended it
    assert isinstance(task.exception(), RuntimeError)  # abandoned the old way (toolwire._concurrency.abandon)
    assert "coroutine ignored GeneratorExit" in caplog.text
