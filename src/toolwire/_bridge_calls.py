"""A bridge tool's sync call on the caller's thread (review 300 #4).

A bridge is a sync ``functools.wraps`` wrapper that runs its ``async def`` itself (``asyncio.run``,
``run_until_complete``, ``async_to_sync``: :mod:`toolwire._bridges`). A sync ``tool.invoke`` with no event loop
running on the caller's thread and no timeout calls it right there, as a plain sync tool is called and as LangChain's
``invoke`` calls it, so objects tied to that thread (a ``sqlite3`` connection) work; with a loop running or a timeout
it runs on a worker thread (:func:`toolwire._tool_run.guarded`).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from typing import Any

from toolwire._concurrency import run_coroutine_sync
from toolwire._tool_run import guarded, unwrapped

__all__ = ["bridged"]


def bridged(tool: Any, kwargs: dict[str, Any]) -> Any:
    """Call the bridge tool ``tool``'s function with validated ``kwargs`` on this thread, in a copy of the caller's
    context, and return its value; a coroutine or async generator it hands back after all is run to its end (an
    async generator's items gathered into a list) as the tool's async path runs one (:func:`~toolwire._tool_run.
    guarded`: ``sys.exit()`` in it is the tool's error, a ``KeyboardInterrupt`` is raised as itself).

    Raises:
        Exception: whatever the function raises; KeyboardInterrupt: one raised in it.
    """
    result = contextvars.copy_context().run(tool._call, kwargs)
    if inspect.isawaitable(result) or inspect.isasyncgen(result):
        return run_coroutine_sync(_settled(_Returned(tool, result)))
    return result


async def _settled(returned: _Returned) -> Any:
    return await unwrapped(asyncio.get_running_loop().create_task(guarded(returned, {})))


class _Returned:
    """The tool as :func:`guarded` sees it, its function giving back the value the bridge handed back (its other
    attributes, ``name`` and ``_exit_error`` among them, are the tool's)."""

    _off_loop = False

    def __init__(self, tool: Any, value: Any) -> None:
        self.tool, self.value = tool, value

    def __getattr__(self, name: str) -> Any:
        return getattr(self.tool, name)

    def _call(self, kwargs: dict[str, Any]) -> Any:
        return self.value
