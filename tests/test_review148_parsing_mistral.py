"""Review 148 #5: after Mistral's ``[TOOL_CALLS]name[ARGS]``, missing arguments or arguments that are not a
JSON object give an invalid call (its markers taken out of the text), not text."""

from __future__ import annotations

import pytest

from _parsed import calls, errors
from toolwire.parsing import parse_tool_calls


@pytest.mark.parametrize(("text", "raw", "error"), [
    ("[TOOL_CALLS]get_weather[ARGS]", "", "The call to get_weather ends right after [ARGS] (it looks cut off)"),
    ("[TOOL_CALLS]get_weather[ARGS]city=Paris", "city=Paris", "got text that is not JSON"),
    ('[TOOL_CALLS]get_weather[ARGS]"Paris"', '"Paris"', "got a JSON string"),
    ('[TOOL_CALLS]get_weather[ARGS][{"city": "Paris"}]', '[{"city": "Paris"}]', "got a JSON array"),
])
def test_mistral_args_that_are_no_json_object_are_an_invalid_call(text: str, raw: str, error: str) -> None:
    reply = parse_tool_calls(text, ["get_weather"])
    assert calls(reply) == [] and reply.content == ""
    assert [(bad["name"], bad["args"]) for bad in reply.invalid_tool_calls] == [("get_weather", raw)]
    assert error in errors(reply)[0]


def test_mistral_text_after_a_broken_args_line_stays_and_later_calls_are_read() -> None:
    reply = parse_tool_calls("[TOOL_CALLS]get_weather[ARGS]city=Paris\nThanks!", ["get_weather"])
    assert reply.content == "Thanks!" and len(reply.invalid_tool_calls) == 1
    reply = parse_tool_calls('[TOOL_CALLS]get_weather[ARGS]"Paris" get_weather[ARGS]{"city": "Rome"}', ["get_weather"])
    assert calls(reply) == [("get_weather", {"city": "Rome"})] and len(reply.invalid_tool_calls) == 1
    reply = parse_tool_calls("[TOOL_CALLS]get_weather[ARGS][TOOL_CALLS]get_weather[ARGS]{}", ["get_weather"])
    assert calls(reply) == [("get_weather", {})] and len(reply.invalid_tool_calls) == 1
    reply = parse_tool_calls("The [TOOL_CALLS] marker starts calls.", ["get_weather"])  # prose stays
    assert reply.content == "The [TOOL_CALLS] marker starts calls." and reply.invalid_tool_calls == []
