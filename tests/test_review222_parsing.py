"""Review 222: text-call parsing (#2 a list of calls with a "description" argument, #3 a closed think block after a
call quoting its tags, #9 the retry-search cache outliving the parse)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolwire.models._text_calls import read_text_calls
from toolwire.parsing import parse_tool_calls


def _both(text: str, tools: Any) -> tuple[list, list]:
    """The calls parse_tool_calls and read_text_calls (ChatOpenAI(text_tool_calls=True)) read, as (name, args)."""
    parsed = parse_tool_calls(text, tools)
    found = read_text_calls(text, tools)
    return ([(c["name"], c["args"]) for c in parsed.tool_calls],
            [] if found is None else [(c["name"], c["args"]) for c in found[1]])


# ------------------------------------------------------------------ #2: a list of calls with a description argument

_SCHEMAS = {
    "get_weather": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "create_issue": {"type": "object", "properties": {"title": {"type": "string"}, "description": {"type": "string"}},
                     "required": ["title"]},
    "save_schema": {"type": "object", "properties": {"type": {"type": "string"}, "properties": {"type": "object"}}},
}


@pytest.mark.parametrize("tools", [_SCHEMAS, list(_SCHEMAS)])
@pytest.mark.parametrize("value, expected", [
    ([{"name": "get_weather", "city": "Paris"}, {"name": "create_issue", "title": "Bug", "description": "blank"}],
     [("get_weather", {"city": "Paris"}), ("create_issue", {"title": "Bug", "description": "blank"})]),
    ([{"name": "create_issue", "arguments": {"title": "Bug"}, "description": "blank"}],
     [("create_issue", {"title": "Bug", "description": "blank"})]),
    ([{"name": "get_weather", "arguments": {"city": "Paris"}},
      {"name": "save_schema", "arguments": {"type": "object", "properties": {"a": {}}}}],
     [("get_weather", {"city": "Paris"}), ("save_schema", {"type": "object", "properties": {"a": {}}})]),
])
def test_a_list_of_calls_with_a_description_argument_is_read(value: list, expected: list, tools: Any) -> None:
    text = json.dumps(value)
    assert _both(text, tools) == (expected, expected)


def test_a_call_of_a_tool_taking_a_schema_in_parameters_is_read_when_its_schema_is_known() -> None:
    value = [{"name": "save_schema", "parameters": {"type": "object", "properties": {"a": {}}}}]
    expected = [("save_schema", {"type": "object", "properties": {"a": {}}})]
    assert _both(json.dumps(value), _SCHEMAS) == (expected, expected)


_DEFINITION = {"name": "create_issue", "description": "Create an issue", "parameters": _SCHEMAS["create_issue"]}


@pytest.mark.parametrize("tools", [_SCHEMAS, list(_SCHEMAS)])
@pytest.mark.parametrize("value", [
    [_DEFINITION],
    [{"name": "create_issue", "description": "Create an issue", "input_schema": _SCHEMAS["create_issue"]}],
    [{"name": "create_issue", "inputSchema": _SCHEMAS["create_issue"]}],
    [{"type": "function", "function": _DEFINITION}],
    [{"type": "function", "function": {"name": "get_weather", "description": "The weather now"}}],
    [{"name": "get_weather", "city": "Paris"}, _DEFINITION],
])
def test_a_list_of_tool_definitions_still_stays_text(value: list, tools: Any) -> None:
    text = "My tools:\n" + json.dumps(value)
    assert parse_tool_calls(text, tools).tool_calls == []
    assert read_text_calls(text, tools) is None


# ------------------------------------------------------------------ #3: a quoted closing tag and <think>, then a
# closed <think> block between two calls

_WRITE = "A call ends with </tool_call>; reasoning starts with <think>."
_QUOTING = [
    ('<tool_call>\n{"name": "write_file", "arguments": {"content": "A call ends with </tool_call>; reasoning starts '
     'with <think>."}}\n</tool_call>\n<think>Now look it up.</think>\n'
     '<tool_call>\n{"name": "search", "arguments": {"q": "qwen tags"}}\n</tool_call>',
     [("write_file", {"content": _WRITE}), ("search", {"q": "qwen tags"})], "<think>Now look it up.</think>"),
    ('<function=write_file>{"content": "</function> closes a call; <think> opens reasoning"}</function>\n'
     '<think>Next.</think>\n<function=search>{"q": "x"}</function>',
     [("write_file", {"content": "</function> closes a call; <think> opens reasoning"}), ("search", {"q": "x"})],
     "<think>Next.</think>"),
    # a real block holding a drafted call after the quoting call: the drafted call is still not read
    ('<tool_call>\n{"name": "write_file", "arguments": {"content": "A call ends with </tool_call>; reasoning starts '
     'with <think>."}}\n</tool_call>\n<think>maybe <tool_call>{"name": "search", "arguments": {"q": "no"}}'
     '</tool_call></think>\n<tool_call>\n{"name": "search", "arguments": {"q": "yes"}}\n</tool_call>',
     [("write_file", {"content": _WRITE}), ("search", {"q": "yes"})],
     '<think>maybe <tool_call>{"name": "search", "arguments": {"q": "no"}}</tool_call></think>'),
]


@pytest.mark.parametrize("text, expected, content", _QUOTING)
def test_text_calls_read_a_call_quoting_its_tags_before_a_closed_think_block(text: str, expected: list,
                                                                           content: str) -> None:
    from toolwire.messages import AIMessageChunk
    from toolwire.models._text_calls import TextCallStream

    names = ["write_file", "search"]
    found = read_text_calls(text, names)
    assert found is not None
    assert ([(c["name"], c["args"]) for c in found[1]], found[2], found[0]) == (expected, [], content)
    if "maybe" not in text:  # (parse_tool_calls reads every call, drafted ones included)
        assert [(c["name"], c["args"]) for c in parse_tool_calls(text, names).tool_calls] == expected
    for size in (1, 5, 64):
        stream = TextCallStream(names)
        out = [c for i in range(0, len(text), size) for c in stream.feed(AIMessageChunk(text[i:i + size]))]
        out += list(stream.finish())
        assert "".join(c.content for c in out) == content
        assert [t["name"] for c in out for t in c.tool_call_chunks] == [name for name, _ in expected]
        assert [i for c in out for i in c.invalid_tool_calls] == []


def test_a_really_broken_call_before_a_think_block_stays_invalid() -> None:
    text = ('<tool_call>\n{"name": "search", "arguments": {"q": "a"\n</tool_call>\n<think>Retry.</think>\n'
            '<tool_call>\n{"name": "search", "arguments": {"q": "b"}}\n</tool_call>')
    found = read_text_calls(text, ["search"])
    assert found is not None
    content, calls, invalid = found
    assert [c["args"] for c in calls] == [{"q": "b"}] and len(invalid) == 1 and content == "<think>Retry.</think>"


def test_many_think_blocks_after_a_quoting_call_are_read_in_linear_time() -> None:
    import time

    head = _QUOTING[0][0]
    text = head + '\n<think>hmm</think>\n<tool_call>{"name": "search", "arguments": {"q": "z"}}</tool_call>' * 3000
    began = time.perf_counter()
    found = read_text_calls(text, ["write_file", "search"])
    took = time.perf_counter() - began
    assert found is not None and found[1][0]["args"] == {"content": _WRITE} and len(found[1]) == 3002
    assert took < 5, f"{took:.1f}s: reading the think blocks is no longer linear"


# ------------------------------------------------------------------ #9: the retry searches do not outlive the parse

@pytest.mark.parametrize("parse", ["parse_tool_calls", "parse_pythonic", "read_text_calls"])
def test_the_retry_search_does_not_keep_the_reply_alive(parse: str) -> None:
    import gc
    import sys

    from toolwire import parsing
    read = read_text_calls if parse == "read_text_calls" else getattr(parsing, parse)
    text = "".join(["search(q=[A\n"] * 200 + ["x" * 1000])  # (a new string, not a constant of the code object)
    before = sys.getrefcount(text)
    read(text, ["search"])
    gc.collect()
    assert sys.getrefcount(text) == before, "something kept the reply text after the parse returned"
