"""Review 295 #1-#2: a sync ``functools.wraps`` wrapper that runs its ``async def`` itself (a bridge).

#1: a bridge that does work before ``asyncio.run`` (writes a ticket, an audit line) did it twice for one call: toolwire
called it on the event loop's thread, ``asyncio.run`` refused that loop, and the whole wrapper was called again on a
worker thread. A wrapper whose code names a bridge is now called once, on a worker thread, as LangChain runs a sync
function, with the caller's context variables.
#2: a bridge running the coroutine on a fresh loop (``asyncio.new_event_loop().run_until_complete``) failed on every
call ("Cannot run the event loop while another loop is running"); it now works.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
import types
from typing import Any

import pytest

from bridge_kit import TENANT, WORK, answers, call, create_ticket
from toolwire import Agent, AIMessage, ToolExecutor, tool
from toolwire._bridges import BRIDGE
from toolwire._signature import sync_wrapper
from toolwire.testing import ScriptedChatModel

_create_ticket = create_ticket


def _audited_asyncio_run(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        WORK.append("audit")  # the wrapper's own work, before the bridge
        return asyncio.run(fn(*args, **kwargs))
    return wrapper


def _fresh_loop(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(**kwargs: Any) -> Any:
        WORK.append("audit")
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(fn(**kwargs))
        finally:
            loop.close()
    return wrapper


def _run_coroutine(coro: Any) -> Any:  # a helper the wrapper names: read one level down
    return asyncio.run(coro)


def _through_helper(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(**kwargs: Any) -> Any:
        WORK.append("audit")
        return _run_coroutine(fn(**kwargs))
    return wrapper


def _imported_inside(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(**kwargs: Any) -> Any:
        from asyncio import run

        WORK.append("audit")
        return run(fn(**kwargs))
    return wrapper


class AsyncToSync:
    """asgiref.sync.AsyncToSync's shape, by name: an object made with functools.update_wrapper."""

    def __init__(self, func: Any) -> None:
        self.func = func
        functools.update_wrapper(self, func)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return asyncio.run(self.func(*args, **kwargs))


def _logged_async_to_sync(fn: Any) -> Any:  # a logging wrapper over asgiref's bridge: the bridge is a layer below
    bridge = AsyncToSync(fn)

    @functools.wraps(bridge)
    def wrapper(**kwargs: Any) -> Any:
        WORK.append("audit")
        return bridge(**kwargs)
    return wrapper


_BRIDGES = [_audited_asyncio_run, _fresh_loop, _through_helper, _imported_inside, _logged_async_to_sync]


_call, _answers = call, answers


@pytest.mark.parametrize("wrap", _BRIDGES)
@pytest.mark.parametrize("timeout", [None, 5.0])
@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_a_bridge_runs_once_per_call_and_answers_its_value(wrap: Any, timeout: float | None) -> None:
    made = tool(wrap(_create_ticket), name="create_ticket")
    assert made.is_async and sync_wrapper(made.func) == BRIDGE
    WORK.clear()
    token = TENANT.set("acme")  # the caller's context variables reach the wrapper's worker thread
    try:
        answers = _answers(made, timeout)
    finally:
        TENANT.reset(token)
    assert answers == ["TCK-7 for acme"] * 5
    assert WORK == ["audit"] * 5  # one run per call (review 295 #1: two)


def test_a_bridge_through_an_agent_runs_once() -> None:
    model = ScriptedChatModel([AIMessage("", tool_calls=[_call()]), "done"])
    made = tool(_audited_asyncio_run(_create_ticket), name="create_ticket")
    WORK.clear()
    result = Agent(model, [made]).invoke("open a ticket")
    assert result.messages[2].status == "success" and result.messages[2].text == "TCK-7 for None"
    assert WORK == ["audit"]
    WORK.clear()
    result = asyncio.run(Agent(model.__class__([AIMessage("", tool_calls=[_call()]), "done"]), [made]).ainvoke("x"))
    assert result.messages[2].text == "TCK-7 for None" and WORK == ["audit"]


@pytest.mark.parametrize("wrap", [_audited_asyncio_run, _fresh_loop])
def test_bridges_called_together_run_in_parallel(wrap: Any) -> None:
    """Two calls of one reply run at once, each on a thread of its own (a barrier both must reach)."""
    barrier = threading.Barrier(2, timeout=10)

    async def meet(n: int) -> int:
        """Wait for the other call.

        Args:
            n: a number.
        """
        await asyncio.to_thread(barrier.wait)
        return n

    made = tool(wrap(meet), name="meet")
    calls = [{"name": "meet", "args": {"n": n}, "id": f"c{n}", "type": "tool_call"} for n in (1, 2)]
    assert [m.content for m in ToolExecutor([made]).execute(calls)] == ["1", "2"]
    assert [m.content for m in asyncio.run(ToolExecutor([made]).aexecute(calls))] == ["1", "2"]


def test_a_bridge_past_its_timeout_is_answered_as_possibly_taking_effect_and_not_run_again() -> None:
    release = threading.Event()

    async def slow(q: str) -> str:
        """Wait until released.

        Args:
            q: text.
        """
        while not release.is_set():
            await asyncio.sleep(0.005)
        return q

    made = tool(_audited_asyncio_run(slow), name="slow")
    WORK.clear()
    try:
        answer = made.invoke(_call("slow", q="a"), timeout=0.05)
        late = asyncio.run(made.ainvoke(_call("slow", q="a"), timeout=0.05))
    finally:
        release.set()
    for message in (answer, late):
        assert message.status == "error" and "0.05 seconds" in message.text and "may" in message.text
    assert WORK == ["audit", "audit"]


def test_a_wrapper_that_needs_the_running_loop_is_still_called_on_its_thread() -> None:
    """``run`` taken from something else than an event-loop library (``Context.run``) is no bridge: the wrapper,
    which schedules the coroutine on the running loop, is called on the loop's thread as before (review 275 #1)."""

    @functools.wraps(_create_ticket)
    def scheduled(**kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()
        context.run(TENANT.set, "scheduled")
        return context.run(loop.create_task, _create_ticket(**kwargs))

    made = tool(scheduled, name="create_ticket")
    assert sync_wrapper(made.func) is True
    assert asyncio.run(made.ainvoke({"order_id": "7"})) == "TCK-7 for scheduled"
    assert made.invoke(_call()).content == "TCK-7 for scheduled"


def test_a_bridge_hidden_deeper_is_still_called_again_after_its_refusal() -> None:
    """A bridge reached through an object's method is not seen at decoration: the refusal of the running loop, made
    before any work of the bridge, still sends the call to a worker thread (the documented fallback)."""
    runner = types.SimpleNamespace(go=lambda coro: asyncio.run(coro))

    @functools.wraps(_create_ticket)
    def hidden(**kwargs: Any) -> Any:
        return runner.go(_create_ticket(**kwargs))

    made = tool(hidden, name="create_ticket")
    assert sync_wrapper(made.func) is True
    assert made.invoke({"order_id": "7"}) == "TCK-7 for None"
    assert asyncio.run(made.ainvoke({"order_id": "7"})) == "TCK-7 for None"


def test_a_plain_async_def_and_a_pass_through_wrapper_are_no_bridges() -> None:
    @functools.wraps(_create_ticket)
    def passed(**kwargs: Any) -> Any:
        WORK.append("audit")
        return _create_ticket(**kwargs)

    assert sync_wrapper(_create_ticket) is False
    assert sync_wrapper(passed) is True
    assert sync_wrapper(functools.partial(_audited_asyncio_run(_create_ticket), order_id="1")) == BRIDGE
