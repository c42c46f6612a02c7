"""Session 35: `toolwire chat` says when a question it drops had already run its tools."""

from __future__ import annotations

from typing import Any

import pytest


def _call_then_overflow(messages: list) -> Any:
    """A scripted reply: a tool call for the question, then an overflow once its result is in the prompt."""
    from toolwire.errors import ContextOverflowError
    from toolwire.messages import AIMessage, ToolMessage

    if isinstance(messages[-1], ToolMessage):
        raise ContextOverflowError(9000, 8192)
    if "calcul" in messages[-1].text:
        return AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "2 + 2"}, "id": "c1"}])
    return f"seen {sum(m.type == 'human' for m in messages)} questions"


def test_chat_says_the_tools_of_a_dropped_question_had_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # the answer step overflowed after the question's tools ran (side effects done): dropping it silently made a
    # user ask again and run them twice
    from typer.testing import CliRunner

    from toolwire import cli
    from toolwire.testing import ScriptedChatModel

    model = ScriptedChatModel([_call_then_overflow], cycle=True)
    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: model)
    result = CliRunner().invoke(cli.app, ["chat"], input="hello\nplease calculate 2 + 2\nagain\nexit\n")
    assert result.exit_code == 0, result.output
    assert "that question was dropped from the conversation after its 1 tool call had run" in result.output
    assert "seen 1 questions" in result.output and "seen 2 questions" in result.output  # the dropped one is gone
    # a question that overflows before any tool runs says nothing of tools
    model = ScriptedChatModel([lambda messages: (_ for _ in ()).throw(
        __import__("toolwire").ContextOverflowError(9000, 8192))], cycle=True)
    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: model)
    result = CliRunner().invoke(cli.app, ["chat"], input="hello\nexit\n")
    assert "that question was dropped from the conversation:" in result.output
