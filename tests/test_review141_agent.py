"""Review 141 #7: under the Agent's own ``tool_choice="none"`` (its loop breaker, after a reply of repeats), a server
that ignores it and repeats an answered call got the earlier success again, so the model was never told tools were off
and asked again until ``max_steps``; such a repeat is now answered with the error a ``"none"`` reply's calls get."""

from __future__ import annotations

import asyncio
import warnings

import pytest

from toolwire import Agent, AIMessage, RepeatedCallWarning, ToolMessage, tool
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


# Review 142 #6: a run resumed from exc.messages / stream.messages remembers the calls answered since the newest user
# message, as the uninterrupted run does, so the model's repeat of an answered call is not run a second time.


def _expense_tool(ran: list[int]) -> list:
    @tool
    def add_expense(amount: int) -> str:
        """Add an expense."""
        ran.append(amount)
        return f"added {amount}"

    return [add_expense]


def _expense(i: int, amount: int = 80) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "add_expense", "args": {"amount": amount}, "id": f"e{i}",
                                      "type": "tool_call"}])


@pytest.mark.filterwarnings("ignore::toolwire.RepeatedCallWarning")
def test_a_run_resumed_from_exc_messages_answers_the_repeat_from_the_earlier_result() -> None:
    from toolwire import ProviderError

    ran: list[int] = []

    def provider_down(messages: list) -> AIMessage:
        raise ProviderError("timeout", provider="openai", retryable=True)

    with pytest.raises(ProviderError) as caught:
        Agent(ScriptedChatModel([_expense(1), provider_down]), _expense_tool(ran)).invoke("add 80")
    result = Agent(ScriptedChatModel([_expense(2), "done"]), _expense_tool(ran)).invoke(caught.value.messages)
    assert ran == [80] and result.reused_calls == {4: 2} and result.messages[4].content == "added 80"


@pytest.mark.filterwarnings("ignore::toolwire.RepeatedCallWarning")
def test_a_stream_stopped_and_resumed_sync_and_async_answers_the_repeat_alike() -> None:
    ran: list[int] = []
    agent = Agent(ScriptedChatModel([_expense(1), _expense(2), "done", _expense(2), "done"]), _expense_tool(ran))
    stream = agent.stream("add 80")
    for event in stream:
        if event.type == "tool_result":
            break
    saved = list(stream.messages)
    assert agent.invoke(saved).reused_calls == {4: 2}
    assert asyncio.run(agent.ainvoke(saved)).reused_calls == {4: 2}
    assert ran == [80]


@pytest.mark.filterwarnings("ignore::toolwire.RepeatedCallWarning")
def test_the_seeding_follows_the_live_rules() -> None:
    ran: list[int] = []
    human = {"role": "user", "content": "add 80"}
    answer = ToolMessage("added 80", "e1", name="add_expense")
    # a tool ran since that result's round: the repeat runs
    since = [human, _expense(1), answer, _expense(2, 5), ToolMessage("added 5", "e2", name="add_expense")]
    Agent(ScriptedChatModel([_expense(3), "done"]), _expense_tool(ran)).invoke(since)
    # a call answered without running (refused by tool_choice) never ran: its repeat runs
    refused = ToolMessage("Error: tool 'add_expense' was not run: tool calls were off for this reply "
                          "(tool_choice='none'); answer with the results you already have.", "e1",
                          name="add_expense", status="error")
    Agent(ScriptedChatModel([_expense(3), "done"]), _expense_tool(ran)).invoke([human, _expense(1), refused])
    # a newer question starts afresh, as a new run does
    Agent(ScriptedChatModel([_expense(3), "done"]), _expense_tool(ran)).invoke(
        [human, _expense(1), answer, AIMessage("Added."), {"role": "user", "content": "again"}])
    # repeat_calls names the tool: it runs
    Agent(ScriptedChatModel([_expense(3), "done"]), _expense_tool(ran), repeat_calls=["add_expense"]).invoke(
        [human, _expense(1), answer])
    assert ran == [80, 80, 80, 80]


def test_the_same_reply_a_third_time_counts_the_replies_before_the_resume() -> None:
    ran: list[int] = []
    done = [ToolMessage("added 80", f"e{i}", name="add_expense") for i in (1, 2)]
    saved = [{"role": "user", "content": "add 80"}, _expense(1), done[0], _expense(2), done[1]]
    model = ScriptedChatModel([_expense(3), "done"])
    Agent(model, _expense_tool(ran), repeat_calls=["add_expense"]).invoke(saved)
    assert ran == [80] and [r.tool_choice for r in model.requests] == ["auto", "none"]  # (was "auto", "auto")


def test_a_resumed_run_does_not_answer_a_repeat_of_a_tool_it_does_not_have_from_the_conversation() -> None:
    # review 144 #9: the seeded records answered a call of 'delete_user', which this Agent does not have
    from toolwire import HumanMessage

    def reply(call_id: str) -> AIMessage:
        return AIMessage("", tool_calls=[{"name": "delete_user", "args": {"name": "bob"}, "id": call_id}])

    conversation = [HumanMessage("remove bob"), reply("a1"), ToolMessage("deleted", "a1", name="delete_user")]
    ran: list[str] = []
    result = Agent(ScriptedChatModel([reply("a2"), "done"]), _tools(ran)).invoke(conversation)
    last = [m for m in result.messages if m.type == "tool"][-1]
    assert last.status == "error" and "There is no tool named 'delete_user'" in last.content
    assert result.reused_calls == {}


# Review 142 #6's rest: a run stopped right after a reply of repeats (or a loop) resumes with tools off, as the
# uninterrupted run would have made its next call.


@pytest.mark.filterwarnings("ignore::toolwire.RepeatedCallWarning")
@pytest.mark.parametrize("resume", ["invoke", "ainvoke"])
def test_a_run_stopped_after_a_reply_of_repeats_resumes_with_tools_off(resume: str) -> None:
    ran: list[int] = []
    whole = ScriptedChatModel([_expense(1), _expense(2), "done"])
    Agent(whole, _expense_tool(ran)).invoke("add 80")
    assert [r.tool_choice for r in whole.requests] == ["auto", "auto", "none"]

    agent = Agent(ScriptedChatModel([_expense(1), _expense(2), "done"]), _expense_tool(ran))
    stream = agent.stream("add 80")
    results = 0
    for event in stream:
        results += event.type == "tool_result"
        if results == 2:
            break
    saved = list(stream.messages)
    assert [m.type for m in saved] == ["human", "ai", "tool", "ai", "tool"]
    resumed = ScriptedChatModel(["done"])
    agent = Agent(resumed, _expense_tool(ran))
    result = agent.invoke(saved) if resume == "invoke" else asyncio.run(agent.ainvoke(saved))
    assert result.output == "done" and [r.tool_choice for r in resumed.requests] == ["none"]
    assert ran == [80, 80]  # (once per run)


@pytest.mark.filterwarnings("ignore::toolwire.RepeatedCallWarning")
def test_a_resumed_run_keeps_tools_on_after_a_reply_that_ran_or_was_left_unanswered() -> None:
    ran: list[int] = []
    answer = ToolMessage("added 80", "e1", name="add_expense")
    human = {"role": "user", "content": "add 80"}
    # the last reply ran a call: tools stay on
    model = ScriptedChatModel(["done"])
    Agent(model, _expense_tool(ran)).invoke([human, _expense(1), answer])
    # the last reply's repeat has no answer yet: it is answered first, and then tools go off
    pending = ScriptedChatModel(["done"])
    Agent(pending, _expense_tool(ran)).invoke([human, _expense(1), answer, _expense(2)])
    assert [r.tool_choice for r in model.requests] == ["auto"]
    assert [r.tool_choice for r in pending.requests] == ["none"] and ran == []


@pytest.mark.filterwarnings("ignore::toolwire.RepeatedCallWarning")
def test_a_run_stopped_after_a_repeat_refused_with_tools_off_resumes_with_tools_off() -> None:
    # review 151 #3: a server ignoring tool_choice="none" sent the repeat again; the Agent refused it, and the run
    # resumed from there turned tools back on
    ran: list[str] = []
    saved_model = ScriptedChatModel([_call(0), _call(1), _call(2), "It is 6."])
    stream = Agent(saved_model, _tools(ran), max_steps=6).stream("q")
    results = 0
    for event in stream:
        results += event.type == "tool_result"
        if results == 3:
            break
    saved = list(stream.messages)
    assert saved[-1].content == OFF and [r.tool_choice for r in saved_model.requests] == ["auto", "auto", "none"]
    resumed = ScriptedChatModel(["It is 6."])
    Agent(resumed, _tools(ran), max_steps=6).invoke(saved)
    assert [r.tool_choice for r in resumed.requests] == ["none"] and ran == ["3+3"]
    # refused by a forcing tool_choice instead: tools stay on, as in the live run
    forced = [{"role": "user", "content": "q"}, _call(0),
              ToolMessage("Error: tool 'calculate' was not run: this reply was to call 'other' only (tool_choice), so "
                          "its other calls are not run.", "c0", name="calculate", status="error")]
    again = ScriptedChatModel(["It is 6."])
    Agent(again, _tools(ran), max_steps=6).invoke(forced)
    assert [r.tool_choice for r in again.requests] == ["auto"]


def test_a_call_of_another_tool_answered_as_run_makes_earlier_results_stale_on_resume() -> None:
    # review 152 #1: the program ran an approved cancel_order itself (a tool the Agent does not have) and resumed;
    # the Agent gave the model the status read before it again
    status = {"42": "pending"}
    ran: list[str] = []

    @tool
    def order_status(order: str) -> str:
        """The status of an order."""
        ran.append(order)
        return status[order]

    def ask(i: int, name: str) -> AIMessage:
        return AIMessage("", tool_calls=[{"name": name, "args": {"order": "42"}, "id": f"o{i}", "type": "tool_call"}])

    status["42"] = "cancelled"
    history = [{"role": "user", "content": "cancel order 42"}, ask(1, "order_status"),
               ToolMessage("pending", "o1", name="order_status"), ask(2, "cancel_order"),
               ToolMessage("cancelled", "o2", name="cancel_order")]
    result = Agent(ScriptedChatModel([ask(3, "order_status"), "Cancelled."]), [order_status]).invoke(history)
    assert ran == ["42"] and result.messages[-2].content == "cancelled" and result.reused_calls == {}
    # the Agent's own answer to a tool it does not have ran nothing: the earlier status is given again
    ran.clear()
    history[-1] = ToolMessage("Error: There is no tool named 'cancel_order'. Available tools: order_status. Call one "
                              "of them by its exact name.", "o2", name="cancel_order", status="error")
    with pytest.warns(RepeatedCallWarning):
        again = Agent(ScriptedChatModel([ask(3, "order_status"), "Pending."]), [order_status]).invoke(history)
    assert ran == [] and again.reused_calls == {6: 2}
