"""Review 147 #3, #4: a call read from a code fence or a <tool_call> block leaves no markup in the reply's text, and an
opening tag written to close a block is no call."""

from __future__ import annotations

import pytest

from toolwire.parsing import parse_tool_calls

NAMES = ["get_config", "web_search"]


@pytest.mark.parametrize("text", [
    "```python\n{'name': 'get_config', 'arguments': {'host': 'db1'}}\n```",
    '```json\r\n{"name": "get_config", "parameters": {"host": "db1"}}\r\n```',
    '```json {"name": "get_config", "parameters": {"host": "db1"}} ```',
    '<tool_call>```json\n{"name": "get_config", "arguments": {"host": "db1"}}\n```',
    '<tool_call>\n{"name": "get_config", "arguments": {"host": "db1"}}\n</tool_calls>',
])
def test_the_call_syntax_leaves_no_markup_in_the_text(text: str) -> None:
    parsed = parse_tool_calls(text, NAMES)
    assert [(c["name"], c["args"]) for c in parsed.tool_calls] == [("get_config", {"host": "db1"})]
    assert parsed.content == "" and parsed.invalid_tool_calls == []


def test_a_python_fence_holding_code_stays_text() -> None:
    text = "```python\nconfig = {'host': 'db1'}\n```"
    parsed = parse_tool_calls(text, NAMES)
    assert parsed.tool_calls == [] and parsed.content == text


@pytest.mark.parametrize("text", [
    '<tool_call>\n{"name": "get_config", "arguments": {"host": "db1"}}\n<tool_call>',
    '<tool_call>\n{"name": "get_config", "arguments": {"host": "db1"}}\n<tool_call>\n'
    '<tool_call>\n{"name": "web_search", "arguments": {"q": "rain"}}\n<tool_call>',
])
def test_an_opening_tag_that_closes_a_block_is_no_call(text: str) -> None:
    parsed = parse_tool_calls(text, NAMES)
    assert [c["name"] for c in parsed.tool_calls] == ["get_config", "web_search"][: text.count("{\"name\"")]
    assert parsed.invalid_tool_calls == [] and parsed.content == ""


@pytest.mark.parametrize("text", ["<tool_call>", "Sure.\n<tool_call>", "<tool_call></tool_call>"])
def test_an_empty_block_alone_is_still_an_invalid_call(text: str) -> None:
    parsed = parse_tool_calls(text, NAMES)
    assert parsed.tool_calls == [] and len(parsed.invalid_tool_calls) == 1


@pytest.mark.parametrize("text", [
    '<tool_call>{"name": "get_config", "arguments": {"host": "db1"}}}\n<tool_call>'
    '{"name": "web_search", "arguments": {"q": "rain"}}</tool_call>',
    '<tool_call>{"name": "get_config", "arguments": {"host": "db1"}}}</tool_call>\n<tool_call>'
    '{"name": "web_search", "arguments": {"q": "rain"}}]]',
])
def test_closing_brackets_too_many_after_a_call_stay_out_of_the_text(text: str) -> None:
    parsed = parse_tool_calls(text, NAMES)
    assert [c["name"] for c in parsed.tool_calls] == ["get_config", "web_search"] and parsed.content == ""


def test_a_bracket_before_prose_stays_text() -> None:
    parsed = parse_tool_calls('<tool_call>{"name": "get_config", "arguments": {"host": "db1"}}} and more', NAMES)
    assert parsed.content == "} and more"
