"""Agent.batch / abatch: one run per input, answers in input order (review 76's known gap)."""

from __future__ import annotations

import asyncio

import pytest

from toolwire import Agent, AIMessage, UserError, tool
from toolwire.agent import AgentResult
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel


@tool
def double(x: int) -> int:
    """Double a number.

    Args:
        x: the number.
    """
    return 2 * x


def _answer(messages: list) -> AIMessage | str:
    """Call double with the question's number, then answer with the result (whatever order runs take turns in)."""
    last = messages[-1]
    if last.type == "human":
        return AIMessage("", tool_calls=[tool_call("double", {"x": int(last.text)}, id=f"c{last.text}")])
    return f"answer {last.text}"


def test_batch_runs_each_input_and_keeps_input_order() -> None:
    agent = Agent(ScriptedChatModel([_answer], cycle=True), [double])
    results = agent.batch(["1", "2", "3", "4"], max_concurrency=2)
    assert all(isinstance(r, AgentResult) for r in results)
    assert [r.output for r in results] == ["answer 2", "answer 4", "answer 6", "answer 8"]
    assert [r.steps for r in results] == [2, 2, 2, 2]


def test_abatch_runs_each_input_and_keeps_input_order() -> None:
    agent = Agent(ScriptedChatModel([_answer], cycle=True), [double])
    results = asyncio.run(agent.abatch(["5", "6"]))
    assert [r.output for r in results] == ["answer 10", "answer 12"]


def test_batch_return_exceptions_puts_a_failed_run_in_its_place() -> None:
    agent = Agent(ScriptedChatModel([_answer], cycle=True), [double])
    results = agent.batch(["1", "", "3"], return_exceptions=True)
    assert results[0].output == "answer 2" and results[2].output == "answer 6"
    assert isinstance(results[1], UserError)  # an empty question


def test_batch_refuses_options_an_agent_run_does_not_take() -> None:
    agent = Agent(ScriptedChatModel([_answer], cycle=True), [double])
    with pytest.raises(UserError):
        agent.batch(["1"], temperature=0)
    with pytest.raises(UserError, match="max_concurrency=2"):
        agent.batch(["1"], {"max_concurrency": 2})
