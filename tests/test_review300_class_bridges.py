"""Review 300 #1: a class-based bridge decorator (``functools.update_wrapper(self, fn)``, its ``__call__`` running the
coroutine with ``asyncio.run`` or ``new_event_loop().run_until_complete``) ran twice per call, or failed on every call:
its ``__call__`` is now read as the wrapper's code, and the tool calls it once, on a worker thread.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import pytest

from bridge_kit import TENANT, WORK, answers, call, create_ticket
from toolwire import tool
from toolwire._bridges import BRIDGE
from toolwire._signature import sync_wrapper

_create_ticket, _call, _answers = create_ticket, call, answers


# -- #1 ------------------------------------------------------------------------------------------------------------

class _RunSync:
    """A class-based bridge decorator: ``asyncio.run`` in ``__call__``."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        WORK.append("audit")  # work done before the bridge
        return asyncio.run(self.fn(*args, **kwargs))


class _RunOnNewLoop(_RunSync):
    """The same on a fresh loop (``new_event_loop().run_until_complete``)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        WORK.append("audit")
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(self.fn(*args, **kwargs))
        finally:
            loop.close()


class _Traced(_RunSync):
    """A class-based decorator that hands the coroutine back after setting a ContextVar: no bridge."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        WORK.append("audit")
        TENANT.set("traced")
        return self.fn(*args, **kwargs)


@pytest.mark.parametrize("decorator", [_RunSync, _RunOnNewLoop])
@pytest.mark.parametrize("timeout", [None, 5.0])
@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_a_class_based_bridge_runs_once_per_call(decorator: Any, timeout: float | None) -> None:
    made = tool(decorator(_create_ticket), name="create_ticket")
    assert made.is_async and sync_wrapper(made.func) == BRIDGE
    WORK.clear()
    token = TENANT.set("acme")
    try:
        answers = _answers(made, timeout)
    finally:
        TENANT.reset(token)
    assert answers == ["TCK-7 for acme"] * 5
    assert WORK == ["audit"] * 5


def test_a_class_based_decorator_that_hands_the_coroutine_back_stays_on_the_loop() -> None:
    made = tool(_Traced(_create_ticket), name="create_ticket")
    assert sync_wrapper(made.func) is True
    WORK.clear()
    assert _answers(made) == ["TCK-7 for traced"] * 5
    assert WORK == ["audit"] * 5


