"""B4 and B5: running the tool calls of one AIMessage with ToolExecutor (wall clock).

Each sample is one whole execution (0.1 s to 1 s of sleeping tools), so these are timed directly
with ``time.perf_counter``: the runs take turns (toolwire, peer, toolwire, peer...) after one
untimed warm-up each, and the median is reported.

* B4: 10 sync tools that each sleep 0.2 s, all called in one AIMessage; against langgraph's ToolNode
  (in a one-node graph) on the same calls. Goal: at most 1.15x the 0.2 s limit, and below ToolNode.
* B5: 200 async tools that each sleep 0.1 s; with ``max_concurrency=None`` the limit is 0.1 s, with
  ``max_concurrency=20`` it is 1.0 s (10 waves). Goal: at most 1.2x each limit.

Run alone: ``python benchmarks/bench_executor.py``.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Result, fmt_time, interleaved, median

B4_SLEEP, B4_TOOLS = 0.2, 10
B5_SLEEP, B5_TOOLS = 0.1, 200


def _sync_tool(index: int) -> Any:
    def slow_lookup(key: int) -> str:
        """Look a key up in a slow service."""
        time.sleep(B4_SLEEP)
        return f"value of {key}"

    slow_lookup.__name__ = f"lookup_{index}"
    return slow_lookup


def _async_tool(index: int) -> Any:
    async def slow_fetch(key: int) -> str:
        """Fetch a key from a slow service."""
        await asyncio.sleep(B5_SLEEP)
        return f"value of {key}"

    slow_fetch.__name__ = f"fetch_{index}"
    return slow_fetch


def _calls(prefix: str, count: int) -> list[dict[str, Any]]:
    return [{"name": f"{prefix}_{i}", "args": {"key": i}, "id": f"call_{i}", "type": "tool_call"}
            for i in range(count)]


def b4(repeat: int) -> list[Result]:
    from langchain_core.messages import AIMessage as LCAIMessage
    from langchain_core.tools import tool as lc_tool
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode

    from toolwire import AIMessage, ToolExecutor, tool

    executor = ToolExecutor([tool(_sync_tool(i)) for i in range(B4_TOOLS)])
    message = AIMessage("", tool_calls=_calls("lookup", B4_TOOLS))  # type: ignore[arg-type]
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode([lc_tool(_sync_tool(i)) for i in range(B4_TOOLS)]))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    app = graph.compile()
    lc_message = LCAIMessage("", tool_calls=_calls("lookup", B4_TOOLS))

    ours = executor.execute(message)
    theirs = app.invoke({"messages": [lc_message]})["messages"][1:]
    assert [m.tool_call_id for m in ours] == [m.tool_call_id for m in theirs] == [f"call_{i}" for i in range(10)]
    assert [m.content for m in ours] == [m.content for m in theirs]

    times = interleaved({"toolwire": lambda: executor.execute(message),
                         "ToolNode": lambda: app.invoke({"messages": [lc_message]})}, repeat)
    tw, node = median(times["toolwire"]), median(times["ToolNode"])
    ratio = tw / B4_SLEEP
    return [Result("B4", f"ToolExecutor, {B4_TOOLS} sync tools sleeping {B4_SLEEP} s, one AIMessage",
                   f"limit {B4_SLEEP} s; langgraph ToolNode", ratio, "toolwire wall / 0.2 s", "<= 1.15, < ToolNode",
                   ratio <= 1.15 and tw < node,
                   f"toolwire {fmt_time(tw)}, ToolNode {fmt_time(node)} ({node / B4_SLEEP:.2f}x the limit; "
                   f"toolwire / ToolNode = {tw / node:.2f}); median of {repeat}")]


def b5(repeat: int) -> list[Result]:
    from toolwire import AIMessage, ToolExecutor, tool

    tools = [tool(_async_tool(i)) for i in range(B5_TOOLS)]
    message = AIMessage("", tool_calls=_calls("fetch", B5_TOOLS))  # type: ignore[arg-type]
    unbounded = ToolExecutor(tools)
    bounded = ToolExecutor(tools, max_concurrency=20)
    results = unbounded.execute(message)
    assert [m.tool_call_id for m in results] == [f"call_{i}" for i in range(B5_TOOLS)]
    assert all(m.status == "success" for m in results)

    times = interleaved({"none": lambda: unbounded.execute(message),
                         "20": lambda: bounded.execute(message)}, repeat)
    out = []
    for key, limit in (("none", B5_SLEEP), ("20", B5_SLEEP * B5_TOOLS / 20)):
        wall = median(times[key])
        out.append(Result(f"B5{'a' if key == 'none' else 'b'}",
                          f"ToolExecutor, {B5_TOOLS} async tools sleeping {B5_SLEEP} s, max_concurrency={key.title()}",
                          f"limit {limit:g} s", wall / limit, f"wall / {limit:g} s", "<= 1.2", wall / limit <= 1.2,
                          f"{fmt_time(wall)} (min {fmt_time(min(times[key]))}); median of {repeat}"))
    return out


def run(repeat: int = 5) -> list[Result]:
    return b4(repeat) + b5(repeat)


if __name__ == "__main__":
    started = time.perf_counter()
    for result in run():
        print(f"{result.id}: {result.ratio:.3f} ({result.ratio_of}; goal {result.goal}: {result.verdict}) "
              f"{result.context}")
    print(f"({time.perf_counter() - started:.1f} s)")
