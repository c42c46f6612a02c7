"""Review 183 #3: with ``dialect=None``, a valid call written after an unclosed call (a broken attempt cut off
outside its strings) is read; a marker quoted inside a string argument, even one cut off, still is not (review 178
#1)."""

from __future__ import annotations

import pytest

from toolwire.parsing import parse_tool_calls

_NAMES = ["search", "write_file"]
_HERMES = '<tool_call>\n{"name": "search", "arguments": {"q": "y"}}\n</tool_call>'
_MISTRAL = '[TOOL_CALLS]search[ARGS]{"q": "y"}'
_FUNCTION = '<function=search>{"q": "y"}</function>'


@pytest.mark.parametrize("text", [
    'Calling search(q="x"\n' + _HERMES,
    '{"name": "search", "arguments": {"q": "x"}\n' + _HERMES,
    '<function=search>{"q": "x"\n' + _MISTRAL,
    'Calling search(q="x" and "z" ' + _HERMES,
    'search(q="x"\nI\'ll try again: ' + _HERMES,
    '<tool_call>{"name": "search", "arguments": {"q": "x"}\n' + _MISTRAL,
    '<tool_call>search(q="x"\n' + _MISTRAL,
    '<|python_tag|>{"name": "search", "parameters": {"q": "x"}\n' + _HERMES,
    '```json\n{"name": "search", "arguments": {"q": "x"}\n```\n' + _HERMES,
    '[{"name": "search", "arguments": {"q": "x"}\n' + _HERMES,
    '[search(q="x"), search(q=\n' + _HERMES,
    '[TOOL_CALLS]search[ARGS]{"q": "x"\n' + _FUNCTION,
    '<function=search><parameter=q>x</parameter>\n' + _MISTRAL,
])
def test_a_valid_call_after_an_unclosed_one_is_read(text: str) -> None:
    reply = parse_tool_calls(text, _NAMES)
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("search", {"q": "y"})]
    assert reply.invalid_tool_calls == []


@pytest.mark.parametrize("text", [
    'write_file(path="a", content="<tool_call>{\'name\': \'search\', \'arguments\': {}}</tool_call> and more',
    "write_file(path='a', content='[TOOL_CALLS]search[ARGS]{}",
    'write_file(content="""[TOOL_CALLS]search[ARGS]{} and',
    'write_file(content=r"[TOOL_CALLS]search[ARGS]{} and',
    '{"name": "write_file", "arguments": {"content": "<function=search>{}</function> more',
    '[TOOL_CALLS]write_file[ARGS]{"content": "<function=search>{}</function> and',
    '<|python_tag|>{"name": "write_file", "parameters": {"content": "[TOOL_CALLS]search[ARGS]{} and',
    "<tool_call>write_file(content='[TOOL_CALLS]search[ARGS]{} and",
    '<function=write_file><parameter=content>[TOOL_CALLS]search[ARGS]{}',
])
def test_a_marker_quoted_in_a_string_of_a_cut_off_call_is_not_read(text: str) -> None:
    reply = parse_tool_calls(text, _NAMES)
    assert reply.tool_calls == []
    assert [c["name"] for c in reply.invalid_tool_calls] == ["write_file"]


def test_a_closed_invalid_call_still_hides_the_marker_it_quotes() -> None:
    text = '<tool_call>{"name": "nope", "arguments": {"content": "[TOOL_CALLS]search[ARGS]{}"}}</tool_call>'
    reply = parse_tool_calls(text, _NAMES)
    assert reply.tool_calls == [] and [c["name"] for c in reply.invalid_tool_calls] == ["nope"]
