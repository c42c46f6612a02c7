"""Review 279 #3: a Gemini ``function_response`` is named after the ``function_call`` it answers (found by the
result's ``tool_call_id``), not after a ``ToolMessage.name`` that says something else (a display label): Gemini's
reference says ``FunctionResponse.name`` matches ``FunctionCall.name``, and without call ids (Gemini 2.x) the name is
how a response finds its call. A ToolMessage whose id matches no call keeps its own name, as before."""

from __future__ import annotations

from typing import Any

from toolwire import AIMessage, HumanMessage, ToolMessage
from toolwire.models.lowering import gemini as codec


def _call(name: str, call_id: str, city: str = "Paris") -> dict[str, Any]:
    return {"name": name, "args": {"city": city}, "id": call_id}


def _names(contents: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(the function_call names, the function_response names) of lowered contents, in order."""
    calls = [p["function_call"]["name"] for c in contents for p in c["parts"] if "function_call" in p]
    answers = [p["function_response"]["name"] for c in contents for p in c["parts"] if "function_response" in p]
    return calls, answers


def test_a_response_is_named_after_the_call_it_answers():
    conversation = [HumanMessage("Weather and time?"),
                    AIMessage("", tool_calls=[_call("get_weather", "a"), _call("get_time", "b", "Lyon")]),
                    ToolMessage("Sunny in Paris", tool_call_id="a", name="weather"),
                    ToolMessage("10:00 in Lyon", tool_call_id="b", name="clock_tool")]
    _, contents = codec.lower_messages(conversation)
    assert _names(contents) == (["get_weather", "get_time"], ["get_weather", "get_time"])
    assert conversation[2].name == "weather"  # the message keeps its own name


def test_a_repeated_id_across_turns_takes_its_own_turns_call_name():
    conversation = [HumanMessage("Weather, then time?"),
                    AIMessage("", tool_calls=[_call("get_weather", "call_0")]),
                    ToolMessage("Sunny", tool_call_id="call_0", name="weather"),
                    AIMessage("", tool_calls=[_call("get_time", "call_0")]),
                    ToolMessage("10:00", tool_call_id="call_0", name="clock")]
    _, contents = codec.lower_messages(conversation)
    assert _names(contents) == (["get_weather", "get_time"], ["get_weather", "get_time"])


def test_a_turn_that_repeats_an_id_pairs_by_name_then_in_call_order():
    conversation = [HumanMessage("Weather and time?"),
                    AIMessage("", tool_calls=[_call("get_weather", "c"), _call("get_time", "c")]),
                    ToolMessage("10:00", tool_call_id="c", name="get_time"),
                    ToolMessage("Sunny", tool_call_id="c", name="get_weather")]
    _, contents = codec.lower_messages(conversation)
    calls, answers = _names(contents)
    assert sorted(answers) == sorted(calls) == ["get_time", "get_weather"]
    labelled = [*conversation[:2], ToolMessage("Sunny", tool_call_id="c", name="w"),
                ToolMessage("10:00", tool_call_id="c", name="t")]
    assert _names(codec.lower_messages(labelled)[1]) == (["get_weather", "get_time"], ["get_weather", "get_time"])


def test_a_call_name_gemini_does_not_take_is_written_alike_in_the_call_and_its_response():
    conversation = [HumanMessage("Weather?"), AIMessage("", tool_calls=[_call("get weather!", "a")]),
                    ToolMessage("Sunny", tool_call_id="a", name="weather")]
    calls, answers = _names(codec.lower_messages(conversation)[1])
    assert calls == answers and len(calls) == 1


def test_the_same_name_and_no_name_are_unchanged():
    conversation = [HumanMessage("Weather?"),
                    AIMessage("", tool_calls=[_call("get_weather", "a"), _call("get_time", "b")]),
                    ToolMessage("Sunny", tool_call_id="a", name="get_weather"),
                    ToolMessage("10:00", tool_call_id="b")]
    assert _names(codec.lower_messages(conversation)[1]) == (["get_weather", "get_time"],
                                                             ["get_weather", "get_time"])
