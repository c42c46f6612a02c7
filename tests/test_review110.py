"""Review 110 (big and long use of the embedded model): what changed outside the cutting of tool results
(``tests/test_review110_fit.py`` has those)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from toolwire import Agent, ContextOverflowError, ToolExecutor, tool
from toolwire.errors import MaxStepsExceeded
from toolwire.messages import AIMessage, HumanMessage, SystemMessage
from toolwire.models._loaded import trained_context
from toolwire.models._room import overflow_error
from toolwire.models.grammar import MAX_CALLS, call_grammar
from toolwire.testing import ScriptedChatModel

# -- #4: what fills the window, named --------------------------------------------------------------------


def test_a_long_system_prompt_is_named_as_what_fills_the_window_not_the_tools() -> None:
    error = ContextOverflowError(2374, 2048, tools_tokens=60, tool_count=1, system_tokens=2300)
    assert str(error).startswith("The system prompt alone takes 2300 tokens, more than the 2048")
    assert "tools" not in str(error)
    assert error.no_question_fits


def test_one_tool_is_one_tool() -> None:
    error = ContextOverflowError(1100, 1024, tools_tokens=1000, tool_count=1)
    assert "The one tool bound takes 1000 of the 1024 tokens" in str(error)


def test_a_conversation_longer_than_the_model_can_hold_is_not_told_to_raise_n_ctx() -> None:
    error = ContextOverflowError(3_100_000, 8192, trained_context=32768)
    assert "more than the 32768 tokens the model can hold at all" in str(error) and "n_ctx" not in str(error)


def test_the_overflow_error_measures_the_tools_apart_from_the_system_prompt() -> None:
    # the system turn: 2300 tokens of prompt, 60 more with the tools (a fake model and renderer, in token counts)
    def render(messages: Any, tools: int = 60) -> tuple[Any, list[int]]:
        return SimpleNamespace(system=2300 + tools), [0] * (2300 + tools + 20)

    loaded = SimpleNamespace(system_head=lambda chat: [0] * chat.system, trained_context=32768)
    chat, tokens = render([])
    error = overflow_error([HumanMessage("hi")], render, lambda messages: render(messages, 0), loaded, chat, tokens,
                           2048, 1)
    assert (error.system_tokens, error.tools_tokens) == (2300, 60)
    assert str(error).startswith("The system prompt alone takes 2300")


# -- #8: n_ctx against what the model was trained on ----------------------------------------------------


@pytest.mark.parametrize(("metadata", "expected"), [
    ({"general.architecture": "qwen2", "qwen2.context_length": "32768"}, 32768),
    ({"general.architecture": "llama", "llama.context_length": "8192", "llama.rope.scaling.factor": "4.0"}, 32768),
    ({"general.architecture": "qwen2"}, None), ({}, None),
    ({"general.architecture": "qwen2", "qwen2.context_length": "n/a"}, None),
])
def test_trained_context_reads_the_ggufs_context_length(metadata: dict, expected: int | None) -> None:
    assert trained_context(metadata) == expected


# -- #6: calls per reply --------------------------------------------------------------------------------


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def test_the_grammar_takes_a_dozen_calls_and_stops_at_its_limit() -> None:
    from test_grammar import Gbnf

    grammar = Gbnf(call_grammar([get_weather.spec], "pythonic"))
    twelve = ", ".join(f'get_weather(city="c{i}")' for i in range(12))
    assert grammar.accepts(f"[{twelve}]")  # (review 110: the limit was 8, and 4 cities were lost)
    over = ", ".join(f'get_weather(city="c{i}")' for i in range(MAX_CALLS + 1))
    assert not grammar.accepts(f"[{over}]")


# -- #7: a return_direct tool's answer is the user's --------------------------------------------------------


def test_a_return_direct_tools_answer_is_whole_and_the_conversation_keeps_it_cut() -> None:
    @tool(return_direct=True)
    def report(topic: str) -> str:
        """Write the whole report."""
        return "x" * 50_000

    reply = AIMessage("", tool_calls=[{"name": "report", "args": {"topic": "t"}, "id": "r1", "type": "tool_call"}])
    model = ScriptedChatModel([reply, "Done."])
    agent = Agent(model, [report])
    result = agent.invoke("report on t")
    assert result.stop_reason == "return_direct" and result.output == "x" * 50_000  # (it was cut at 20,000)
    stored = result.messages[-1]
    assert len(stored.content) < 20_200 and "result truncated: 30000 of 50000" in stored.content
    agent.invoke([*result.messages, HumanMessage("thanks")])  # (review 111: a later turn sent the whole result)
    assert max(len(m.text) for m in model.requests[-1].messages) < 20_200
    answer, = ToolExecutor([report]).call(reply)  # outside an Agent, every result is cut as before
    assert len(answer.content) < 20_200


# -- #1, #3: a reply cut where the window ran out ----------------------------------------------------------


def _cut_call(full: bool) -> AIMessage:
    meta = {"finish_reason": "length", **({"context_full": True} if full else {})}
    return AIMessage("", invalid_tool_calls=[{"name": "get_weather", "args": '{"ci', "id": "c", "error": "cut off"}],
                     response_metadata=meta)


def test_a_call_cut_where_the_window_ran_out_is_not_told_to_raise_max_tokens() -> None:
    model = ScriptedChatModel([_cut_call(True)], cycle=True)  # (review 267 #1: the run ends there, not asked again)
    result = Agent(model, [get_weather], max_steps=2).invoke("weather?")
    assert result.stop_reason == "length" and len(model.requests) == 1
    with pytest.raises(MaxStepsExceeded, match="raise max_tokens"):
        Agent(ScriptedChatModel([_cut_call(False)], cycle=True), [get_weather], max_steps=2).invoke("weather?")


def _cli(monkeypatch: pytest.MonkeyPatch, model: Any, command: list[str], text: str | None = None) -> Any:
    from toolwire import cli

    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: model)
    return CliRunner().invoke(cli.app, command, input=text)


def test_the_command_line_says_why_an_answer_was_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    by_window = AIMessage("Paris is a city in France, known for", response_metadata={
        "finish_reason": "length", "context_full": True})
    result = _cli(monkeypatch, ScriptedChatModel([by_window]), ["ask", "Tell me about Paris"])
    assert result.exit_code == 0 and "cut where the model's context window ran out" in result.output
    by_limit = AIMessage("Paris is a city", response_metadata={"finish_reason": "length"})
    result = _cli(monkeypatch, ScriptedChatModel([by_limit]), ["ask", "Tell me about Paris"])
    assert "cut at the most tokens a reply may have" in result.output


# -- #5: chat once the history fills the window ---------------------------------------------------------------


def _room_for_two(messages: list) -> str:
    """A scripted model whose window holds two questions: more overflows before anything runs."""
    questions = [m.text for m in messages if isinstance(m, HumanMessage)]
    if len(questions) > 2:
        raise ContextOverflowError(9000, 8192)
    return "answers " + " + ".join(questions)


def test_chat_drops_the_oldest_exchanges_when_the_history_fills_the_window(monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedChatModel([_room_for_two], cycle=True)
    result = _cli(monkeypatch, model, ["chat"], "one\ntwo\nthree\nfour\nexit\n")
    assert result.exit_code == 0, result.output
    assert "answers one + two" in result.output
    assert "answers two + three" in result.output and "answers three + four" in result.output
    assert result.output.count("oldest exchanges were dropped") == 2 and "that question was dropped" not in \
        result.output  # (each question after the second was refused with "ask something shorter")


def test_chat_keeps_the_history_when_the_question_alone_does_not_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    def long_question_overflows(messages: list) -> str:
        questions = [m.text for m in messages if isinstance(m, HumanMessage)]
        if len(questions[-1]) > 100:
            raise ContextOverflowError(9000, 8192)
        return "answers " + " + ".join(questions)

    result = _cli(monkeypatch, ScriptedChatModel([long_question_overflows], cycle=True), ["chat"],
                  f"one\n{'x' * 200}\ntwo\nexit\n")
    assert "that question was dropped" in result.output and "answers one + two" in result.output
    assert "oldest exchanges were dropped" not in result.output


def test_chat_ends_when_the_system_prompt_leaves_no_room_for_any_question(monkeypatch: pytest.MonkeyPatch) -> None:
    def too_long(messages: list) -> str:
        raise ContextOverflowError(2400, 2048, system_tokens=2380)

    result = _cli(monkeypatch, ScriptedChatModel([too_long], cycle=True), ["chat"], "hi\nok\nexit\n")
    assert result.exit_code == 1 and "The system prompt alone takes 2380" in result.output


def test_the_oldest_exchange_keeps_the_system_messages() -> None:
    from toolwire.cli_text import without_oldest_exchange

    conversation = [SystemMessage("s"), HumanMessage("q1"), AIMessage("a1"), HumanMessage("q2"), AIMessage("a2")]
    assert without_oldest_exchange(conversation) == [SystemMessage("s"), HumanMessage("q2"), AIMessage("a2")]
    assert without_oldest_exchange([SystemMessage("s")]) is None
