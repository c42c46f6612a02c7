"""Review 118 (porting OpenAI Agents SDK and Pydantic AI programs): a reply's calls that its request's tool_choice did
not allow are not run; a call that failed runs again (a transient failure gets its retry); ..."""

from __future__ import annotations

import asyncio

import pytest

from toolwire import Agent, AIMessage, ToolMessage, tool
from toolwire.testing import ScriptedChatModel


def _calls(*calls: tuple[str, dict]) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(calls, 1)])


def _tools(ran: list[str]) -> list:
    @tool
    def delete_all() -> str:
        """Delete every record."""
        ran.append("delete_all")
        return "deleted everything"

    @tool
    def get_weather(city: str) -> str:
        """Weather of a city."""
        ran.append("get_weather")
        return "sunny"

    return [delete_all, get_weather]


@pytest.mark.parametrize("how", ["sync", "async"])
def test_calls_a_server_sends_under_tool_choice_none_are_answered_and_not_run(how: str) -> None:
    ran: list[str] = []
    model = ScriptedChatModel([_calls(("delete_all", {})), "ok"])  # (a server that ignores tool_choice)
    agent = Agent(model, _tools(ran), tool_choice="none")
    result = agent.invoke("Summarise") if how == "sync" else asyncio.run(agent.ainvoke("Summarise"))
    assert ran == []  # was: delete_all ran
    answer = next(m for m in result.messages if isinstance(m, ToolMessage))
    assert answer.tool_call_id == "c1" and answer.status == "error"
    assert "was not run" in answer.text and "tool_choice='none'" in answer.text
    assert result.output == "ok" and [r.tool_choice for r in model.requests] == ["none", "none"]


def test_under_a_named_tool_choice_only_that_tools_calls_run() -> None:
    ran: list[str] = []
    model = ScriptedChatModel([_calls(("delete_all", {}), ("get_weather", {"city": "Paris"})), "sunny in Paris"])
    result = Agent(model, _tools(ran), tool_choice="get_weather").invoke("Weather in Paris?")
    assert ran == ["get_weather"]
    answers = {m.tool_call_id: m for m in result.messages if isinstance(m, ToolMessage)}
    assert answers["c1"].status == "error" and "'get_weather' only" in answers["c1"].text
    assert (answers["c2"].status, answers["c2"].text) == ("success", "sunny")
    assert [r.tool_choice for r in model.requests] == ["get_weather", "auto"]  # (reset after the first round)


def test_a_call_that_failed_twice_runs_a_third_time_and_can_succeed() -> None:
    tries: list[int] = []

    @tool
    def fetch(url: str) -> str:
        """Fetch a page."""
        tries.append(1)
        if len(tries) < 3:
            raise ConnectionError("connection reset by peer")
        return "<html>ok</html>"

    model = ScriptedChatModel([_calls(("fetch", {"url": "http://x"})) for _ in range(3)] + ["fetched"])
    result = Agent(model, [fetch]).invoke("Fetch http://x")
    assert len(tries) == 3  # was: 2, the third call answered with the second's error without running
    answers = [m for m in result.messages if isinstance(m, ToolMessage)]
    assert [m.status for m in answers] == ["error", "error", "success"] and answers[-1].text == "<html>ok</html>"
    assert [r.tool_choice for r in model.requests] == ["auto"] * 4  # (the same reply a third time, but with another
    # answer, the success: no loop, review 128 #2; review 122's rule turned tools off here)


def test_a_timed_out_call_runs_again_rather_than_being_told_it_is_still_running() -> None:
    tries: list[int] = []

    @tool(timeout=0.05)
    async def report() -> str:
        """A report that is slow the first two times."""
        tries.append(1)
        if len(tries) < 3:
            await asyncio.sleep(5)
        return "the report"

    model = ScriptedChatModel([_calls(("report", {})) for _ in range(3)] + ["done"])
    result = Agent(model, [report]).invoke("Report")
    assert len(tries) == 3
    assert [m.text for m in result.messages if isinstance(m, ToolMessage)][-1] == "the report"


def _add_one(a: int) -> int:
    return a + 1


def test_a_tool_from_schema_keeps_its_strict_through_pickle() -> None:
    import pickle

    from toolwire.interop.openai_tools import tool_from_schema

    spec = {"type": "function", "function": {
        "name": "add_one", "description": "Add one.", "strict": True, "parameters": {
            "type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
            "additionalProperties": False}}}
    made = tool_from_schema(spec, _add_one)
    again = pickle.loads(pickle.dumps(made))
    assert again.spec == made.spec and getattr(again.spec, "extra", None) == {"strict": True}  # was: dropped
    assert again.invoke({"a": 1}) == 2
