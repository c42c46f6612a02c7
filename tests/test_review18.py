"""Review 18 regressions (a review of the seventeenth review's fixes). Each test fails on the code before."""

from __future__ import annotations

import asyncio
import decimal
import fractions
import time

import pytest

from toolwire import Agent, AIMessage, HumanMessage, ToolExecutor, ToolMessage, UserError, tool
from toolwire.testing import ScriptedChatModel

runs: list[int] = []


@tool
def charge(amount: int) -> str:
    """Charge a card."""
    runs.append(amount)
    return "charged"


# -- 1: an async result after its deadline is a timeout, also when another tool blocked the event loop -------


@tool(timeout=0.1)
async def slow() -> str:
    """Take longer than the timeout."""
    await asyncio.sleep(0.5)
    return "late result"


@tool
async def blocker() -> str:
    """Block the event loop for 1 s (no timeout)."""
    await asyncio.sleep(0.02)
    time.sleep(1.0)
    return "ok"


def test_a_late_async_result_is_a_timeout_even_when_another_tool_blocked_the_loop():
    reply = AIMessage(tool_calls=[{"name": "slow", "args": {}, "id": "b", "type": "tool_call"},
                                  {"name": "blocker", "args": {}, "id": "a", "type": "tool_call"}])
    late, ok = ToolExecutor([slow, blocker]).execute(reply)
    assert late.status == "error" and "did not finish within 0.1 seconds" in late.content
    assert ok.content == "ok"


# -- 2: a numeric call id and its answer stay matched: an answered call is not run again ------------------------


def test_an_answered_call_with_a_numeric_id_is_not_run_again():
    runs.clear()
    history = [HumanMessage("charge 5"),
               AIMessage("", tool_calls=[{"name": "charge", "args": {"amount": 5}, "id": 0, "type": "tool_call"}]),
               ToolMessage("charged", tool_call_id=0)]  # type: ignore[arg-type]
    assert history[1].tool_calls[0]["id"] == history[2].tool_call_id == "0"
    result = Agent(ScriptedChatModel(["done"]), [charge]).invoke(history)
    assert runs == [] and result.output == "done"
    assert [m.tool_call_id for m in result.messages if isinstance(m, ToolMessage)] == ["0"]


# -- 3: one ToolMessage per call, whatever its neighbours ---------------------------------------------------


def test_acall_answers_a_nameless_call_whatever_its_neighbours():
    for neighbour_id in (None, 7):
        calls = [{"name": None, "args": {}, "id": "c1"}, {"name": "charge", "args": {"amount": 1}, "id": neighbour_id}]
        out = asyncio.run(ToolExecutor([charge]).acall(calls))  # type: ignore[arg-type]
        assert [m.status for m in out] == ["error", "success"] and out[0].tool_call_id == "c1"
        assert out[1].tool_call_id and (neighbour_id is None or out[1].tool_call_id == "7")


# -- 6, 7: MCP: credentials in a stdio server's command line are masked; a bad timeout is refused -------------


def test_mcp_stdio_labels_mask_url_credentials_and_bad_timeouts_are_refused():
    from toolwire.mcp import MCPClient
    from toolwire.mcp.common import StdioServer

    server = StdioServer("npx", ["-y", "mcp-remote", "https://example.com/sse?api_key=sk-SECRET"])
    assert "SECRET" not in server.label and "SECRET" not in repr(server)
    assert server.args[-1].endswith("sk-SECRET")  # the real command line is still the one run
    for bad in (float("nan"), "5", 0, True):
        with pytest.raises(UserError, match="The MCP option timeout must be a positive number of seconds"):
            MCPClient(["npx", "x"], timeout=bad)
    with pytest.raises(UserError, match="connect_timeout must be a positive number of seconds, not None"):
        MCPClient(["npx", "x"], connect_timeout=None)  # type: ignore[arg-type]


# -- 8: every positive real number of seconds is a timeout ----------------------------------------------------


def test_timeouts_accept_any_positive_real_number():
    np = pytest.importorskip("numpy")

    for value in (np.int64(2), np.float32(0.5), fractions.Fraction(1, 2), decimal.Decimal("2")):
        @tool(timeout=value)
        def echo(x: int) -> int:
            """Echo."""
            return x

        assert echo.invoke({"x": 1}) == 1 and asyncio.run(echo.ainvoke({"x": 2})) == 2
        assert charge.invoke({"amount": 3}, timeout=value) == "charged"


# -- 9: masking secrets in long text stays linear, and still masks -------------------------------------------


def test_redact_url_on_long_text():
    from toolwire._secrets import redact_url

    text = "?" + "key" * 40_000 + " https://u:p@x/v1?page=2&api_key=sk-1"
    assert redact_url(text).endswith("https://****@x/v1?page=2&api_key=****")
