"""Review 90 (a real llama-cpp-python server): a final answer that is only a call written as text is warned about;
the CLI says when the model gave no answer rather than printing a blank line."""

from __future__ import annotations

import logging

import pytest

from toolwire import Agent
from toolwire.examples.book import BOOK_TOOLS
from toolwire.testing import ScriptedChatModel


def test_a_final_answer_that_is_a_call_written_as_text_is_warned_about(caplog: pytest.LogCaptureFixture) -> None:
    written = '{"name": "get_weather", "arguments": "{\\"city\\": \\"Oslo\\"}"}'
    with caplog.at_level(logging.WARNING, "toolwire.agent"):
        result = Agent(ScriptedChatModel([written]), BOOK_TOOLS).invoke("And the weather in Oslo?")
    assert result.output == written and result.stop_reason == "answer"  # the output is left as it is
    assert "final answer is a call of get_weather written as text" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, "toolwire.agent"):
        Agent(ScriptedChatModel(['{"city": "Oslo"} is sunny.']), BOOK_TOOLS).invoke("q")
        Agent(ScriptedChatModel(["It is sunny in Oslo."]), BOOK_TOOLS).invoke("q")
    assert "written as text" not in caplog.text


def test_the_cli_says_when_there_was_no_answer() -> None:
    import toolwire.cli as cli
    from toolwire._agent_stream import AgentEvent, AgentResult
    from toolwire.cli import _print_event
    from toolwire.messages import AIMessage

    printed: list[str] = []
    original = cli.err.print  # (on stderr, in words: review 227 #9)
    cli.err.print = lambda text, *a, **k: printed.append(str(text))  # type: ignore[method-assign]
    try:
        _print_event(AgentEvent("final", AgentResult([AIMessage("")], "", 1, "answer"), 1))
    finally:
        cli.err.print = original  # type: ignore[method-assign]
    assert printed == ["[yellow](the model gave no answer: its reply was empty; ask again, or in other words)[/yellow]"]


def test_the_last_answer_after_max_steps_is_checked_too(caplog: pytest.LogCaptureFixture) -> None:
    from toolwire.messages import AIMessage

    call = AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "1+1"}, "id": "c1"}])
    written = '{"name": "calculate", "arguments": {"expression": "2+2"}}'
    with caplog.at_level(logging.WARNING, "toolwire.agent"):
        result = Agent(ScriptedChatModel([call, written]), BOOK_TOOLS, max_steps=1, on_max_steps="answer").invoke("q")
    assert result.stop_reason == "max_steps" and "final answer is a call of calculate" in caplog.text
