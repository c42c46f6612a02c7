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


def test_a_tools_own_handle_errors_false_raises_out_of_the_executor_and_the_agent() -> None:
    # review 152 #2: the executor and the Agent showed the exception to the model, and the run went on
    import asyncio

    import pytest

    from toolwire import ToolExecutor

    @tool(handle_errors=False)
    def charge_card(amount: int) -> str:
        """Charge the card."""
        raise PermissionError("card processor rejected the key")

    @tool
    def note(text: str) -> str:
        """Take a note."""
        raise ValueError("disk full")

    call = {"name": "charge_card", "args": {"amount": 5}, "id": "c1", "type": "tool_call"}
    other = {"name": "note", "args": {"text": "x"}, "id": "n1", "type": "tool_call"}
    executor = ToolExecutor([charge_card, note])
    with pytest.raises(PermissionError):
        executor.execute(AIMessage("", tool_calls=[call]))
    with pytest.raises(PermissionError):
        asyncio.run(executor.aexecute(AIMessage("", tool_calls=[call])))
    assert executor.execute(AIMessage("", tool_calls=[other]))[0].status == "error"  # (the others' are answered)
    model = ScriptedChatModel([AIMessage("", tool_calls=[call]), "Done, charged."])
    with pytest.raises(PermissionError) as caught:
        Agent(model, [charge_card]).invoke("charge 5")
    assert len(model.requests) == 1 and [m.type for m in caught.value.messages] == ["human", "ai"]


def test_the_agents_sdks_and_pydantic_ais_spellings_get_advice() -> None:
    # review 152 #5: refused with no pointer, or "did you mean 'tools'?" for hooks
    import pytest

    from toolwire.errors import UserError

    model = ScriptedChatModel(["ok"])
    agent = Agent(model, [refund])
    for keyword, advice in (("max_turns", "max_steps=10"), ("usage_limits", "max_steps=10"),
                            ("context", "contextvars.ContextVar")):
        with pytest.raises(UserError, match=advice):
            agent.invoke("q", **{keyword: 5})
    for keyword, advice in (("tool_use_behavior", "return_direct=True"), ("hooks", "agent.stream"),
                            ("retries", "with_structured_output")):
        with pytest.raises(UserError, match=advice):
            Agent(model, [refund], **{keyword: 3})
    with pytest.raises(UserError, match=r"init_chat_model\('openai:gpt-4o'\)"):
        Agent("openai:gpt-4o", [refund])
    with pytest.raises(UserError, match=r"init_chat_model\('google:gemini-2.0-flash'\)"):  # (review 153 #4)
        Agent("google-gla:gemini-2.0-flash", [refund])


def test_a_resumed_run_past_its_own_answer_to_an_unknown_tool_is_not_forced_again() -> None:
    # review 153 #1: the Agent's "There is no tool named" answer counts as answered calls, as in the live run
    conversation = [{"role": "user", "content": "refund order 7"},
                    AIMessage("", tool_calls=[{"name": "web_search", "args": {}, "id": "w1", "type": "tool_call"}]),
                    ToolMessage("Error: There is no tool named 'web_search'. Available tools: refund. Call one of "
                                "them by its exact name.", "w1", name="web_search", status="error")]
    model = ScriptedChatModel(["Which order?"])
    Agent(model, [refund], tool_choice="required").invoke(conversation)
    assert [r.tool_choice for r in model.requests] == ["auto"]
