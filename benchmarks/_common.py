"""Shared pieces of the benchmarks: the result record, the machine description, and pyperf runs.

Every benchmark is reported as a ratio against its peer or its limit, measured side by side in the
same run on the same machine; absolute times are context only (the machine is shared and noisy).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# benchmark the working tree, whatever toolwire the interpreter may have installed (TOOLWIRE_BENCH_SRC
# names another source tree, e.g. an older copy, for before/after comparisons)
SRC = os.environ.get("TOOLWIRE_BENCH_SRC") or str(ROOT / "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)


@dataclasses.dataclass
class Result:
    """One line of the results table.

    Attributes:
        id: the benchmark's number ("B1", "B3b"...).
        what: what is measured.
        peer: what it is compared with (another library, or a limit).
        ratio: the measured ratio (None when the benchmark was skipped or failed).
        ratio_of: how the ratio is formed, e.g. "LangChain / toolwire".
        goal: the goal as text, e.g. ">= 50".
        ok: whether the goal is met (None: skipped, or no goal).
        context: absolute times and counts, for context only.
    """

    id: str
    what: str
    peer: str
    ratio: float | None
    ratio_of: str
    goal: str
    ok: bool | None
    context: str

    @property
    def verdict(self) -> str:
        return {True: "met", False: "NOT met", None: "-"}[self.ok]


def skipped(id: str, what: str, peer: str, goal: str, why: str) -> Result:
    return Result(id, what, peer, None, "", goal, None, f"skipped: {why}")


def fmt_time(seconds: float) -> str:
    """A duration with a sensible unit (ns, us, ms, s)."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> dict[str, str]:
    """The facts RESULTS.md records about the machine."""
    try:
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "unknown"
    return {
        "cpu": cpu_model(),
        "cores": str(os.cpu_count()),
        "python": platform.python_version(),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "load average at start": load,
    }


# -- pyperf ------------------------------------------------------------------------------------------
# A benchmark module that uses pyperf is also a pyperf script: run as __main__ it registers its
# benchmarks with one pyperf.Runner (which re-runs the script in worker processes). ``run_pyperf``
# starts it, reads the JSON it writes, and returns each benchmark's median time per call in seconds.


def pyperf_main(benchmarks: dict[str, Callable[[int], float]]) -> None:
    """Register ``name -> time_func(loops) -> seconds`` with pyperf (call from the script's __main__)."""
    import pyperf

    runner = pyperf.Runner()
    only = os.environ.get("TOOLWIRE_BENCH_ONLY")  # a "|"-separated subset of the names
    for name, time_func in benchmarks.items():
        if not only or name in only.split("|"):
            runner.bench_time_func(name, time_func)


_INHERIT = "PYTHONPATH,TOOLWIRE_BENCH_SRC,TOOLWIRE_BENCH_ONLY"


def run_pyperf(script: Path, *, processes: int, values: int = 3, extra: Sequence[str] = (),
               only: Sequence[str] = ()) -> dict[str, Any]:
    """Run the pyperf script ``script`` and return ``{name: {"median", "mean", "stdev", "values"}}``.

    Worker processes inherit PYTHONPATH, so the same toolwire is measured everywhere. ``only`` names the
    benchmarks to run (default: all the script registers).
    """
    import pyperf

    env = {**os.environ, "TOOLWIRE_BENCH_ONLY": "|".join(only)} if only else None
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        cmd = [sys.executable, str(script), "--quiet", "-o", str(out), "--processes", str(processes),
               "--values", str(values), "--warmups", "1", "--inherit-environ", _INHERIT, *extra]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"{script.name} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
        suite = pyperf.BenchmarkSuite.load(str(out))
    results: dict[str, Any] = {}
    for bench in suite.get_benchmarks():
        vals = bench.get_values()
        results[bench.get_name()] = {
            "median": bench.median(), "mean": bench.mean(),
            "stdev": bench.stdev() if len(vals) > 1 else 0.0, "values": list(vals),
        }
    return results


def paired_pyperf(script: Path, pairs: Sequence[tuple[str, str]], *, rounds: int,
                  values: int = 3) -> tuple[dict[str, Any], dict[tuple[str, str], list[float]]]:
    """Time each ``(ours, peer)`` pair of the pyperf script ``script`` in alternating rounds, for a steadier ratio.

    pyperf runs one benchmark's worker processes after another's, so a slow minute on a shared machine
    lands on one side only. Here each round runs one worker process of every benchmark in turn
    (ours, peer, ours, peer...), and the ratio ``peer / ours`` is formed within each round, where both
    sides met the same machine state.

    Args:
        script: a pyperf script (its benchmarks registered with :func:`pyperf_main`).
        pairs: ``(ours, peer)`` benchmark names.
        rounds: rounds to run (one worker process per benchmark and round).
        values: timed values per worker process.

    Returns:
        ``(stats, ratios)``: ``stats`` as :func:`run_pyperf` returns it, over every round's values, and
        ``ratios[(ours, peer)]``: each round's ``median(peer) / median(ours)``.
    """
    pooled: dict[str, list[float]] = {name: [] for pair in pairs for name in pair}
    ratios: dict[tuple[str, str], list[float]] = {pair: [] for pair in pairs}
    for _ in range(rounds):
        got: dict[str, float] = {}
        for name in pooled:
            stats = run_pyperf(script, processes=1, values=values, only=[name])[name]
            pooled[name].extend(stats["values"])
            got[name] = stats["median"]
        for ours, peer in pairs:
            ratios[(ours, peer)].append(got[peer] / got[ours])
    stats = {
        name: {"median": statistics.median(vals), "mean": statistics.mean(vals),
               "stdev": statistics.stdev(vals) if len(vals) > 1 else 0.0, "values": vals}
        for name, vals in pooled.items()
    }
    return stats, ratios


def spread(stats: dict[str, Any]) -> str:
    """The relative standard deviation of a pyperf benchmark, as text."""
    return f"+-{100 * stats['stdev'] / stats['mean']:.0f}%" if stats["mean"] else ""


# -- wall-clock runs -----------------------------------------------------------------------------------


def interleaved(runs: dict[str, Callable[[], Any]], repeat: int, warmup: int = 1) -> dict[str, list[float]]:
    """Time each zero-argument callable ``repeat`` times, taking turns (A, B, A, B...), after ``warmup``
    untimed turns; return the wall times in seconds by name."""
    import time

    for _ in range(warmup):
        for func in runs.values():
            func()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, func in runs.items():
            start = time.perf_counter()
            func()
            times[name].append(time.perf_counter() - start)
    return times


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def dump(results: Sequence[Result]) -> str:
    """Results as JSON text (for a subprocess to hand back to run.py)."""
    return json.dumps([dataclasses.asdict(r) for r in results])


def load(text: str) -> list[Result]:
    return [Result(**item) for item in json.loads(text)]
