"""Review 93: a LangGraph agent's calling convention ported to the Agent."""

from __future__ import annotations

import pytest

from toolwire import Agent, HumanMessage, tool
from toolwire.errors import UserError
from toolwire.testing import ScriptedChatModel


@tool
def double(x: int) -> int:
    """Double a number."""
    return 2 * x


def _agent() -> Agent:
    return Agent(ScriptedChatModel(["It is 4."], cycle=True), [double])


def test_the_agent_takes_langgraphs_state_and_its_result_reads_like_langgraphs() -> None:
    result = _agent().invoke({"messages": [("user", "Double 2?")]})
    assert result["messages"] == result.messages and result.messages[0] == HumanMessage("Double 2?")
    assert result["output"] == "It is 4." and result["steps"] == 1 and result["stop_reason"] == "answer"
    with pytest.raises(KeyError, match="an AgentResult has messages, output, steps, stop_reason"):
        result["structured_response"]


def test_a_state_with_other_keys_is_refused_saying_what_the_agent_reads() -> None:
    with pytest.raises(UserError, match="reads only the 'messages' of a LangGraph state, not user_id"):
        _agent().invoke({"messages": [("user", "hi")], "user_id": 7})
    assert _agent().invoke([{"role": "user", "content": "hi"}]).output == "It is 4."  # (message dicts as before)


def test_a_tool_has_batch_and_abatch_as_langchain_tools_do() -> None:
    import asyncio

    from toolwire import ToolMessage
    from toolwire.errors import ToolValidationError

    call = {"name": "double", "args": {"x": 5}, "id": "c1", "type": "tool_call"}
    assert double.batch([{"x": 1}, {"x": 2}, call]) == [2, 4, ToolMessage("10", "c1", name="double")]
    assert asyncio.run(double.abatch([{"x": 3}], max_concurrency=1)) == [6]
    answers = double.batch([{"x": 1}, {"y": 1}], return_exceptions=True)
    assert answers[0] == 2 and isinstance(answers[1], ToolValidationError)
    with pytest.raises(UserError, match="max_concurrency"):
        double.batch([{"x": 1}], {"max_concurrency": 2})


def test_langchains_tool_options_toolwire_has_no_place_for_say_what_to_do() -> None:
    from toolwire import Tool

    async def lookup(q: str) -> str:
        """Look up."""
        return q

    with pytest.raises(UserError, match="option 'coroutine': make the tool of the async function itself"):
        Tool.from_function(coroutine=lookup, name="lookup", description="Look up.")  # type: ignore[call-arg]
    with pytest.raises(UserError, match="option 'infer_schema': toolwire always reads the schema"):
        tool(infer_schema=False)(lookup)
    with pytest.raises(UserError, match="did you mean 'args_schema'"):  # (a misspelling keeps its hint)
        tool(arg_schema=None)(lookup)
