"""Review 136 #12: a past call whose name no provider takes back (gpt-4o's ``multi_tool_use.parallel``), answered with
an error, went back as it was, and OpenAI refused the next request with a 400."""

from __future__ import annotations

import re

import pytest

from toolwire import AIMessage, HumanMessage, ToolMessage
from toolwire.models.lowering import anthropic, gemini, openai
from toolwire.models.lowering._calls import GEMINI_NAME, sent_call_name

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _conversation(name: str | None, valid: bool) -> list:
    call = {"name": name, "args": {"tool_uses": []} if valid else '{"tool_uses": [', "id": "call_1"}
    reply = (AIMessage("", tool_calls=[{**call, "type": "tool_call"}]) if valid else
             AIMessage("", invalid_tool_calls=[{**call, "error": "cut", "type": "invalid_tool_call"}]))
    return [HumanMessage("weather?"), reply, ToolMessage("Error: no such tool", "call_1", name=name, status="error")]


@pytest.mark.parametrize("valid", [True, False])
@pytest.mark.parametrize("name", ["multi_tool_use.parallel", "functions.get weather", "x" * 80, None])
def test_every_provider_gets_a_name_it_takes(name: str | None, valid: bool) -> None:
    if name is None and valid:
        pytest.skip("a valid call always has a name (AIMessage refuses one without)")
    conversation = _conversation(name, valid)
    sent = [c["function"]["name"] for m in openai.lower_messages(conversation) for c in m.get("tool_calls") or []]
    sent += [i["name"] for i in openai.lower_responses_messages(conversation) if i.get("type") == "function_call"]
    _, turns = anthropic.lower_messages(conversation)
    sent += [b["name"] for t in turns if isinstance(t["content"], list) for b in t["content"]
             if b["type"] == "tool_use"]
    _, contents = gemini.lower_messages(conversation)
    parts = [p for c in contents for p in c["parts"]]
    called = [p["function_call"]["name"] for p in parts if "function_call" in p]
    answered = [p["function_response"]["name"] for p in parts if "function_response" in p]
    assert called == answered == [sent_call_name(name, GEMINI_NAME)]  # Gemini pairs a response with its call by name
    assert re.fullmatch(r"[A-Za-z0-9_.:-]{1,64}", called[0])  # and takes dots and colons (review 139 #5)
    assert len(sent) == 3 and all(NAME.match(n) for n in sent), sent
    assert len(set(sent)) == 1 and sent[0] == sent_call_name(name)


def test_a_name_every_provider_takes_is_sent_as_it_is() -> None:
    assert sent_call_name("get_weather") == "get_weather"
    assert sent_call_name("multi_tool_use.parallel") == "multi_tool_use_parallel"
    assert sent_call_name("") == sent_call_name(None) == "unknown_tool"


def test_gemini_keeps_a_dotted_name_and_its_thought_signature() -> None:
    """Review 139 #5: a past call named ``default_api.lookup`` (a name Gemini takes) was compared under its sanitized
    name, so its kept parts (the thought signature, Gemini's call id) were dropped on the next request."""
    assert sent_call_name("default_api.lookup", GEMINI_NAME) == "default_api.lookup"
    assert sent_call_name("functions.get weather", GEMINI_NAME) == "functions.get_weather"
    kept = {"gemini": {"parts": [{"function_call": {"name": "default_api.lookup", "args": {"q": "x"}, "id": "g-1"},
                                  "thought_signature": b"signed"}]}}
    reply = AIMessage("", tool_calls=[{"name": "default_api.lookup", "args": {"q": "x"}, "id": "g-1",
                                       "type": "tool_call"}], provider_data=kept)
    _, contents = gemini.lower_messages([HumanMessage("q"), reply, ToolMessage("Error: no such tool", "g-1",
                                                                                 status="error")])
    parts = [p for c in contents for p in c["parts"]]
    assert any(p.get("thought_signature") == b"signed" for p in parts)
