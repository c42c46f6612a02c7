"""Review 71 (a fresh user's app): the Agent's repeated-call answers and its system prompt.

* A repeated call was answered with the result of a round before another tool ran: ``list_tasks`` after
  ``add_task`` got the first list again. The embedded model's own decline of repeated calls read the
  conversation the same way.
* ``Agent(system_prompt=...)`` was dropped without a word when the conversation opened with a system message.
"""

from __future__ import annotations

from toolwire import Agent, AIMessage, HumanMessage, SystemMessage, ToolMessage, tool
from toolwire.models._answered import answered_calls
from toolwire.testing import ScriptedChatModel


def _call(name: str, args: dict, call_id: str) -> dict:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def _task_tools() -> tuple[list[str], list]:
    tasks: list[str] = []

    @tool
    def add_task(title: str) -> str:
        """Add a task."""
        tasks.append(title)
        return f"added #{len(tasks)}: {title}"

    @tool
    def list_tasks() -> list[str]:
        """List all tasks."""
        return list(tasks)

    return tasks, [add_task, list_tasks]


def test_a_repeated_call_runs_again_once_another_tool_ran_since_its_result() -> None:
    tasks, tools = _task_tools()
    model = ScriptedChatModel([
        AIMessage("", tool_calls=[_call("list_tasks", {}, "a")]),
        AIMessage("", tool_calls=[_call("list_tasks", {}, "b")]),  # nothing ran since: answered from "a"
        AIMessage("", tool_calls=[_call("add_task", {"title": "call mom"}, "c")]),
        AIMessage("", tool_calls=[_call("list_tasks", {}, "d")]),  # add_task ran since: runs again
        "done"])
    result = Agent(model, tools).invoke("List, add 'call mom', list again.")
    answers = {m.tool_call_id: m.content for m in result.messages if isinstance(m, ToolMessage)}
    assert answers == {"a": "[]", "b": "[]", "c": "added #1: call mom", "d": '["call mom"]'}
    assert tasks == ["call mom"]


def test_a_repeat_answered_in_a_round_where_a_tool_ran_is_not_given_again_later() -> None:
    _, tools = _task_tools()
    model = ScriptedChatModel([
        AIMessage("", tool_calls=[_call("list_tasks", {}, "a")]),
        # list_tasks answered from "a", but add_task runs in the same round
        AIMessage("", tool_calls=[_call("list_tasks", {}, "b"), _call("add_task", {"title": "x"}, "c")]),
        AIMessage("", tool_calls=[_call("list_tasks", {}, "d")]),
        "done"])
    result = Agent(model, tools).invoke("Go.")
    answers = {m.tool_call_id: m.content for m in result.messages if isinstance(m, ToolMessage)}
    assert answers["b"] == "[]" and answers["d"] == '["x"]'


def test_the_embedded_models_answered_calls_start_again_after_a_new_call() -> None:
    listed = AIMessage("", tool_calls=[_call("list_tasks", {}, "a")])
    added = AIMessage("", tool_calls=[_call("add_task", {"title": "x"}, "b")])
    again = AIMessage("", tool_calls=[_call("list_tasks", {}, "c")])
    list_key = ("list_tasks", "{}")
    conversation = [HumanMessage("Go."), listed, ToolMessage("[]", tool_call_id="a")]
    assert answered_calls(conversation) == {list_key}
    conversation += [again, ToolMessage("[]", tool_call_id="c")]  # a repeat: the answered calls stay
    assert answered_calls(conversation) == {list_key}
    conversation += [added, ToolMessage("added", tool_call_id="b")]  # a new call ran: the list may have changed
    assert answered_calls(conversation) == {("add_task", '{"title": "x"}')}


def test_the_system_prompt_is_merged_with_the_conversations_own_system_message() -> None:
    model = ScriptedChatModel(["ok", "ok again"])
    agent = Agent(model, [], system_prompt="Always answer in French.")
    result = agent.invoke([SystemMessage("Today is 2025-05-01."), HumanMessage("hi")])
    first = model.requests[0].messages[0]
    assert isinstance(first, SystemMessage) and first.content == "Always answer in French.\n\nToday is 2025-05-01."
    # going on with the run's conversation keeps one system message, not the prompt twice
    agent.invoke([*result.messages, HumanMessage("and now?")])
    systems = [m for m in model.requests[1].messages if isinstance(m, SystemMessage)]
    assert [m.content for m in systems] == ["Always answer in French.\n\nToday is 2025-05-01."]


def test_the_system_prompt_goes_first_as_before_when_the_conversation_has_none() -> None:
    model = ScriptedChatModel(["ok"])
    Agent(model, [], system_prompt=SystemMessage("Be brief.")).invoke("hi")
    assert [(m.type, m.content) for m in model.requests[0].messages] == [("system", "Be brief."), ("human", "hi")]


def test_a_system_message_of_blocks_gets_the_prompt_as_a_message_of_its_own() -> None:
    model = ScriptedChatModel(["ok"])
    blocks = SystemMessage([{"type": "text", "text": "Today is 2025-05-01."}])
    Agent(model, [], system_prompt="Be brief.").invoke([blocks, HumanMessage("hi")])
    assert [m.content for m in model.requests[0].messages[:2]] == ["Be brief.", blocks.content]
