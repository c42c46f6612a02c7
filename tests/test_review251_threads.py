"""Review 251 #1: a thread a tool started (a plain ``threading.Thread``, no ``daemon=``) was a daemon thread, as it
took the flag of toolwire's pool thread it was made on, so the interpreter did not wait for it at exit and the tool's
background work was cut off part-way. It is a normal thread now, as under a direct call or a ``ThreadPoolExecutor``;
toolwire's own pool threads still do not hold up the exit (a call still running, or given up at its timeout, is cut
off as before: session 54). Whatever may hang runs in a subprocess with a timeout."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from toolwire import AIMessage, ToolExecutor, tool
from toolwire._daemon_pool import _threads_made_here_not_daemon


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in a new interpreter; it must end (and so exit) within 60 seconds."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args], capture_output=True, text=True,
                          timeout=60)


def _call(name: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": {}, "id": "c1", "type": "tool_call"}])


def test_a_thread_a_sync_tool_starts_is_not_a_daemon() -> None:
    @tool
    def start() -> str:
        """Starts a thread."""
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
        return f"{thread.daemon}"

    assert ToolExecutor([start]).execute(_call("start"))[0].content == "False"


def test_a_thread_started_from_to_thread_work_stays_a_daemon() -> None:
    # (an async tool given up at its timeout often waits on such a thread: the exit must not wait for it, review 261
    # #3; a sync tool's own threads are normal threads, above)
    def make() -> bool:
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
        return thread.daemon

    @tool
    async def start() -> str:
        """Starts a thread from the loop's executor."""
        return f"{await asyncio.to_thread(make)}"

    assert ToolExecutor([start]).execute(_call("start"))[0].content == "True"


def test_a_thread_that_asks_for_daemon_still_is_one() -> None:
    @tool
    def start() -> str:
        """Starts a daemon thread."""
        thread = threading.Thread(target=lambda: None, daemon=True)
        thread.start()
        thread.join()
        return f"{thread.daemon}"

    assert ToolExecutor([start]).execute(_call("start"))[0].content == "True"


def test_the_flag_is_left_alone_where_python_keeps_it_elsewhere() -> None:
    class Other:  # (a Python whose Thread keeps no _daemonic: nothing is changed, nothing raised)
        daemon = True

    other = Other()
    _threads_made_here_not_daemon(other)  # type: ignore[arg-type]
    assert other.daemon is True and not hasattr(other, "_daemonic")


def test_the_work_of_a_thread_a_tool_started_is_done_at_exit(tmp_path: Path) -> None:
    out = tmp_path / "notes.txt"
    done = _run("""
        import sys, threading, time
        from toolwire import AIMessage, ToolExecutor, tool

        @tool
        def save() -> str:
            \"\"\"Saves in the background and returns at once.\"\"\"
            def writer():
                time.sleep(0.3)  # (still running when the script ends)
                with open(sys.argv[1], "w") as file:
                    file.write("END\\n")
            threading.Thread(target=writer).start()
            return "saving"

        call = {"name": "save", "args": {}, "id": "c1", "type": "tool_call"}
        print(ToolExecutor([save]).execute(AIMessage("", tool_calls=[call]))[0].content, flush=True)
    """, str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "saving"
    assert out.exists() and out.read_text() == "END\n", "the tool's own thread was cut off at exit"


def test_the_exit_does_not_wait_for_calls_still_running_on_toolwire_threads() -> None:
    done = _run("""
        import asyncio, threading
        from toolwire import AIMessage, ToolExecutor, tool
        from toolwire._concurrency import thread_pool

        never = threading.Event()

        @tool(timeout=0.2)
        def hangs() -> str:
            \"\"\"Never returns.\"\"\"
            never.wait()
            return "never"

        @tool(timeout=0.2)
        async def hangs_in_a_thread() -> str:
            \"\"\"Its thread work never returns.\"\"\"
            await asyncio.to_thread(never.wait)
            return "never"

        for name, one in (("hangs", hangs), ("hangs_in_a_thread", hangs_in_a_thread)):
            call = {"name": name, "args": {}, "id": "c1", "type": "tool_call"}
            print(ToolExecutor([one]).execute(AIMessage("", tool_calls=[call]))[0].status, flush=True)
        started = threading.Event()
        thread_pool().submit(lambda: (started.set(), never.wait()))  # an untimed call still running at exit
        started.wait()
        print("end", flush=True)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["error", "error", "end"]
