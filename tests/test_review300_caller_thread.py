"""Review 300 #4: a sync ``tool.invoke`` of a bridge (a sync wrapper running its ``async def`` itself) with no loop
running and no timeout ran it on a toolwire worker thread, where a plain sync tool and LangChain's ``invoke`` run on
the caller's thread: objects tied to that thread (a ``sqlite3`` connection) failed."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import sqlite3
import threading
from typing import Any

from toolwire import tool

DB = sqlite3.connect(":memory:")  # (usable on this thread only)
DB.execute("create table audit(x)")
REQUEST: contextvars.ContextVar[str | None] = contextvars.ContextVar("request", default=None)


def run_sync(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        DB.execute("insert into audit values (?)", (kwargs.get("x"),))
        if kwargs.get("x") == 0:  # (hands the coroutine back: it is still run to its end)
            return fn(*args, **kwargs)
        return asyncio.run(fn(*args, **kwargs))
    return wrapper


@tool
@run_sync
async def lookup(x: int) -> str:
    """Look up x."""
    return f"{x} on {threading.current_thread().name} for {REQUEST.get()}"


def test_a_bridge_runs_once_on_the_callers_thread_with_its_context() -> None:
    REQUEST.set("r1")
    rows = DB.execute("select count(*) from audit").fetchone()[0]
    assert lookup.invoke({"x": 1}) == f"1 on {threading.current_thread().name} for r1"
    assert lookup.invoke({"x": 0}).startswith("0 on ")  # (the coroutine handed back, awaited)
    assert DB.execute("select count(*) from audit").fetchone()[0] == rows + 2


async def _where() -> str:
    """Say which thread runs it."""
    return threading.current_thread().name


@functools.wraps(_where)
def where() -> str:
    return asyncio.run(_where())


def test_with_a_timeout_or_a_running_loop_it_runs_on_a_worker_thread() -> None:
    made = tool(where)
    here = threading.current_thread().name
    assert made.invoke({}) == here
    assert made.invoke({}, timeout=5) != here

    async def inside() -> str:
        return await made.ainvoke({})  # type: ignore[no-any-return]

    assert asyncio.run(inside()) != here
