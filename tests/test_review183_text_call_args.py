"""Review 183 #4: an invalid call read from a reply's text (a mistyped tool name) is sent back with the arguments
inside for the forms next to the ``{"name", "arguments": {...}}`` one review 177 #5 fixed: arguments written as the
JSON text of an object (OpenAI's wire form, which models copy), and ``<function=NAME>`` calls (Llama 3.1's JSON body,
Qwen3-Coder's ``<parameter=KEY>`` tags), which went back as the whole call nested in a call, or as ``{}``."""

from __future__ import annotations

import json

import pytest

from toolwire.messages import AIMessage, HumanMessage, ToolMessage
from toolwire.models._text_calls import read_text_calls
from toolwire.models.lowering import anthropic, openai
from toolwire.models.lowering._calls import arguments_json, arguments_object, recovered_arguments

NAMES = {"get_weather": {"type": "object", "properties": {"city": {"type": "string"}}}}
TEXTS = [
    '<tool_call>\n{"name": "get_wether", "arguments": "{\\"city\\": \\"Paris\\"}"}\n</tool_call>',
    '<function=get_wether>{"city": "Paris"}</function>',
    '<tool_call>\n<function=get_wether>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>',
]


@pytest.mark.parametrize("text", TEXTS)
def test_a_mistyped_call_read_from_text_is_sent_back_with_its_arguments(text: str) -> None:
    content, _, invalid = read_text_calls(text, NAMES)
    assert [bad["name"] for bad in invalid] == ["get_wether"]
    assert json.loads(arguments_json(invalid[0])) == {"city": "Paris"}
    assert arguments_object(invalid[0]) == {"city": "Paris"}
    history = [HumanMessage("Weather in Paris?"), AIMessage(content, invalid_tool_calls=invalid),
               ToolMessage(invalid[0]["error"], tool_call_id=invalid[0]["id"], status="error")]
    sent = [c["function"] for m in openai.lower_messages(history, compatible=True) if m.get("tool_calls")
            for c in m["tool_calls"]]
    assert [(s["name"], json.loads(s["arguments"])) for s in sent] == [("get_wether", {"city": "Paris"})]
    _, turns = anthropic.lower_messages(history)
    blocks = [b for t in turns if isinstance(t["content"], list) for b in t["content"] if b.get("type") == "tool_use"]
    assert [b["input"] for b in blocks] == [{"city": "Paris"}]


def test_other_text_keeps_its_own_reading() -> None:
    # a JSON string that is no object, another tool's tag, a tag cut short: what can be read, never the call itself
    assert recovered_arguments('{"name": "f", "arguments": "not json"}', "f") == {"name": "f", "arguments": "not json"}
    assert recovered_arguments('<function=g>{"a": 1}</function>', "f") == {}
    assert recovered_arguments('<function=f>{"a": 1, "b": "x', "f") == {"a": 1, "b": "x"}
    assert recovered_arguments('<function=f>no body</function>', "f") == {}
