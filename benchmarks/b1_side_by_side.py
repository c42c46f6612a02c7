"""B1's toolwire side on two source trees, one process each: ``tool.invoke(tool_call)``, 3 typed args.

    python benchmarks/b1_side_by_side.py SRC_DIR [SRC_DIR ...]

Each tree is timed in its own interpreter (best of 5 x 20,000 calls, three rounds), so the figures of two
commits can be compared on the same machine state; used in RESULTS.md to tell a slower machine from a
slower commit (``git worktree add /tmp/old <commit>`` gives the old tree's ``/tmp/old/src``).
"""

from __future__ import annotations

import subprocess
import sys

_TIMER = '''
import sys, timeit
sys.path.insert(0, sys.argv[1])
from toolwire import tool

@tool
def add(a: int, b: float, name: str) -> str:
    """Add.

    Args:
        a: first.
        b: second.
        name: label.
    """
    return f"{name}: {a + b}"

call = {"name": "add", "args": {"a": 1, "b": 2.5, "name": "x"}, "id": "c1", "type": "tool_call"}
add.invoke(call)
best = min(min(timeit.repeat(lambda: add.invoke(call), number=20000, repeat=5)) for _ in range(3)) / 20000
print(f"{sys.argv[1]}: {best * 1e6:.2f} us")
'''


def main() -> None:
    """Time each tree given on the command line, in turn, and print one line per tree."""
    for src in sys.argv[1:]:
        subprocess.run([sys.executable, "-c", _TIMER, src], check=True)


if __name__ == "__main__":
    main()
