"""``max_concurrency`` and ``max_result_chars`` take a NumPy integer, as ``timeout`` takes NumPy numbers
(review 176 #4).

They refused ``np.int64(4)`` saying it was "not a whole number". Any non-bool integer ``operator.index`` reads is
now taken and kept as an ``int``; bools and floats are still refused.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire import Agent, ToolExecutor, tool
from toolwire.errors import UserError
from toolwire.testing import ScriptedChatModel

np = pytest.importorskip("numpy")


@tool
def ping() -> str:
    """Ping."""
    return "pong"


@tool
def long_text() -> str:
    """A long text."""
    return "x" * 500


class Index:
    """An integer type of a library's own (``operator.index`` reads it)."""

    def __index__(self) -> int:
        return 3


@pytest.mark.parametrize("value", [np.int64(4), np.uint8(4), np.int32(4), Index()])
def test_integer_types_are_accepted_and_kept_as_int(value: Any) -> None:
    executor = ToolExecutor([ping], max_concurrency=value, max_result_chars=value)
    assert type(executor.max_concurrency) is int and executor.max_concurrency == int(value.__index__())
    assert type(executor.max_result_chars) is int
    agent = Agent(ScriptedChatModel(["x"]), [ping], max_concurrency=value, max_result_chars=value)
    assert type(agent.executor.max_concurrency) is int


def test_numpy_limits_work() -> None:
    executor = ToolExecutor([long_text, ping], max_concurrency=np.int64(1), max_result_chars=np.int64(100))
    calls = [{"name": "long_text", "args": {}, "id": "a", "type": "tool_call"},
             {"name": "ping", "args": {}, "id": "b", "type": "tool_call"}]
    for messages in (executor.execute(calls), asyncio.run(executor.aexecute(calls))):
        assert messages[0].content.startswith("x" * 100 + "\n[... result truncated: 400 of 500 characters cut")
        assert messages[1].content == "pong"


@pytest.mark.parametrize("value", [True, np.bool_(True), 4.0, np.float64(4.0), "4", 0, np.int64(0), -1])
@pytest.mark.parametrize("option", ["max_concurrency", "max_result_chars"])
def test_non_integers_and_small_values_are_still_refused(option: str, value: Any) -> None:
    with pytest.raises(UserError, match=f"{option} must be a whole number of at least 1"):
        ToolExecutor([ping], **{option: value})
