"""Review 67 (a fresh user with the embedded model), the Agent's part: an identical call that fails the same way
each time is not run until max_steps."""

from __future__ import annotations

from toolwire import Agent, AIMessage, ToolMessage, tool
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel

runs: list[str] = []


@tool
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression."""
    runs.append(expression)
    if "km" in expression:
        raise SyntaxError("invalid syntax")
    return "42195.0"


def _call(expression: str, id: str) -> AIMessage:
    return AIMessage("", tool_calls=[tool_call("calculator", {"expression": expression}, id)])


def test_an_identical_call_failing_the_same_way_is_answered_with_its_error_after_three_tries():
    import pytest

    from toolwire import RepeatedCallWarning

    runs.clear()
    bad = "42.195 km * 1000"
    model = ScriptedChatModel([_call(bad, f"c{i}") for i in range(4)] + ["I could not compute it."])
    with pytest.warns(RepeatedCallWarning, match="error it had given 3 times in a row"):  # (review 118: it was silent)
        result = Agent(model, [calculator], max_steps=8).invoke("How many metres is 42.195 km?")
    assert runs == [bad, bad, bad]  # tried three times; the fourth identical call gets the error without running
    answers = [m for m in result.messages if isinstance(m, ToolMessage)]
    assert len(answers) == 4 and all(m.status == "error" for m in answers)
    assert answers[3].content == ("Error: tool 'calculator' was not run again: this same call failed 3 times in a "
                                  "row, each time with: " + answers[2].content.removeprefix("Error: "))
    assert model.requests[-1].tool_choice == "none"  # the model answers from what it has
    assert (result.output, result.stop_reason, result.steps) == ("I could not compute it.", "answer", 5)


def test_a_call_that_failed_once_then_differently_or_with_other_arguments_runs_again():
    runs.clear()
    good = "42.195 * 1000"
    model = ScriptedChatModel([_call("42.195 km", "c1"), _call(good, "c2"), _call("42.195 km", "c3"), "42195 m."])
    result = Agent(model, [calculator], max_steps=8).invoke("How many metres is 42.195 km?")
    assert runs == ["42.195 km", good, "42.195 km"]  # one failure of that call so far: it is tried again
    assert result.output == "42195 m."
    runs.clear()
    model = ScriptedChatModel([_call("42.195 km", f"c{i}") for i in range(3)] + ["done"])
    Agent(model, [calculator], max_steps=8, repeat_calls="run").invoke("Metres?")
    assert len(runs) == 3  # repeat_calls="run": every call runs


def test_an_empty_question_is_refused_before_the_model_is_asked():
    import pytest

    from toolwire import UserError

    model = ScriptedChatModel(["should not be asked"])
    for question in ("", "   \n"):
        with pytest.raises(UserError, match="question is empty"):
            Agent(model, [calculator]).invoke(question)
    assert model.requests == []
