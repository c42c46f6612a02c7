"""Review 165 #1 and #2: a resumed run holds its pending calls as the stopped run would have after a round whose every
call was refused (a forced tool stays forced, the forced return_direct call too), and the reply to the request after
the last step (on_max_steps="answer") is marked, so its calls are not run on resuming either."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from _agent_tools import delete_all, final_answer, lookup, ran
from toolwire import Agent, AIMessage, ToolMessage
from toolwire.testing import ScriptedChatModel

pytestmark = pytest.mark.filterwarnings("ignore")

def _reply(name: str, i: int, **args: Any) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"c{i}"}])


def _answers(messages: list[Any]) -> list[tuple[str, str]]:
    return [(m.status, m.content) for m in messages if isinstance(m, ToolMessage)]


def _stopped(agent: Agent, at: int, event: str = "model_reply") -> list[Any]:
    stream = agent.stream("go")
    seen = 0
    for item in stream:
        if item.type == event:
            seen += 1
            if seen == at:
                break
    return stream.messages


def _compare(script: list[Any], at: int, event: str = "model_reply", **options: Any) -> None:
    ran.clear()
    live_model = ScriptedChatModel(list(script))
    live = Agent(live_model, [lookup, delete_all, final_answer], **options).invoke("go")
    live_ran = list(ran)
    model = ScriptedChatModel(list(script))
    agent = Agent(model, [lookup, delete_all, final_answer], **options)
    ran.clear()
    messages = _stopped(agent, at, event)
    resumed = agent.invoke(messages)
    assert ran == live_ran  # (what the stopped run ran, then the resumed one)
    assert _answers(resumed.messages) == _answers(live.messages)
    assert [r.tool_choice for r in model.requests] == [r.tool_choice for r in live_model.requests]
    assert (resumed.stop_reason, resumed.output) == (live.stop_reason, live.output)


FORCED = [_reply("delete_all", 1, folder="/home"), _reply("delete_all", 2, folder="/srv"), _reply("lookup", 3, q="x"),
          "done"]


@pytest.mark.parametrize(("at", "event"), [(2, "model_reply"), (1, "tool_result"), (2, "tool_result")])
def test_a_forced_tool_stays_forced_on_resuming_after_refused_rounds(at: int, event: str) -> None:
    _compare(FORCED, at, event, tool_choice="lookup")


def test_a_forced_tool_stays_forced_on_resuming_async() -> None:
    async def stopped(agent: Agent) -> list[Any]:
        stream = agent.astream("go")
        seen = 0
        async for item in stream:
            if item.type == "model_reply":
                seen += 1
                if seen == 2:
                    break
        await stream.aclose()
        return stream.messages

    agent = Agent(ScriptedChatModel(list(FORCED)), [lookup, delete_all], tool_choice="lookup")
    messages = asyncio.run(stopped(agent))
    ran.clear()
    asyncio.run(agent.ainvoke(messages))
    assert ran == ["x"]


@pytest.mark.parametrize("at", [3, 4])
def test_the_forced_return_direct_call_stays_forced_on_resuming(at: int) -> None:
    script = [_reply("delete_all", 0, folder="a"), _reply("delete_all", 1, folder="a"),
              _reply("delete_all", 2, folder="b"), _reply("delete_all", 3, folder="c"),
              _reply("final_answer", 4, answer="ok")]
    _compare(script, at, tool_choice="required", reset_tool_choice=False)


def test_the_reply_after_the_last_step_is_marked_and_its_calls_not_run_on_resuming() -> None:
    script = [_reply("lookup", 1, q="x"), _reply("delete_all", 2, folder="/home")]
    _compare(script, 2, max_steps=1, on_max_steps="answer")
    result = Agent(ScriptedChatModel(list(script)), [lookup, delete_all], max_steps=1,
                   on_max_steps="answer").invoke("go")
    assert result.messages[-2].response_metadata == {"after_max_steps": True}
    assert result.stop_reason == "max_steps"
