"""Review 137 #5: an async generator tool that ignores its cancellation and its close is given up on at its
timeout with no stray asyncio error ("Task exception was never retrieved", "an error occurred during closing of
asynchronous generator"), on the sync and the async path, and its call is answered once."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent('''
    import asyncio, gc
    import toolwire._tool_run
    from toolwire import AIMessage, ToolExecutor, tool

    toolwire._tool_run.CANCEL_GRACE = 0.2

    @tool(timeout=0.2)
    async def ticker():
        """Yield ticks."""
        while True:
            try:
                await asyncio.sleep(0.02)
                yield 1
            except (GeneratorExit, asyncio.CancelledError):
                yield 2  # ignores its cancellation, and its close

    reply = AIMessage("", tool_calls=[{"name": "ticker", "args": {}, "id": "c1", "type": "tool_call"}])
    if MODE == "sync":
        out = ToolExecutor([ticker]).execute(reply)
    else:
        async def main():
            out = await ToolExecutor([ticker]).aexecute(reply)
            gc.collect()
            await asyncio.sleep(0.05)
            return out
        out = asyncio.run(main())
    gc.collect()
    print("ANSWERS", [(m.tool_call_id, m.status) for m in out])
''')


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_generator_that_ignores_its_close_leaves_no_asyncio_error(mode: str) -> None:
    done = subprocess.run([sys.executable, "-c", f"MODE = {mode!r}\n" + SCRIPT], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "ANSWERS [('c1', 'error')]" in done.stdout
    assert "its coroutine was closed" in done.stderr
    assert "never retrieved" not in done.stderr
    assert "error occurred during closing" not in done.stderr
    assert "RuntimeError" not in done.stderr
