"""The hot path of B3, for a profiler: ``@tool`` on a 5-parameter function with a nested model.

    pyinstrument benchmarks/profile_decorate.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_decorate import register

from toolwire import tool

LOOPS = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000

if __name__ == "__main__":
    for _ in range(LOOPS):
        tool(register)
