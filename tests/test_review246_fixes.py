"""Review 246: Gemini never sends a function-call turn right after a model turn or first (#1); a lone surrogate in
call arguments or a message name is replaced as in content (#2); copies and save/load keep a call the program
removed from tool_calls removed (#3); a late result of a reused call id goes to the call of its tool (#4)."""

from __future__ import annotations

import pytest

from toolwire.messages import AIMessage, HumanMessage, ToolMessage
from toolwire.models.lowering import gemini
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
