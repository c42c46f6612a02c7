"""Before/after: toolwire's side of the pyperf benchmarks (B1, B2, B3, B3b, B6) on two source trees.

    python benchmarks/compare_trees.py --before /path/to/old/src [--after src]

Each tree is measured by the same pyperf scripts (worker processes import toolwire from that tree,
through TOOLWIRE_BENCH_SRC), the two trees taking turns script by script, and the table gives
before / after for each benchmark (above 1: the after tree is faster).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, fmt_time, run_pyperf

HERE = Path(__file__).resolve().parent
SCRIPTS = {
    "bench_invoke.py": ["B1 toolwire", "B2 toolwire"],
    "bench_decorate.py": ["B3 toolwire", "B3b toolwire"],
    "bench_merge.py": ["B6 merge 1000", "B6 merge 10000", "B6b add 1000", "B6b add 10000"],
}


def measure(script: str, src: str, processes: int) -> dict[str, float]:
    env = {"TOOLWIRE_BENCH_SRC": src, "TOOLWIRE_BENCH_ONLY": "|".join(SCRIPTS[script])}
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        stats = run_pyperf(HERE / script, processes=processes)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return {name: stats[name]["median"] for name in SCRIPTS[script]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="the older source tree (the directory holding toolwire/)")
    parser.add_argument("--after", default=str(ROOT / "src"))
    parser.add_argument("--processes", type=int, default=4)
    opts = parser.parse_args()
    print("| benchmark | before | after | before / after |")
    print("|---|---|---|---|")
    for script in SCRIPTS:
        before = measure(script, str(Path(opts.before).resolve()), opts.processes)
        after = measure(script, str(Path(opts.after).resolve()), opts.processes)
        for name in SCRIPTS[script]:
            print(f"| {name} | {fmt_time(before[name])} | {fmt_time(after[name])} | "
                  f"**{before[name] / after[name]:.2f}** |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
