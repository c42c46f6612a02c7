"""Review 194: ScriptedChatModel reads a whole reply as a stream (#1), the loop breaker refuses a repeat of a
``repeat_calls`` tool (#2), and a run resumed after a ``return_direct`` result ends with it (#3)."""

from __future__ import annotations

import asyncio
import warnings

import pytest

from toolwire import Agent, AIMessage, HumanMessage, ToolMessage, tool
from toolwire._agent_direct import CUT_NOTE
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


# -- #3: a run resumed after a return_direct result ends with it -----------------------------------------------------

@tool(return_direct=True)
def report(x: int) -> str:
    """Build the big report.

    Args:
        x: which.
    """
    return "R" * 30000


@tool(return_direct=True)
def short_report(x: int) -> str:
    """Build a short report.

    Args:
        x: which.
    """
    return f"report {x}"


def _report(i: int, name: str = "report") -> AIMessage:
    return _call(name, {"x": 1}, f"c{i}")


def _stopped_after_result() -> list:
    stream = Agent(ScriptedChatModel([_report(1)]), [report]).stream("q")
    for event in stream:
        if event.type == "tool_result":
            break
    return list(stream.messages)


def test_resume_after_return_direct_result_ends_with_it_whole() -> None:
    saved = _stopped_after_result()
    model = ScriptedChatModel([])  # a model call would raise: the script is empty
    result = Agent(model, [report]).invoke(saved)
    assert result.stop_reason == "return_direct"
    assert result.output == "R" * 30000
    assert result.steps == 0 and model.requests == []
    assert result.messages == saved


def test_resume_after_return_direct_result_events() -> None:
    saved = _stopped_after_result()
    events = list(Agent(ScriptedChatModel([]), [report]).stream(saved))
    assert [e.type for e in events] == ["final"]

    async def run() -> object:
        return await Agent(ScriptedChatModel([]), [report]).ainvoke(saved)

    assert asyncio.run(run()).output == "R" * 30000


def test_resume_read_back_marks_cut_output() -> None:
    saved = [m.copy() for m in _stopped_after_result()]  # new objects: as read back from storage
    result = Agent(ScriptedChatModel([]), [report]).invoke(saved)
    assert result.stop_reason == "return_direct"
    assert result.output.endswith(CUT_NOTE)
    assert result.messages[-1].content == saved[-1].content  # the conversation keeps its copy as it was


def test_repeat_answered_from_cut_copy_known_and_unknown() -> None:
    saved = _stopped_after_result()
    # the program went on with another reply repeating the call (pending): answered from the earlier result
    known = Agent(ScriptedChatModel([]), [report]).invoke([*saved, _report(2)])
    assert known.stop_reason == "return_direct" and known.output == "R" * 30000
    unknown = Agent(ScriptedChatModel([]), [report]).invoke([*(m.copy() for m in saved), _report(2)])
    assert unknown.stop_reason == "return_direct"
    assert unknown.output.endswith(CUT_NOTE) and len(unknown.output) < 30000


def test_resume_round_with_other_call_pending_ends_with_direct() -> None:
    ran = []

    @tool
    def note(text: str) -> str:
        """Take a note.

        Args:
            text: the note.
        """
        ran.append(text)
        return "noted"

    reply = AIMessage("", tool_calls=[
        {"name": "short_report", "args": {"x": 1}, "id": "c1", "type": "tool_call"},
        {"name": "note", "args": {"text": "t"}, "id": "c2", "type": "tool_call"}])
    convo = [HumanMessage("q"), reply, ToolMessage("report 1", "c1", name="short_report")]
    result = Agent(ScriptedChatModel([]), [short_report, note]).invoke(convo)
    assert ran == ["t"]
    assert result.stop_reason == "return_direct" and result.output == "report 1"


def test_new_question_after_return_direct_asks_model() -> None:
    saved = _stopped_after_result()
    result = Agent(ScriptedChatModel(["hello"]), [report]).invoke([*saved, HumanMessage("thanks")])
    assert result.stop_reason == "answer" and result.output == "hello"


def test_failed_return_direct_result_goes_on() -> None:
    convo = [HumanMessage("q"), _report(1, "short_report"),
             ToolMessage("Error: boom", "c1", name="short_report", status="error")]
    result = Agent(ScriptedChatModel(["sorry"]), [short_report]).invoke(convo)
    assert result.stop_reason == "answer" and result.output == "sorry"
