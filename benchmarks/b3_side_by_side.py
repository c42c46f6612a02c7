"""B3's toolwire side on two (or more) source trees: ``@tool`` on B3's function (five parameters, a nested model, a
Google docstring), each tree timed in its own interpreter, the trees taking turns for three rounds.

    python benchmarks/b3_side_by_side.py SRC_DIR [SRC_DIR ...]

Prints, per round and tree, the best of 7 x 1,000 decorations in microseconds per decoration, so a slower machine can
be told from a slower commit (``git worktree add /tmp/old <commit>`` gives the old tree's ``/tmp/old/src``). Used in
RESULTS.md (forty-fourth session).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_TIMER = r'''
import sys, timeit
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
from bench_decorate import register
from toolwire import tool
for _ in range(200):
    tool(register)
print(f"{min(timeit.repeat(lambda: tool(register), number=1000, repeat=7)) * 1e3:.0f}")
'''


def main() -> int:
    """Time each tree given on the command line, three rounds; returns the exit status (2 without a tree)."""
    trees = sys.argv[1:]
    if not trees:
        print(__doc__)
        return 2
    here = str(Path(__file__).resolve().parent)
    for round_ in range(1, 4):
        for src in trees:
            out = subprocess.run([sys.executable, "-c", _TIMER, src, here], capture_output=True, text=True, check=True)
            print(f"round {round_}: {src}: {out.stdout.strip()} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
