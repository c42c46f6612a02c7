"""The hot path of B1/B2, for a profiler: ``tool.invoke(tool_call)`` and ``tool.invoke(args)`` in a loop.

    pyinstrument benchmarks/profile_invoke.py
    python -m cProfile -s tottime benchmarks/profile_invoke.py | head -30
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_invoke import ARGS, CALL, toolwire_tool

LOOPS = 200_000

if __name__ == "__main__":
    made = toolwire_tool()
    for _ in range(LOOPS):
        made.invoke(CALL)
    for _ in range(LOOPS):
        made.invoke(ARGS)
