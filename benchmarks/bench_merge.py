"""B6: merging a streamed AIMessage from N tool-call argument chunks (pyperf).

The argument text of one tool call (a JSON object holding a list of N numbers, about 6N characters)
arrives in N chunks, as a provider streams it.

* B6: ``merge_chunks(chunks, as_chunk=False)`` (the final AIMessage, arguments parsed), N = 1,000 and
  10,000. Goal: linear growth, time(10,000) / time(1,000) at most 12.
* B6b: the same merge written as ``full = full + chunk`` in the stream loop, the pairwise form users
  often write; reported for information (each ``+`` copies the argument text so far).

Run alone: ``python benchmarks/bench_merge.py`` (a pyperf script).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Result, fmt_time, pyperf_main, run_pyperf, spread

SIZES = (1_000, 10_000)
_chunks: dict[int, list[Any]] = {}


def chunks(n: int) -> list[Any]:
    """N AIMessageChunks carrying one call's argument JSON, cut into N pieces of about equal size."""
    if n not in _chunks:
        from toolwire.messages import AIMessageChunk

        text = json.dumps({"values": list(range(n))})
        step = len(text) / n
        cuts = [round(i * step) for i in range(n)] + [len(text)]
        out = []
        for i in range(n):
            out.append(AIMessageChunk(tool_call_chunks=[{
                "name": "store" if i == 0 else None, "args": text[cuts[i]:cuts[i + 1]],
                "id": "call_1" if i == 0 else None, "index": 0, "type": "tool_call_chunk"}]))
        _chunks[n] = out
    return _chunks[n]


def merge(n: int) -> Any:
    from toolwire.messages import merge_chunks

    return merge_chunks(chunks(n), as_chunk=False)


def add_up(n: int) -> Any:
    parts = chunks(n)
    full = parts[0]
    for part in parts[1:]:
        full = full + part
    return full.to_message()


def timer(func: Any, n: int) -> Any:
    def time_func(loops: int) -> float:
        chunks(n)
        start = time.perf_counter()
        for _ in range(loops):
            func(n)
        return time.perf_counter() - start

    return time_func


BENCHMARKS = {f"B6 merge {n}": timer(merge, n) for n in SIZES} | {f"B6b add {n}": timer(add_up, n) for n in SIZES}


def check() -> None:
    for n in SIZES:
        message = merge(n)
        assert message.tool_calls[0]["args"] == {"values": list(range(n))}
        assert add_up(n) == message


def run(processes: int) -> list[Result]:
    check()
    stats = run_pyperf(Path(__file__), processes=processes)
    small, large = (stats[f"B6 merge {n}"] for n in SIZES)
    add_small, add_large = (stats[f"B6b add {n}"] for n in SIZES)
    growth = large["median"] / small["median"]
    add_growth = add_large["median"] / add_small["median"]
    return [
        Result("B6", "merge_chunks of one AIMessage from N argument chunks", "linear growth",
               growth, "time(10,000) / time(1,000)", "<= 12", growth <= 12,
               f"N=1,000 {fmt_time(small['median'])} {spread(small)}, "
               f"N=10,000 {fmt_time(large['median'])} {spread(large)}"),
        Result("B6b", "the same merge as full = full + chunk", "linear growth (information)",
               add_growth, "time(10,000) / time(1,000)", "(none)", None,
               f"N=1,000 {fmt_time(add_small['median'])}, N=10,000 {fmt_time(add_large['median'])}"),
    ]


if __name__ == "__main__":
    pyperf_main(BENCHMARKS)
