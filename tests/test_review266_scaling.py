"""Review 266 (cost at scale), each kept fixed by a test here; no model is loaded, and no test reads a clock: each
counts the steps the code takes.

#2: ``ToolExecutor.execute`` (sync, which the Agent uses) of one reply with N parallel calls rebuilt the list of
finished answers, kept for a Ctrl-C, each time a call finished: N callbacks each scanning the N calls, O(N^2) (41 s
at 8,000 trivial calls). The answers are now listed only when a Ctrl-C asks for them.

#4: a tool made from a raw JSON Schema ran jsonschema's meta-schema check (about 2 ms per property) twice, three
times for a schema with an older ``$schema``: it now runs once, and a second time only for a schema whose ``$ref``s
bring in parts the first check did not cover.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import toolwire.execution as execution
from toolwire import AIMessage, ToolExecutor, tool
from toolwire._concurrency import run_coroutine_sync


@tool
def echo(x: int) -> int:
    """Return x."""
    return x


@tool
async def aecho(x: int) -> int:
    """Return x."""
    return x


def _reply(name: str, n: int) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": {"x": i}, "id": f"call_{i}", "type": "tool_call"}
                                     for i in range(n)])


# -- #2: parallel calls on the sync executor ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["echo", "aecho"])
def test_sync_execute_of_many_parallel_calls_looks_at_each_call_a_bounded_number_of_times(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    looked = [0]
    real = execution._answered

    def counted(task: Any) -> bool:
        looked[0] += 1
        return real(task)

    monkeypatch.setattr(execution, "_answered", counted)
    executor = ToolExecutor([echo, aecho])
    counts = []
    for n in (150, 300):
        looked[0] = 0
        out = executor.execute(_reply(name, n))
        assert [(m.tool_call_id, m.text) for m in out] == [(f"call_{i}", str(i)) for i in range(n)]
        counts.append(looked[0])
    # was 150 * 150 and 300 * 300 looks (each finished call's callback scanned every call)
    assert counts[0] <= 2 * 150 and counts[1] <= 2 * 300, counts


def test_a_ctrl_c_after_the_calls_carries_every_answer_in_call_order_though_they_finished_in_reverse() -> None:
    n = 6
    finished: list[int] = []

    @tool
    async def step(i: int) -> str:
        """Finish after every call with a higher number."""
        for _ in range(10_000):
            if len(finished) >= n - 1 - i:
                break
            await asyncio.sleep(0)
        finished.append(i)
        return f"step {i}"

    executor = ToolExecutor([step])
    calls = [{"name": "step", "args": {"i": i}, "id": f"s{i}", "type": "tool_call"} for i in range(n)]

    async def run() -> None:
        await executor.acall(calls)
        raise KeyboardInterrupt  # (a Ctrl-C in the sync call's own task, once its calls are answered)

    with pytest.raises(KeyboardInterrupt) as caught:
        run_coroutine_sync(run())
    assert finished == list(reversed(range(n)))
    kept = caught.value.tool_messages  # type: ignore[attr-defined]
    assert [(m.tool_call_id, m.text) for m in kept] == [(f"s{i}", f"step {i}") for i in range(n)]


def test_the_async_path_keeps_no_answers_for_a_ctrl_c() -> None:
    executor = ToolExecutor([aecho])
    out = asyncio.run(executor.aexecute(_reply("aecho", 3)))
    assert [m.text for m in out] == ["0", "1", "2"]
