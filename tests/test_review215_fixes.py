"""Review 215: reading tool calls from model text (repeated keys in Python syntax, a quoted <tool_call> inside a
hermes block, lists of tool definitions, a quoted closing tag before an unclosed <think>, the python_retry search
time, a list comprehension at the end of a reply)."""

from __future__ import annotations

import pytest

from toolwire.errors import ToolCallParseError
from toolwire.parsing import normalize_arguments, parse_tool_calls

_TWICE = "Parameter 'city' is given twice; give each parameter once."
_NAME_TWICE = "The tool call gives 'name' twice; give each key once."


def _read(text: str, names: list[str], dialect: str | None = None) -> tuple[list, list[str], str]:
    r = parse_tool_calls(text, names, dialect)
    return [(c["name"], c["args"]) for c in r.tool_calls], [c["error"] for c in r.invalid_tool_calls], r.content


# ------------------------------------------------------------------ #1: repeated keys in Python-dict syntax

@pytest.mark.parametrize("text", [
    "{'name': 'get_weather', 'arguments': {'city': 'Paris', 'city': 'Rome'}}",
    "<tool_call>{'name': 'get_weather', 'arguments': {'city': 'Paris', 'city': 'Rome'}}</tool_call>",
    "[TOOL_CALLS]get_weather[ARGS]{'city': 'Paris', 'city': 'Rome'}",
    "<|python_tag|>{'name': 'get_weather', 'parameters': {'city': 'Paris', 'city': 'Rome'}}",
    "<function=get_weather>{'city': 'Paris', 'city': 'Rome'}</function>",
    "[get_weather(city={'city': 'Paris', 'city': 'Rome'})]",
])
def test_python_dict_repeated_parameter_is_refused(text: str) -> None:
    calls, invalid, _ = _read(text, ["get_weather"])
    assert calls == []
    assert len(invalid) == 1 and invalid[0].startswith(_TWICE[:-1])


def test_python_dict_repeated_name_is_refused() -> None:
    calls, invalid, _ = _read("{'name': 'read_file', 'arguments': {'path': 'a.txt'}, 'name': 'delete_file'}",
                              ["read_file", "delete_file"])
    assert calls == [] and len(invalid) == 1 and invalid[0].startswith(_NAME_TWICE)


def test_python_dict_repeated_equal_values_are_kept_once() -> None:
    calls, invalid, _ = _read("{'name': 'get_weather', 'arguments': {'city': 'Paris', 'city': 'Paris'}}",
                              ["get_weather"])
    assert calls == [("get_weather", {"city": "Paris"})] and invalid == []
    calls, invalid, _ = _read("get_weather(city={'a': 1, 'a': 1})", ["get_weather"])
    assert calls == [("get_weather", {"city": {"a": 1}})] and invalid == []


def test_normalize_arguments_refuses_python_dict_repeated_key() -> None:
    with pytest.raises(ToolCallParseError, match="given twice") as info:
        normalize_arguments("{'city': 'Paris', 'city': 'Rome'}")
    assert str(info.value).startswith(_TWICE)
    assert normalize_arguments("{'city': 'Paris', 'n': True}") == {"city": "Paris", "n": True}


# ------------------------------------------------------------------ #2: a <tool_call> quoted inside a block's JSON

_QUOTING_BLOCK = ('<tool_call>\n{"name": "write_file", "arguments": {"content": "Wrap calls in <tool_call> tags"}}\n'
                  '{"name": "search", "arguments": {"q": "qwen"}}\n</tool_call>')
_BOTH = [("write_file", {"content": "Wrap calls in <tool_call> tags"}), ("search", {"q": "qwen"})]


@pytest.mark.parametrize("dialect", [None, "hermes"])
def test_quoted_open_tag_does_not_end_a_block_of_two_calls(dialect: str | None) -> None:
    assert _read(_QUOTING_BLOCK, ["write_file", "search"], dialect) == (_BOTH, [], "")


def test_two_calls_quoting_the_open_tag_in_one_block() -> None:
    text = ('<tool_call>\n{"name": "search", "arguments": {"q": "<tool_call>"}}\n'
            '{"name": "search", "arguments": {"q": "<tool_call>"}}\n</tool_call> done')
    assert _read(text, ["search"]) == ([("search", {"q": "<tool_call>"})] * 2, [], "done")


def test_text_calls_read_both_calls_of_a_quoting_block() -> None:
    from toolwire.models._text_calls import read_text_calls

    found = read_text_calls(_QUOTING_BLOCK, ["write_file", "search"])
    assert found is not None
    content, calls, invalid = found
    assert [(c["name"], c["args"]) for c in calls] == _BOTH and invalid == [] and content == ""


# ------------------------------------------------------------------ #3: a JSON list of tool definitions stays text

_SCHEMA = {"type": "object", "properties": {"q": {"type": "string", "description": "what to look for"}},
           "required": ["q"]}
_DEFINITION = {"name": "search", "description": "Search the web", "parameters": _SCHEMA}


@pytest.mark.parametrize("value", [
    [_DEFINITION],
    [{"type": "function", "function": _DEFINITION}],
    [{"name": "search", "parameters": _SCHEMA}],
    [{"name": "search", "arguments": {"q": "x"}}, _DEFINITION],
])
def test_a_list_of_tool_definitions_stays_text(value: list) -> None:
    import json

    from toolwire.models._text_calls import read_text_calls

    text = "I have these tools:\n```json\n" + json.dumps(value, indent=2) + "\n```"
    assert _read(text, ["search"]) == ([], [], text)
    assert read_text_calls(text, ["search"]) is None


def test_a_list_of_calls_is_still_read() -> None:
    text = '```json\n[{"name": "search", "arguments": {"q": "x"}}, {"name": "search", "parameters": {"q": "y"}}]\n```'
    assert _read(text, ["search"]) == ([("search", {"q": "x"}), ("search", {"q": "y"})], [], "")
    marked = '<tool_call>[{"name": "search", "description": "d", "arguments": {"q": "x"}}]</tool_call>'
    calls, _, _ = _read(marked, ["search"])
    assert calls[0][0] == "search"  # inside a call marker a list is read as calls, as one object is


# ------------------------------------------------------------------ #5: python_retry in linear time

@pytest.mark.parametrize("unit", ["search(q=[TOOL_CALLS]", "search(q=[A]"])
def test_many_unclosed_calls_are_read_in_linear_time(unit: str) -> None:
    import time

    text = unit * (200_000 // len(unit))
    began = time.perf_counter()
    parsed = parse_tool_calls(text, ["search"])
    took = time.perf_counter() - began
    assert parsed.tool_calls == [] and parsed.invalid_tool_calls
    assert took < 5, f"{took:.1f}s for 200 kB: the retry search is quadratic again"  # (~0.6 s; 15-25 s before)


# ------------------------------------------------------------------ #6: a list comprehension ending a reply is code

@pytest.mark.parametrize("text", [
    'To look every query up:\n```python\n[search(q="x") for q in queries if q]\n```',
    '[search(q="weather") for _ in range(3)]',
    '[search(q="a")]\n[search(q=q) for q in qs]',
])
def test_text_calls_leave_a_list_comprehension_as_text(text: str) -> None:
    from toolwire.models._text_calls import read_text_calls

    assert read_text_calls(text, ["search"]) is None


def test_text_calls_still_read_python_call_lists() -> None:
    from toolwire.models._text_calls import read_text_calls

    found = read_text_calls('Looking:\n```python\n[search(q="a"), search(q="b")]\n[search(q="c")]\n```', ["search"])
    assert found is not None
    content, calls, invalid = found
    assert content == "Looking:" and [c["args"] for c in calls] == [{"q": "a"}, {"q": "b"}, {"q": "c"}]
    assert invalid == []


# ------------------------------------------------------------------ #4: a quoted closing tag, then a quoted <think>

@pytest.mark.parametrize("text, args", [
    ('<tool_call>\n{"name": "write_file", "arguments": {"path": "notes.md", "content": "A call ends with '
     '</tool_call>; reasoning starts with <think>."}}\n</tool_call>',
     {"path": "notes.md", "content": "A call ends with </tool_call>; reasoning starts with <think>."}),
    ('<function=write_file>{"path": "notes.md", "content": "</function> closes a call; <think> opens reasoning"}'
     '</function>', {"path": "notes.md", "content": "</function> closes a call; <think> opens reasoning"}),
])
def test_text_calls_read_a_call_quoting_its_closing_tag_then_think(text: str, args: dict) -> None:
    from toolwire.messages import AIMessageChunk
    from toolwire.models._text_calls import TextCallStream, read_text_calls

    assert [(c["name"], c["args"]) for c in parse_tool_calls(text, ["write_file"]).tool_calls] == [
        ("write_file", args)]
    found = read_text_calls(text, ["write_file"])
    assert found is not None
    content, calls, invalid = found
    assert [(c["name"], c["args"]) for c in calls] == [("write_file", args)] and invalid == [] and content == ""
    stream = TextCallStream(["write_file"])
    out = [c for i in range(0, len(text), 5) for c in stream.feed(AIMessageChunk(text[i:i + 5]))]
    out += list(stream.finish())
    assert "".join(c.content for c in out) == "" and sum(len(c.tool_call_chunks) for c in out) == 1


def test_text_calls_still_skip_a_call_drafted_in_an_unclosed_think_block() -> None:
    from toolwire.models._text_calls import read_text_calls

    text = ('<tool_call>\n{"name": "search", "arguments": {"q": "a"}}\n</tool_call>\n<think>maybe also\n'
            '<tool_call>\n{"name": "search", "arguments": {"q": "b"}}\n</tool_call>')
    found = read_text_calls(text, ["search"])
    assert found is not None
    content, calls, invalid = found
    assert [c["args"] for c in calls] == [{"q": "a"}] and invalid == []
    assert content.startswith("<think>maybe also")
