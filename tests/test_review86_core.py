"""Review 86, core items: a call whose name differs from the tool's only in case runs (LangChain's tool guide
dispatches by ``tool_call["name"].lower()``); a call naming another tool is still refused."""

from __future__ import annotations

import asyncio
import logging

import pytest

from toolwire import tool


@tool
def get_weather(city: str) -> str:
    """Return the weather of a city."""
    return f"sunny in {city}"


def test_a_call_named_in_another_case_runs_the_tool_it_was_given_to() -> None:
    tools_by_name = {"get_weather": get_weather}
    call = {"name": "Get_Weather", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"}
    found = tools_by_name[call["name"].lower()]  # as LangChain's tool-calling guide looks the tool up
    for answer in (found.invoke(call), asyncio.run(found.ainvoke(call))):
        assert (answer.status, answer.content, answer.tool_call_id) == ("success", "sunny in Paris", "c1")
    other = found.invoke({**call, "name": "get_weather_now"})
    assert other.status == "error" and "names the tool 'get_weather_now'" in other.content


def test_abandoning_a_task_whose_close_raises_logs_it(caplog: pytest.LogCaptureFixture) -> None:
    from toolwire._concurrency import abandon

    async def stubborn() -> None:
        try:
            await asyncio.sleep(10)
        finally:
            await asyncio.sleep(0)  # awaits while being closed: "coroutine ignored GeneratorExit"

    async def main() -> None:
        task = asyncio.get_running_loop().create_task(stubborn(), name="stubborn-call")
        await asyncio.sleep(0)  # it starts and waits
        abandon(task)  # (was: the RuntimeError dropped without a word)
        await asyncio.sleep(0)

    with caplog.at_level(logging.DEBUG, "toolwire.tools"):
        asyncio.run(main())
    assert "Closing the abandoned task stubborn-call raised RuntimeError" in caplog.text
