"""Review 279 #1: a conversation whose replies reuse call ids (``call_0`` in every reply, as llama.cpp/vLLM-style
servers number them) continued on the OpenAI Responses API goes out with a ``call_id`` of its own for each
``function_call`` item, each ``function_call_output`` carrying its call's (OpenAI answers 400 "Duplicate
function_call_output for call_id '...'" otherwise). The renaming is the Anthropic lowering's (one shared helper:
the first use keeps its id, a repeat becomes ``<id>_2``...); toolwire's own messages keep their ids. Chat Completions
pairs each result with the assistant turn right before it and its reference sets no uniqueness across turns, so its
requests keep the ids as they are."""

from __future__ import annotations

import collections
import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest

from _queued_http import QueuedServer, serving
from test_review179_openai import message_item, model, response
from toolwire import AIMessage, HumanMessage, ToolMessage
from toolwire.models.base import ChatRequest
from toolwire.models.lowering import anthropic as anthropic_codec
from toolwire.models.lowering import openai as codec
from toolwire.models.lowering._openai_turns import RESPONSES_ID_LIMIT, unique_responses_ids


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    with serving("/v1", done=True) as found:
        yield found


def _call(city: str, call_id: str) -> dict[str, Any]:
    return {"name": "get_weather", "args": {"city": city}, "id": call_id}


_REPEATED = [  # two replies of a server that numbers each reply's calls from call_0
    HumanMessage("Weather in Paris, then Lyon?"),
    AIMessage("", tool_calls=[_call("Paris", "call_0")]),
    ToolMessage("Sunny in Paris", tool_call_id="call_0"),
    AIMessage("", tool_calls=[_call("Lyon", "call_0")]),
    ToolMessage("Rain in Lyon", tool_call_id="call_0"),
    AIMessage("Sunny in Paris, rain in Lyon."),
    HumanMessage("Thanks, and Nice?"),
]

_HAND_WRITTEN = [  # ids 0 and 1, then 0 again (review 279's dupids.py)
    HumanMessage("Weather?"),
    AIMessage("", tool_calls=[_call("Paris", "0"), _call("Nice", "1")]),
    ToolMessage("Sunny in Paris", tool_call_id="0"),
    ToolMessage("Rain in Nice", tool_call_id="1"),
    AIMessage("", tool_calls=[_call("Lyon", "0")]),
    ToolMessage("Snow in Lyon", tool_call_id="0"),
    HumanMessage("ok?"),
]


def _refuse_repeats(body: Any, n: int) -> Any:
    """The Responses API's check: one ``function_call_output`` per ``function_call``, each ``call_id`` once."""
    calls = [i["call_id"] for i in body["input"] if i.get("type") == "function_call"]
    outputs = [i["call_id"] for i in body["input"] if i.get("type") == "function_call_output"]
    for call_id in calls:
        if calls.count(call_id) > 1 or outputs.count(call_id) != 1:
            return 400, {"error": {"message": f"Duplicate function_call_output for call_id '{call_id}'. Each "
                                   "function_call must have exactly one matching function_call_output.",
                                   "type": "invalid_request_error", "param": "input", "code": None}}
    return response([message_item("Cloudy in Nice.")], "gpt-4.1")


def _pairs(items: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """``(city asked for, result text)`` for each function_call_output, found through its ``call_id``."""
    calls = {i["call_id"]: json.loads(i["arguments"])["city"] for i in items if i.get("type") == "function_call"}
    return [(calls[i["call_id"]], i["output"]) for i in items if i.get("type") == "function_call_output"]


@pytest.mark.parametrize("history", [_REPEATED, _HAND_WRITTEN], ids=["call_0 per reply", "hand-written"])
def test_the_responses_api_gets_each_call_its_own_id(server, history):
    server.answer = _refuse_repeats
    kept = copy.deepcopy(history)
    reply = model(server, "gpt-4.1", use_responses_api=True).invoke(history)
    assert reply.text == "Cloudy in Nice."
    sent = server.requests[0]["input"]
    calls = [i["call_id"] for i in sent if i.get("type") == "function_call"]
    assert not [k for k, v in collections.Counter(calls).items() if v > 1]
    assert history == kept  # the user's messages keep their ids
    results = [m.content for m in history if isinstance(m, ToolMessage)]  # "Sunny in Paris": the city is its end
    assert _pairs(sent) == [(text.split()[-1], text) for text in results]


def test_the_first_use_keeps_its_id_and_a_repeat_is_renamed_as_anthropic_renames_it():
    items = unique_responses_ids(codec.lower_responses_messages(_REPEATED))
    assert [(i["type"], i["call_id"]) for i in items if "call_id" in i] == [
        ("function_call", "call_0"), ("function_call_output", "call_0"),
        ("function_call", "call_0_2"), ("function_call_output", "call_0_2")]
    _, turns = anthropic_codec.lower_messages(_REPEATED)
    uses = [b["id"] for t in turns for b in t["content"] if b.get("type") == "tool_use"]
    answers = [b["tool_use_id"] for t in turns for b in t["content"] if b.get("type") == "tool_result"]
    assert uses == answers == ["call_0", "call_0_2"]


def test_a_repeat_within_one_reply_and_across_replies():
    history = [
        HumanMessage("Weather?"),
        AIMessage("", tool_calls=[_call("Paris", "c"), _call("Nice", "c")]),
        ToolMessage("Sunny in Paris", tool_call_id="c"),
        ToolMessage("Rain in Nice", tool_call_id="c"),
        AIMessage("", tool_calls=[_call("Lyon", "c"), _call("Brest", "c_2")]),
        ToolMessage("Snow in Lyon", tool_call_id="c"),
        ToolMessage("Wind in Brest", tool_call_id="c_2"),
    ]
    items = unique_responses_ids(codec.lower_responses_messages(history))
    calls = [i["call_id"] for i in items if i.get("type") == "function_call"]
    assert len(set(calls)) == 4
    assert _pairs(items) == [("Paris", "Sunny in Paris"), ("Nice", "Rain in Nice"), ("Lyon", "Snow in Lyon"),
                             ("Brest", "Wind in Brest")]


def test_a_renamed_long_id_still_fits_the_limit():
    long_id = "x" * RESPONSES_ID_LIMIT
    history = [HumanMessage("Weather?"),
               AIMessage("", tool_calls=[_call("Paris", long_id)]), ToolMessage("Sunny in Paris", tool_call_id=long_id),
               AIMessage("", tool_calls=[_call("Lyon", long_id)]), ToolMessage("Rain in Lyon", tool_call_id=long_id)]
    items = unique_responses_ids(codec.lower_responses_messages(history))
    calls = [i["call_id"] for i in items if i.get("type") == "function_call"]
    assert len(set(calls)) == 2 and all(len(c) <= RESPONSES_ID_LIMIT for c in calls)
    assert _pairs(items) == [("Paris", "Sunny in Paris"), ("Lyon", "Rain in Lyon")]


def test_renaming_twice_changes_nothing_and_ids_already_unique_are_kept():
    once = unique_responses_ids(codec.lower_responses_messages(_HAND_WRITTEN))
    assert unique_responses_ids(once) == once
    fine = [HumanMessage("Weather?"), AIMessage("", tool_calls=[_call("Paris", "a")]),
            ToolMessage("Sunny", tool_call_id="a")]
    lowered = codec.lower_responses_messages(fine)
    assert unique_responses_ids(lowered) == lowered


def test_a_pending_last_turn_with_a_repeated_id_is_renamed_too():
    history = [*_REPEATED[:3], AIMessage("", tool_calls=[_call("Lyon", "call_0")])]
    items = unique_responses_ids(codec.lower_responses_messages(history))
    assert [i["call_id"] for i in items if i.get("type") == "function_call"] == ["call_0", "call_0_2"]


def test_chat_completions_keeps_the_ids_as_they_are():
    body = codec.lower_request(ChatRequest(messages=_REPEATED), "gpt-4.1")
    assert [c["id"] for m in body["messages"] for c in m.get("tool_calls") or []] == ["call_0", "call_0"]
    assert [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"] == ["call_0", "call_0"]


def test_lower_responses_messages_itself_gives_unique_call_ids() -> None:
    from toolwire import AIMessage, HumanMessage, ToolMessage
    from toolwire.messages import tool_call
    from toolwire.models.lowering.openai import lower_responses_messages

    messages = [HumanMessage("q"), AIMessage("", tool_calls=[tool_call("a", {}, "call_0")]),
                ToolMessage("1", tool_call_id="call_0"), AIMessage("", tool_calls=[tool_call("b", {}, "call_0")]),
                ToolMessage("2", tool_call_id="call_0")]
    ids = [(item.get("type"), item.get("call_id")) for item in lower_responses_messages(messages)][1:]
    assert ids == [("function_call", "call_0"), ("function_call_output", "call_0"),
                   ("function_call", "call_0_2"), ("function_call_output", "call_0_2")]
    assert messages[3].tool_calls[0]["id"] == "call_0"
