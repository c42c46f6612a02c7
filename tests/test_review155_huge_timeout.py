"""Review 155 #2: a timeout above ``threading.TIMEOUT_MAX`` passes the timeout check, so the sync paths wait that
long (clamped to the maximum) instead of raising OverflowError after the tool has started."""

from __future__ import annotations

import threading
import time

from toolwire import tool

_BIG = max(1e10, threading.TIMEOUT_MAX * 2)


@tool
def slow_echo(x: int) -> int:
    """Echo x after a short pause.

    Args:
        x: the number to echo.
    """
    time.sleep(0.05)
    return x


@tool(timeout=_BIG)
def slow_echo_timed(x: int) -> int:
    """Echo x after a short pause.

    Args:
        x: the number to echo.
    """
    time.sleep(0.05)
    return x


def test_invoke_with_a_huge_timeout_returns_the_result() -> None:
    assert slow_echo.invoke({"x": 3}, timeout=_BIG) == 3
    assert slow_echo_timed.invoke({"x": 5}) == 5


def test_a_tool_call_with_a_huge_timeout_is_answered_with_its_result() -> None:
    call = {"name": "slow_echo", "args": {"x": 4}, "id": "c1", "type": "tool_call"}
    message = slow_echo.invoke(call, timeout=_BIG)
    assert message.status == "success"
    assert message.content == "4"


def test_batch_with_a_huge_timeout_returns_the_results() -> None:
    assert slow_echo.batch([{"x": 6}, {"x": 7}], timeout=_BIG) == [6, 7]
