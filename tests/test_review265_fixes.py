"""Review 265 fixes.

#1: a Ctrl-C that is already pending when a sync call made inside a running event loop (a notebook cell,
``asyncio.run``) stops waiting for its worker thread, after that thread finished the run, keeps the finished answers
on the ``KeyboardInterrupt`` (``tool_messages``, and an Agent's ``exc.messages``), as the plain sync path does: a
resumed run does not run a side-effecting tool a second time.

#3: an Anthropic ``tool_use`` whose ``input`` is not an object gives the same invalid call and wording through
``invoke`` and ``stream``, and no pydantic serializer warning.
"""

from __future__ import annotations

import _thread
import asyncio
import collections

from toolwire import Agent, AIMessage, ToolExecutor, tool
from toolwire.testing import ScriptedChatModel

_RAN: collections.Counter[str] = collections.Counter()


@tool
def charge_card(amount: int) -> str:
    """Charge the card (a side effect); a Ctrl-C comes as it finishes."""
    _RAN["charge"] += 1
    _thread.interrupt_main()  # (pending until the main thread wakes: after the run finished)
    return f"charged {amount}"


_REPLY = AIMessage("", tool_calls=[{"name": "charge_card", "args": {"amount": 5}, "id": "c0", "type": "tool_call"}])


def _interrupted(run):  # the KeyboardInterrupt the run raised
    try:
        run()
    except KeyboardInterrupt as interrupt:
        return interrupt
    raise AssertionError("no KeyboardInterrupt")


def test_executor_in_a_running_loop_keeps_answers_of_a_finished_run():
    executor = ToolExecutor([charge_card])

    async def cell():
        return executor.execute(_REPLY)

    in_loop = _interrupted(lambda: asyncio.run(cell()))
    assert [m.text for m in in_loop.tool_messages] == ["charged 5"]


def test_agent_in_a_running_loop_keeps_answers_and_resume_does_not_run_the_tool_again():
    def agent(script):
        return Agent(ScriptedChatModel(script), [charge_card])

    async def cell():
        return agent([_REPLY, "final"]).invoke("q")

    _RAN.clear()
    interrupt = _interrupted(lambda: asyncio.run(cell()))
    kinds = [(type(m).__name__, m.text) for m in interrupt.messages]
    assert kinds == [("HumanMessage", "q"), ("AIMessage", ""), ("ToolMessage", "charged 5")]
    assert agent(["final"]).invoke(interrupt.messages).output == "final"
    assert _RAN["charge"] == 1


def test_the_workers_own_keyboard_interrupt_is_raised_as_it_is():
    @tool
    async def stops() -> str:
        """Raises KeyboardInterrupt itself."""
        raise KeyboardInterrupt("mine")

    async def cell():
        return stops.invoke({})

    interrupt = _interrupted(lambda: asyncio.run(cell()))
    assert str(interrupt) == "mine"
