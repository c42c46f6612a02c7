"""Review 162: the Agent holds every reply to the tool_choice of the request that asked for it, a resumed run's
pending calls too; a reply cut after max_steps is a cut reply; MaxStepsExceeded's advice fits a server that ignores the
Agent's own calls."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest
from pydantic import BaseModel

from _agent_tools import delete_all, final_answer, lookup, ran
from toolwire import Agent, AIMessage, ToolMessage
from toolwire.errors import MaxStepsExceeded
from toolwire.testing import ScriptedChatModel

pytestmark = pytest.mark.filterwarnings("ignore")

def _call(name: str, i: int | str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": f"c{i}"}


def _answers(messages: list[Any]) -> list[tuple[str, str]]:
    return [(m.status, m.content) for m in messages if isinstance(m, ToolMessage)]


def _stopped_at_reply(agent: Agent, question: str, replies: int = 1) -> list[Any]:
    """The conversation of a stream stopped (``break``) at its ``replies``-th ``model_reply`` event."""
    stream = agent.stream(question)
    seen = 0
    for event in stream:
        if event.type == "model_reply":
            seen += 1
            if seen == replies:
                break
    return stream.messages


async def _astopped_at_reply(agent: Agent, question: str) -> list[Any]:
    stream = agent.astream(question)
    async for event in stream:
        if event.type == "model_reply":
            break
    await stream.aclose()
    return stream.messages


REPLIES = {
    "none": (AIMessage("", tool_calls=[_call("delete_all", 1, folder="/home")]), {"tool_choice": "none"}),
    "refusal": (AIMessage("I can't help with that.", response_metadata={"finish_reason": "refusal"},
                          tool_calls=[_call("delete_all", 2, folder="/srv")]), {}),
    "tool name": (AIMessage("", tool_calls=[_call("delete_all", 3, folder="/var"), _call("lookup", 4, q="x")]),
                  {"tool_choice": "lookup"}),
}


@pytest.mark.parametrize("case", sorted(REPLIES))
def test_a_resumed_run_holds_its_pending_calls_as_the_stopped_run_would_have(case: str) -> None:
    reply, options = REPLIES[case]
    ran.clear()
    live = Agent(ScriptedChatModel([reply, "ok"]), [delete_all, lookup], **options).invoke("go")
    live_ran = list(ran)
    ran.clear()
    agent = Agent(ScriptedChatModel([reply, "ok"]), [delete_all, lookup], **options)
    resumed = agent.invoke(_stopped_at_reply(agent, "go"))
    assert ran == live_ran
    assert "delete_all" not in str(ran) and not any(r.startswith("/") for r in ran)
    assert _answers(resumed.messages) == _answers(live.messages)
    assert (resumed.stop_reason, resumed.output) == (live.stop_reason, live.output)


def test_a_resumed_async_run_holds_its_pending_calls_too() -> None:
    reply, options = REPLIES["none"]
    ran.clear()
    agent = Agent(ScriptedChatModel([reply, "ok"]), [delete_all], **options)
    messages = asyncio.run(_astopped_at_reply(agent, "go"))
    result = asyncio.run(agent.ainvoke(messages))
    assert ran == []
    assert [status for status, _ in _answers(result.messages)] == ["error"]
    assert "tool calls were off" in _answers(result.messages)[0][1]


def test_a_resumed_run_after_the_loops_own_tools_off_call_runs_a_new_call_and_refuses_a_repeat() -> None:
    """The reply to the Agent's tools-off call (made after a reply of repeats) is held as the live run holds it: a
    repeat gets "tool calls were off", a new call runs (review 141 #7)."""
    script = [AIMessage("", tool_calls=[_call("lookup", i, q="x")]) for i in range(2)]
    script.append(AIMessage("", tool_calls=[_call("lookup", 2, q="x"), _call("lookup", 3, q="y")]))
    ran.clear()
    live = Agent(ScriptedChatModel([*script, "done"]), [lookup]).invoke("go")
    live_ran = list(ran)
    ran.clear()
    agent = Agent(ScriptedChatModel([*script, "done"]), [lookup])
    resumed = agent.invoke(_stopped_at_reply(agent, "go", replies=3))
    assert live_ran == ["x", "y"] and ran == ["x", "y"]
    assert _answers(resumed.messages) == _answers(live.messages)
    assert "tool calls were off" in _answers(live.messages)[2][1]


def test_the_agents_forced_return_direct_call_holds_its_reply_to_that_tool() -> None:
    ran.clear()
    script = [AIMessage("", tool_calls=[_call("delete_all", i, folder="a")]) for i in range(2)]
    script += [AIMessage("", tool_calls=[_call("delete_all", 2, folder="b")]),
               AIMessage("", tool_calls=[_call("final_answer", 3, answer="ok")])]
    model = ScriptedChatModel(script)
    result = Agent(model, [delete_all, final_answer], tool_choice="required", reset_tool_choice=False).invoke("go")
    assert [r.tool_choice for r in model.requests] == ["required", "required", "final_answer", "final_answer"]
    assert ran == ["a"]  # b was not run: the request forced final_answer
    assert "to call 'final_answer' only" in _answers(result.messages)[2][1]
    assert (result.stop_reason, result.output) == ("return_direct", "ok")


def test_a_server_that_ignores_the_forced_tool_gets_advice_that_fits() -> None:
    model = ScriptedChatModel([AIMessage("", tool_calls=[_call("delete_all", 0, folder="a")])], cycle=True)
    agent = Agent(model, [delete_all, final_answer], tool_choice="required", reset_tool_choice=False, max_steps=6)
    with pytest.raises(MaxStepsExceeded) as caught:
        agent.invoke("go")
    assert "forced its tool 'final_answer'" in str(caught.value) and "raise max_steps" not in str(caught.value)
    assert [status for status, _ in _answers(caught.value.messages)][2:] == ["error"] * 4


def test_a_server_that_ignores_the_loops_tools_off_call_gets_advice_that_fits() -> None:
    model = ScriptedChatModel([AIMessage("", tool_calls=[_call("lookup", 0, q="x")])], cycle=True)
    with pytest.raises(MaxStepsExceeded) as caught:
        Agent(model, [lookup], max_steps=6).invoke("go")
    text = str(caught.value)
    assert "turned tool calls off" in text and "raise max_steps" not in text


def test_a_model_that_keeps_asking_for_new_calls_still_hears_to_raise_max_steps() -> None:
    script = [AIMessage("", tool_calls=[_call("lookup", i, q=str(i))]) for i in range(10)]
    with pytest.raises(MaxStepsExceeded, match="raise max_steps"):
        Agent(ScriptedChatModel(script), [lookup], max_steps=3).invoke("go")


class Answer(BaseModel):
    text: str


def test_a_reply_cut_after_max_steps_stops_as_cut_with_no_structured_call() -> None:
    call = AIMessage("", tool_calls=[_call("lookup", 1, q="x")])
    cut = AIMessage("The answer is that the population of", response_metadata={"finish_reason": "length"})
    structured = AIMessage("", tool_calls=[{"name": "Answer", "args": {"text": "t"}, "id": "s"}])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = ScriptedChatModel([call, cut, structured])
        result = Agent(model, [lookup], response_format=Answer, max_steps=1, on_max_steps="answer").invoke("q")
    assert (result.stop_reason, result.structured_response) == ("length", None)
    assert result.output == "The answer is that the population of"
    assert len(model.requests) == 2
