"""Review 249 #1: an Anthropic stream whose ``tool_use`` block lost its ``content_block_start`` (a proxy or server that
drops an event) kept the call's ``input_json_delta`` pieces as a server block's input and dropped the call without a
word. The call is now kept as an invalid call with no name (its raw arguments kept), as the Chat Completions stream
keeps a call whose first piece was lost, so the Agent answers it with an error; a warning says the start was lost.

Each test drives the codec with the documented Messages API events; no network, no real model.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

import pytest

from toolwire import Agent, HumanMessage, merge_chunks, tool
from toolwire.messages import AIMessage
from toolwire.models.base import ChatRequest
from toolwire.models.lowering import anthropic
from toolwire.models.lowering._anthropic_replies import StreamState, parse_response
from toolwire.testing import ScriptedChatModel

ran: list[tuple[str, str]] = []


@tool
def get_weather(city: str) -> str:
    """Weather."""
    ran.append(("get_weather", city))
    return "sunny"


@tool
def get_time(tz: str) -> str:
    """Time."""
    ran.append(("get_time", tz))
    return "noon"


START = {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "c",
                                              "content": [], "stop_reason": None, "stop_sequence": None,
                                              "usage": {"input_tokens": 25, "output_tokens": 1}}}


def _delta(index: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": {"type": kind, **fields}}


def _events(stop: str = "tool_use", thinking: bool = True) -> list[dict[str, Any]]:
    """The documented stream: thinking, text, tool_use get_weather, tool_use get_time; ``thinking=False``: without
    the thinking block (its indexes then start at text)."""
    events: list[dict[str, Any]] = [START, {"type": "ping"}]
    if thinking:
        events += [
            {"type": "content_block_start", "index": 0,
             "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
            _delta(0, "thinking_delta", thinking="I should call tools."),
            _delta(0, "signature_delta", signature="SIGabc=="),
            {"type": "content_block_stop", "index": 0}]
    n = 1 if thinking else 0
    events += [
        {"type": "content_block_start", "index": n, "content_block": {"type": "text", "text": ""}},
        _delta(n, "text_delta", text="Checking both."),
        {"type": "content_block_stop", "index": n},
        {"type": "content_block_start", "index": n + 1,
         "content_block": {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {}}},
        _delta(n + 1, "input_json_delta", partial_json=""),
        _delta(n + 1, "input_json_delta", partial_json='{"city": '),
        _delta(n + 1, "input_json_delta", partial_json='"Paris"}'),
        {"type": "content_block_stop", "index": n + 1},
        {"type": "content_block_start", "index": n + 2,
         "content_block": {"type": "tool_use", "id": "toolu_b", "name": "get_time", "input": {}}},
        _delta(n + 2, "input_json_delta", partial_json='{"tz": '),
        _delta(n + 2, "input_json_delta", partial_json='"UTC"}'),
        {"type": "content_block_stop", "index": n + 2},
        {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
         "usage": {"output_tokens": 89}},
        {"type": "message_stop"}]
    return events


def _lost(events: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
    """``events`` less the ``content_block_start`` of block ``index``."""
    return [e for e in events if not (e["type"] == "content_block_start" and e["index"] == index)]


def _streamed(events: list[dict[str, Any]]) -> AIMessage:
    state = StreamState()
    chunks = [c for c in map(state.feed, copy.deepcopy(events)) if c is not None]
    return merge_chunks([*chunks, state.finish()], as_chunk=False)  # type: ignore[return-value]


@pytest.mark.parametrize("thinking", [True, False])
def test_a_call_whose_start_was_lost_is_an_invalid_call_with_its_arguments(
        thinking: bool, caplog: pytest.LogCaptureFixture) -> None:
    lost_index = 3 if thinking else 2
    with caplog.at_level(logging.WARNING):
        message = _streamed(_lost(_events(thinking=thinking), lost_index))
    assert [(c["name"], c["args"], c["id"]) for c in message.tool_calls] == [("get_weather", {"city": "Paris"},
                                                                             "toolu_a")]
    [invalid] = message.invalid_tool_calls
    assert invalid["name"] is None and invalid["args"] == '{"tz": "UTC"}' and invalid["id"]
    assert "no name" in str(invalid["error"])
    assert message.text == "Checking both."
    warned = [r for r in caplog.records if r.levelno == logging.WARNING and "content_block_start" in r.getMessage()]
    assert len(warned) == 1 and str(lost_index) in warned[0].getMessage()


def test_the_agent_answers_the_lost_call_with_an_error_and_sends_it_back_with_its_result() -> None:
    ran.clear()
    reply = _streamed(_lost(_events(), 3))
    model = ScriptedChatModel([reply, "Done."])
    result = Agent(model, [get_weather, get_time]).invoke("weather in Paris and time in UTC?")
    assert ran == [("get_weather", "Paris")]
    answers = {m.tool_call_id: m for m in result.messages if m.type == "tool"}
    lost_id = reply.invalid_tool_calls[0]["id"]
    assert set(answers) == {"toolu_a", lost_id}
    assert answers[lost_id].status == "error"
    # the next request holds the lost call's tool_use (with an id and a name the API takes) before its result
    body = anthropic.lower_request(ChatRequest(messages=result.messages[:4]), "c")
    turn, results = body["messages"][1]["content"], body["messages"][2]["content"]
    uses = [b for b in turn if b["type"] == "tool_use"]
    assert [b["type"] for b in turn] == ["thinking", "text", "tool_use", "tool_use"]
    assert uses[1]["id"] == lost_id and uses[1]["name"] == "unknown_tool" and uses[1]["input"] == {"tz": "UTC"}
    assert {b["tool_use_id"] for b in results} == {"toolu_a", lost_id}


def test_a_lost_start_at_max_tokens_is_one_cut_call_with_no_name() -> None:
    events = _lost(_events(stop="max_tokens"), 3)
    events = [e for e in events if not (e.get("index") == 3 and e["type"] == "content_block_delta"
                                        and e["delta"].get("partial_json") == '"UTC"}')]
    message = _streamed(events)
    [invalid] = message.invalid_tool_calls
    assert invalid["name"] is None and invalid["args"] == '{"tz": '
    assert [c["id"] for c in message.tool_calls] == ["toolu_a"]


def test_text_whose_start_was_lost_stays_text_without_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        message = _streamed(_lost(_events(), 1))
    assert message.text == "Checking both."
    assert len(message.tool_calls) == 2 and not message.invalid_tool_calls
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_thinking_whose_start_was_lost_is_warned_about(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        message = _streamed(_lost(_events(), 0))
    assert len(message.tool_calls) == 2 and message.text == "Checking both."
    assert any("content_block_start" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)


def test_whole_stream_and_invoke_are_unchanged() -> None:
    full = {"id": "msg_1", "type": "message", "role": "assistant", "model": "c", "stop_reason": "tool_use",
            "stop_sequence": None, "usage": {"input_tokens": 25, "output_tokens": 89},
            "content": [{"type": "thinking", "thinking": "I should call tools.", "signature": "SIGabc=="},
                        {"type": "text", "text": "Checking both."},
                        {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {"city": "Paris"}},
                        {"type": "tool_use", "id": "toolu_b", "name": "get_time", "input": {"tz": "UTC"}}]}
    invoked = parse_response(copy.deepcopy(full))
    streamed = _streamed(_events())
    assert streamed.tool_calls == invoked.tool_calls and streamed.provider_data == invoked.provider_data
    # invoke of a reply whose tool_use has no name (the non-stream shape of the same loss) is still an invalid call
    nameless = copy.deepcopy(full)
    del nameless["content"][3]["name"]
    reply = parse_response(nameless)
    assert [c["id"] for c in reply.invalid_tool_calls] == ["toolu_b"]
    assert reply.invalid_tool_calls[0]["name"] is None


def test_a_server_tool_blocks_streamed_input_is_still_its_input() -> None:
    events = [START,
              {"type": "content_block_start", "index": 0,
               "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}},
              _delta(0, "input_json_delta", partial_json='{"query": "paris"}'),
              {"type": "content_block_stop", "index": 0},
              {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}]
    message = _streamed(events)
    assert not message.tool_calls and not message.invalid_tool_calls
    assert message.provider_data["anthropic"]["content"][0]["input"] == {"query": "paris"}


def test_a_lost_start_call_without_opaque_blocks_is_sent_back_after_the_text() -> None:
    # no thinking block: the turn is built from the calls (no kept blocks), the lost call under "unknown_tool"
    reply = _streamed(_lost(_events(thinking=False), 2))
    body = anthropic.lower_request(ChatRequest(messages=[HumanMessage("hi"), reply]), "c")
    [assistant] = [m for m in body["messages"] if m["role"] == "assistant"]
    assert [b["type"] for b in assistant["content"]] == ["text", "tool_use", "tool_use"]
    assert assistant["content"][2]["name"] == "unknown_tool"
