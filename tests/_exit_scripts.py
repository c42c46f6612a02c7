"""What the exit-time subprocess tests share (tests/test_review240_fixes.py, tests/test_review243_fixes.py): running a
script in a new interpreter, and the script of an async tool ``fetch`` (0.2 s timeout) stuck on a blocking wait that
it handed to a thread, run once by a ToolExecutor, which prints the call's status."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def run_script(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` (dedented) in a new interpreter with ``args``; it must end (and so exit) within 60 seconds."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args], capture_output=True, text=True,
                          timeout=60)


def stuck_fetch_script(wait: str, doc: str, imports: str = "", after: str = "") -> str:
    """The script: ``imports`` (lines), then ``fetch`` awaiting ``wait`` (an expression on ``never``, an unset
    ``threading.Event``; ``doc`` its docstring), run by a ToolExecutor printing its status, then ``after`` (lines)."""
    return "\n".join([
        "import asyncio, threading",
        "from toolwire import AIMessage, ToolExecutor, tool",
        textwrap.dedent(imports).strip(),
        "never = threading.Event()",
        "",
        "@tool(timeout=0.2)",
        "async def fetch() -> str:",
        f"    {doc!r}",
        f"    await {wait}",
        "    return 'data'",
        "",
        "call = {'name': 'fetch', 'args': {}, 'id': 'c1', 'type': 'tool_call'}",
        "print(ToolExecutor([fetch]).execute(AIMessage('', tool_calls=[call]))[0].status, flush=True)",
        textwrap.dedent(after).strip(),
    ]) + "\n"
