"""Test helper for the "bridge" tests (a sync wrapper of an ``async def`` that runs it itself): the async function
the wrappers wrap, the record of their own work, a context variable to see the caller's context, and one call of a
tool each way it can be called."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

from toolwire import ToolExecutor

WORK: list[str] = []  # one entry per run of a wrapper's own work
TENANT: contextvars.ContextVar[str | None] = contextvars.ContextVar("tenant300", default=None)


async def create_ticket(order_id: str) -> str:
    """Open a support ticket.

    Args:
        order_id: The order id.
    """
    await asyncio.sleep(0)
    return f"TCK-{order_id} for {TENANT.get()}"


def call(name: str = "create_ticket", **args: Any) -> dict[str, Any]:
    """A tool call of ``name`` (``order_id="7"`` unless ``args`` are given), id ``c1``."""
    return {"name": name, "args": args or {"order_id": "7"}, "id": "c1", "type": "tool_call"}


def answers(made: Any, timeout: float | None = None) -> list[Any]:
    """One call each way a tool is called: invoke (a call, bare arguments), ainvoke, the executor, sync and async."""
    executor = ToolExecutor([made], timeout=timeout)
    return [made.invoke(call(), timeout=timeout).content, made.invoke({"order_id": "7"}, timeout=timeout),
            asyncio.run(made.ainvoke({"order_id": "7"}, timeout=timeout)), executor.execute([call()])[0].content,
            asyncio.run(executor.aexecute([call()]))[0].content]
