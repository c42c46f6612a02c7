"""A reply's text read as BFCL's prompt mode reads it (review 22): irrelevance counts a call list of any name."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire.evals.bfcl import BfclItem
from toolwire.evals.bfcl_runner import score_item
from toolwire.evals.report import ItemResult
from toolwire.messages import AIMessage
from toolwire.parsing.call_lists import text_calls

_BMI = {"name": "determine_body_mass_index", "description": "BMI.",
        "parameters": {"type": "dict", "properties": {"weight": {"type": "float", "description": "kg"}},
                       "required": ["weight"]}}


@pytest.mark.parametrize(("text", "names"), [
    ("[calculate_triangle_area(base=10, height=5)]", ["calculate_triangle_area"]),
    ("calculate_triangle_area(base=10, height=5)", ["calculate_triangle_area"]),  # BFCL wraps it in [ ]
    ("  `[get_current_time()]`\n", ["get_current_time"]),
    ('[Chord("C"), Chord("G")]', ["Chord", "Chord"]),  # positional arguments are dropped, the calls stay
    ("[math.sqrt(x=4)]", ["math.sqrt"]),
    ("[f(**{'a': 1})]", ["f"]),
    ("[calculate_average(value=sum([1, 2, 3]) / 3)]", ["calculate_average"]),  # BFCL evaluates builtins
    ('[f(x=-1, y={"a": [1, 2]}, z=unit, w=g(q=1), v=data["k"], u=2 * 3)]', ["f"]),
    ('[{"name": "calc", "arguments": {"a": 1}}]', ["calc"]),  # the json dialect's call objects
    ('```json\n{"name": "calc", "parameters": {}}\n```', ["calc"]),
])
def test_call_lists_of_any_function_are_read(text: str, names: list[str]) -> None:
    assert [c["name"] for c in text_calls(text)] == names


def test_values_are_read_as_bfcl_reads_them_without_evaluating() -> None:
    (call,) = text_calls('[f(a=-2.5, b=[1, (2, 3)], c=unit, d=g(), e=2 * 3, f=data["k"], g=...)]')
    assert call["args"] == {"a": -2.5, "b": [1, [2, 3]], "c": "unit", "d": "g()", "e": "2 * 3",
                            "f": "data['k']", "g": "..."}


@pytest.mark.parametrize("text", [
    "", "The answer is 25.", "['James Buchanan']", "[1494]", "[500 * 0.75]", "[True]", "25",
    "[[f(x=1)]]",  # a list in a list: BFCL's decoder fails on it
    "```python\n[f(x=1)]\n```",  # the fence's language tag is left in the text, so BFCL cannot parse it
    "[f(x=a * 2)]", "[f(x=math.pi * 2)]", "[f(x=lambda y: y)]", "[f(x=y > 2)]", '[f(x=f"{y}")]', "[f(x=-y)]",
    "[f(x={**d})]", "[x for x in y]", "[f(x=1)] and more", "Use `f(x=1)`, then answer.",
    '{"name": "bitcoin_price", "description": "Price.", "parameters": {"type": "object"}}',  # a definition
    '[{"name": "f"}]', '{"name": 3, "arguments": {}}', "[" * 5000,
])
def test_anything_else_is_no_call(text: str) -> None:
    assert text_calls(text) == []


class _Replying:
    """A duck-typed chat model whose every reply is ``message``."""

    def __init__(self, message: AIMessage) -> None:
        self.message = message

    def bind_tools(self, tools: list[dict[str, Any]]) -> _Replying:
        return self

    def invoke(self, messages: Any) -> AIMessage:
        return self.message


def _irrelevance() -> BfclItem:
    return BfclItem("irrelevance_x", "irrelevance", [[{"role": "user", "content": "Area of a triangle, base 10?"}]],
                    [_BMI])


@pytest.mark.parametrize(("message", "valid"), [
    (AIMessage("[calculate_triangle_area(base=10, height=5)]"), False),
    (AIMessage("The area is 25 square units."), True),
    (AIMessage("['25 square units']"), True),
    # toolwire could not read the call, and it is the whole reply: BFCL's decoder reads it (a name as a value)
    (AIMessage("", invalid_tool_calls=[{"name": "determine_body_mass_index", "args": "determine_body_mass_index("
                                        "weight=w)", "id": "c1", "error": "not a literal"}]), False),
    # ... but not when the reply is prose around it (BFCL decodes the whole reply), nor unreadable JSON
    (AIMessage("You could try this:", invalid_tool_calls=[
        {"name": "determine_body_mass_index", "args": "determine_body_mass_index(weight=w)", "id": "c1"}]), True),
    (AIMessage("", invalid_tool_calls=[{"name": "determine_body_mass_index", "args": '{"weight": ', "id": "c1"}]),
     True),
])
def test_irrelevance_counts_a_reply_that_is_a_call_list_of_any_name(message: AIMessage, valid: bool) -> None:
    result = score_item(_Replying(message), _irrelevance())
    assert result.valid is valid
    if not valid:
        assert result.reason == "called_when_should_not" and result.actual


def test_other_categories_still_score_only_the_calls_toolwire_read() -> None:
    item = BfclItem("simple_x", "simple_python", [[{"role": "user", "content": "BMI of 70 kg?"}]], [_BMI],
                    [{"determine_body_mass_index": {"weight": [70.0]}}])
    result = score_item(_Replying(AIMessage("[bmi(weight=70)]")), item)
    assert (result.valid, result.reason, result.actual) == (False, "no_call", [])


def test_live_relevance_counts_a_reply_that_is_a_call_list_as_bfcl_does() -> None:
    # review 23: BFCL's relevance_file_runner decodes relevance replies the same way
    item = BfclItem("live_relevance_x", "live_relevance", [[{"role": "user", "content": "BMI of 70 kg?"}]], [_BMI])
    assert score_item(_Replying(AIMessage("[bmi(weight=70)]")), item).valid
    assert not score_item(_Replying(AIMessage("Your BMI needs your height.")), item).valid


def test_an_item_keeps_what_the_decoding_rules_did() -> None:
    item = BfclItem("simple_x", "simple_python", [[{"role": "user", "content": "BMI of 70 kg?"}]], [_BMI],
                    [{"determine_body_mass_index": {"weight": [70.0]}}])
    call = {"name": "determine_body_mass_index", "args": {"weight": 70.0}, "id": "c1", "type": "tool_call"}
    reply = AIMessage("", tool_calls=[call], response_metadata={
        "parallel_call_shares": [0.01], "call_probability": 0.9, "seconds": 1.5, "model_name": "m"})
    result = score_item(_Replying(reply), item)
    assert result.valid
    assert result.decoding == {"call_probability": 0.9, "parallel_call_shares": [0.01]}  # not seconds, not the name
    assert ItemResult.from_dict(result.to_dict()) == result
    assert ItemResult.from_dict({"id": "a", "category": "simple_python", "valid": True}).decoding == {}
