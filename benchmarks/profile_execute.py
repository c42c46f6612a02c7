"""The hot path of B5, for a profiler: ToolExecutor running 200 async tool calls of one AIMessage.

The tools return at once (no sleep), so the profile shows the executor's own work per call.

    pyinstrument benchmarks/profile_execute.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: F401  (puts the working tree's src/ on the path)

from toolwire import AIMessage, ToolExecutor, tool

CALLS, ROUNDS = 200, 100


def make(index: int) -> object:
    async def fetch(key: int) -> str:
        """Fetch a key."""
        return f"value of {key}"

    fetch.__name__ = f"fetch_{index}"
    return tool(fetch)


if __name__ == "__main__":
    executor = ToolExecutor([make(i) for i in range(CALLS)], max_concurrency=20)
    message = AIMessage("", tool_calls=[{"name": f"fetch_{i}", "args": {"key": i}, "id": f"call_{i}",
                                         "type": "tool_call"} for i in range(CALLS)])
    for _ in range(ROUNDS):
        executor.execute(message)
