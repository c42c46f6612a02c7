"""Review 126, a new user's programs on the embedded model.

#1: listing a tool that adds something in ``repeat_calls`` (as the README advises) turned off the guard against the
same reply a third time in a row, so a small model's identical ``add_expense`` call ran ten times.
"""

from __future__ import annotations

import pytest

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


def test_the_command_line_says_when_an_answer_came_from_no_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    # review 126 #5: in a chat, later questions got made-up answers (a file "written" that was never touched), and
    # nothing on the screen said that no tool had been called
    from typer.testing import CliRunner

    from toolwire import cli
    from toolwire.messages import tool_call

    def scripted(name: object, dialect: object, n_ctx: object = None, n_threads: object = None) -> ScriptedChatModel:
        return ScriptedChatModel([AIMessage("", tool_calls=[tool_call("calculate", {"expression": "2 * 3"}, "c1")]),
                                  "It is 6.", "I wrote it to todo.txt."])

    monkeypatch.setattr(cli, "_model", scripted)
    result = CliRunner().invoke(cli.app, ["chat"], input="2 * 3?\nwrite it to todo.txt\nexit\n")
    assert result.exit_code == 0
    first, second = result.output.split("you> write it to todo.txt")
    assert "It is 6." in first and "no tool was called" not in first
    assert "I wrote it to todo.txt." in second
    assert "(no tool was called for this answer: it comes from the model alone)" in second


def test_the_note_also_follows_an_answer_whose_only_call_named_no_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    # review 128 #4: the error result of a call of no tool counted as a tool having answered
    from typer.testing import CliRunner

    from toolwire import cli
    from toolwire.messages import tool_call

    def scripted(name: object, dialect: object, n_ctx: object = None, n_threads: object = None) -> ScriptedChatModel:
        return ScriptedChatModel([AIMessage("", tool_calls=[tool_call("write_file", {"text": "x"}, "c1")]),
                                  "I wrote it to todo.txt."])

    monkeypatch.setattr(cli, "_model", scripted)
    result = CliRunner().invoke(cli.app, ["ask", "write x to todo.txt"])
    assert result.exit_code == 0
    assert "(no tool was called for this answer: it comes from the model alone)" in result.output
