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
    _, contents = gemini.lower_messages(conversation)
    assert _valid_gemini_turns(contents), _roles(contents)


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
