"""Review 137 #1 and #2: the loop rule counts a reply of invalid calls as it counts valid ones, and the repeated-call
warning gives no advice for a tool that does not exist."""

from __future__ import annotations

import contextlib
import warnings

from toolwire import Agent, AIMessage, tool
from toolwire.errors import MaxStepsExceeded, RepeatedCallWarning
from toolwire.testing import ScriptedChatModel


@tool
def get(x: int) -> str:
    """Get x.

    Args:
        x: x.
    """
    return f"v{x}"


def _choices(reply: AIMessage) -> list:
    model = ScriptedChatModel([reply], cycle=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.suppress(MaxStepsExceeded):
            Agent(model, [get], max_steps=6).invoke("q")
    return [request.tool_choice for request in model.requests]


def test_the_same_malformed_call_a_third_time_turns_tools_off_as_a_valid_one_does() -> None:
    cut = AIMessage("", invalid_tool_calls=[{"name": "get", "args": '{"x": ', "id": "b", "error": "truncated",
                                             "type": "invalid_tool_call"}])
    bad = AIMessage("", tool_calls=[{"name": "get", "args": {"x": "abc"}, "id": "c", "type": "tool_call"}])
    assert _choices(cut) == _choices(bad) == ["auto", "auto", "auto", "none", "none", "none"]
    nameless = AIMessage("", invalid_tool_calls=[{"name": None, "args": "get(", "id": "d", "error": "unreadable",
                                                  "type": "invalid_tool_call"}])
    assert _choices(nameless)[3:] == ["none", "none", "none"]


def test_a_repeated_call_of_no_such_tool_warns_nothing() -> None:
    reply = AIMessage("", tool_calls=[{"name": "nope", "args": {}, "id": "c", "type": "tool_call"}])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.suppress(MaxStepsExceeded):
            Agent(ScriptedChatModel([reply], cycle=True), [get], max_steps=5).invoke("q")
    assert not [w for w in caught if issubclass(w.category, RepeatedCallWarning)]
    wrong = AIMessage("", tool_calls=[{"name": "get", "args": {"x": "abc"}, "id": "c", "type": "tool_call"}])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.suppress(MaxStepsExceeded):
            Agent(ScriptedChatModel([wrong], cycle=True), [get], max_steps=5).invoke("q")
    assert [w for w in caught if issubclass(w.category, RepeatedCallWarning)]  # a real tool: the advice stands
