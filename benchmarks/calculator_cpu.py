"""The calculator's CPU time per call against issue #4's limit: every input answers or refuses within 100 ms.

``python benchmarks/calculator_cpu.py`` (a few seconds; no model). It times ``toolwire.examples.arith.evaluate``
on the inputs of ``tests/calculator_corpus.py``, which ``tests/test_calculator.py`` checks for correctness: the same
hand-written hostile inputs and worst cases, and as many inputs drawn from the same strategies (600 arithmetic
trees, 1,000 mixes of dangerous tokens, 500 random texts; hypothesis seeds each function apart, so these are other
draws of the same kinds, the same on every run). Each input is timed in CPU seconds of this thread
(``time.thread_time``, which other processes on the machine do not inflate), the best of ``--repeat`` runs with
the garbage collector paused, since a collection of the whole heap (a third of a second once in CI, inside the
old timed test) is not the evaluator's work. It prints, per corpus, the median and the slowest input in
milliseconds with its share of the limit, and exits with status 1 when any input exceeds the limit.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from hypothesis import given, settings
from hypothesis.strategies import SearchStrategy

from calculator_corpus import HOSTILE, WORST_CASES, random_text, token_mixes, trees
from toolwire.examples.arith import CalculationError, evaluate

LIMIT = 0.100  # CPU seconds per call, issue #4


def generated(strategy: SearchStrategy[object], count: int, text: Callable[[object], str] = str) -> list[str]:
    """``count`` examples of ``strategy`` as hypothesis draws them for a test with a fixed seed, as text."""
    drawn: list[str] = []

    @settings(derandomize=True, database=None, deadline=None, max_examples=count)
    @given(strategy)
    def collect(example: object) -> None:
        drawn.append(text(example))

    collect()
    return drawn


def cpu_seconds(expression: str, repeat: int) -> float:
    """The best of ``repeat`` runs of ``evaluate(expression)``, in CPU seconds of this thread, GC paused."""
    best = float("inf")
    for _ in range(repeat):
        gc.disable()
        try:
            start = time.thread_time()
            with contextlib.suppress(CalculationError):
                evaluate(expression)
            best = min(best, time.thread_time() - start)
        finally:
            gc.enable()
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per input; the best is kept (default 3)")
    options = parser.parse_args()
    corpora = {
        "hostile inputs": list(HOSTILE),
        "worst cases": list(WORST_CASES),
        "arithmetic trees": generated(trees, 600, lambda tree: tree.text),  # type: ignore[attr-defined]
        "dangerous token mixes": generated(token_mixes, 1000),
        "random text": generated(random_text, 500),
    }
    gc.collect()
    gc.freeze()  # the corpus and hypothesis's state are never collected again: a pause stays short
    print(f"limit {LIMIT * 1000:.0f} ms of CPU per call; best of {options.repeat} runs per input")
    print(f"{'corpus':24s} {'inputs':>6s} {'median ms':>10s} {'slowest ms':>11s} {'of limit':>9s}  slowest input")
    over = 0
    for name, expressions in corpora.items():
        times = [cpu_seconds(expression, options.repeat) for expression in expressions]
        slowest = max(range(len(times)), key=times.__getitem__)
        over += sum(seconds > LIMIT for seconds in times)
        shown = repr(expressions[slowest])
        shown = shown if len(shown) <= 48 else shown[:45] + "..."
        print(
            f"{name:24s} {len(times):6d} {statistics.median(times) * 1000:10.3f} {times[slowest] * 1000:11.3f} "
            f"{times[slowest] / LIMIT:9.1%}  {shown}"
        )
    print(f"{over} inputs over the limit")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
