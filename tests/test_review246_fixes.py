"""Review 246: Gemini never sends a function-call turn right after a model turn or first (#1); a lone surrogate in
call arguments or a message name is replaced as in content (#2); copies and save/load keep a call the program
removed from tool_calls removed (#3); a late result of a reused call id goes to the call of its tool (#4)."""

from __future__ import annotations

import json

import pytest

from toolwire.messages import AIMessage, HumanMessage, ToolMessage, message_from_dict
from toolwire.models.lowering import anthropic, gemini, openai
from toolwire.models.lowering._gemini_parts import signature_bytes

CALL = {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"}


def _roles(contents: list[dict]) -> list[str]:
    return [c["role"] + ("(fc)" if any("function_call" in p for p in c["parts"]) else "") for c in contents]


def _valid_gemini_turns(contents: list[dict]) -> bool:
    """Each function-call turn comes right after a user turn or a function-response turn (never first)."""
    for n, content in enumerate(contents):
        if any("function_call" in p for p in content["parts"]) and (n == 0 or contents[n - 1]["role"] != "user"):
            return False
    return True


# --------------------------------------------------------------------------- 1: Gemini turn order

@pytest.mark.parametrize("conversation", [
    [HumanMessage("Weather in Paris?"), AIMessage("Let me check."), AIMessage("", tool_calls=[CALL]),
     ToolMessage("18C", tool_call_id="c1")],
    [HumanMessage("hi"), AIMessage("Hello!"), HumanMessage(""), AIMessage("", tool_calls=[CALL]),
     ToolMessage("18C", tool_call_id="c1")],
    [AIMessage("", tool_calls=[CALL]), ToolMessage("18C", tool_call_id="c1"), HumanMessage("And tomorrow?")],
    [AIMessage("Checking."), AIMessage("", tool_calls=[CALL]), ToolMessage("18C", tool_call_id="c1")],
], ids=["text-then-call", "empty-user-between", "starts-at-a-call", "starts-with-text-then-call"])
def test_gemini_sends_a_call_turn_after_a_user_or_response_turn(conversation: list) -> None:
    contents = gemini.lower_request(_request(conversation), "gemini-2.5-flash")["contents"]
    assert _valid_gemini_turns(contents), _roles(contents)


def test_gemini_lower_messages_keeps_a_leading_call_turn_first_as_anthropic_does() -> None:
    _, contents = gemini.lower_messages([AIMessage("", tool_calls=[CALL]), ToolMessage("18C", tool_call_id="c1")])
    assert _roles(contents) == ["model(fc)", "user"]


def test_gemini_joins_model_turns_keeping_text_and_call() -> None:
    _, contents = gemini.lower_messages([HumanMessage("Weather?"), AIMessage("Let me check."),
                                         AIMessage("", tool_calls=[CALL]), ToolMessage("18C", tool_call_id="c1")])
    assert _roles(contents) == ["user", "model(fc)", "user"]
    assert contents[1]["parts"][0] == {"text": "Let me check."}
    assert contents[1]["parts"][1]["function_call"]["name"] == "get_weather"


def test_gemini_keeps_the_signatures_of_joined_turns() -> None:
    signed = AIMessage("", tool_calls=[CALL], provider_data={"gemini": {"parts": [
        {"function_call": {"name": "get_weather", "args": {"city": "Paris"}}, "thought_signature": "c2lnMQ=="}]}})
    request = gemini.lower_request(
        _request([HumanMessage("Weather?"), AIMessage("Sure."), signed, ToolMessage("18C", tool_call_id="c1")]),
        "gemini-3-pro-preview")
    model = [c for c in request["contents"] if c["role"] == "model"]
    assert len(model) == 1
    call = next(p for p in model[0]["parts"] if "function_call" in p)
    assert call["thought_signature"] == b"sig1"


def test_gemini_3_signs_the_first_call_of_a_rebuilt_turn_joined_to_a_signed_text_turn() -> None:
    text = AIMessage("Sure.", provider_data={"gemini": {"parts": [{"text": "Sure.", "thought_signature": "c2lnMQ=="}]}})
    request = gemini.lower_request(
        _request([HumanMessage("Weather?"), text, AIMessage("", tool_calls=[CALL]),
                  ToolMessage("18C", tool_call_id="c1")]), "gemini-3-pro-preview")
    model = [c for c in request["contents"] if c["role"] == "model"]
    call = next(p for p in model[0]["parts"] if "function_call" in p)
    assert call["thought_signature"] == signature_bytes("skip_thought_signature_validator")


def _request(messages: list):
    from toolwire.models.base import ChatRequest

    return ChatRequest(messages=messages)


# --------------------------------------------------------------------------- 2: lone surrogates in calls and names

LATIN1 = b"r\xe9sum\xe9.txt".decode("utf-8", "surrogateescape")  # a file name os.listdir gives


@pytest.mark.parametrize("args", [{LATIN1: 1}, {"path": LATIN1}, {"paths": [{"name": LATIN1}]}],
                         ids=["key", "value", "nested"])
def test_a_lone_surrogate_in_call_arguments_becomes_u_fffd_and_every_request_encodes(args: dict) -> None:
    ai = AIMessage("", tool_calls=[{"name": "read_file", "args": args, "id": "call_1"}])
    json.dumps(ai.tool_calls, ensure_ascii=False).encode("utf-8")
    assert "\ufffd" in json.dumps(ai.tool_calls[0]["args"], ensure_ascii=False)
    conversation = [HumanMessage("read it"), ai, ToolMessage("contents", tool_call_id="call_1")]
    for request in (openai.lower_messages(conversation), openai.lower_responses_messages(conversation),
                    anthropic.lower_messages(conversation), gemini.lower_messages(conversation)):
        json.dumps(request, ensure_ascii=False, default=repr).encode("utf-8")
    assert message_from_dict(ai.to_dict()) == ai


def test_a_lone_surrogate_in_an_invalid_calls_text_becomes_u_fffd() -> None:
    ai = AIMessage("", invalid_tool_calls=[{"name": "f", "args": '{"p": "' + LATIN1, "id": "c", "error": "cut"}])
    ai.invalid_tool_calls[0]["args"].encode("utf-8")


def test_a_lone_surrogate_in_a_name_becomes_u_fffd_as_saved() -> None:
    name = b"J\xf6rg".decode("utf-8", "surrogateescape")
    message = HumanMessage("hi", name=name)
    assert message.name == "J\ufffdrg"
    assert message.to_dict()["name"] == message.name
    json.dumps(openai.lower_messages([message]), ensure_ascii=False).encode("utf-8")
    assert ToolMessage("r", tool_call_id="c", name=name).name == "J\ufffdrg"


# --------------------------------------------------------------------------- 3: a removed call stays removed

def _refused() -> AIMessage:
    reply = AIMessage([{"type": "text", "text": "I'll delete it."},
                       {"type": "tool_use", "id": "toolu_1", "name": "delete_file", "input": {"path": "/etc/hosts"}}],
                      tool_calls=[{"name": "delete_file", "args": {"path": "/etc/hosts"}, "id": "toolu_1"}])
    return reply.model_copy(update={"tool_calls": []})  # type: ignore[return-value]


@pytest.mark.parametrize("how", ["deepcopy", "copy", "pickle", "to_dict", "messages_to_dict"])
def test_a_call_the_program_removed_does_not_come_back_from_a_copy_or_a_save(how: str) -> None:
    import copy
    import pickle

    from toolwire.messages import messages_from_dict, messages_to_dict

    refused = _refused()
    again = {"deepcopy": copy.deepcopy, "copy": copy.copy, "pickle": lambda m: pickle.loads(pickle.dumps(m)),
             "to_dict": lambda m: message_from_dict(m.to_dict()),
             "messages_to_dict": lambda m: messages_from_dict(messages_to_dict([m]))[0]}[how](refused)
    assert again.tool_calls == []
    assert again == refused


def test_one_removed_call_of_two_stays_removed_through_a_save() -> None:
    both = AIMessage([{"type": "tool_use", "id": "t1", "name": "a", "input": {}},
                      {"type": "tool_use", "id": "t2", "name": "b", "input": {}}],
                     tool_calls=[{"name": "a", "args": {}, "id": "t1"}, {"name": "b", "args": {}, "id": "t2"}])
    kept = both.model_copy(update={"tool_calls": both.tool_calls[:1]})
    assert message_from_dict(kept.to_dict()) == kept


def test_an_anthropic_sdk_assistant_dict_is_still_read_as_its_calls() -> None:
    read = message_from_dict({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_9", "name": "get_time", "input": {}}]})
    assert [c["id"] for c in read.tool_calls] == ["toolu_9"]


# --------------------------------------------------------------------------- 4: late results of reused ids

def _late_result_conversation() -> list:
    return [HumanMessage("Book a flight and check the weather"),
            AIMessage("", tool_calls=[{"name": "book_flight", "args": {"to": "Oslo"}, "id": "call_0"},
                                      {"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_1"}]),
            ToolMessage("Oslo: 3C", tool_call_id="call_1", name="get_weather"),
            AIMessage("", tool_calls=[{"name": "get_time", "args": {"city": "Oslo"}, "id": "call_0"}]),
            ToolMessage("14:05", tool_call_id="call_0", name="get_time"),
            ToolMessage("Booked: PNR X7Q2", tool_call_id="call_0", name="book_flight")]


def test_a_late_result_goes_to_the_call_of_its_tool_on_chat_completions() -> None:
    sent = openai.lower_messages(_late_result_conversation())
    tools = [m for m in sent if m["role"] == "tool"]
    assert [(m["tool_call_id"], m["content"]) for m in tools] == [
        ("call_0", "Booked: PNR X7Q2"), ("call_1", "Oslo: 3C"), ("call_0", "14:05")]


def test_a_late_result_goes_to_the_call_of_its_tool_on_anthropic_and_gemini() -> None:
    _, turns = anthropic.lower_messages(_late_result_conversation())
    results = [b for t in turns if t["role"] == "user" for b in t["content"] if b.get("type") == "tool_result"]
    assert "PNR" in json.dumps(results[0]["content"])
    assert "14:05" in json.dumps(results[-1]["content"])
    _, contents = gemini.lower_messages(_late_result_conversation())
    responses = [p["function_response"] for c in contents for p in c["parts"] if "function_response" in p]
    assert [(r["name"], r["response"]["result"]) for r in responses] == [
        ("book_flight", "Booked: PNR X7Q2"), ("get_weather", "Oslo: 3C"), ("get_time", "14:05")]


def test_a_result_without_a_name_still_goes_to_the_latest_call_of_its_id() -> None:
    conversation = [*_late_result_conversation()[:4], ToolMessage("14:05", tool_call_id="call_0")]
    sent = openai.lower_messages(conversation)
    assert sent[-1] == {"role": "tool", "tool_call_id": "call_0", "content": "14:05"}


def test_results_of_a_turn_that_repeats_an_id_go_to_the_calls_of_their_tools() -> None:
    conversation = [HumanMessage("start"),
                    AIMessage("", tool_calls=[{"name": "a", "args": {}, "id": "call_0"},
                                              {"name": "b", "args": {}, "id": "call_0"}]),
                    ToolMessage("result-of-b", name="b", tool_call_id="call_0"),
                    ToolMessage("result-of-a", name="a", tool_call_id="call_0")]
    _, contents = gemini.lower_messages(conversation)
    responses = [p["function_response"] for p in contents[-1]["parts"]]
    assert [(r["name"], r["response"]["result"]) for r in responses] == [("a", "result-of-a"), ("b", "result-of-b")]
    sent = openai.lower_messages(conversation)
    assert [m["content"] for m in sent if m["role"] == "tool"] == ["result-of-a", "result-of-b"]


def test_a_responses_text_part_a_tool_returned_is_its_text_where_a_result_is_text() -> None:
    """Review 248 #5: Chat Completions and Gemini got the JSON of an ``input_text`` part, not its text."""
    from toolwire.messages import ToolMessage as _ToolMessage
    from toolwire.models.lowering._common import tool_result_text

    result = _ToolMessage([{"type": "input_text", "text": "42 rows"}, {"type": "text", "text": "done"}],
                          tool_call_id="c1")
    assert tool_result_text(result) == "42 rows\ndone"
