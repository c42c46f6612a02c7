"""Review 152: programs ported from the OpenAI Agents SDK and Pydantic AI (#3 a handoff's forced tool_choice)."""

from __future__ import annotations

from toolwire import Agent, AIMessage, ToolMessage, tool
from toolwire.testing import ScriptedChatModel


@tool
def refund(order: str) -> str:
    """Refund an order."""
    return f"refunded {order}"


def test_a_handoffs_target_is_forced_though_the_agent_before_it_answered_calls() -> None:
    # the triage agent's transfer_to_refunds was answered; the refunds agent, with tool_choice="required", must still
    # be forced on its first call (the Agents SDK tracks tool use per agent)
    handoff = [{"role": "user", "content": "refund order 7"},
               AIMessage("", tool_calls=[{"name": "transfer_to_refunds", "args": {}, "id": "t1", "type": "tool_call"}]),
               ToolMessage("transferred", "t1", name="transfer_to_refunds")]
    model = ScriptedChatModel([AIMessage("", tool_calls=[{"name": "refund", "args": {"order": "7"}, "id": "r1"}]),
                               "Refunded."])
    result = Agent(model, [refund], tool_choice="required").invoke(handoff)
    assert [r.tool_choice for r in model.requests] == ["required", "auto"]
    assert result.output == "Refunded."
    # its own tool's answered call: past the forced choice, as the stopped run was (review 88)
    own = [*handoff[:1], AIMessage("", tool_calls=[{"name": "refund", "args": {"order": "7"}, "id": "r0"}]),
           ToolMessage("refunded 7", "r0", name="refund")]
    again = ScriptedChatModel(["Refunded."])
    Agent(again, [refund], tool_choice="required").invoke(own)
    assert [r.tool_choice for r in again.requests] == ["auto"]
