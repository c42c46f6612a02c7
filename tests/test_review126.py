"""Review 126, a new user's programs on the embedded model.

#1: listing a tool that adds something in ``repeat_calls`` (as the README advises) turned off the guard against the
same reply a third time in a row, so a small model's identical ``add_expense`` call ran ten times.
"""

from __future__ import annotations

from toolwire import Agent, tool
from toolwire.messages import AIMessage
from toolwire.testing import ScriptedChatModel

ADDED: list[dict[str, object]] = []


@tool
def add_expense(day: str, amount: float) -> str:
    """Add an expense."""
    ADDED.append({"day": day, "amount": amount})
    return f"Added {amount:.2f} on {day}."


def _same_call(n: int) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "add_expense", "args": {"day": "2026-05-15", "amount": 30},
                                      "id": f"call_{n}", "type": "tool_call"}])


def test_the_same_reply_a_third_time_turns_tools_off_for_a_repeat_calls_tool_too() -> None:
    ADDED.clear()
    model = ScriptedChatModel([_same_call(n) for n in range(3)] + ["Added it."])  # (a model that honours "none")
    result = Agent(model, [add_expense], repeat_calls=["add_expense"], max_steps=12).invoke("Add 30 for food.")
    assert len(ADDED) == 3  # the three replies' calls ran; the next model call had tools off
    assert result.output == "Added it."
    assert [request.tool_choice for request in model.requests] == ["auto", "auto", "auto", "none"]


def test_distinct_calls_of_a_repeat_calls_tool_all_run() -> None:
    ADDED.clear()
    replies = [AIMessage("", tool_calls=[{"name": "add_expense", "args": {"day": f"2026-05-{d:02d}", "amount": 30},
                                          "id": f"c{d}", "type": "tool_call"}]) for d in range(1, 6)]
    result = Agent(ScriptedChatModel([*replies, "Done."]), [add_expense], repeat_calls=["add_expense"]).invoke("q")
    assert len(ADDED) == 5 and result.output == "Done."
