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


async def _leave(code: int) -> str:
    """Leave or be interrupted."""
    if code < 0:
        raise KeyboardInterrupt
    raise SystemExit(code)


@functools.wraps(_leave)
def handing_back(code: int) -> Any:
    if code == 99:
        return asyncio.run(_leave(code))
    return _leave(code)  # (a bridge by its code, handing its coroutine back on this path: review 306 #1, #2)


def test_a_coroutine_a_bridge_hands_back_exits_or_is_interrupted_as_the_tools_own() -> None:
    import pytest

    from toolwire.errors import ToolExecutionError
    from toolwire.messages import tool_call

    made = tool(handing_back)
    answer = made.invoke(tool_call(made.name, {"code": 3}, "c1"))
    assert answer.status == "error" and "tried to exit the program (sys.exit(3))" in answer.content
    strict = tool(handing_back, handle_errors=False)
    with pytest.raises(ToolExecutionError, match="tried to exit"):
        strict.invoke({"code": 3})
    with pytest.raises(KeyboardInterrupt):
        made.invoke({"code": -1})
