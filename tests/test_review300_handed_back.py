"""Review 300 #2: a sync wrapper of an ``async def`` that hands back a task or future for the caller's loop but names
``new_event_loop`` (a "get or create a loop" helper, a fallback branch) or ``run_coroutine_threadsafe``
(``wrap_future(run_coroutine_threadsafe(...))``) was taken for a bridge and called on a worker thread, where it failed;
only what runs a loop to its end makes a bridge now, and such a wrapper is called on the loop's thread again.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from bridge_kit import TENANT, WORK, answers, call, create_ticket
from toolwire import ToolExecutor, tool
from toolwire._bridges import BRIDGE
from toolwire._signature import sync_wrapper

_create_ticket, _call, _answers = create_ticket, call, answers


# -- #2 ------------------------------------------------------------------------------------------------------------

def _get_loop() -> asyncio.AbstractEventLoop:  # "get or create a loop": names new_event_loop, runs nothing
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        return loop


def _scheduled(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        TENANT.set("scheduled")
        return _get_loop().create_task(fn(*args, **kwargs))
    return wrapper


def _scheduled_inline(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        TENANT.set("scheduled")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a fallback branch never taken under toolwire
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
        return loop.create_task(fn(*args, **kwargs))
    return wrapper


@pytest.mark.parametrize("wrap", [_scheduled, _scheduled_inline])
def test_a_wrapper_naming_new_event_loop_that_hands_back_a_task_stays_on_the_loop(wrap: Any) -> None:
    made = tool(wrap(_create_ticket), name="create_ticket")
    assert sync_wrapper(made.func) is True
    assert asyncio.run(made.ainvoke({"order_id": "7"})) == "TCK-7 for scheduled"
    assert asyncio.run(ToolExecutor([made]).aexecute([_call()]))[0].content == "TCK-7 for scheduled"
    assert ToolExecutor([made], timeout=5).execute([_call()])[0].content == "TCK-7 for scheduled"


@pytest.fixture
def background_loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield loop
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()


def test_a_wrapper_handing_back_a_future_of_run_coroutine_threadsafe_stays_on_the_loop(
        background_loop: asyncio.AbstractEventLoop) -> None:
    ran: list[str] = []

    async def fetch(q: str) -> str:
        """Fetch a page.

        Args:
            q: what to fetch.
        """
        ran.append(q)
        return q

    @functools.wraps(fetch)
    def on_background(*args: Any, **kwargs: Any) -> Any:
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(fetch(*args, **kwargs), background_loop))

    made = tool(on_background, name="fetch")
    assert sync_wrapper(made.func) is True
    call = {"name": "fetch", "args": {"q": "a"}, "id": "c", "type": "tool_call"}
    assert asyncio.run(ToolExecutor([made]).aexecute([call]))[0].content == "a"
    assert asyncio.run(made.ainvoke({"q": "b"})) == "b"
    assert ran == ["a", "b"]


def test_a_wrapper_waiting_for_run_coroutine_threadsafe_is_a_bridge(
        background_loop: asyncio.AbstractEventLoop) -> None:
    @functools.wraps(_create_ticket)
    def waits(**kwargs: Any) -> Any:
        WORK.append("audit")
        return asyncio.run_coroutine_threadsafe(_create_ticket(**kwargs), background_loop).result(timeout=5)

    made = tool(waits, name="create_ticket")
    assert sync_wrapper(made.func) == BRIDGE
    WORK.clear()
    assert _answers(made) == ["TCK-7 for None"] * 5  # (run on the background loop: its own context)
    assert WORK == ["audit"] * 5


