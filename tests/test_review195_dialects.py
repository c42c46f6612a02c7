"""Review 195 #3: the local model's prompt follows the hosted providers' conversation rule in every dialect.

#3: under ``pythonic`` and ``json`` (the shipped models' defaults), every call gets exactly one result in the prompt,
as under ``template`` and on the hosted providers: of several results for one call the last, and a call the
conversation went on past without a result the "was not run" error result.

Only chat templates are rendered; no model is loaded.
"""

from __future__ import annotations

import logging

import pytest

from test_dialects import WEATHER
from toolwire.messages import AIMessage, HumanMessage, ToolMessage, tool_call
from toolwire.models.dialects import get_dialect

TOOLS = [WEATHER]
NOT_RUN = "was not run: the conversation went on without its result"

def _two_calls() -> AIMessage:
    return AIMessage("", tool_calls=[tool_call("get_weather", {"city": "Paris"}, "c1"),
                                     tool_call("get_weather", {"city": "Oslo"}, "c2")])


def _results_turn(name: str, conversation: list) -> str:
    messages = get_dialect(name).render(conversation, TOOLS).messages
    return next(m["content"] for m in reversed(messages) if m["content"].startswith("Function results:"))


# -- #3: pythonic and json --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["pythonic", "json"])
def test_a_call_the_conversation_went_past_gets_the_not_run_result(name):
    conversation = [HumanMessage("Weather in Paris and Oslo?"), _two_calls(),
                    ToolMessage("sunny", tool_call_id="c1"), HumanMessage("And what should I wear?")]
    turn = _results_turn(name, conversation)
    lines = turn.splitlines()
    assert "sunny" in lines[1] and "Paris" in lines[1]
    assert "Oslo" in lines[2] and f"error: Error: tool 'get_weather' {NOT_RUN}." in lines[2]
    assert turn.endswith("answer this request in its own language: And what should I wear?")


@pytest.mark.parametrize("name", ["pythonic", "json"])
def test_of_several_results_for_one_call_only_the_last_is_written(name, caplog):
    conversation = [HumanMessage("Weather in Paris and Oslo?"), _two_calls(),
                    ToolMessage("Error: timeout", tool_call_id="c1", status="error"),
                    ToolMessage("sunny", tool_call_id="c1"), ToolMessage("rain", tool_call_id="c2")]
    with caplog.at_level(logging.WARNING):
        turn = _results_turn(name, conversation)
    assert "timeout" not in turn
    assert turn.count(" -> ") == 2 and "Paris" in turn.splitlines()[1] and "sunny" in turn.splitlines()[1]
    assert "rain" in turn.splitlines()[2]
    assert "several results" in caplog.text


@pytest.mark.parametrize("name", ["pythonic", "json"])
def test_results_go_in_call_order_and_back_to_their_call(name):
    # c2's result first, c1's after the user went on: both come back right after the calls, in call order
    conversation = [HumanMessage("Weather in Paris and Oslo?"), _two_calls(), ToolMessage("rain", tool_call_id="c2"),
                    HumanMessage("Hurry."), ToolMessage("sunny", tool_call_id="c1")]
    messages = get_dialect(name).render(conversation, TOOLS).messages
    turn = messages[-1]["content"]
    lines = turn.splitlines()
    assert "Paris" in lines[1] and "sunny" in lines[1] and "Oslo" in lines[2] and "rain" in lines[2]
    assert turn.endswith("answer this request in its own language: Hurry.")


@pytest.mark.parametrize("name", ["pythonic", "json"])
def test_an_orphan_result_is_still_written_as_a_result_and_a_pending_call_is_left(name):
    orphan = [HumanMessage("q"), ToolMessage("lost", tool_call_id="zz", name="get_weather")]
    assert "get_weather(...) -> lost" in get_dialect(name).render(orphan, TOOLS).messages[-1]["content"]
    pending = [HumanMessage("Weather in Paris and Oslo?"), _two_calls()]  # the caller is about to answer them
    assert NOT_RUN not in str(get_dialect(name).render(pending, TOOLS).messages)


@pytest.mark.parametrize("name", ["pythonic", "json"])
def test_a_well_formed_conversation_renders_as_before(name):
    # results right after their calls, in order: nothing moves, so each prompt still extends the previous one
    ai = _two_calls()
    first = [HumanMessage("Weather in Paris and Oslo?"), ai, ToolMessage("sunny", tool_call_id="c1"),
             ToolMessage("rain", tool_call_id="c2")]
    rendered = get_dialect(name).render(first, TOOLS).messages
    assert [m["role"] for m in rendered] == ["system", "user", "assistant", "user"]
    assert NOT_RUN not in str(rendered)
    longer = get_dialect(name).render([*first, AIMessage("Sunny and rainy."), HumanMessage("Thanks")], TOOLS)
    assert longer.messages[:len(rendered)] == rendered
