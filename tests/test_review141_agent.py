"""Review 141 #7: under the Agent's own ``tool_choice="none"`` (its loop breaker, after a reply of repeats), a server
that ignores it and repeats an answered call got the earlier success again, so the model was never told tools were off
and asked again until ``max_steps``; such a repeat is now answered with the error a ``"none"`` reply's calls get."""

from __future__ import annotations

import asyncio
import warnings

import pytest

from toolwire import Agent, AIMessage, ToolMessage, tool
from toolwire.testing import ScriptedChatModel

OFF = ("Error: tool 'calculate' was not run: tool calls were off for this reply (tool_choice='none'); answer with the "
       "results you already have.")


def _tools(ran: list[str]) -> list:
    @tool
    def calculate(expression: str) -> str:
        """Evaluate an arithmetic expression."""
        ran.append(expression)
        return "6"

    @tool
    def lookup(key: str) -> str:
        """Look a key up."""
        ran.append(key)
        return f"value of {key}"

    return [calculate, lookup]


def _call(i: int, name: str = "calculate", **args: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args or {"expression": "3+3"}, "id": f"c{i}",
                                      "type": "tool_call"}])


@pytest.mark.filterwarnings("ignore::toolwire.RepeatedCallWarning")
def test_a_repeat_under_the_loops_own_none_is_told_tools_were_off_and_the_model_answers() -> None:
    ran: list[str] = []
    model = ScriptedChatModel([_call(0), _call(1), _call(2), "It is 6."])  # (ignores tool_choice, as many servers)
    stream = Agent(model, _tools(ran), max_steps=4).stream("q")
    events = [(e.type, e.data.get("id") if e.type == "tool_call" else getattr(e.data, "tool_call_id", None))
              for e in stream]
    answers = [m for m in stream.messages if isinstance(m, ToolMessage)]
    assert ran == ["3+3"] and [r.tool_choice for r in model.requests] == ["auto", "auto", "none", "none"]
    assert [(m.tool_call_id, m.status, m.content) for m in answers] == [
        ("c0", "success", "6"), ("c1", "success", "6"), ("c2", "error", OFF)]  # (c2 got "6" again)
    assert events[-4:] == [("tool_call", "c2"), ("tool_result", "c2"), ("model_reply", None), ("final", None)]
    assert stream.messages[-1].text == "It is 6."


@pytest.mark.filterwarnings("ignore::toolwire.RepeatedCallWarning")
def test_beside_the_refused_repeat_a_new_call_runs_in_call_order() -> None:
    ran: list[str] = []
    both = AIMessage("", tool_calls=[
        {"name": "lookup", "args": {"key": "k"}, "id": "n1", "type": "tool_call"},
        {"name": "calculate", "args": {"expression": "3+3"}, "id": "r1", "type": "tool_call"}])
    model = ScriptedChatModel([_call(0), _call(1), both, "done"])
    result = Agent(model, _tools(ran)).invoke("q")
    answers = [(m.tool_call_id, m.status, m.content) for m in result.messages if isinstance(m, ToolMessage)]
    assert answers[2:] == [("n1", "success", "value of k"), ("r1", "error", OFF)]
    assert ran == ["3+3", "k"] and result.reused_calls == {4: 2}


def test_async_and_updates_streams_answer_the_repeat_alike() -> None:
    ran: list[str] = []

    async def run() -> list:
        model = ScriptedChatModel([_call(0), _call(1), _call(2), "It is 6."])
        return [update async for update in Agent(model, _tools(ran)).astream("q", stream_mode="updates")]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        updates = asyncio.run(run())
    tools = [update["tools"]["messages"] for update in updates if "tools" in update]
    assert [[(m.tool_call_id, m.content) for m in batch] for batch in tools] == [[("c0", "6")], [("c1", "6")],
                                                                                  [("c2", OFF)]]
    assert ran == ["3+3"]


@pytest.mark.filterwarnings("ignore::toolwire.RepeatedCallWarning")
def test_a_model_that_keeps_repeating_is_told_each_time_and_tools_stay_off() -> None:
    model = ScriptedChatModel([_call(i) for i in range(5)])
    from toolwire.errors import MaxStepsExceeded

    with pytest.raises(MaxStepsExceeded) as caught:
        Agent(model, _tools([]), max_steps=5).invoke("q")
    answers = [m.content for m in caught.value.messages if isinstance(m, ToolMessage)]
    assert answers == ["6", "6", OFF, OFF, OFF]
    assert [r.tool_choice for r in model.requests] == ["auto", "auto", "none", "none", "none"]
