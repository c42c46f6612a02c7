"""Review 177 #5: an invalid call read from a reply's text keeps the whole call object as its raw ``args``; the next
request sends the arguments inside it, not the call nested in a call, on every lowering (OpenAI Chat Completions and
Responses, Anthropic, Gemini)."""

from __future__ import annotations

import json

from toolwire.messages import AIMessage, HumanMessage, ToolMessage
from toolwire.models.lowering import anthropic, gemini, openai
from toolwire.models.lowering._calls import arguments_json, arguments_object

WRAPPED = '{"name": "get_wether", "arguments": {"city": "Paris"}}'


def _invalid(name: str | None = "get_wether", args: str = WRAPPED) -> dict:
    return {"type": "invalid_tool_call", "name": name, "args": args, "id": "c1",
            "error": "There is no tool named 'get_wether'."}


def _history() -> list:
    return [HumanMessage("Weather in Paris?"), AIMessage("", invalid_tool_calls=[_invalid()]),
            ToolMessage("There is no tool named 'get_wether'.", tool_call_id="c1", status="error")]


def test_a_whole_call_kept_as_raw_args_is_sent_back_as_its_arguments() -> None:
    assert json.loads(arguments_json(_invalid())) == {"city": "Paris"}
    assert arguments_object(_invalid()) == {"city": "Paris"}
    # a call to another name, or an object with more keys, is the arguments themselves, as before
    other = '{"name": "Ada", "arguments": {"x": 1}}'
    assert arguments_json(_invalid(args=other)) == other
    more = '{"name": "get_wether", "arguments": {"city": "Paris"}, "unit": "C"}'
    assert arguments_json(_invalid(args=more)) == more
    assert arguments_json(_invalid(name=None)) == WRAPPED


def test_every_lowering_sends_the_inner_arguments() -> None:
    chat = openai.lower_messages(_history(), compatible=True)
    sent = [c["function"]["arguments"] for m in chat if m.get("tool_calls") for c in m["tool_calls"]]
    assert [json.loads(s) for s in sent] == [{"city": "Paris"}]
    responses = openai.lower_responses_messages(_history())
    assert [json.loads(i["arguments"]) for i in responses if i.get("type") == "function_call"] == [{"city": "Paris"}]
    _, turns = anthropic.lower_messages(_history())
    blocks = [b for t in turns if isinstance(t["content"], list) for b in t["content"] if b.get("type") == "tool_use"]
    assert [b["input"] for b in blocks] == [{"city": "Paris"}]
    _, contents = gemini.lower_messages(_history())
    calls = [p["function_call"] for c in contents for p in c["parts"] if "function_call" in p]
    assert [c["args"] for c in calls] == [{"city": "Paris"}]
