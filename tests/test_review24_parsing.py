"""Review 24: calls drafted inside a reasoning block, and a repeated keyword argument."""

from __future__ import annotations

from toolwire.models._text_calls import read_text_calls
from toolwire.parsing import parse_tool_calls


def test_calls_inside_a_think_block_are_not_read_from_a_servers_text() -> None:
    """A reasoning model drafts calls while thinking; only a call written after the block is one."""
    for drafted in ('[get_weather(city="Rome")]', '<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>',
                    '{"name": "get_weather", "arguments": {"city": "Rome"}}'):
        assert read_text_calls(f"<think>\n{drafted}\n</think>\nThe answer is 4.", ["get_weather"]) is None
        assert read_text_calls(f"<think>\nmaybe\n{drafted}", ["get_weather"]) is None  # cut off while thinking
    content, calls, invalid = read_text_calls(
        '<think>\n[get_weather(city="Rome")]\n</think>\n[get_weather(city="Oslo")]', ["get_weather"])
    assert [c["args"] for c in calls] == [{"city": "Oslo"}] and invalid == []
    assert content.startswith("<think>")


def test_a_repeated_keyword_makes_an_invalid_call_not_the_last_value() -> None:
    reply = parse_tool_calls('[get_weather(city="A", city="B")]', ["get_weather"], dialect="pythonic")
    assert reply.tool_calls == []
    assert "repeated" in reply.invalid_tool_calls[0]["error"]
    assert parse_tool_calls('[get_weather(city="A", days=2)]', ["get_weather"]).tool_calls[0]["args"] == {
        "city": "A", "days": 2}


def test_a_number_too_long_for_python_is_an_invalid_call_not_silent_text() -> None:
    """Python reads at most 4,300 digits of an int: the call is answered with what to fix instead of being text."""
    huge = "1" + "0" * 5000
    reply = parse_tool_calls(f"[calculate(expression={huge})]", ["calculate"], dialect="pythonic")
    assert reply.tool_calls == [] and reply.invalid_tool_calls[0]["name"] == "calculate"
    assert "too many digits" in reply.invalid_tool_calls[0]["error"]
    assert parse_tool_calls(f"[other(x={huge})]", ["calculate"], dialect="pythonic").invalid_tool_calls == []
