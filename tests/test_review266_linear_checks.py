"""Review 266 #1 and #3: checks that ran in time quadratic in the conversation or in the tools: the messages a stored
conversation's check reads, counted without timing, and ``bind_tools``' check of repeated names."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import tool
from toolwire._agent_checks import answer_stale_calls
from toolwire.errors import SchemaError
from toolwire.messages import AIMessage, HumanMessage, ToolMessage
from toolwire.testing import ScriptedChatModel


class _CountingList(list):  # type: ignore[type-arg]
    """A list that counts the items its indexing and slicing hand out."""

    handed = 0

    def __getitem__(self, key: Any) -> Any:
        got = super().__getitem__(key)
        _CountingList.handed += len(got) if isinstance(key, slice) else 1
        return got


def _conversation(rounds: int) -> _CountingList:
    messages = _CountingList()
    for i in range(rounds):
        messages += [HumanMessage(f"q{i}"), AIMessage("", tool_calls=[
            {"name": "get_weather", "args": {"city": "x"}, "id": f"c{i}", "type": "tool_call"}]),
            ToolMessage("sunny", tool_call_id=f"c{i}"), AIMessage("It is sunny.")]
    return messages


def test_a_stored_conversation_is_checked_in_linear_time() -> None:
    handed = []
    for rounds in (200, 400):
        messages = _conversation(rounds)
        _CountingList.handed = 0
        assert answer_stale_calls(messages) == []
        handed.append(_CountingList.handed)
    assert handed[1] <= 2.2 * handed[0] and handed[1] <= 20 * len(_conversation(400))


def test_bind_tools_still_names_the_first_repeated_name() -> None:
    """The names are counted once each now (``collections.Counter``), not once per name with ``list.count``."""
    tools = []
    for name in ["b", "a", "c", "b", "a"]:
        def fn(x: int) -> int:
            """Echo."""
            return x
        tools.append(tool(fn, name=name))
    with pytest.raises(SchemaError, match="Two tools are named 'a'"):
        ScriptedChatModel([AIMessage("ok")]).bind_tools(tools)
    ScriptedChatModel([AIMessage("ok")]).bind_tools(tools[:3])
