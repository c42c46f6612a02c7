"""Review 151 #5: a broken call list whose broken item names a tool Python cannot read as written
(``get-weather(city: "x")``) gives what the same list written ``get_weather(city: "x")`` gives: the readable calls
kept, and the invalid call on that tool, showing its Python spelling."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire.parsing import parse_tool_calls

TOOLS = {"get-weather": {"type": "object", "properties": {"city": {"type": "string"}}},
         "search": {"type": "object", "properties": {"q": {"type": "string"}}}}


def read(text: str) -> tuple[str, list[tuple[str, dict[str, Any]]], list[tuple[str | None, str | None, str]]]:
    reply = parse_tool_calls(text, TOOLS)
    return (reply.content, [(c["name"], c["args"]) for c in reply.tool_calls],
            [(bad["name"], bad["args"], bad["error"]) for bad in reply.invalid_tool_calls])


@pytest.mark.parametrize("template", [
    '[search(q="a"), {}(city: "x")]',
    '[{}(city: "x"), search(q="a")]',
    'Sure. [search(q="a"), {}(city: "x")] Done.',
    '<tool_call>[search(q="a"), {}(city: "x")]</tool_call>',
])
def test_a_broken_item_written_with_its_hyphen_reads_as_its_python_spelling(template: str) -> None:
    hyphen = read(template.format("get-weather"))
    underscore = read(template.format("get_weather"))
    assert hyphen[1] == underscore[1] == [("search", {"q": "a"})]
    assert hyphen[0] == underscore[0]
    [(name, raw, error)] = hyphen[2]
    assert name == "get-weather" and raw == 'get-weather(city: "x")'
    assert error == underscore[2][0][2]
    assert error.startswith("The call to get_weather is not valid Python (invalid syntax); send it again as "
                            "get_weather(")


def test_a_missing_comma_before_a_hyphenated_call_gives_python_s_reason() -> None:
    _, calls, [(_, _, error)] = read('[search(q="a") get-weather(city="x")]')
    assert calls == []
    assert "Perhaps you forgot a comma?" in error


def test_a_cut_off_list_names_its_hyphenated_last_call() -> None:
    _, calls, invalid = read('[search(q="a"), get-weather(city="x"')
    assert calls == [("search", {"q": "a"})]
    assert invalid == [("get-weather", 'get-weather(city="x"', "The call is cut off before its closing parenthesis; "
                        'send the complete call, such as get_weather(param="value").')]


def test_a_cut_off_list_gives_python_s_reason_for_a_broken_call_before_the_cut() -> None:
    _, calls, invalid = read('[search(q="a"), get-weather(city: "x"), search(q="b"')
    assert calls == [("search", {"q": "a"})]
    assert [(name, error.split(";")[0]) for name, _, error in invalid] == [
        ("get-weather", "The call to get_weather is not valid Python (invalid syntax)"),
        ("search", "The call is cut off before its closing parenthesis")]


@pytest.mark.parametrize("text", ['get-weather(city="Oslo")', 'search(q="a")\nget-weather(city="Oslo")',
                                  'I will call get-weather(city="Oslo") now.'])
def test_a_lone_call_of_a_tool_python_cannot_read_as_written_is_a_call(text: str) -> None:
    # review 153 #5: only the list form [get-weather(...)] was read
    from toolwire.parsing import parse_tool_calls

    parsed = parse_tool_calls(text, ["search", "get-weather"], dialect="pythonic")
    assert ("get-weather", {"city": "Oslo"}) in [(c["name"], c["args"]) for c in parsed.tool_calls]
    assert "get-weather(" not in parsed.content and parsed.invalid_tool_calls == []
