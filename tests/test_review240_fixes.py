"""Review 240: an async tool's ``asyncio.to_thread`` work left at its timeout kept the process from exiting (#1), and an
async tool that ignores its close printed an "Exception ignored ... coroutine ignored GeneratorExit" traceback (#2)."""

from __future__ import annotations

import asyncio
import threading

from _exit_scripts import run_script as _run
from _exit_scripts import stuck_fetch_script
from toolwire import AIMessage, ToolExecutor, tool
from toolwire._concurrency import still_running


def _call(name: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": {}, "id": "c1", "type": "tool_call"}])


def test_to_thread_work_left_at_a_timeout_does_not_keep_the_process_alive() -> None:
    done = _run(stuck_fetch_script("asyncio.to_thread(never.wait)",
                                   "Waits on a blocking call moved off the event loop."))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "error"


def test_to_thread_work_left_running_is_named_by_still_running() -> None:
    release, started = threading.Event(), threading.Event()

    def block() -> None:
        started.set()
        release.wait()

    @tool(timeout=0.2)
    async def fetch() -> str:
        """Waits on a blocking call moved off the event loop."""
        await asyncio.to_thread(block)
        return "data"

    try:
        answer = ToolExecutor([fetch]).execute(_call("fetch"))[0]
        assert answer.status == "error"
        assert started.wait(5)
        assert "fetch" in still_running()
    finally:
        release.set()


def test_a_sync_calls_loop_runs_to_thread_on_pool_threads_it_lets_go_of() -> None:
    # (daemon threads, whose own threads stay daemon threads: a given-up call's helper must not hold up the exit,
    # review 261 #3)
    @tool
    async def where() -> str:
        """Says whether asyncio.to_thread runs on a daemon thread."""
        return str(await asyncio.to_thread(lambda: threading.current_thread().daemon))

    before = threading.active_count()
    for _ in range(20):
        assert ToolExecutor([where]).execute(_call("where"))[0].content == "True"
    for _ in range(100):  # the idle threads of the ended loops' executors leave
        if threading.active_count() <= before + 1:
            break
        threading.Event().wait(0.05)
    assert threading.active_count() <= before + 1


def test_the_users_own_loop_keeps_its_default_executor() -> None:
    @tool
    async def where() -> str:
        """Says whether asyncio.to_thread runs on a daemon thread."""
        return str(await asyncio.to_thread(lambda: threading.current_thread().daemon))

    async def main() -> str:
        return (await ToolExecutor([where]).aexecute(_call("where")))[0].content  # type: ignore[return-value]

    assert asyncio.run(main()) == "False"  # asyncio's own ThreadPoolExecutor, left in place


def test_a_tool_that_ignores_its_close_prints_no_traceback() -> None:
    done = _run("""
        import asyncio, logging, sys
        import toolwire._tool_run
        from toolwire import AIMessage, ToolExecutor, tool

        toolwire._tool_run.CANCEL_GRACE = 0.1
        logging.basicConfig(level=logging.DEBUG, stream=sys.stdout)

        async def poll_forever() -> str:
            \"\"\"Polls, swallowing every interruption.\"\"\"
            while True:
                try:
                    await asyncio.sleep(0.05)
                except BaseException:
                    continue

        call = {"name": "poll_forever", "args": {}, "id": "c1", "type": "tool_call"}
        timed = tool(timeout=0.1)(poll_forever)
        print(ToolExecutor([timed]).execute(AIMessage("", tool_calls=[call]))[0].status, flush=True)
        print(timed.invoke(call).status, flush=True)

        async def cancelled():
            task = asyncio.ensure_future(ToolExecutor([tool(poll_forever)]).aexecute(AIMessage("", tool_calls=[call])))
            await asyncio.sleep(0.1)
            task.cancel()
            try:
                await task
            except asyncio.CancelledError as exc:
                return exc.tool_messages[0].status

        print(asyncio.run(cancelled()), flush=True)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("error\n") == 3, done.stdout
    assert "Exception ignored" not in done.stderr and "GeneratorExit" not in done.stderr, done.stderr
    assert "coroutine ignored GeneratorExit" in done.stdout  # logged at debug level on toolwire.tools


def test_other_unraisable_reports_go_to_the_hook_in_place(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from types import SimpleNamespace

    from toolwire import _grace

    seen: list[object] = []
    monkeypatch.setattr(_grace, "_previous_hook", seen.append)

    async def other() -> None:
        return None

    coro = other()
    report = SimpleNamespace(object=coro, exc_value=RuntimeError("coroutine ignored GeneratorExit"))
    _grace._unraisable(report)  # a coroutine toolwire never gave up: passed on
    assert seen == [report]
    coro.close()
