"""A reply that only asks again for calls the conversation has answered is declined (``decline_repeat_calls``).

qwen2.5-coder-0.5b, handed the result of its call, asked for the same call again after each of the nine questions
of ``benchmarks/answer_turn.py`` it answered with calls (thirtieth session), so the book's loop printed an empty
answer; the reply is now declined as a call with a made-up value is, and the model goes on in text.
"""

from __future__ import annotations

import pytest

from test_dialects import _VOCAB, CALC, WEATHER, _ScriptedGeneration
from toolwire.messages import AIMessage, HumanMessage, ToolMessage
from toolwire.models._answered import answered_calls, only_answered
from toolwire.models.llamacpp import ChatLlamaCpp

_SURE = [(4, {4: 0.9, 7: 0.1}), (5, {5: 1.0}), (6, {6: 1.0})]  # "[get_weather(" opened with 0.9
_TEXT = [(7, {7: 0.9}), (8, {8: 0.9}), (9, {9: 0.9})]  # "It is sunny"
_OSLO = ('[get_weather(city="Oslo")]', [], 3)


def _asked(status: str = "success", args: dict | None = None) -> list:
    call = {"name": "get_weather", "args": args or {"city": "Oslo"}, "id": "c1"}
    return [HumanMessage("Weather in Oslo?"), AIMessage("", tool_calls=[call]),
            ToolMessage("Sunny, 21 C", tool_call_id="c1", status=status)]


def _run(messages, calls=(_OSLO,), **changes):
    run = _ScriptedGeneration([_SURE, _TEXT], bar=0.5, calls=calls, messages=messages)
    for key, value in changes.items():
        setattr(run.gen.model, key, value)
    (head, call_text, _), _ = run.run(_VOCAB, tools=[WEATHER, CALC])
    return run, head, call_text


def test_a_call_answered_with_success_since_the_newest_request_is_declined_and_the_model_answers():
    run, head, call_text = _run(_asked())
    assert (head, call_text) == ("It is sunny", "")
    assert run.gen.repeat_calls == 1 and run.gen.declined_calls == 1
    assert run.gen.made_up_values == []  # (review 70: no value was made up; the count has its own key)
    # generated again from the reply's start without its opening, nor a list's ("[get"), nor its end (review 172 #1)
    assert run.calls[1][1] == (4, 10)
    assert run.gen.budget == 100 - 3  # the declined call's tokens do not count


@pytest.mark.parametrize(("messages", "why"), [
    (_asked(status="error"), "a call that failed may be tried again"),
    (_asked(args={"city": "Bergen"}), "other arguments"),
    ([*_asked(), AIMessage("Sunny."), HumanMessage("And now?")], "the user asked again"),
    ([], "nothing answered"),
])
def test_a_call_is_made_when_it_is_no_repeat_of_an_answered_one(messages, why):
    run, head, call_text = _run(messages)
    assert (head, call_text) == ("", '[get_weather(city="Oslo")]'), why
    assert run.gen.made_up_values == [] and run.gen.declined_calls == run.gen.repeat_calls == 0


def test_a_list_with_one_new_call_is_made_and_the_option_turns_the_rule_off():
    both = ('[get_weather(city="Oslo"), calculate(expression="2 * 3")]', [], 5)
    run, _, call_text = _run(_asked(), calls=(both,))
    assert call_text == both[0] and run.gen.declined_calls == 0
    run, _, call_text = _run(_asked(), decline_repeat_calls=False)
    assert call_text == _OSLO[0] and run.gen.declined_calls == 0


def test_with_sampling_nothing_is_declined():
    run = _ScriptedGeneration([_SURE, _TEXT], bar=0.5, calls=(_OSLO,), messages=_asked())
    run.gen.opts["temperature"] = 0.7
    (_, call_text, _), _ = run.run(_VOCAB, tools=[WEATHER, CALC])
    assert call_text == _OSLO[0] and run.gen.declined_calls == 0


def test_answered_calls_reads_ids_status_and_the_newest_request():
    calls = [{"name": "get_weather", "args": {"city": "Oslo"}, "id": "a"},
             {"name": "get_weather", "args": {"city": "Paris"}, "id": "b"},
             {"name": "get_weather", "args": {"city": "Rome"}, "id": "c"}]
    messages = [HumanMessage("q"), AIMessage("", tool_calls=calls), ToolMessage("ok", tool_call_id="a"),
                ToolMessage("boom", tool_call_id="b", status="error"), ToolMessage("x", tool_call_id="zzz")]
    # c unanswered, b failed, a stray result ignored
    assert answered_calls(messages) == {("get_weather", '{"city": "Oslo"}')}
    assert answered_calls([*messages, HumanMessage("again")]) == frozenset()
    keys = answered_calls(messages)
    assert only_answered('[get_weather(city="Oslo")]', [WEATHER, CALC], "pythonic", keys)
    both = [{"name": "calculate", "args": {"expression": "1+1"}, "id": "d"}, calls[0]]  # two tools in one reply: in
    mixed = [HumanMessage("q"), AIMessage("", tool_calls=both), ToolMessage("2", tool_call_id="d"),  # any order,
             ToolMessage("ok", tool_call_id="a")]  # so a result counts only once a run gave it again (review 117)
    assert answered_calls(mixed) == frozenset()
    again = [*mixed, AIMessage("", tool_calls=[{**calls[0], "id": "e"}]), ToolMessage("ok", tool_call_id="e")]
    assert answered_calls(again) == {("get_weather", '{"city": "Oslo"}')}
    assert only_answered('[{"name": "get_weather", "arguments": {"city": "Oslo"}}]', [WEATHER], "json", keys)
    assert not only_answered('[get_weather(city="Rome")]', [WEATHER], "pythonic", keys)
    assert not only_answered("[get_weather(city=", [WEATHER], "pythonic", keys)  # no whole call: not judged


def test_the_model_option_is_on_by_default():
    assert ChatLlamaCpp().decline_repeat_calls is True
    assert ChatLlamaCpp(decline_repeat_calls=False).decline_repeat_calls is False


def test_an_agent_that_lets_calls_run_again_turns_the_model_rule_off_on_its_own_copies():
    from toolwire import Agent, tool

    @tool
    def check_job(job_id: str) -> str:
        """Return the status of a job."""
        return "running"

    model = ChatLlamaCpp()
    for repeat_calls in (["check_job"], "run"):
        agent = Agent(model, [check_job], repeat_calls=repeat_calls)
        assert agent.model.decline_repeat_calls is False and agent._answer_model.decline_repeat_calls is False
        assert agent._after_tools_model.decline_repeat_calls is False
    assert model.decline_repeat_calls is True  # the caller's model is unchanged
    assert Agent(model, [check_job]).model.decline_repeat_calls is True  # "answer": both rules on


def test_identical_calls_of_one_reply_run_once_and_each_gets_the_result():
    """Review 69: the default model wrote ``list_orders(customer="Ana")`` 8 times in one reply, and all 8 ran."""
    from toolwire import Agent, tool
    from toolwire.messages import tool_call
    from toolwire.testing import ScriptedChatModel

    ran: list[str] = []

    @tool
    def list_orders(customer: str) -> str:
        """List a customer's orders."""
        ran.append(customer)
        return f"orders of {customer}: O-{len(ran)}"

    @tool
    def flaky(n: int) -> str:
        """Fail."""
        ran.append(f"flaky {n}")
        raise ValueError("down")

    reply = AIMessage("", tool_calls=[tool_call("list_orders", {"customer": "Ana"}, "a1"),
                                      tool_call("list_orders", {"customer": "Bo"}, "b1"),
                                      tool_call("list_orders", {"customer": "Ana"}, "a2"),
                                      tool_call("flaky", {"n": 1}, "f1"), tool_call("flaky", {"n": 1}, "f2"),
                                      tool_call("list_orders", {"customer": "Ana"}, "a3")])
    result = Agent(ScriptedChatModel([reply, AIMessage("Done.")]), [list_orders, flaky]).invoke("orders?")
    assert ran == ["Ana", "Bo", "flaky 1"]
    answers = [(m.tool_call_id, m.content, m.status) for m in result.messages if isinstance(m, ToolMessage)]
    assert [a[:2] for a in answers if a[0] != "f1" and a[0] != "f2"] == [
        ("a1", "orders of Ana: O-1"), ("b1", "orders of Bo: O-2"), ("a2", "orders of Ana: O-1"),
        ("a3", "orders of Ana: O-1")]
    assert [a[2] for a in answers if a[0] in ("f1", "f2")] == ["error", "error"]
    assert result.output == "Done." and result.steps == 2  # not "every call a repeat": tools stay on
    # a tool that may run again runs every time
    ran.clear()
    result = Agent(ScriptedChatModel([reply, AIMessage("Done.")]), [list_orders, flaky],
                   repeat_calls=["list_orders"]).invoke("orders?")
    assert ran == ["Ana", "Bo", "Ana", "flaky 1", "Ana"]
