"""B3: defining a tool with ``@tool`` (pyperf).

The function has five parameters, one of them a nested pydantic model, and a Google docstring.

* B3: ``tool(f)`` against LangChain's ``tool(f, parse_docstring=True)``. Goal: at least 10x faster.
  toolwire does all its signature and schema work here, at decoration time: the JSON Schema, the
  validator and the parameter descriptions are ready when ``tool`` returns.
* B3b: a *ready* tool, for a like-for-like view, since LangChain defers part of its work (the JSON
  Schema) until it is asked for: decorate, produce the OpenAI tool dict a model is sent
  (``convert_to_openai_tool``), and run the first call. Same goal.

Run alone: ``python benchmarks/bench_decorate.py`` (a pyperf script).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Result, fmt_time, median, paired_pyperf, pyperf_main, spread
from pydantic import BaseModel, Field


class Address(BaseModel):
    """A postal address."""

    street: str = Field(description="Street and house number.")
    city: str
    postcode: str | None = None


def register(name: str, age: int, address: Address, tags: list[str] = [], score: float = 0.5) -> str:  # noqa: B006
    """Register a person in the directory.

    The person is stored with their address and optional tags.

    Args:
        name: the person's full name.
        age: the age in years.
        address: where the person lives.
        tags: labels to file the person under.
        score: a confidence score between 0 and 1.
    """
    return f"{name} ({age}) registered in {address.city}"


ARGS = {"name": "Ada", "age": 36, "address": {"street": "1 Main St", "city": "London"}, "tags": ["x"], "score": 0.9}


def b3_toolwire(loops: int) -> float:
    from toolwire import tool

    func = register
    start = time.perf_counter()
    for _ in range(loops):
        tool(func)
    return time.perf_counter() - start


def b3_langchain(loops: int) -> float:
    from langchain_core.tools import tool as lc_tool

    func = register
    start = time.perf_counter()
    for _ in range(loops):
        lc_tool(func, parse_docstring=True)
    return time.perf_counter() - start


def ready_toolwire() -> Any:
    from toolwire import convert_to_openai_tool, tool

    made = tool(register)
    spec = convert_to_openai_tool(made)
    return made, spec, made.invoke(ARGS)


def ready_langchain() -> Any:
    from langchain_core.tools import tool as lc_tool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    made = lc_tool(register, parse_docstring=True)
    spec = convert_to_openai_tool(made)
    return made, spec, made.invoke(ARGS)


def b3b_toolwire(loops: int) -> float:
    ready_toolwire()  # imports
    start = time.perf_counter()
    for _ in range(loops):
        ready_toolwire()
    return time.perf_counter() - start


def b3b_langchain(loops: int) -> float:
    ready_langchain()
    start = time.perf_counter()
    for _ in range(loops):
        ready_langchain()
    return time.perf_counter() - start


BENCHMARKS = {"B3 toolwire": b3_toolwire, "B3 langchain": b3_langchain,
              "B3b toolwire": b3b_toolwire, "B3b langchain": b3b_langchain}


def check() -> None:
    """Both sides describe the same parameters (with the docstring's descriptions) and give the same result."""
    _, ours, result = ready_toolwire()
    _, theirs, their_result = ready_langchain()
    assert result == their_result, (result, their_result)
    ours_p, theirs_p = ours["function"]["parameters"], theirs["function"]["parameters"]
    assert list(ours_p["properties"]) == list(theirs_p["properties"]), (ours_p, theirs_p)
    assert ours_p["properties"]["age"].get("description") == theirs_p["properties"]["age"].get("description")


def run(processes: int) -> list[Result]:
    """B3 and B3b in ``processes`` alternating rounds (one pyperf worker per side and round); each ratio is
    the median of the rounds' ratios."""
    check()
    pairs = [("B3 toolwire", "B3 langchain"), ("B3b toolwire", "B3b langchain")]
    stats, ratios = paired_pyperf(Path(__file__), pairs, rounds=processes)
    tw, lc = stats["B3 toolwire"], stats["B3 langchain"]
    twb, lcb = stats["B3b toolwire"], stats["B3b langchain"]
    b3, b3b = median(ratios[pairs[0]]), median(ratios[pairs[1]])
    rounds = {pair: " ".join(f"{r:.1f}" for r in ratios[pair]) for pair in pairs}
    return [
        Result("B3", "@tool on a 5-parameter function (nested model, Google docstring)",
               "langchain-core @tool(parse_docstring=True)", b3, "LangChain time / toolwire time", ">= 10",
               b3 >= 10, f"toolwire {fmt_time(tw['median'])} {spread(tw)}, "
                         f"LangChain {fmt_time(lc['median'])} {spread(lc)}; ratio per round {rounds[pairs[0]]}"),
        Result("B3b", "the same, ready to use: decorate + OpenAI tool dict + first invoke",
               "langchain-core, the same three steps", b3b, "LangChain time / toolwire time", ">= 10",
               b3b >= 10, f"toolwire {fmt_time(twb['median'])} {spread(twb)}, "
                          f"LangChain {fmt_time(lcb['median'])} {spread(lcb)}; ratio per round {rounds[pairs[1]]}"),
    ]


if __name__ == "__main__":
    pyperf_main(BENCHMARKS)
