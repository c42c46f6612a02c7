"""Review 300 #3: an attribute name a sync wrapper of an ``async def`` reads (``subprocess.run``, ``self.run``) was
looked up in its module globals as a helper, so a ``from asyncio import run`` or a ``def run()`` entry point there made
a ContextVar-setting wrapper a bridge, called on a worker thread, and the value it set was lost. Only names the wrapper
loads as globals or closure variables are read as helpers now.
"""

from __future__ import annotations

import asyncio
import functools
import types
from typing import Any

import pytest

from bridge_kit import TENANT, WORK, answers, call, create_ticket
from toolwire import ToolExecutor, tool
from toolwire._bridges import BRIDGE
from toolwire._signature import sync_wrapper

_create_ticket, _call, _answers = create_ticket, call, answers
_PROC = types.SimpleNamespace(run=lambda *args: None)  # subprocess.run's shape: an attribute named run


# -- #3 ------------------------------------------------------------------------------------------------------------

def _with_globals(func: types.FunctionType, **names: Any) -> types.FunctionType:
    """``func`` as if defined in a module that also binds ``names`` (``from asyncio import run``, ``def run()``)."""
    namespace = {**func.__globals__, **names}
    made = types.FunctionType(func.__code__, namespace, func.__name__, func.__defaults__, func.__closure__)
    functools.update_wrapper(made, func)
    made.__wrapped__ = func.__wrapped__  # type: ignore[attr-defined]
    return made


def _entry_point() -> None:  # a script's ``def run(): asyncio.run(main())``
    asyncio.run(asyncio.sleep(0))


class _Session:
    def run(self, coro: Any) -> Any:
        return coro


def _traced(fn: Any) -> Any:
    session = _Session()

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        TENANT.set("traced")
        _PROC.run(["true"])  # subprocess.run
        return session.run(fn(*args, **kwargs))  # self.run, obj.run
    return wrapper


@pytest.mark.parametrize("run", [asyncio.run, _entry_point], ids=["from asyncio import run", "def run()"])
def test_an_attribute_named_like_a_global_is_no_helper(run: Any) -> None:
    made = tool(_with_globals(_traced(_create_ticket), run=run), name="create_ticket")
    assert sync_wrapper(made.func) is True
    assert asyncio.run(made.ainvoke({"order_id": "7"})) == "TCK-7 for traced"
    token = TENANT.set("stale")
    try:
        assert asyncio.run(ToolExecutor([made]).aexecute([_call()]))[0].content == "TCK-7 for traced"
    finally:
        TENANT.reset(token)


def _calls_run(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(**kwargs: Any) -> Any:
        WORK.append("audit")
        return run(fn(**kwargs))  # noqa: F821 (bound by _with_globals)
    return wrapper


def _runs_entry(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.mark.parametrize("run", [asyncio.run, _runs_entry], ids=["from asyncio import run", "a helper"])
def test_a_global_the_wrapper_calls_still_makes_a_bridge(run: Any) -> None:
    made = tool(_with_globals(_calls_run(_create_ticket), run=run), name="create_ticket")
    assert sync_wrapper(made.func) == BRIDGE
    WORK.clear()
    assert _answers(made) == ["TCK-7 for None"] * 5
    assert WORK == ["audit"] * 5
