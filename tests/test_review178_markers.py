"""Review 178 #1: with ``dialect=None``, a call marker quoted inside a string argument of a call in another format
(a tool writing documentation about tool calling) is not read as a call: the call the model made is."""

from __future__ import annotations

import pytest

from toolwire.parsing import parse_tool_calls

_NAMES = ["write_file", "search"]


@pytest.mark.parametrize(("text", "content"), [
    ('{"name": "write_file", "arguments": {"path": "doc.md", "content": '
     '"Call it as <tool_call>{\'name\': \'search\', \'arguments\': {}}</tool_call>."}}',
     "Call it as <tool_call>{'name': 'search', 'arguments': {}}</tool_call>."),
    ('{"name": "write_file", "arguments": {"path": "doc.md", "content": '
     '"Mistral writes [TOOL_CALLS]search[ARGS]{} here"}}',
     "Mistral writes [TOOL_CALLS]search[ARGS]{} here"),
    ('{"name": "write_file", "arguments": {"path": "doc.md", "content": "<function=search>{}</function>"}}',
     "<function=search>{}</function>"),
    ('[write_file(path="doc.md", content="[TOOL_CALLS]search[ARGS]{}")]', "[TOOL_CALLS]search[ARGS]{}"),
    ('[TOOL_CALLS]write_file[ARGS]{"path": "doc.md", "content": "<tool_call>{\'name\': \'search\', \'arguments\': {}}'
     '</tool_call>"}', "<tool_call>{'name': 'search', 'arguments': {}}</tool_call>"),
    ('<|python_tag|>{"name": "write_file", "parameters": {"path": "doc.md", "content": "<tool_call>{\'name\': '
     '\'search\', \'arguments\': {}}</tool_call>"}}', "<tool_call>{'name': 'search', 'arguments': {}}</tool_call>"),
    ("[write_file(path=\"doc.md\", content='{\"name\": \"search\", \"arguments\": {}}')]",
     '{"name": "search", "arguments": {}}'),
    ('Writing the doc.\n{"name": "write_file", "arguments": {"path": "doc.md", "content": "<function=search>{}'
     '</function>"}}', "<function=search>{}</function>"),
])
def test_a_quoted_marker_does_not_replace_the_call(text: str, content: str) -> None:
    reply = parse_tool_calls(text, _NAMES)
    expected = [("write_file", {"path": "doc.md", "content": content})]
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == expected
    assert reply.invalid_tool_calls == []


def test_real_calls_in_a_marked_format_are_still_read_first() -> None:
    text = 'I will search.\n<tool_call>{"name": "search", "arguments": {"q": "[TOOL_CALLS]x"}}</tool_call>'
    reply = parse_tool_calls(text, _NAMES)
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("search", {"q": "[TOOL_CALLS]x"})]
    assert reply.content == "I will search."
    # a JSON call before a Hermes block: the block's call, as before (the block is not inside the JSON call)
    both = parse_tool_calls('{"name": "write_file", "arguments": {"path": "a"}}\n'
                            '<tool_call>{"name": "search", "arguments": {}}</tool_call>', _NAMES)
    assert [c["name"] for c in both.tool_calls] == ["search"]
    # a quoted marker that is not a valid call still leaves the call read
    broken = parse_tool_calls('{"name": "write_file", "arguments": {"path": "a", "content": "<tool_call>{oops"}}',
                              _NAMES)
    assert [c["name"] for c in broken.tool_calls] == ["write_file"] and broken.invalid_tool_calls == []


def test_an_invalid_call_of_an_unknown_tool_quoting_a_call_is_reported_not_the_quote() -> None:
    text = '<tool_call>{"name": "nope", "arguments": {"x": {"name": "search", "arguments": {}}}}</tool_call>'
    reply = parse_tool_calls(text, _NAMES)
    assert reply.tool_calls == [] and [c["name"] for c in reply.invalid_tool_calls] == ["nope"]
