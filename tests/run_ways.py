"""Test helper: run a model or an Agent one of the four ways a user can (invoke, ainvoke, stream, astream)."""

from __future__ import annotations

import asyncio
from typing import Any

WAYS = ["invoke", "ainvoke", "stream", "astream"]


def run_as(how: str, runnable: Any, given: Any, **stream_options: Any) -> Any:
    """Run ``runnable`` on ``given`` the way ``how`` (one of :data:`WAYS`) names, to its end.

    Returns what ``invoke``/``ainvoke`` return, or the list of what a stream yielded; ``stream_options``
    (``stream_mode=...``) go to ``stream``/``astream`` only. What the run raises propagates.
    """
    if how == "invoke":
        return runnable.invoke(given)
    if how == "ainvoke":
        return asyncio.run(runnable.ainvoke(given))
    if how == "stream":
        return list(runnable.stream(given, **stream_options))

    async def streamed() -> list[Any]:
        return [part async for part in runnable.astream(given, **stream_options)]

    return asyncio.run(streamed())
