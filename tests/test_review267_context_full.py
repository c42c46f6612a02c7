"""Review 267 #1: a reply whose tool calls the model's context window cut (``response_metadata["context_full"]``, as
ChatLlamaCpp gives) ends the run with ``stop_reason="length"``, its cut call answered with an error, instead of asking
the model again with a longer conversation (which could only raise ContextOverflowError)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from toolwire import Agent, tool
from toolwire.messages import AIMessage, ToolMessage
from toolwire.models._reply import WINDOW_CUT
from toolwire.models.lowering._calls import CUT_OFF
from toolwire.testing import ScriptedChatModel

RAN: list[str] = []


@tool
def lookup(term: str) -> str:
    """Look a term up."""
    RAN.append(term)
    return f"found {term}"


def _cut(full: bool = True, valid: bool = False, **sizes: Any) -> AIMessage:
    """A reply cut inside a call, as ChatLlamaCpp gives it (``full``: where the context window ran out)."""
    metadata = {"finish_reason": "length", **({"context_full": True, "n_ctx": 2910, "trained_context": 32768,
                                               **sizes} if full else {})}
    calls = [{"name": "lookup", "args": {"term": "a"}, "id": "c1", "type": "tool_call"}] if valid else []
    return AIMessage("", tool_calls=calls, response_metadata=metadata, invalid_tool_calls=[{
        "name": "lookup", "args": '{"te', "id": "c2", "error": WINDOW_CUT if full else CUT_OFF,
        "type": "invalid_tool_call"}])


def _check(result: Any, model: ScriptedChatModel) -> None:
    assert result.stop_reason == "length" and result.steps == 1 and result.output == ""
    assert len(model.requests) == 1  # not asked again
    answers = [m for m in result.messages if isinstance(m, ToolMessage)]
    assert [(m.tool_call_id, m.status) for m in answers] == [("c2", "error")]
    assert "context window (n_ctx) ran out" in answers[0].text
    last = next(m for m in reversed(result.messages) if isinstance(m, AIMessage))
    assert last.response_metadata["context_full"] is True  # (the n_ctx advice: window_advice reads it)


def test_invoke_ends_with_length_and_answers_the_cut_call() -> None:
    model = ScriptedChatModel([_cut(), "not asked"])
    _check(Agent(model, [lookup]).invoke("look it up"), model)


def test_ainvoke_ends_with_length() -> None:
    model = ScriptedChatModel([_cut(), "not asked"])
    _check(asyncio.run(Agent(model, [lookup]).ainvoke("look it up")), model)


@pytest.mark.parametrize("tokens", [False, True])
def test_stream_ends_with_length(tokens: bool) -> None:
    model = ScriptedChatModel([_cut(), "not asked"])
    events = list(Agent(model, [lookup]).stream("look it up", stream_tokens=tokens))
    assert [e.type for e in events if e.type != "model_chunk"] == ["model_reply", "tool_call", "tool_result", "final"]
    _check(events[-1].data, model)


@pytest.mark.parametrize("tokens", [False, True])
def test_astream_ends_with_length(tokens: bool) -> None:
    model = ScriptedChatModel([_cut(), "not asked"])

    async def run() -> list[Any]:
        return [event async for event in Agent(model, [lookup]).astream("look it up", stream_tokens=tokens)]

    events = asyncio.run(run())
    assert events[-1].type == "final"
    _check(events[-1].data, model)


def test_the_whole_calls_before_the_cut_one_run_then_the_run_ends() -> None:
    RAN.clear()
    model = ScriptedChatModel([_cut(valid=True), "not asked"])
    result = Agent(model, [lookup]).invoke("look it up")
    assert RAN == ["a"] and result.stop_reason == "length" and len(model.requests) == 1
    answers = [(m.tool_call_id, m.status) for m in result.messages if isinstance(m, ToolMessage)]
    assert answers == [("c1", "success"), ("c2", "error")]


def test_no_structured_call_after_a_full_window() -> None:
    class Answer(BaseModel):
        text: str

    model = ScriptedChatModel([_cut(), "not asked"])
    result = Agent(model, [lookup], response_format=Answer).invoke("look it up")
    assert result.stop_reason == "length" and result.structured_response is None and len(model.requests) == 1


def test_a_call_cut_at_max_tokens_is_still_sent_back() -> None:
    model = ScriptedChatModel([_cut(full=False), "Done."])
    result = Agent(model, [lookup]).invoke("look it up")
    assert result.stop_reason == "answer" and result.output == "Done." and len(model.requests) == 2


def test_the_resumed_run_asks_the_model() -> None:  # (with a larger n_ctx, say)
    model = ScriptedChatModel([_cut(), "Done."])
    agent = Agent(model, [lookup])
    again = agent.invoke(agent.invoke("look it up").messages)
    assert again.stop_reason == "answer" and again.output == "Done." and len(model.requests) == 2


@pytest.mark.parametrize(("sizes", "larger"), [({}, True), ({"n_ctx": 4096, "trained_context": 4096}, False)])
def test_ask_says_the_window_ran_out_and_exits_0(monkeypatch: pytest.MonkeyPatch, sizes: dict[str, int],
                                                 larger: bool) -> None:
    from toolwire import cli

    model = ScriptedChatModel([_cut(**sizes), "not asked"])
    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: model)
    monkeypatch.setattr(cli, "_loaded", lambda specs: [lookup])
    result = CliRunner().invoke(cli.app, ["ask", "look it up"])
    output = " ".join(result.output.split())
    assert result.exit_code == 0 and len(model.requests) == 1, output
    assert "the run stopped at a tool call cut off where the model's context window ran out" in output
    assert ("pass a larger --n-ctx" in output) is larger and "error:" not in output
    assert "new conversation" not in output  # (`ask` has none to start anew: review 112)


def test_chat_says_the_window_ran_out_and_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire import cli

    model = ScriptedChatModel([_cut(), "Hello."])
    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: model)
    monkeypatch.setattr(cli, "_loaded", lambda specs: [lookup])
    result = CliRunner().invoke(cli.app, ["chat"], input="look it up\nhi\nexit\n")
    output = " ".join(result.output.split())
    assert result.exit_code == 0 and "Hello." in output, output
    assert "stopped at a tool call cut off where the model's context window ran out: pass a larger --n-ctx" in output


@pytest.mark.parametrize(("sizes", "larger"), [({}, True), ({"n_ctx": 4096, "trained_context": 4096}, False)])
def test_the_results_last_reply_gives_the_window_advice(sizes: dict[str, int], larger: bool) -> None:
    from toolwire.errors import window_advice

    result = Agent(ScriptedChatModel([_cut(**sizes)], cycle=True), [lookup], max_steps=2).invoke("q")
    last = next(m for m in reversed(result.messages) if isinstance(m, AIMessage))
    assert result.stop_reason == "length" and ("larger n_ctx" in window_advice(last.response_metadata)) is larger
