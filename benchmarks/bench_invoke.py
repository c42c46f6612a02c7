"""B1 and B2: invoking a tool (pyperf).

* B1: ``tool.invoke(tool_call)`` -> ToolMessage for a trivial tool with three typed arguments, against
  LangChain's ``tool.invoke(tool_call)`` on the same function. Goal: at least 50x faster.
* B2: ``tool.invoke(args)`` against the plain way of doing the same by hand: pydantic validation of the
  same three fields (``TypeAdapter(TypedDict).validate_python``), then calling the function. Goal: at
  most 3 us more.

Run alone: ``python benchmarks/bench_invoke.py`` (a pyperf script; ``--help`` for pyperf's options).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Result, fmt_time, pyperf_main, run_pyperf, spread

CALL = {"name": "add3", "args": {"a": 7, "b": "x", "c": 2.5}, "id": "call_1", "type": "tool_call"}
ARGS = CALL["args"]
B2_LIMIT = 3e-6


def add3(a: int, b: str, c: float) -> str:
    """Join three values.

    Args:
        a: a whole number.
        b: a word.
        c: a number.
    """
    return f"{a}{b}{c}"


class Add3Args(TypedDict):
    a: int
    b: str
    c: float


_made: dict[str, Any] = {}


def _once(key: str, make: Any) -> Any:
    if key not in _made:
        _made[key] = make()
    return _made[key]


def toolwire_tool() -> Any:
    from toolwire import tool

    return _once("toolwire", lambda: tool(add3))


def langchain_tool() -> Any:
    from langchain_core.tools import tool as lc_tool

    return _once("langchain", lambda: lc_tool(add3))


def plain_validator() -> Any:
    from pydantic import TypeAdapter

    return _once("plain", lambda: TypeAdapter(Add3Args).validate_python)


def b1_toolwire(loops: int) -> float:
    invoke, call = toolwire_tool().invoke, CALL
    start = time.perf_counter()
    for _ in range(loops):
        invoke(call)
    return time.perf_counter() - start


def b1_langchain(loops: int) -> float:
    invoke, call = langchain_tool().invoke, CALL
    start = time.perf_counter()
    for _ in range(loops):
        invoke(call)
    return time.perf_counter() - start


def b2_toolwire(loops: int) -> float:
    invoke, args = toolwire_tool().invoke, ARGS
    start = time.perf_counter()
    for _ in range(loops):
        invoke(args)
    return time.perf_counter() - start


def b2_plain(loops: int) -> float:
    validate, func, args = plain_validator(), add3, ARGS
    start = time.perf_counter()
    for _ in range(loops):
        func(**validate(args))
    return time.perf_counter() - start


BENCHMARKS = {"B1 toolwire": b1_toolwire, "B1 langchain": b1_langchain,
              "B2 toolwire": b2_toolwire, "B2 plain": b2_plain}


def check() -> None:
    """The two sides do the same work: same message content and id, same raw result."""
    ours, theirs = toolwire_tool().invoke(CALL), langchain_tool().invoke(CALL)
    assert (ours.content, ours.tool_call_id) == (theirs.content, theirs.tool_call_id), (ours, theirs)
    assert toolwire_tool().invoke(ARGS) == add3(**plain_validator()(ARGS))


def run(processes: int) -> list[Result]:
    check()
    stats = run_pyperf(Path(__file__), processes=processes)
    tw1, lc1 = stats["B1 toolwire"], stats["B1 langchain"]
    tw2, plain2 = stats["B2 toolwire"], stats["B2 plain"]
    b1 = lc1["median"] / tw1["median"]
    extra = tw2["median"] - plain2["median"]
    return [
        Result("B1", "tool.invoke(tool_call) -> ToolMessage, 3 typed args",
               "langchain-core tool.invoke(tool_call)", b1, "LangChain time / toolwire time", ">= 50",
               b1 >= 50, f"toolwire {fmt_time(tw1['median'])} {spread(tw1)}, "
                         f"LangChain {fmt_time(lc1['median'])} {spread(lc1)}"),
        Result("B2", "tool.invoke(args)", "pydantic TypeAdapter validate + plain call (limit: +3 us)",
               extra / B2_LIMIT, "(toolwire - plain) / 3 us", "<= 1", extra <= B2_LIMIT,
               f"toolwire {fmt_time(tw2['median'])} {spread(tw2)}, plain {fmt_time(plain2['median'])} "
               f"{spread(plain2)}: {extra * 1e6:+.2f} us ({tw2['median'] / plain2['median']:.2f}x plain)"),
    ]


if __name__ == "__main__":
    pyperf_main(BENCHMARKS)
