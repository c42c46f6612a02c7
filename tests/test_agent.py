"""toolwire.agent.Agent: the loop, its stops, its events and its guards (issue [1]), on a scripted model."""

from __future__ import annotations

import asyncio
import json

import pytest

from toolwire import (
    Agent,
    AgentEvent,
    AgentResult,
    AIMessage,
    HumanMessage,
    MaxStepsExceeded,
    SystemMessage,
    ToolMessage,
    UserError,
    message_from_dict,
    tool,
)
from toolwire.messages import invalid_tool_call, tool_call
from toolwire.models.base import BaseChatModel, ChatRequest
from toolwire.testing import ScriptedChatModel

runs: list[str] = []


@tool
def get_time(tz: str = "UTC") -> str:
    """Get the current time in a time zone."""
    runs.append(f"get_time:{tz}")
    return f"12:00 {tz}"


@tool
def boom(x: int) -> str:
    """Always fails."""
    raise ValueError(f"boom with token sk-{x}")


@tool(return_direct=True)
def final_answer(answer: str) -> str:
    """Give the final answer to the user."""
    return answer.upper()


@pytest.fixture(autouse=True)
def _clear_runs() -> None:
    runs.clear()


def calls(*items: tuple[str, dict, str]) -> AIMessage:
    return AIMessage("", tool_calls=[tool_call(name, args, id) for name, args, id in items])


def test_one_tool_round_then_an_answer() -> None:
    model = ScriptedChatModel([calls(("get_time", {"tz": "CET"}, "c1")), AIMessage("It is noon.")])
    result = Agent(model, [get_time]).invoke("What time is it in Berlin?")
    assert isinstance(result, AgentResult)
    assert result.output == "It is noon."
    assert result.steps == 2
    assert result.stop_reason == "answer"
    assert result.messages == [
        HumanMessage("What time is it in Berlin?"),
        calls(("get_time", {"tz": "CET"}, "c1")),
        ToolMessage("12:00 CET", "c1", name="get_time"),
        AIMessage("It is noon."),
    ]
    # the model saw the tool result in its second request, with the tools bound both times
    assert [len(r.messages) for r in model.requests] == [1, 3]
    assert [r.tools for r in model.requests] == [["get_time"], ["get_time"]]
    assert [r.tool_choice for r in model.requests] == ["auto", "auto"]


def test_system_prompt_goes_first_and_joins_the_conversations_own() -> None:
    model = ScriptedChatModel(["a", "b"])
    agent = Agent(model, [get_time], system_prompt="Be brief.")
    ours = "toolwire:system_prompt"  # (review 105: by it, a changed prompt replaces the stored one)
    assert agent.invoke("hi").messages[:2] == [SystemMessage("Be brief.", id=ours), HumanMessage("hi")]
    kept = agent.invoke([SystemMessage("Mine."), HumanMessage("hi")])  # (review 71: the prompt was dropped)
    # (review 109: kept apart in the conversation, so that a later run can replace the prompt; sent as one)
    assert kept.messages[:3] == [SystemMessage("Be brief.", id=ours), SystemMessage("Mine."), HumanMessage("hi")]
    assert model.requests[-1].messages[:2] == [SystemMessage("Be brief.\n\nMine."), HumanMessage("hi")]


def test_a_forced_tool_choice_applies_until_tools_ran_then_auto() -> None:
    """Review 2 #2: a model obeying tool_choice="required" could never answer; it now gets "auto" after tools ran."""
    for choice in ("required", "get_time"):
        model = ScriptedChatModel([calls(("get_time", {}, "c1")), "done"])
        result = Agent(model, [get_time], tool_choice=choice).invoke("q")
        assert [r.tool_choice for r in model.requests] == [choice, "auto"]
        assert (result.output, result.stop_reason) == ("done", "answer")


class ObedientModel(BaseChatModel):
    """Calls get_time whenever tool_choice forces a call, else answers (as OpenAI, Anthropic and Gemini do)."""

    def __init__(self) -> None:
        self.choices: list[str | None] = []  # shared with the bound copies

    def _generate(self, request: ChatRequest) -> AIMessage:
        self.choices.append(request.tool_choice)
        if request.tool_choice in ("required", "get_time"):
            return calls(("get_time", {}, f"c{len(self.choices)}"))
        return AIMessage("It is noon.")


def test_a_model_that_obeys_a_forced_tool_choice_can_answer() -> None:
    model = ObedientModel()
    result = Agent(model, [get_time], tool_choice="required", max_steps=4).invoke("q")
    assert (result.output, result.steps, model.choices) == ("It is noon.", 2, ["required", "auto"])
    assert runs == ["get_time:UTC"]
    model = ObedientModel()
    assert asyncio.run(Agent(model, [get_time], tool_choice="get_time").ainvoke("q")).output == "It is noon."
    assert model.choices == ["get_time", "auto"]


def test_reset_tool_choice_false_forces_every_call() -> None:
    model = ScriptedChatModel([calls(("get_time", {}, "c1")), calls(("final_answer", {"answer": "noon"}, "c2"))])
    result = Agent(model, [get_time, final_answer], tool_choice="required", reset_tool_choice=False).invoke("q")
    assert [r.tool_choice for r in model.requests] == ["required", "required"]
    assert (result.output, result.stop_reason) == ("NOON", "return_direct")
    with pytest.raises(MaxStepsExceeded):
        Agent(ObedientModel(), [get_time], tool_choice="required", reset_tool_choice=False, max_steps=3).invoke("q")


def test_tool_choice_auto_and_none_are_kept_on_every_call() -> None:
    for choice in ("auto", "none"):
        model = ScriptedChatModel([calls(("get_time", {}, "c1")), "done"])
        Agent(model, [get_time], tool_choice=choice).invoke("q")
        assert [r.tool_choice for r in model.requests] == [choice, choice]


def test_the_input_list_is_not_changed_and_a_conversation_resumes() -> None:
    model = ScriptedChatModel([calls(("get_time", {}, "c1")), "first", "second"])
    agent = Agent(model, [get_time])
    first = agent.invoke("q1")
    saved = json.dumps([m.to_dict() for m in first.messages])
    history = [message_from_dict(d) for d in json.loads(saved)] + [HumanMessage("q2")]
    before = list(history)
    second = agent.invoke(history)
    assert history == before
    assert second.output == "second"
    assert second.messages == [*before, AIMessage("second")]
    assert second.steps == 1


def test_e1_a_failing_tool_becomes_an_error_result_and_the_loop_goes_on() -> None:
    model = ScriptedChatModel([calls(("boom", {"x": 1}, "c9")), "Sorry, it failed."])
    result = Agent(model, [boom]).invoke("q")
    assert result.messages[2] == ToolMessage("Error: tool 'boom' raised ValueError: boom with token sk-1", "c9",
                                             status="error", name="boom")
    assert "Traceback" not in result.messages[2].content
    assert result.output == "Sorry, it failed."
    with pytest.raises(ValueError, match="boom"):
        Agent(ScriptedChatModel([calls(("boom", {"x": 1}, "c9"))]), [boom], handle_errors=False).invoke("q")


def test_hide_error_details_hides_the_message() -> None:
    model = ScriptedChatModel([calls(("boom", {"x": 7}, "c1")), "ok"])
    result = Agent(model, [boom], hide_error_details=True).invoke("q")
    assert result.messages[2].content == \
        "Error: tool 'boom' raised ValueError. Try different arguments or another approach."
    assert "sk-7" not in json.dumps([m.to_dict() for m in model.requests[1].messages])


def test_e2_unknown_tool_and_bad_arguments_are_answered_and_the_loop_is_bounded() -> None:
    unknown = calls(("get_date", {}, "d1"))
    bad_args = AIMessage("", invalid_tool_calls=[invalid_tool_call("get_time", "[1, 2]", "d2",
                                                                   "The arguments must be a JSON object.")])
    model = ScriptedChatModel([unknown, bad_args, unknown, bad_args])
    with pytest.raises(MaxStepsExceeded) as info:
        Agent(model, [get_time], max_steps=4).invoke("What day is it?")
    exc = info.value
    assert exc.steps == 4
    assert len(model.requests) == 4
    results = [m for m in exc.messages if isinstance(m, ToolMessage)]
    assert [r.tool_call_id for r in results] == ["d1", "d2", "d1", "d2"]
    assert all(r.status == "error" for r in results)
    assert "Available tools: get_time" in results[0].content
    assert results[1].content.startswith("Error: the call to 'get_time' was not valid: the arguments must be")
    assert str(exc) == ("The model still asked for tools after 4 steps: raise max_steps, or use "
                        "on_max_steps='answer' to get a final answer.")
    assert runs == []


def test_on_max_steps_answer_makes_one_last_call_without_tools() -> None:
    model = ScriptedChatModel([calls(("get_time", {"tz": f"T{i}"}, f"c{i}")) for i in range(2)] + ["Best guess."])
    result = Agent(model, [get_time], max_steps=2, on_max_steps="answer").invoke("q")
    assert (result.output, result.steps, result.stop_reason) == ("Best guess.", 3, "max_steps")
    assert [r.tool_choice for r in model.requests] == ["auto", "auto", "none"]


def test_return_direct_stops_after_the_tool() -> None:
    model = ScriptedChatModel([calls(("get_time", {}, "c1"), ("final_answer", {"answer": "noon"}, "c2"))])
    result = Agent(model, [get_time, final_answer]).invoke("q")
    assert (result.output, result.stop_reason, result.steps) == ("NOON", "return_direct", 1)
    assert len(model.requests) == 1
    assert result.messages[-1] == ToolMessage("NOON", "c2", name="final_answer")


def test_a_failed_return_direct_tool_does_not_stop_the_loop() -> None:
    model = ScriptedChatModel([calls(("final_answer", {}, "c1")), "recovered"])
    result = Agent(model, [final_answer]).invoke("q")
    assert result.stop_reason == "answer" and result.output == "recovered"


def test_an_identical_call_already_answered_is_not_run_again() -> None:
    model = ScriptedChatModel([
        calls(("get_time", {"tz": "CET"}, "c1")),
        calls(("get_time", {"tz": "CET"}, "c2"), ("get_time", {"tz": "UTC"}, "c3")),
        "It is noon.",
    ])
    result = Agent(model, [get_time]).invoke("q")
    assert runs == ["get_time:CET", "get_time:UTC"]
    repeat = result.messages[4]
    assert repeat == ToolMessage("12:00 CET", "c2", name="get_time")  # the earlier answer, given again
    assert result.messages[5] == ToolMessage("12:00 UTC", "c3", name="get_time")


def test_a_call_that_failed_may_be_tried_again() -> None:
    attempts: list[int] = []

    @tool
    def flaky(n: int) -> str:
        """Flaky."""
        attempts.append(n)
        if len(attempts) == 1:
            raise ConnectionError("try again")
        return "ok"

    model = ScriptedChatModel([calls(("flaky", {"n": 1}, "a")), calls(("flaky", {"n": 1}, "b")), "done"])
    result = Agent(model, [flaky]).invoke("q")
    assert attempts == [1, 1]
    assert [m.status for m in result.messages if isinstance(m, ToolMessage)] == ["error", "success"]


def test_long_results_are_cut_before_the_model_sees_them() -> None:
    @tool
    def dump() -> str:
        """Dump."""
        return "y" * 25_000

    model = ScriptedChatModel([calls(("dump", {}, "c1")), "ok"])
    result = Agent(model, [dump]).invoke("q")
    content = result.messages[2].content
    assert content == "y" * 20_000 + ("\n[... result truncated: 5000 of 25000 characters cut; "
                                      "ask for a narrower result ...]")
    assert model.requests[1].messages[-1].content == content


def test_stream_yields_events_in_order() -> None:
    model = ScriptedChatModel([calls(("get_time", {}, "c1"), ("get_time", {"tz": "CET"}, "c2")), "done"])
    events = list(Agent(model, [get_time]).stream("q"))
    assert [(e.type, e.step) for e in events] == [
        ("model_reply", 1), ("tool_call", 1), ("tool_call", 1), ("tool_result", 1), ("tool_result", 1),
        ("model_reply", 2), ("final", 2)]
    assert all(isinstance(e, AgentEvent) for e in events)
    assert events[1].data == tool_call("get_time", {}, "c1")
    assert events[4].data == ToolMessage("12:00 CET", "c2", name="get_time")
    assert events[-1].data.output == "done"


def test_ainvoke_and_astream_match_invoke() -> None:
    script = [calls(("get_time", {}, "c1")), "done"]
    sync = Agent(ScriptedChatModel(script), [get_time]).invoke("q")
    result = asyncio.run(Agent(ScriptedChatModel(script), [get_time]).ainvoke("q"))
    assert result == sync

    async def collect() -> list[AgentEvent]:
        return [e async for e in Agent(ScriptedChatModel(script), [get_time]).astream("q")]

    assert [e.type for e in asyncio.run(collect())] == \
        ["model_reply", "tool_call", "tool_result", "model_reply", "final"]


def test_async_tools_in_the_agent() -> None:
    @tool
    async def lookup(q: str) -> str:
        """Look up."""
        await asyncio.sleep(0)
        return q[::-1]

    model = ScriptedChatModel([calls(("lookup", {"q": "abc"}, "c1")), "done"])
    assert Agent(model, [lookup]).invoke("q").messages[2].content == "cba"


def test_an_agent_without_tools_just_asks_the_model() -> None:
    model = ScriptedChatModel(["hello"])
    result = Agent(model).invoke("hi")
    assert (result.output, result.steps) == ("hello", 1)
    assert model.requests[0].tools == []


def test_max_steps_must_be_positive() -> None:
    with pytest.raises(UserError, match=r"^max_steps must be a whole number of at least 1, not 0\.$"):
        Agent(ScriptedChatModel([]), [get_time], max_steps=0)
    with pytest.raises(UserError, match="on_max_steps must be 'raise' or 'answer', not 'anwser'"):
        Agent(ScriptedChatModel([]), [get_time], on_max_steps="anwser")  # type: ignore[arg-type]


def test_bad_options_are_one_sentence_at_construction() -> None:
    """Review 2 #11: max_steps of the wrong type and a single tool were raw TypeErrors (one only at invoke)."""
    for bad in (None, "5", 2.5, True):
        with pytest.raises(UserError, match=rf"^max_steps must be a whole number of at least 1, not {bad!r}\.$"):
            Agent(ScriptedChatModel(["ok"]), [get_time], max_steps=bad)  # type: ignore[arg-type]
    with pytest.raises(UserError, match=r"^Pass the tools as a list, such as Agent\(model, \[get_time\]\), not a "
                                        r"single tool\.$"):
        Agent(ScriptedChatModel(["ok"]), get_time)  # type: ignore[arg-type]

    def plain() -> str:
        """Plain."""
        return "x"

    for single in (plain, {"type": "function", "function": {"name": "f"}}, "get_time", 3):
        with pytest.raises(UserError, match=r"^Pass the tools as a list"):
            Agent(ScriptedChatModel(["ok"]), single)  # type: ignore[arg-type]
    assert Agent(ScriptedChatModel(["ok"]), (get_time,)).invoke("q").output == "ok"
    assert Agent(ScriptedChatModel(["ok"]), iter([get_time])).invoke("q").output == "ok"


def assert_every_call_answered_once(messages: list) -> None:
    """Every tool call (valid or invalid) of every AIMessage has exactly one ToolMessage."""
    ids = [c["id"] for m in messages if isinstance(m, AIMessage) for c in [*m.tool_calls, *m.invalid_tool_calls]]
    answers = [m.tool_call_id for m in messages if isinstance(m, ToolMessage)]
    assert sorted(ids) == sorted(answers)


def test_calls_left_unanswered_in_the_input_run_first() -> None:
    """Review 2 #3: the pending calls of the input's last AIMessage went to the model unanswered."""
    pending = calls(("get_time", {"tz": "CET"}, "p1"))
    model = ScriptedChatModel(["It is noon."])
    history = [HumanMessage("time?"), pending]
    events = list(Agent(model, [get_time]).stream(history))
    assert runs == ["get_time:CET"]
    assert model.requests[0].messages == [HumanMessage("time?"), pending, ToolMessage("12:00 CET", "p1",
                                                                                      name="get_time")]
    assert [(e.type, e.step) for e in events] == [
        ("tool_call", 0), ("tool_result", 0), ("model_reply", 1), ("final", 1)]
    result = events[-1].data
    assert (result.output, result.steps) == ("It is noon.", 1)
    assert_every_call_answered_once(result.messages)
    assert history == [HumanMessage("time?"), pending]  # the input list is not changed


def test_only_the_unanswered_calls_of_the_input_run_and_invalid_ones_are_answered() -> None:
    last = AIMessage("", tool_calls=[tool_call("get_time", {"tz": "A"}, "a"), tool_call("get_time", {"tz": "B"}, "b")],
                     invalid_tool_calls=[invalid_tool_call("get_time", '{"tz": ', "c", "cut off")])
    done_a = ToolMessage("12:00 A", "a", name="get_time")
    model = ScriptedChatModel(["done"])
    result = Agent(model, [get_time]).invoke([HumanMessage("q"), last, done_a])
    assert runs == ["get_time:B"]
    assert result.messages[2:5] == [done_a, ToolMessage("12:00 B", "b", name="get_time"), result.messages[4]]
    assert result.messages[4].tool_call_id == "c" and result.messages[4].status == "error"
    assert_every_call_answered_once(result.messages)
    # a fully answered conversation, or one where the user spoke after the calls, runs nothing
    runs.clear()
    Agent(ScriptedChatModel(["ok"]), [get_time]).invoke([HumanMessage("q"), calls(("get_time", {}, "x")),
                                                         ToolMessage("r", "x"), HumanMessage("again")])
    assert runs == []


def test_pending_calls_reset_a_forced_tool_choice_and_can_return_direct() -> None:
    model = ScriptedChatModel(["done"])
    Agent(model, [get_time], tool_choice="required").invoke([HumanMessage("q"), calls(("get_time", {}, "p"))])
    assert [r.tool_choice for r in model.requests] == ["auto"]
    model = ScriptedChatModel([])
    result = Agent(model, [final_answer]).invoke([HumanMessage("q"), calls(("final_answer", {"answer": "x"}, "p"))])
    assert (result.output, result.stop_reason, result.steps) == ("X", "return_direct", 0)
    assert model.requests == []


def test_pending_calls_async_matches_sync() -> None:
    history = [HumanMessage("q"), calls(("get_time", {"tz": "CET"}, "p1"))]
    sync = Agent(ScriptedChatModel(["done"]), [get_time]).invoke(list(history))
    assert asyncio.run(Agent(ScriptedChatModel(["done"]), [get_time]).ainvoke(list(history))) == sync


def test_calls_in_the_forced_final_answer_are_answered_with_an_error_and_not_run() -> None:
    """Review 2 #9: a server ignoring tool_choice="none" left the final reply's calls without a ToolMessage."""
    script = [calls(("get_time", {"tz": f"T{i}"}, f"c{i}")) for i in range(2)]
    last = AIMessage("", tool_calls=[tool_call("get_time", {"tz": "X"}, "x")],
                     invalid_tool_calls=[invalid_tool_call("final_answer", "{", "y", "cut off")])
    model = ScriptedChatModel([*script, last])
    events = list(Agent(model, [get_time, final_answer], max_steps=2, on_max_steps="answer").stream("q"))
    result = events[-1].data
    assert runs == ["get_time:T0", "get_time:T1"]
    assert (result.stop_reason, result.steps) == ("max_steps", 3)
    assert result.output == ("The model gave no answer within max_steps=2: its last reply asked for more tool calls "
                             "(get_time, final_answer), which were not run; raise max_steps to let it finish.")
    assert result.messages[-3] == last.copy(response_metadata={"after_max_steps": True})  # (marked: review 165 #2)
    assert result.messages[-2] == ToolMessage(
        "Error: tool 'get_time' was not run: the step limit was reached, so no more tool calls are allowed; answer "
        "with the results you already have.", "x", name="get_time", status="error")
    assert result.messages[-1].tool_call_id == "y" and result.messages[-1].status == "error"
    assert [(e.type, e.step) for e in events[-6:]] == [  # review 9 #14, review 10: every tool_call, then the results
        ("model_reply", 3), ("tool_call", 3), ("tool_call", 3), ("tool_result", 3), ("tool_result", 3), ("final", 3)]
    assert_every_call_answered_once(result.messages)
    # a reply with text keeps its text as the output
    with_text = AIMessage("Noon, probably.", tool_calls=[tool_call("get_time", {}, "z")])
    model = ScriptedChatModel([*script, with_text])
    result = asyncio.run(Agent(model, [get_time], max_steps=2, on_max_steps="answer").ainvoke("q"))
    assert result.output == "Noon, probably."
    assert_every_call_answered_once(result.messages)
