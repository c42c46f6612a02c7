"""A call given typed "invalid_tool_call" in OpenAI's format (its name and arguments under "function") keeps them
(review 203 #5)."""

from __future__ import annotations

from toolwire.messages import AIMessage


def test_name_and_arguments_are_read_from_function() -> None:
    message = AIMessage("", tool_calls=[{"type": "invalid_tool_call", "id": "c1",
                                         "function": {"name": "f", "arguments": '{"a": 1'}}])
    assert message.tool_calls == []
    [bad] = message.invalid_tool_calls
    assert (bad["name"], bad["args"], bad["id"]) == ("f", '{"a": 1', "c1") and bad["error"]


def test_the_call_own_name_wins() -> None:
    message = AIMessage("", tool_calls=[{"type": "invalid_tool_call", "name": "g", "args": "x",
                                         "function": {"name": "f", "arguments": "y"}}])
    [bad] = message.invalid_tool_calls
    assert (bad["name"], bad["args"]) == ("g", "x")
