"""Review 164 #1: in ``toolwire chat``, a Ctrl-C that stops a question after some of its tool calls ran keeps the
calls and their results in the conversation (and says so), so the next question goes to the model with them and
asking again does not run them a second time; with no call run, the question is dropped as before."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from toolwire import Agent, AIMessage, cli, cli_text, tool
from toolwire.messages import HumanMessage, ToolMessage
from toolwire.testing import ScriptedChatModel

NOTES: list[str] = []


@tool
def add_note(text: str) -> str:
    """Save a note.

    Args:
        text: The note.
    """
    NOTES.append(text)
    return f"Saved note #{len(NOTES)}."


@tool
def stop_here(text: str) -> str:
    """Stand in for the user's Ctrl-C while this tool runs.

    Args:
        text: Anything.
    """
    raise KeyboardInterrupt


def _ctrl_c(messages: Any) -> str:  # the user presses Ctrl-C while the model writes its answer
    raise KeyboardInterrupt


def _call(*names: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": {"text": "buy bread"}, "id": f"c{i}"}
                                     for i, name in enumerate(names)])


def _chat(monkeypatch: pytest.MonkeyPatch, model: ScriptedChatModel, lines: list[str], tools: list[Any]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    typed: Iterator[str] = iter([*lines, "exit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(typed))
    cli._chat(Agent(model, tools, max_steps=6), 6)


def _every_call_answered_once(messages: list[Any]) -> None:
    calls = [call["id"] for m in messages if isinstance(m, AIMessage) for call in m.tool_calls]
    answers = [m.tool_call_id for m in messages if isinstance(m, ToolMessage)]
    assert sorted(calls) == sorted(answers), messages


def test_ctrl_c_after_a_tool_ran_keeps_the_call_and_its_result(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    NOTES.clear()
    model = ScriptedChatModel([_call("add_note"), _ctrl_c, "You already asked me: it is saved as note #1."])
    _chat(monkeypatch, model, ["Note: buy bread", "Note: buy bread"], [add_note])
    shown = capsys.readouterr()
    assert NOTES == ["buy bread"]  # once, not once per question
    assert "its 1 tool call that had run (with its result) stays in the conversation" in shown.err, shown
    assert "dropped" not in shown.err, shown
    second = model.requests[-1].messages
    assert [type(m).__name__ for m in second] == ["HumanMessage", "AIMessage", "ToolMessage", "HumanMessage"]
    assert second[2].content == "Saved note #1."
    _every_call_answered_once(second)


def test_ctrl_c_before_any_tool_ran_drops_the_question(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    model = ScriptedChatModel([_ctrl_c, "Hello."])
    _chat(monkeypatch, model, ["Hi", "Hi again"], [add_note])
    shown = capsys.readouterr()
    assert "that question was dropped from the conversation; ask again" in shown.err, shown
    assert [m.text for m in model.requests[-1].messages] == ["Hi again"]


def test_ctrl_c_in_a_tool_among_parallel_calls_leaves_a_valid_conversation(monkeypatch: pytest.MonkeyPatch,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    NOTES.clear()
    model = ScriptedChatModel([_call("add_note", "stop_here"), "Noted."])
    _chat(monkeypatch, model, ["Note: buy bread, then stop", "Is it saved?"], [add_note, stop_here])
    shown = capsys.readouterr()
    assert NOTES == ["buy bread"]
    # (the call Ctrl-C stopped is not counted as one that ran: review 168 #4)
    assert ("its 1 tool call that had run (with its result) and 1 call stopped while running (what it did may have "
            "taken effect) stay in the conversation") in " ".join(shown.err.split()), shown
    second = model.requests[-1].messages
    assert isinstance(second[0], HumanMessage) and isinstance(second[-1], HumanMessage)
    _every_call_answered_once(second)  # (a call left unanswered would be refused by every hosted provider)


def test_a_kept_turn_with_a_call_left_unanswered_goes_on_with_an_error_answer() -> None:
    stopped = KeyboardInterrupt()
    stopped.messages = [HumanMessage("Note twice"), _call("add_note", "add_note"),  # type: ignore[attr-defined]
                        ToolMessage("Saved note #1.", "c0", name="add_note")]
    kept = cli_text.interrupted_turn(stopped, [])
    assert kept is not None and "its 1 tool call that had run (with its result) stays" in kept[1]
    model = ScriptedChatModel(["Noted."])
    Agent(model, [add_note]).invoke([*kept[0], HumanMessage("Saved?")])
    sent = model.requests[-1].messages
    _every_call_answered_once(sent)  # c1 is not run: the conversation went on past it, so it gets an error answer
    assert [m.status for m in sent if isinstance(m, ToolMessage)] == ["success", "error"]
    assert cli_text.interrupted_turn(KeyboardInterrupt(), []) is None  # (no run on it: dropped, as before)
