"""Review 194: ScriptedChatModel reads a whole reply as a stream (#1), the loop breaker refuses a repeat of a
``repeat_calls`` tool (#2), and a run resumed after a ``return_direct`` result ends with it (#3)."""

from __future__ import annotations

import asyncio
import warnings

import pytest

from toolwire import Agent, AIMessage, ToolMessage, tool
from toolwire._agent_input import TOOLS_OFF
from toolwire.messages import merge_chunks
from toolwire.testing import ScriptedChatModel


@tool
def get_weather(city: str) -> str:
    """Get the weather.

    Args:
        city: the city.
    """
    return f"sunny in {city}"


def _call(name: str, args: dict, call_id: str = "c1") -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])


# -- #1: invoke, ainvoke, stream and astream give one reply --------------------------------------------------------

SCRIPTED = [
    (" get_weather", {"city": "Paris"}),  # a name with a space
    ("get_weather", {"name": "get_weather", "arguments": {"city": "a"}}),  # wrapped arguments
    ("", {"name": "get_weather", "arguments": {"city": "a"}}),  # no name, wrapped call
    ("", {"city": "a"}),  # no name at all: an invalid call
]


@pytest.mark.parametrize(("name", "args"), SCRIPTED)
def test_scripted_invoke_reads_calls_as_stream(name: str, args: dict) -> None:
    model = ScriptedChatModel([_call(name, args)] * 4).bind_tools([get_weather])
    whole = model.invoke("q")
    streamed = merge_chunks(list(model.stream("q")), as_chunk=False, tool_names=["get_weather"])

    async def both() -> tuple[AIMessage, list]:
        return await model.ainvoke("q"), [chunk async for chunk in model.astream("q")]

    awhole, achunks = asyncio.run(both())
    astreamed = merge_chunks(achunks, as_chunk=False, tool_names=["get_weather"])
    for other in (streamed, awhole, astreamed):
        assert other.tool_calls == whole.tool_calls
        assert [(b.get("name"), b.get("args"), b.get("id")) for b in other.invalid_tool_calls] == \
            [(b.get("name"), b.get("args"), b.get("id")) for b in whole.invalid_tool_calls]


@pytest.mark.parametrize(("name", "args"), SCRIPTED)
def test_agent_run_same_under_invoke_and_stream_tokens(name: str, args: dict) -> None:
    answers = []
    for tokens in (False, True):
        agent = Agent(ScriptedChatModel([_call(name, args), "done"]), [get_weather])
        result = list(agent.stream("q", stream_tokens=tokens))[-1].data
        answers.append((result.messages[2].content, result.messages[2].status))
    assert answers[0] == answers[1]
    if name.strip() or "name" in args:
        assert answers[0][1] == "success"


def test_scripted_invoke_strips_name() -> None:
    model = ScriptedChatModel([_call(" get_weather", {"city": "Paris"})])
    assert model.invoke("q").tool_calls[0]["name"] == "get_weather"


# -- #2: the loop breaker's tools-off call refuses a repeat of a repeat_calls tool ------------------------------------

def _adder() -> tuple[list[int], object]:
    ran: list[int] = []

    @tool
    def add_expense(amount: int) -> str:
        """Add an expense.

        Args:
            amount: how much.
        """
        ran.append(amount)
        return "added"

    return ran, add_expense


def _add(i: int, amount: int = 80) -> AIMessage:
    return _call("add_expense", {"amount": amount}, f"e{i}")


def test_loop_breaker_refuses_repeat_of_repeat_calls_tool() -> None:
    ran, add_expense = _adder()
    model = ScriptedChatModel([_add(i) for i in range(9)] + ["done"])  # (ignores tool_choice, as some servers do)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = Agent(model, [add_expense], repeat_calls=["add_expense"], max_steps=10).invoke("add 80")
    assert len(ran) == 3  # the three calls that made the loop; none after tools went off
    assert [r.tool_choice for r in model.requests][3] == "none"
    answers = [m for m in result.messages if isinstance(m, ToolMessage)]
    assert [a.content for a in answers[:3]] == ["added"] * 3
    assert all(a.status == "error" and str(a.content).endswith(TOOLS_OFF) for a in answers[3:])
    assert result.output == "done"


def test_loop_breaker_still_runs_a_new_call() -> None:
    ran, add_expense = _adder()
    model = ScriptedChatModel([_add(0), _add(1), _add(2), _add(3, amount=5), "done"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = Agent(model, [add_expense], repeat_calls=["add_expense"], max_steps=10).invoke("add 80")
    assert ran == [80, 80, 80, 5]
    assert result.output == "done"


def test_loop_breaker_refuses_repeat_on_resume() -> None:
    ran, add_expense = _adder()
    agent = Agent(ScriptedChatModel([_add(i) for i in range(4)]), [add_expense], repeat_calls=["add_expense"])
    stream = agent.stream("add 80")
    replies = 0
    for event in stream:
        if event.type == "model_reply":
            replies += 1
            if replies == 4:  # the reply to the tools-off call, its repeat not answered yet
                break
    saved = list(stream.messages)
    assert len(ran) == 3
    model = ScriptedChatModel(["done"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = Agent(model, [add_expense], repeat_calls=["add_expense"]).invoke(saved)
    assert len(ran) == 3
    assert str(result.messages[-2].content).endswith(TOOLS_OFF)
    assert model.requests[0].tool_choice == "none"
