"""Stopping the tool calls still running after one failed (``handle_errors=False``) or the run was cancelled: each
gets :data:`~toolwire._tool_run.CANCEL_GRACE` seconds to end, and one that ignores its cancellation is given up, so a
stopped run always ends (used by :class:`~toolwire.execution.ToolExecutor`; moved here from :mod:`toolwire.execution`
to keep that module short).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Collection
from typing import Any

from toolwire import _grace, _tool_run
from toolwire._printing import safe_text

__all__ = ["stop_calls"]

log = logging.getLogger("toolwire.tools")

_ABANDONED_END = 0.1
"""Seconds :func:`stop_calls` waits for the tasks it gave up to end (a few passes of the event loop)."""


async def stop_calls(tasks: list[asyncio.Future[Any]], calls: list[Any], failure: BaseException,
                     threads: Collection[int] = ()) -> tuple[BaseException, list[int]]:
    """Cancel the calls' ``tasks`` still running after ``failure`` (a call failed with ``handle_errors=False``, or
    the run was cancelled) and wait for them to end, at most :data:`~toolwire._tool_run.CANCEL_GRACE` seconds (their
    cleanup). A call still running then ignores its cancellation (an async tool that catches ``CancelledError`` and
    goes on): it is abandoned, its tool's coroutine closed, as at a timeout, with the helper tasks the tool awaits
    that ignore their cancellation too (:func:`~toolwire._grace.give_up_calls`, review 210 #2), so it cannot hold
    the run and the answers already given (review 65: the wait had no end, and a Ctrl-C that ended it lost them).
    When the run was interrupted, the answers the event loop already received (a sync tool that finished while an
    async one blocked the loop) land first: one pass of the loop before the cancellations.

    The wait goes on when the run is cancelled again meanwhile (an anyio cancel scope, Starlette's on a client's
    disconnect, cancels at every ``await``; a task cancelled twice): only a new Ctrl-C ends it early
    (:func:`~toolwire._grace.wait_through`; review 196 #1: the tools were given up at once, with no cleanup).

    ``threads``: the indexes of the calls of sync tools and of bridges (sync wrappers running their ``async def`` on
    a worker thread: review 313 #2), whose threads cannot be stopped (their tasks are given up, the threads run on:
    the log says so, review 272 #4).

    Returns:
        ``(the error to raise, the indexes of the calls given up)``: ``failure``, or a new Ctrl-C that came during
        the wait, or the run's cancellation that came then when ``failure`` was not one; the calls still running
        after the wait, which were abandoned.
    """
    again: BaseException | None = None
    interrupted = False
    try:
        if isinstance(failure, asyncio.CancelledError | KeyboardInterrupt):
            with contextlib.suppress(asyncio.CancelledError):  # (the pass is made when cancelled again too)
                await asyncio.sleep(0)
        for task in tasks:
            task.cancel()
        interrupted, again = await _grace.wait_calls(tasks, _tool_run.CANCEL_GRACE)  # (a timed call's tool too)
    except KeyboardInterrupt as interrupt:  # a second Ctrl-C (inside asyncio.run): stop waiting
        again, interrupted = interrupt, True
    if (again is not None and not isinstance(failure, asyncio.CancelledError)) or isinstance(again, KeyboardInterrupt):
        failure = again
    indexes = [i for i, task in enumerate(tasks) if not task.done()]
    stuck = [(tasks[i], calls[i]) for i in indexes]
    given_up: list[asyncio.Future[Any]] = []
    if (helpers := _grace.started(tasks, interrupted)) or stuck:  # (with the tool's own task and the helper tasks
        given_up = await _grace.give_up_calls([*(task for task, _ in stuck), *helpers], interrupted)  # it awaits)
    if helpers and not stuck:  # (a timed call's tool, whose call was answered)
        log.warning("%d task(s) started by tool calls were still running after the run stopped (they ignore "
                    "cancellation); their coroutines were closed", len(helpers))
    if given_up and not interrupted:  # the few passes of the loop that end them (cancelled: asyncio.run's end, and a
        await _grace.wait_through(given_up, _ABANDONED_END)  # new Ctrl-C's, then has nothing to log: review 203 #1)
    closed = [safe_text(calls[i].get("name")) for i in indexes if i not in threads]
    running = [safe_text(calls[i].get("name")) for i in indexes if i in threads]
    when = ("at a new interrupt, while the run was stopping," if interrupted else f"{_tool_run.CANCEL_GRACE:g}s "
            "after the run stopped (they ignore cancellation, or their cleanup takes longer)")
    if closed:
        log.warning("%d tool call(s) still running %s were given up, their coroutines closed: %s", len(closed), when,
                    ", ".join(closed))
    if running:  # (a sync tool's or a bridge's thread cannot be stopped: review 272 #4, review 313 #2)
        log.warning("%d sync tool call(s) still running %s were given up; their threads cannot be stopped and may "
                    "still finish and take effect: %s", len(running), when, ", ".join(running))
    return failure, indexes
