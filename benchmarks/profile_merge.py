"""The hot path of B6, for a profiler: merging 10,000 streamed argument chunks into one AIMessage.

    pyinstrument benchmarks/profile_merge.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_merge import chunks, merge

N, ROUNDS = 10_000, 300

if __name__ == "__main__":
    chunks(N)
    for _ in range(ROUNDS):
        merge(N)
