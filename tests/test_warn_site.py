"""Where toolwire's warnings point (``toolwire._warn_site``): the user's line, also when the warning is issued in an
event loop's task or on a batch's worker thread (review 100: they pointed into asyncio's events.py and threading.py)."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolwire import Agent, AIMessage, tool
from toolwire.errors import ToolDefinitionWarning
from toolwire.testing import ScriptedChatModel


@tool
def add_to_cart(item: str) -> str:
    """Add an item to the cart."""
    return "ok"


def _script(runs: int = 1) -> list[Any]:
    twice = [{"name": "add_to_cart", "args": {"item": "apple"}, "id": f"c{i}"} for i in (1, 2)]
    return [AIMessage("", tool_calls=twice), "done"] * runs


def _agent(runs: int = 1) -> Agent:
    return Agent(ScriptedChatModel(_script(runs)), [add_to_cart])


def _sites(run: Callable[[], Any]) -> list[tuple[str, int]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    return [(w.filename, w.lineno) for w in caught if "repeated call" in str(w.message)]


async def _awaited() -> Any:
    return await _agent().ainvoke("q")


def _line(marker: str) -> int:
    source = Path(__file__).read_text(encoding="utf-8").splitlines()
    return next(number for number, text in enumerate(source, 1) if marker in text and "_line(" not in text)


@pytest.mark.parametrize(("how", "marker", "count"), [
    ("invoke", "invoke-line", 1),
    ("asyncio.run(ainvoke)", "ainvoke-line", 1),
    ("await ainvoke", "return await _agent().ainvoke", 1),
    ("batch", "batch-line", 2),
    ("asyncio.run(abatch)", "abatch-line", 2),
    ("stream", "stream-line", 1),
])
def test_the_repeated_call_warning_points_at_the_users_line(how: str, marker: str, count: int) -> None:
    runs: dict[str, Callable[[], Any]] = {
        "invoke": lambda: _agent().invoke("q"),  # invoke-line
        "asyncio.run(ainvoke)": lambda: asyncio.run(_agent().ainvoke("q")),  # ainvoke-line
        "await ainvoke": lambda: asyncio.run(_awaited()),
        "batch": lambda: _agent(2).batch(["q", "r"], max_concurrency=1),  # batch-line
        "asyncio.run(abatch)": lambda: asyncio.run(_agent(2).abatch(["q", "r"], max_concurrency=1)),  # abatch-line
        "stream": lambda: list(_agent().stream("q")),  # stream-line
    }
    assert _sites(runs[how]) == [(__file__, _line(marker if " " in marker else f"# {marker}"))] * count


def test_a_batch_inside_a_running_loop_still_points_at_its_line() -> None:
    # (a loop already runs: batch runs its own loop on a worker thread, which inherits the kept line)
    async def main() -> list[tuple[str, int]]:
        return _sites(lambda: _agent(2).batch(["q", "r"], max_concurrency=1))  # loop-batch-line

    assert asyncio.run(main()) == [(__file__, _line("# loop-batch-line"))] * 2


def test_a_tool_definition_warning_points_at_the_decorated_function() -> None:
    with pytest.warns(ToolDefinitionWarning) as caught:
        @tool  # decorator-line
        def documented(city: str) -> str:
            """Look up a city.

            Args:
                town: the town.
            """
            return city
    assert {(w.filename, w.lineno) for w in caught} <= {(__file__, _line("# decorator-line")),
                                                        (__file__, _line("# decorator-line") + 1)}


def test_a_run_started_by_a_tool_inside_a_batch_points_at_the_tools_line() -> None:
    # (review 102: the batch's kept line won over the nearer user frame, the tool that started the inner run)
    @tool
    def delegate(q: str) -> str:
        """Ask a helper agent."""
        return asyncio.run(_agent().ainvoke(q)).output  # delegate-line

    call = {"name": "delegate", "args": {"q": "x"}, "id": "d1"}
    outer = Agent(ScriptedChatModel([AIMessage("", tool_calls=[call]), "ok"] * 2), [delegate])
    assert _sites(lambda: outer.batch(["a", "b"], max_concurrency=1)) == [(__file__, _line("# delegate-line"))] * 2
