"""Review 106 (a skeptic on the fortieth session's diff): the error answers of calls not run reach the LangGraph
streams, ``run_pending_calls=False`` keeps the reply's order and a forced ``tool_choice``."""

from __future__ import annotations

import pytest

from toolwire import Agent, AIMessage, ToolMessage, tool
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel


@tool
def refund(order_id: str) -> str:
    """Refund an order."""
    return f"refunded {order_id}"


def _pending() -> list:
    return [("user", "refund A"), AIMessage("", tool_calls=[tool_call("refund", {"order_id": "A"}, "c1")],
                                           invalid_tool_calls=[{"name": "refund", "args": "{", "id": "c0",
                                                                "error": "bad JSON", "index": 0,
                                                                "type": "invalid_tool_call"}])]


def test_calls_answered_without_running_reach_the_updates_values_and_messages_streams() -> None:
    agent = Agent(ScriptedChatModel(["No."], cycle=True), [refund], run_pending_calls=False)
    updates = list(agent.stream(_pending(), stream_mode="updates"))
    assert [next(iter(u)) for u in updates] == ["tools", "tools", "agent"]
    assert [u["tools"]["messages"][0].tool_call_id for u in updates[:2]] == ["c0", "c1"]  # the reply's order
    values = list(agent.stream(_pending(), stream_mode="values"))
    assert [len(v["messages"]) for v in values] == [2, 4, 5]  # the input, then its answers, then the reply
    pairs = list(agent.stream(_pending(), stream_mode="messages"))
    assert [(type(m).__name__, meta["langgraph_node"]) for m, meta in pairs[:2]] == [("ToolMessage", "tools")] * 2
    refusal = AIMessage("", tool_calls=[tool_call("refund", {"order_id": "A"}, "r1")],
                        response_metadata={"finish_reason": "refusal"})
    updates = list(Agent(ScriptedChatModel([refusal]), [refund]).stream("go", stream_mode="updates"))
    assert [next(iter(u)) for u in updates] == ["agent", "tools"]  # (the refusal's call got its answer in the stream)


@pytest.mark.parametrize("choice", ["required", "refund"])
def test_a_refused_pending_call_leaves_a_forced_tool_choice_for_the_first_model_call(choice) -> None:
    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("refund", {"order_id": "B"}, "m1")]), "Done."])
    result = Agent(model, [refund], tool_choice=choice, run_pending_calls=False).invoke(_pending())
    assert [r.tool_choice for r in model.requests] == [choice, "auto"]
    assert [m.content for m in result.messages if isinstance(m, ToolMessage)][-1] == "refunded B"
