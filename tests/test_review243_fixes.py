"""Review 243: the fixes of review 240 cut off, at exit, the default-executor work of calls that had not timed out
(#1); the ``sys.unraisablehook`` wrapper re-installed itself over later hooks (#2); ``toolwire mcp serve`` still hung
at its end after a timed-out async tool's thread work (#3); and such a call was told "was stopped" while that work
went on (#4). Whatever may hang runs in a subprocess with a timeout."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from _exit_scripts import run_script as _run
from _exit_scripts import stuck_fetch_script
from toolwire import AIMessage, ToolExecutor, tool


def _call(name: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": {}, "id": "c1", "type": "tool_call"}])


# --- #1: the work of a call that did not time out runs to its end at exit ---------------------------------------

def test_fire_and_forget_work_of_a_call_that_did_not_time_out_is_done_at_exit(tmp_path: Path) -> None:
    out = tmp_path / "audit.txt"
    done = _run("""
        import asyncio, sys, time
        from toolwire import AIMessage, ToolExecutor, tool

        def write_audit(text):
            time.sleep(0.2)  # (still running, or queued, when the script ends)
            with open(sys.argv[1], "a") as file:
                file.write(text + "\\n")

        @tool
        async def save() -> str:
            \"\"\"Saves in the background.\"\"\"
            loop = asyncio.get_running_loop()
            asyncio.create_task(asyncio.to_thread(write_audit, "to_thread"))  # (its task is cancelled at the loop's
            await asyncio.sleep(0)  # end, as asyncio.run cancels it: its work, started by then, goes on)
            for i in range(40):  # more jobs than the loop's pool has threads (32 at most): some are queued
                loop.run_in_executor(None, write_audit, f"line {i}")
            return "queued"

        call = {"name": "save", "args": {}, "id": "c1", "type": "tool_call"}
        print(ToolExecutor([save]).execute(AIMessage("", tool_calls=[call]))[0].content, flush=True)
    """, str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "queued"
    assert out.exists(), "the work handed off was cut off at exit"
    assert len(out.read_text().splitlines()) == 41


def test_kept_work_queued_behind_a_timed_out_calls_stuck_work_still_runs_at_exit(tmp_path: Path) -> None:
    out = tmp_path / "audit.txt"
    done = _run("""
        import asyncio, sys, threading
        import toolwire._tool_run
        from toolwire import AIMessage, ToolExecutor, tool
        from toolwire._concurrency import late_calls, still_running
        from toolwire._daemon_pool import LOOP_THREADS

        toolwire._tool_run.CANCEL_GRACE = 0.2
        never = threading.Event()
        full = []

        @tool(timeout=0.3)
        async def stuck() -> str:
            \"\"\"Fills every thread of the loop's pool with work that never ends.\"\"\"
            loop = asyncio.get_running_loop()
            jobs = [loop.run_in_executor(None, never.wait) for _ in range(LOOP_THREADS)]
            full.append(True)
            await asyncio.gather(*jobs)
            return "never"

        def write():
            with open(sys.argv[1], "w") as file:
                file.write("written")

        @tool
        async def save() -> str:
            \"\"\"Saves in the background, behind the stuck work.\"\"\"
            while not full:
                await asyncio.sleep(0.01)
            asyncio.get_running_loop().run_in_executor(None, write)
            return "queued"

        calls = [{"name": name, "args": {}, "id": name, "type": "tool_call"} for name in ("stuck", "save")]
        print([m.status for m in ToolExecutor([stuck, save]).execute(AIMessage("", tool_calls=calls))], flush=True)
        print("late:", sorted(set(late_calls())), "others:", still_running(late=False), flush=True)
    """, str(out))
    assert done.returncode == 0, done.stderr
    assert "['error', 'success']" in done.stdout
    assert "late: ['stuck'] others: []" in done.stdout  # the given-up call's work is named, as past its timeout
    assert out.read_text() == "written"


def test_run_in_executor_work_of_a_timed_out_call_is_named_and_cut_off_at_exit() -> None:
    done = _run(stuck_fetch_script(
        "asyncio.get_running_loop().run_in_executor(None, never.wait)",
        "Waits on a blocking call handed to the default executor.",
        imports="from toolwire._concurrency import late_calls, still_running",
        after="print(still_running(), late_calls(), still_running(late=False), flush=True)"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["error", "['fetch'] ['fetch'] []"]


def test_a_forked_child_does_not_wait_for_its_parents_work_at_exit() -> None:
    done = _run("""
        import asyncio, os, threading
        from toolwire import AIMessage, ToolExecutor, tool
        from toolwire._concurrency import still_running

        release = threading.Event()
        started = threading.Event()

        def block():
            started.set()
            release.wait()

        @tool
        async def background() -> str:
            \"\"\"Starts work that waits for the parent's release.\"\"\"
            asyncio.get_running_loop().run_in_executor(None, block)
            return "started"

        call = {"name": "background", "args": {}, "id": "c1", "type": "tool_call"}
        print(ToolExecutor([background]).execute(AIMessage("", tool_calls=[call]))[0].content, flush=True)
        started.wait(10)
        pid = os.fork()
        if pid == 0:  # the child ends normally: its exit must not wait for the parent's thread (absent here)
            print("child:", still_running(), flush=True)
            raise SystemExit(0)
        _, status = os.waitpid(pid, 0)
        print("child status:", status, flush=True)
        release.set()
    """)
    assert done.returncode == 0, done.stderr
    assert "child: []" in done.stdout and "child status: 0" in done.stdout


# --- #2: the unraisablehook wrapper is installed once, and never over a later hook ------------------------------

_GIVE_UP = """
    import asyncio, contextlib, sys
    import toolwire._tool_run
    from toolwire import AIMessage, ToolExecutor, tool

    toolwire._tool_run.CANCEL_GRACE = 0.1

    @tool(timeout=0.1)
    async def poll_forever() -> str:
        \"\"\"Polls, swallowing every interruption.\"\"\"
        while True:
            try:
                await asyncio.sleep(0.05)
            except BaseException:
                continue

    def give_up():
        call = {"name": "poll_forever", "args": {}, "id": "c1", "type": "tool_call"}
        return ToolExecutor([poll_forever]).execute(AIMessage("", tool_calls=[call]))[0].status

    class Leaky:
        def __init__(self, what): self.what = what
        def __del__(self): raise ValueError(f"{self.what}: flush failed in __del__")
"""


def test_a_chaining_hook_set_after_toolwires_gets_each_report_once() -> None:
    done = _run(_GIVE_UP + """
    print("1st:", give_up(), flush=True)
    seen = []
    previous = sys.unraisablehook
    def reporter_hook(unraisable):
        seen.append(repr(unraisable.exc_value))
        previous(unraisable)
    sys.unraisablehook = reporter_hook
    print("2nd:", give_up(), flush=True)
    print("hook in place is the user's:", sys.unraisablehook is reporter_hook, flush=True)
    Leaky("unrelated")
    print("leaky reports seen:", sum("unrelated" in text for text in seen), flush=True)
    """)
    assert done.returncode == 0, done.stderr
    assert "hook in place is the user's: True" in done.stdout
    assert "leaky reports seen: 1" in done.stdout
    assert "RecursionError" not in done.stderr, done.stderr[-2000:]
    assert done.stderr.count("ValueError: unrelated: flush failed in __del__") == 1, done.stderr[-2000:]


def test_a_temporary_hook_restored_afterwards_does_not_swallow_later_reports() -> None:
    done = _run(_GIVE_UP + """
    @contextlib.contextmanager
    def collect_unraisable():
        seen = []
        old = sys.unraisablehook
        sys.unraisablehook = lambda u: seen.append(u.exc_value)
        try:
            yield seen
        finally:
            sys.unraisablehook = old

    print("1st:", give_up(), flush=True)
    with collect_unraisable():
        print("2nd:", give_up(), flush=True)
    Leaky("AFTER the window")
    print("end", flush=True)
    """)
    assert done.returncode == 0, done.stderr
    assert "ValueError: AFTER the window: flush failed in __del__" in done.stderr, done.stderr[-2000:]


def test_the_wrapper_is_installed_once_and_not_over_a_later_hook() -> None:
    done = _run(_GIVE_UP + """
    from toolwire import _grace
    print("1st:", give_up(), flush=True)
    ours = sys.unraisablehook
    print("installed:", ours is _grace._unraisable, flush=True)
    sys.unraisablehook = sys.__unraisablehook__  # the user puts Python's own back
    print("2nd:", give_up(), flush=True)
    print("left alone:", sys.unraisablehook is sys.__unraisablehook__, flush=True)
    """)
    assert done.returncode == 0, done.stderr
    assert "installed: True" in done.stdout and "left alone: True" in done.stdout


# --- #3: toolwire mcp serve exits after a timed-out async tool left thread work behind ---------------------------

def test_mcp_serve_exits_when_its_client_closes_after_a_timed_out_to_thread_call(tmp_path: Path) -> None:
    out = tmp_path / "audit.txt"
    tools = tmp_path / "tools.py"
    tools.write_text(textwrap.dedent(f"""
        import asyncio, threading, time
        from toolwire import tool

        never = threading.Event()

        @tool(timeout=0.3)
        async def fetch() -> str:
            \"\"\"Fetch the data.\"\"\"
            await asyncio.to_thread(never.wait)  # a blocking client call that never returns
            return "data"

        def write():
            time.sleep(0.2)
            with open({str(out)!r}, "w") as file:
                file.write("written")

        @tool
        async def record() -> str:
            \"\"\"Record it in the background.\"\"\"
            asyncio.get_running_loop().run_in_executor(None, write)
            return "recorded"
    """))
    server = subprocess.Popen([str(Path(sys.executable).parent / "toolwire"), "mcp", "serve", "--tools", str(tools)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        def send(message: dict[str, object]) -> None:
            assert server.stdin is not None
            server.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
            server.stdin.flush()

        assert server.stdout is not None
        send({"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                                                          "clientInfo": {"name": "t", "version": "1"}}})
        assert '"id":1' in server.stdout.readline()
        send({"method": "notifications/initialized"})
        send({"id": 2, "method": "tools/call", "params": {"name": "record", "arguments": {}}})
        assert "recorded" in server.stdout.readline()
        send({"id": 3, "method": "tools/call", "params": {"name": "fetch", "arguments": {}}})
        answer = server.stdout.readline()
        assert "did not finish within 0.3 seconds" in answer, answer
        assert "is still running, so it may yet take effect" in answer, answer  # (#4 too)
        assert server.stdin is not None
        server.stdin.close()
        assert server.wait(timeout=30) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert out.read_text() == "written"  # the call that did not time out: its work done before the end


def test_mcp_serve_function_runs_to_thread_on_toolwires_pool() -> None:
    done = _run("""
        import asyncio, threading
        from unittest import mock
        from toolwire.mcp import server

        seen = []

        async def fake_serve_async(tools, **options):
            seen.append(await asyncio.to_thread(lambda: threading.current_thread().name))

        with mock.patch.object(server, "serve_async", fake_serve_async):
            server.serve([])
        print(seen[0].startswith("toolwire-loop"), flush=True)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"]


# --- #4: an async tool whose thread work goes on at its timeout is told so ------------------------------------------

def test_an_async_tools_thread_work_still_running_at_its_timeout_gets_the_still_running_text() -> None:
    release = threading.Event()

    @tool(timeout=0.2)
    async def pay() -> str:
        """Pays with a sync client moved to a thread."""
        await asyncio.to_thread(release.wait)
        return "ok"

    try:
        answer = ToolExecutor([pay]).execute(_call("pay"))[0]
    finally:
        release.set()
    assert answer.status == "error"
    assert "did not finish within 0.2 seconds and is still running, so it may yet take effect" in answer.content


def test_an_async_tool_with_no_thread_work_left_is_still_told_it_was_stopped() -> None:
    @tool(timeout=0.2)
    async def wait() -> str:
        """Waits on the event loop only, after a quick thread hop."""
        await asyncio.to_thread(lambda: None)
        await asyncio.sleep(30)
        return "ok"

    answer = ToolExecutor([wait]).execute(_call("wait"))[0]
    assert "and was stopped, but what it did before that may have taken effect" in answer.content
