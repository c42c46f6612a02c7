"""Agent fixes: review 8 #4 (pause_turn, refusals), review 9 #10 (repeat_calls), #12 (call ids, partly answered
histories), #13 (constructor checks), #14 (stream event order). On a scripted model; replies that matter to the
stop reasons are read by the real Anthropic / Gemini lowerings, so the Agent is keyed on what they report."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire import Agent, AIMessage, HumanMessage, MaxStepsExceeded, ToolMessage, UserError, tool
from toolwire.messages import invalid_tool_call, tool_call
from toolwire.models.lowering import anthropic, gemini
from toolwire.testing import ScriptedChatModel

runs: list[str] = []


@tool
def get(city: str) -> str:
    """Weather in a city."""
    runs.append(city)
    return f"sunny in {city}"


@pytest.fixture(autouse=True)
def _clear_runs() -> None:
    runs.clear()


def calls(*items: tuple[str, dict, str]) -> AIMessage:
    return AIMessage("", tool_calls=[tool_call(name, args, id) for name, args, id in items])


def every_call_answered_once(messages: list) -> bool:
    ids = [c["id"] for m in messages if isinstance(m, AIMessage) for c in [*m.tool_calls, *m.invalid_tool_calls]]
    answers = [m.tool_call_id for m in messages if isinstance(m, ToolMessage)]
    return sorted(ids) == sorted(answers) and len(set(answers)) == len(answers)


def anthropic_reply(content: list[dict[str, Any]], stop_reason: str) -> AIMessage:
    return anthropic.parse_response({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
                                     "content": content, "stop_reason": stop_reason,
                                     "usage": {"input_tokens": 5, "output_tokens": 7}})


# -- review 8 #4: pause_turn and refusal ---------------------------------------------------------------------------

PAUSED = [{"type": "text", "text": "Let me search for that."},
          {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}}]


def test_pause_turn_sends_the_reply_back_and_the_model_continues() -> None:
    paused = anthropic_reply(PAUSED, "pause_turn")
    model = ScriptedChatModel([paused, anthropic_reply([{"type": "text", "text": "It is sunny."}], "end_turn")])
    result = Agent(model, [get]).invoke("weather?")
    assert (result.output, result.stop_reason, result.steps) == ("It is sunny.", "answer", 2)
    assert len(model.requests) == 2
    assert model.requests[1].messages == [HumanMessage("weather?"), paused]  # the paused turn, as it was


def test_pause_turn_counts_as_a_step() -> None:
    paused = anthropic_reply(PAUSED, "pause_turn")
    with pytest.raises(MaxStepsExceeded, match="pause_turn"):
        Agent(ScriptedChatModel([paused, paused]), [get], max_steps=2).invoke("q")


def test_refusal_stops_with_its_own_reason_and_runs_no_call() -> None:
    refusal = anthropic_reply([{"type": "tool_use", "id": "t1", "name": "get", "input": {"city": "A"}}], "refusal")
    model = ScriptedChatModel([refusal, "never asked"])
    events = list(Agent(model, [get]).stream("q"))
    result = events[-1].data
    assert (result.output, result.stop_reason, result.steps) == ("", "refusal", 1)
    assert runs == [] and len(model.requests) == 1
    answer = result.messages[-1]
    assert (answer.tool_call_id, answer.status) == ("t1", "error") and "refusal" in answer.text
    assert [e.type for e in events] == ["model_reply", "tool_call", "tool_result", "final"]
    assert every_call_answered_once(result.messages)


def test_refusal_without_calls() -> None:
    model = ScriptedChatModel([anthropic_reply([], "refusal")])
    result = asyncio.run(Agent(model, [get]).ainvoke("q"))
    assert (result.output, result.stop_reason) == ("", "refusal")


def test_gemini_safety_block_is_a_refusal() -> None:
    blocked = gemini.parse_response({"candidates": [{"content": {"parts": [
        {"functionCall": {"name": "get", "args": {"city": "A"}}}]}, "finishReason": "SAFETY"}]}, tool_names=["get"])
    assert blocked.tool_calls
    result = Agent(ScriptedChatModel([blocked, "no"]), [get]).invoke("q")
    assert result.stop_reason == "refusal" and runs == []
    assert every_call_answered_once(result.messages)


@pytest.mark.parametrize("metadata", [{"block_reason": "PROHIBITED_CONTENT"}, {"finish_reason": "content_filter"}])
def test_a_blocked_prompt_or_filtered_reply_is_a_refusal(metadata: dict[str, str]) -> None:
    result = Agent(ScriptedChatModel([AIMessage("", response_metadata=metadata)]), [get]).invoke("q")
    assert result.stop_reason == "refusal"


def test_other_finish_reasons_are_answers() -> None:
    for metadata in ({"finish_reason": "STOP"}, {"finish_reason": "end_turn"}, {"block_reason": None}, {}):
        result = Agent(ScriptedChatModel([AIMessage("hi", response_metadata=metadata)]), [get]).invoke("q")
        assert (result.output, result.stop_reason) == ("hi", "answer")


def test_refusal_in_the_last_answer_of_on_max_steps() -> None:
    model = ScriptedChatModel([calls(("get", {"city": "A"}, "c1")), anthropic_reply([], "refusal")])
    result = Agent(model, [get], max_steps=1, on_max_steps="answer").invoke("q")
    assert (result.stop_reason, result.steps) == ("refusal", 2)


# -- review 9 #10: repeat_calls ------------------------------------------------------------------------------------

def _polls() -> ScriptedChatModel:
    return ScriptedChatModel([calls(("get", {"city": "A"}, "c1")), calls(("get", {"city": "A"}, "c2")), "ok"])


def test_repeated_calls_are_answered_by_default() -> None:
    result = Agent(_polls(), [get]).invoke("q")
    assert runs == ["A"] and result.messages[-2].status == "success"  # the earlier answer, given again


@pytest.mark.parametrize("repeat_calls", ["run", ["get"], ("get",)])
def test_repeat_calls_run_opts_out(repeat_calls: Any) -> None:
    result = Agent(_polls(), [get], repeat_calls=repeat_calls).invoke("q")
    assert runs == ["A", "A"]
    assert [m.status for m in result.messages if isinstance(m, ToolMessage)] == ["success", "success"]


def test_repeat_calls_list_only_covers_the_tools_named() -> None:
    @tool
    def other(x: int) -> int:
        """Other."""
        return x

    model = ScriptedChatModel([calls(("get", {"city": "A"}, "c1")), calls(("get", {"city": "A"}, "c2")), "ok"])
    Agent(model, [get, other], repeat_calls=["other"]).invoke("q")
    assert runs == ["A"]


@pytest.mark.parametrize("bad", ["always", ["nope"], 3, None])
def test_repeat_calls_is_checked(bad: Any) -> None:
    with pytest.raises(UserError, match="repeat_calls"):
        Agent(ScriptedChatModel(["x"]), [get], repeat_calls=bad)


# -- review 9 #12: call ids and partly answered histories -----------------------------------------------------------

def test_repeated_ids_in_one_reply_are_made_unique() -> None:
    dup = calls(("get", {"city": "A"}, "dup"), ("get", {"city": "B"}, "dup"))
    model = ScriptedChatModel([dup, "ok"])
    events = list(Agent(model, [get]).stream("q"))
    result = events[-1].data
    assert runs == ["A", "B"]
    kept = result.messages[1]
    assert [c["id"] for c in kept.tool_calls] == ["dup", "dup_2"] and events[0].data is kept
    assert [(m.tool_call_id, m.text) for m in result.messages[2:4]] == [("dup", "sunny in A"), ("dup_2", "sunny in B")]
    assert model.requests[1].messages[1] == kept and every_call_answered_once(model.requests[1].messages)


def test_repeated_ids_across_valid_and_invalid_calls_of_pending_input() -> None:
    pending = AIMessage("", tool_calls=[tool_call("get", {"city": "A"}, "x")],
                        invalid_tool_calls=[invalid_tool_call("get", "{", "x", "cut off")])
    model = ScriptedChatModel(["ok"])
    result = Agent(model, [get]).invoke([HumanMessage("q"), pending])
    assert result.messages[1].invalid_tool_calls[0]["id"] == "x_2"
    assert every_call_answered_once(model.requests[0].messages)


def test_a_partly_answered_history_gets_its_missing_answers_in_place() -> None:
    conv = [HumanMessage("A and B?"), calls(("get", {"city": "A"}, "c1"), ("get", {"city": "B"}, "c2")),
            ToolMessage("sunny in A", "c1"), HumanMessage("never mind, say hi")]
    model = ScriptedChatModel(["hi"])
    events = list(Agent(model, [get]).stream(conv))
    sent = model.requests[0].messages
    assert every_call_answered_once(sent)
    assert sent[:3] == conv[:3] and sent[4:] == conv[3:]
    assert (sent[3].tool_call_id, sent[3].status) == ("c2", "error") and runs == []
    assert [(e.type, e.step) for e in events[:2]] == [("tool_call", 0), ("tool_result", 0)]
    assert len(conv) == 4  # the caller's list is not changed


def test_an_unanswered_call_right_before_a_human_message_is_answered() -> None:
    conv = [HumanMessage("q"), calls(("get", {"city": "A"}, "c1")), HumanMessage("go on"),
            calls(("get", {"city": "B"}, "c2")), ToolMessage("b", "c2"), HumanMessage("and?")]
    model = ScriptedChatModel(["done"])
    Agent(model, [get]).invoke(conv)
    sent = model.requests[0].messages
    assert sent[2].tool_call_id == "c1" and sent[3] == HumanMessage("go on") and len(sent) == 7
    assert every_call_answered_once(sent) and runs == []


# -- review 9 #13: constructor checks -------------------------------------------------------------------------------

def test_agent_without_a_model_says_so() -> None:
    with pytest.raises(UserError, match=r"chat model first.*got None"):
        Agent(None, [get])  # type: ignore[arg-type]
    with pytest.raises(UserError, match="not a model's name: build one with toolwire\\.models\\.init_chat_model"):
        Agent("gpt-4o", [get])  # type: ignore[arg-type]  # (review 152 #5: it said "got a str")


def test_agent_with_tools_none_says_so() -> None:
    with pytest.raises(UserError, match=r"or \[\] for no tools; got None"):
        Agent(ScriptedChatModel(["x"]), None)  # type: ignore[arg-type]


@pytest.mark.parametrize("choice", ["required", "get", {"type": "function", "function": {"name": "get"}}])
def test_forced_tool_choice_without_tools_is_refused(choice: Any) -> None:
    with pytest.raises(UserError, match="no tools"):
        Agent(ScriptedChatModel(["x"]), [], tool_choice=choice)


def test_unforced_tool_choice_without_tools_is_fine() -> None:
    for choice in (None, "auto", "none"):
        assert Agent(ScriptedChatModel(["x"]), [], tool_choice=choice).invoke("q").output == "x"


def test_tool_choice_naming_an_unbound_tool_is_refused() -> None:
    with pytest.raises(UserError, match="nope"):
        Agent(ScriptedChatModel(["x"]), [get], tool_choice="nope")


# -- review 9 #14: event order --------------------------------------------------------------------------------------

def test_invalid_calls_get_a_tool_call_event_before_their_result() -> None:
    bad = AIMessage("", tool_calls=[tool_call("get", {"city": "A"}, "g1")],
                    invalid_tool_calls=[invalid_tool_call("get", "{oops", "i1", "bad json")])
    events = list(Agent(ScriptedChatModel([bad, "ok"]), [get]).stream("q"))
    seen: set[str] = set()
    for event in events:
        if event.type == "tool_call":
            seen.add(event.data["id"])
        elif event.type == "tool_result":
            assert event.data.tool_call_id in seen
    assert [e.type for e in events[1:5]] == ["tool_call", "tool_call", "tool_result", "tool_result"]
    assert events[2].data["id"] == "i1"


def test_a_server_tool_in_the_agents_tools_is_bound_to_the_model_and_not_run() -> None:
    from toolwire.models.base import ServerTool

    bound: list[list[str]] = []

    class Recording(ScriptedChatModel):
        server_tools = ("anthropic", "google", None)  # a model standing for a provider that runs them

        def bind_tools(self, tools, **kwargs):  # type: ignore[no-untyped-def]
            bound.append([getattr(t, "name", None) or type(t).__name__ for t in tools])
            return super().bind_tools(tools, **kwargs)

    search = {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}
    agent = Agent(Recording(["no calls needed"]), [search, {"google_search": {}}])
    assert agent.executor.tools == {} and bound and all(len(names) == 2 for names in bound)
    assert all(isinstance(t, ServerTool) for t in agent.model.tools)
    assert agent.invoke("oi").output == "no calls needed"


def test_tools_given_as_a_generator_are_all_kept() -> None:
    """Review 10: the Agent read its tools twice, so a generator of tools came out empty."""

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    reply = AIMessage("", tool_calls=[tool_call("add", {"a": 1, "b": 2}, "c1")])
    agent = Agent(ScriptedChatModel([reply, "3"]), (t for t in [add]))
    assert list(agent.executor.tools) == ["add"]
    result = agent.invoke("1 + 2?")
    assert [m.text for m in result.messages if isinstance(m, ToolMessage)] == ["3"]


def test_calls_not_run_get_all_their_tool_call_events_before_the_results() -> None:
    """Review 10: calls answered without running alternated tool_call / tool_result, against AgentEvent's rule."""
    refusal = anthropic_reply([{"type": "tool_use", "id": "t1", "name": "get", "input": {"city": "A"}},
                               {"type": "tool_use", "id": "t2", "name": "get", "input": {"city": "B"}}], "refusal")
    events = list(Agent(ScriptedChatModel([refusal]), [get]).stream("q"))
    assert [e.type for e in events] == ["model_reply", "tool_call", "tool_call", "tool_result", "tool_result", "final"]
