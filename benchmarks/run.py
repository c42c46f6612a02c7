"""Run every benchmark (issue [6]), print the table, and write benchmarks/RESULTS.md.

    python benchmarks/run.py                 # B1-B9 (B7-B9 need llama-cpp-python and the default GGUF)
    python benchmarks/run.py --no-model      # B1-B6 only, about 2 minutes
    python benchmarks/run.py --only B1,B3    # a subset

Every result is a ratio against its peer (another library on the same task) or its limit, measured
side by side in the same run; absolute times are printed as context only. The machine is noted
(CPU model, cores, Python, date, load average) because the ratios, not the times, are what carry
from one machine to another.

B1-B3 and B6 use pyperf (several worker processes, calibrated loops; the median is reported).
B4, B5 and B7-B9 time whole runs of 0.1 s to minutes with time.perf_counter, alternating with their
peer; B4 and B5 report the median, B7 and B8 the best run, B9 one pass. B7-B9 run in a separate interpreter
that has llama-cpp-python (--model-python when given, else this one, else the repository's .venv).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, Result, load, machine, skipped

HERE = Path(__file__).resolve().parent
MODEL_IDS = ("B7", "B8", "B9")


def _has(module: str, python: str | None = None) -> bool:
    if python is None:
        return importlib.util.find_spec(module) is not None
    probe = subprocess.run([python, "-c", f"import {module}"], capture_output=True, check=False)
    return probe.returncode == 0


def model_python(choice: str | None) -> str | None:
    """An interpreter that can import llama_cpp: --model-python, this one, or the repository's .venv."""
    if choice:
        return choice
    if _has("llama_cpp"):
        return sys.executable
    venv = ROOT / ".venv" / "bin" / "python"
    if venv.exists() and _has("llama_cpp", str(venv)):
        return str(venv)
    return None


def run_models(python: str | None, only: set[str] | None, repeat: int, log: list[str]) -> list[Result]:
    wanted = [i for i in MODEL_IDS if not only or i in only]
    if not wanted:
        return []
    if python is None:
        return [skipped(i, "embedded model (ChatLlamaCpp)", "", "", "no interpreter with llama-cpp-python "
                        "(install toolwire[local] or pass --model-python)") for i in wanted]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "model.json"
        cmd = [python, str(HERE / "bench_model.py"), "--json", str(out), "--repeat", str(repeat),
               "--only", ",".join(wanted)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=3600)
        if proc.returncode != 0 or not out.exists():
            why = (proc.stderr.strip().splitlines() or ["failed"])[-1][:200]
            return [skipped(i, "embedded model (ChatLlamaCpp)", "", "", f"bench_model.py failed: {why}")
                    for i in wanted]
        data = json.loads(out.read_text())
    log.extend(data["log"])
    return load(json.dumps(data["results"]))


def groups(opts: argparse.Namespace) -> list[tuple[tuple[str, ...], list[str], Callable[[], list[Result]]]]:
    """(result ids, modules needed, how to run) for each group of benchmarks."""

    def pyperf_group(name: str) -> Callable[[], list[Result]]:
        return lambda: importlib.import_module(name).run(opts.processes)

    return [
        (("B1", "B2"), ["pyperf", "langchain_core"], pyperf_group("bench_invoke")),
        (("B3", "B3b"), ["pyperf", "langchain_core"], pyperf_group("bench_decorate")),
        (("B4", "B5a", "B5b"), ["langgraph", "langchain_core"],
         lambda: importlib.import_module("bench_executor").run(opts.repeat)),
        (("B6", "B6b"), ["pyperf"], pyperf_group("bench_merge")),
    ]


def table(results: list[Result]) -> str:
    head = "| # | what | peer or limit | ratio | ratio is | goal | goal met | context (absolute, for information) |"
    lines = [head, "|---|---|---|---|---|---|---|---|"]
    for r in results:
        ratio = f"**{r.ratio:.3g}**" if r.ratio is not None else "-"
        lines.append(f"| {r.id} | {r.what} | {r.peer} | {ratio} | {r.ratio_of} | {r.goal} | {r.verdict} | "
                     f"{r.context} |")
    return "\n".join(lines)


def write_results(path: Path, results: list[Result], facts: dict[str, str], seconds: float, log: list[str],
                  opts: argparse.Namespace) -> None:
    parts = [
        "# Benchmark results",
        "",
        "Written by `python benchmarks/run.py` (see `benchmarks/README.md`). Each result is a ratio measured",
        "side by side, in this one run, against its peer or its limit; absolute times are context only,",
        "since the machine is shared and its load varies.",
        "",
        "## Machine",
        "",
        *[f"- {key}: {value}" for key, value in facts.items()],
        f"- run: {seconds:.0f} s, pyperf processes per benchmark: {opts.processes}, "
        f"wall-clock repeats: {opts.repeat}" + (", model benchmarks skipped (--no-model)" if opts.no_model else ""),
        "",
        "## Results",
        "",
        table(results),
    ]
    if log:
        parts += ["", "## Model runs (log)", "", "```", *log, "```"]
    path.write_text("\n".join(parts) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-model", action="store_true", help="skip B7-B9 (the embedded model)")
    parser.add_argument("--only", help="comma-separated ids, e.g. B1,B3,B7")
    parser.add_argument("--processes", type=int, default=6, help="pyperf worker processes per benchmark (6)")
    parser.add_argument("--repeat", type=int, default=5, help="timed repeats of the wall-clock benchmarks (5)")
    parser.add_argument("--model-repeat", type=int, default=5, help="timed repeats of B7 and B8 (5)")
    parser.add_argument("--model-python", help="an interpreter with llama-cpp-python, for B7-B9")
    parser.add_argument("--model-threads", type=int, help="llama.cpp threads for B7-B9 (default: all cores)")
    parser.add_argument("--out", default=str(HERE / "RESULTS.md"), help="where to write the results")
    opts = parser.parse_args()
    only = {x.strip().upper() for x in opts.only.split(",")} if opts.only else None

    facts = machine()
    print(", ".join(f"{k}: {v}" for k, v in facts.items()))
    started = time.perf_counter()
    results: list[Result] = []
    for ids, needs, func in groups(opts):
        if only and not any(i in only or i.rstrip("ab") in only for i in ids):
            continue
        missing = [m for m in needs if not _has(m)]
        if missing:
            results += [skipped(i, "", "", "", f"{', '.join(missing)} not installed (pip install -e '.[bench]')")
                        for i in ids]
            continue
        group_start = time.perf_counter()
        try:
            results += func()
        except Exception as exc:  # one broken group must not hide the others
            results += [skipped(i, "", "", "", f"error: {type(exc).__name__}: {exc}"[:300]) for i in ids]
        print(f"  {'/'.join(ids)}: {time.perf_counter() - group_start:.0f} s", flush=True)
    log: list[str] = []
    if opts.no_model:
        results += [skipped(i, "embedded model (ChatLlamaCpp)", "", "", "--no-model") for i in MODEL_IDS
                    if not only or i in only]
    else:
        group_start = time.perf_counter()
        if opts.model_threads:
            os.environ["TOOLWIRE_BENCH_THREADS"] = str(opts.model_threads)
        results += run_models(model_python(opts.model_python), only, opts.model_repeat, log)
        print(f"  B7/B8/B9: {time.perf_counter() - group_start:.0f} s", flush=True)
    seconds = time.perf_counter() - started

    print()
    print(table(results))
    out = Path(opts.out)
    write_results(out, results, facts, seconds, log, opts)
    print(f"\nwritten to {out} ({seconds:.0f} s)")
    failed = [r.id for r in results if r.ok is False]
    if failed:
        print(f"goals not met: {', '.join(failed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
