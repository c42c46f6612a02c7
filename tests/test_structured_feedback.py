"""with_structured_output(retries=n): a reply that cannot be read as the schema goes back to the model with what
did not fit (Pydantic AI's output retries), and the output tool's arguments are validated with the user's pydantic
class's own ``extra`` setting."""

from __future__ import annotations

import asyncio
from typing import TypedDict

import pytest
from pydantic import BaseModel, ConfigDict

from toolwire import AIMessage, HumanMessage, SystemMessage, ToolCallParseError, ToolMessage, UserError
from toolwire.messages import invalid_tool_call, tool_call
from toolwire.testing import ScriptedChatModel


class Invoice(BaseModel):
    """An invoice."""

    number: str
    total: float


class ClosedInvoice(BaseModel):
    """An invoice that refuses unknown keys."""

    model_config = ConfigDict(extra="forbid")

    number: str
    total: float


class Line(BaseModel):
    item: str
    qty: int


class Order(BaseModel):
    """An order."""

    lines: list[Line]


class Point(TypedDict):
    x: int
    y: int


def _call(args: dict, call_id: str = "c1", name: str = "Invoice") -> AIMessage:
    return AIMessage("", tool_calls=[tool_call(name, args, call_id)])


GOOD = {"number": "A-1", "total": 12.5}
BAD = {"number": "A-1", "total": "twelve"}


def test_the_second_request_carries_the_failing_reply_and_an_error_tool_message() -> None:
    model = ScriptedChatModel([_call(BAD), _call(GOOD, "c2")])
    value = model.with_structured_output(Invoice, retries=1).invoke("Read the invoice.")
    assert value == Invoice(number="A-1", total=12.5)
    assert len(model.requests) == 2
    first, second = model.requests
    assert [type(m) for m in first.messages] == [HumanMessage]
    human, reply, answer = second.messages
    assert human.text == "Read the invoice."
    assert isinstance(reply, AIMessage) and reply.tool_calls[0]["args"] == BAD
    assert isinstance(answer, ToolMessage) and answer.tool_call_id == "c1" and answer.status == "error"
    assert answer.text.startswith("Invoice was not accepted: total: Input should be a valid number")
    assert answer.text.endswith("Call Invoice again with the corrected arguments.")
    assert second.tools == ["Invoice"] and second.tool_choice == "Invoice"  # still forced


def test_every_wrong_field_is_named_by_its_location() -> None:
    bad = {"lines": [{"item": "pen", "qty": "many"}, {"qty": 2}]}
    model = ScriptedChatModel([_call(bad, name="Order"), _call({"lines": [{"item": "pen", "qty": 3}]}, "c2",
                                                               name="Order")])
    assert model.with_structured_output(Order, retries=1).invoke("q") == Order(lines=[Line(item="pen", qty=3)])
    answer = model.requests[1].messages[-1]
    assert "lines.0.qty: Input should be a valid integer" in answer.text
    assert "lines.1.item: Field required" in answer.text


def test_a_reply_without_the_call_gets_a_human_message() -> None:
    model = ScriptedChatModel(["The total is 12.5.", _call(GOOD)])
    value = model.with_structured_output(Invoice, retries=1).invoke([SystemMessage("Be brief."), HumanMessage("q")])
    assert value.total == 12.5
    messages = model.requests[1].messages
    assert [type(m) for m in messages] == [SystemMessage, HumanMessage, AIMessage, HumanMessage]
    assert messages[2].text == "The total is 12.5."
    assert messages[3].text == "You did not call Invoice. Give your answer by calling Invoice with it as the arguments."


def test_arguments_that_are_not_json_are_answered_on_their_call() -> None:
    broken = AIMessage("", invalid_tool_calls=[invalid_tool_call("Invoice", '{"number": "A-', "c9",
                                                                 "Unterminated string")])
    model = ScriptedChatModel([broken, _call(GOOD)])
    assert model.with_structured_output(Invoice, retries=1).invoke("q") == Invoice(**GOOD)
    answer = model.requests[1].messages[-1]
    assert isinstance(answer, ToolMessage) and answer.tool_call_id == "c9"
    assert answer.text == ("Invoice could not be read: Unterminated string. Call Invoice again with the corrected "
                           "arguments.")


def test_a_call_of_another_tool_is_answered_too() -> None:
    from toolwire.models._structured_retry import next_conversation

    conversation = next_conversation([HumanMessage("q")], _call({"x": 1}, "k", name="search"), "Invoice",
                                     "You did not call Invoice.")
    answer = conversation[-1]
    assert isinstance(answer, ToolMessage) and answer.tool_call_id == "k" and answer.status == "error"
    assert "call" in answer.text and "Invoice" in answer.text


def test_role_tuples_and_dicts_are_read_as_the_model_reads_them() -> None:
    model = ScriptedChatModel([_call(BAD), _call(GOOD)])
    structured = model.with_structured_output(Invoice, retries=1)
    structured.invoke([("system", "Be brief."), {"role": "user", "content": "q"}])
    messages = model.requests[1].messages
    assert [type(m) for m in messages] == [SystemMessage, HumanMessage, AIMessage, ToolMessage]
    assert messages[0].text == "Be brief." and messages[1].text == "q"


def test_retries_zero_sends_one_request_as_before() -> None:
    model = ScriptedChatModel([_call(BAD), _call(GOOD)])
    with pytest.raises(ToolCallParseError) as caught:
        model.with_structured_output(Invoice, retries=0).invoke("q")
    assert len(model.requests) == 1
    assert str(caught.value).startswith("The model's Invoice does not fit the schema: total:")
    assert "asked" not in str(caught.value)


def test_the_last_failure_raises_and_says_how_many_requests_were_made() -> None:
    model = ScriptedChatModel([_call(BAD, "c1"), _call(BAD, "c2"), _call(BAD, "c3")])
    with pytest.raises(ToolCallParseError) as caught:
        model.with_structured_output(Invoice, retries=2).invoke("q")
    assert len(model.requests) == 3
    assert "asked 3 times (retries=2)" in str(caught.value)
    assert caught.value.raw.tool_calls[0]["id"] == "c3"
    # the third request carries both failures, each answered
    kinds = [type(m) for m in model.requests[2].messages]
    assert kinds == [HumanMessage, AIMessage, ToolMessage, AIMessage, ToolMessage]


def test_include_raw_returns_the_last_reply_after_the_retries() -> None:
    model = ScriptedChatModel([_call(BAD, "c1"), _call(BAD, "c2")])
    result = model.with_structured_output(Invoice, retries=1, include_raw=True).invoke("q")
    assert len(model.requests) == 2
    assert result["parsed"] is None and result["raw"].tool_calls[0]["id"] == "c2"
    assert isinstance(result["parsing_error"], ToolCallParseError)
    assert "asked 2 times" in str(result["parsing_error"])
    model = ScriptedChatModel([_call(BAD, "c1"), _call(GOOD, "c2")])
    result = model.with_structured_output(Invoice, retries=1, include_raw=True).invoke("q")
    assert result["parsed"] == Invoice(**GOOD) and result["parsing_error"] is None


def test_a_reply_cut_off_at_max_tokens_is_not_asked_again() -> None:
    cut = AIMessage("", invalid_tool_calls=[invalid_tool_call("Invoice", '{"number": "A', "c1", "cut")],
                    response_metadata={"finish_reason": "length"})
    model = ScriptedChatModel([cut, _call(GOOD)])
    with pytest.raises(ToolCallParseError, match="max_tokens"):
        model.with_structured_output(Invoice, retries=2).invoke("q")
    assert len(model.requests) == 1


def test_ainvoke_asks_again_with_the_error() -> None:
    model = ScriptedChatModel([_call(BAD), _call(GOOD, "c2")])
    value = asyncio.run(model.with_structured_output(Invoice, retries=1).ainvoke("q"))
    assert value == Invoice(**GOOD)
    assert isinstance(model.requests[1].messages[-1], ToolMessage)


def test_stream_and_astream_ask_again_and_yield_once() -> None:
    model = ScriptedChatModel([_call(BAD), _call(GOOD, "c2")])
    assert list(model.with_structured_output(Invoice, retries=1).stream("q")) == [Invoice(**GOOD)]
    assert [type(m) for m in model.requests[1].messages] == [HumanMessage, AIMessage, ToolMessage]

    async def collect() -> list:
        return [v async for v in model.with_structured_output(Invoice, retries=1).astream("q")]

    model = ScriptedChatModel([_call(BAD), _call(GOOD, "c2")])
    assert asyncio.run(collect()) == [Invoice(**GOOD)]
    assert [type(m) for m in model.requests[1].messages] == [HumanMessage, AIMessage, ToolMessage]


def test_batch_and_abatch_ask_again_per_input() -> None:
    model = ScriptedChatModel([_call(BAD), _call(GOOD, "c2")])
    assert model.with_structured_output(Invoice, retries=1).batch(["q"]) == [Invoice(**GOOD)]
    assert len(model.requests) == 2
    model = ScriptedChatModel([_call(BAD), _call(GOOD, "c2")])
    assert asyncio.run(model.with_structured_output(Invoice, retries=1).abatch(["q"])) == [Invoice(**GOOD)]
    assert isinstance(model.requests[1].messages[-1], ToolMessage)


def test_with_retry_repeats_the_whole_exchange_of_feedback_requests() -> None:
    model = ScriptedChatModel([_call(BAD), _call(BAD, "c2"), _call(BAD, "c3"), _call(GOOD, "c4")])
    structured = model.with_structured_output(Invoice, retries=1).with_retry(
        retry_if_exception_type=(ToolCallParseError,), stop_after_attempt=2, wait_exponential_jitter=False,
        exponential_jitter_params={"initial": 0, "max": 0})
    assert structured.invoke("q") == Invoice(**GOOD)
    assert len(model.requests) == 4
    assert [type(m) for m in model.requests[2].messages] == [HumanMessage]  # the second attempt starts afresh
    assert [type(m) for m in model.requests[3].messages] == [HumanMessage, AIMessage, ToolMessage]


def test_bind_keeps_retries_and_sends_its_options_on_every_request() -> None:
    model = ScriptedChatModel([_call(BAD), _call(GOOD, "c2")])
    structured = model.with_structured_output(Invoice, retries=1).bind(temperature=0)
    assert structured.retries == 1 and "retries=1" in repr(structured)
    assert structured.invoke("q") == Invoice(**GOOD)
    assert [r.options for r in model.requests] == [{"temperature": 0}, {"temperature": 0}]


@pytest.mark.parametrize("bad", [-1, True, 1.0, "2", None])
def test_bad_retries_are_refused_in_one_sentence(bad: object) -> None:
    with pytest.raises(UserError, match=r"retries=\.\.\.\) takes a whole number of at least 0") as caught:
        ScriptedChatModel([]).with_structured_output(Invoice, retries=bad)
    assert repr(bad) in str(caught.value)


def test_extra_keys_follow_the_pydantic_class_config() -> None:
    args = {**GOOD, "note": "x"}
    assert Invoice.model_validate(args) == Invoice(**GOOD)  # pydantic's default: extra="ignore"
    model = ScriptedChatModel([_call(args)])
    assert model.with_structured_output(Invoice).invoke("q") == Invoice(**GOOD)
    closed = ScriptedChatModel([_call(args, name="ClosedInvoice")])
    with pytest.raises(ToolCallParseError, match="note: Extra inputs are not permitted"):
        closed.with_structured_output(ClosedInvoice).invoke("q")


def test_extra_keys_in_nested_models_follow_their_config_and_other_rules_stay() -> None:
    model = ScriptedChatModel([_call({"lines": [{"item": "pen", "qty": 1, "colour": "red"}]}, name="Order")])
    assert model.with_structured_output(Order).invoke("q") == Order(lines=[Line(item="pen", qty=1)])
    boolean = ScriptedChatModel([_call({"lines": [{"item": "pen", "qty": True}]}, name="Order")])
    with pytest.raises(ToolCallParseError, match=r"lines\.0\.qty"):  # toolwire's rule: no boolean for a number
        boolean.with_structured_output(Order).invoke("q")


_INVOICE_SCHEMA = {"type": "object", "properties": {"number": {"type": "string"}, "total": {"type": "number"}},
                   "required": ["number", "total"], "additionalProperties": False}
_ORDER_SCHEMA = {"type": "object", "properties": {"lines": {"items": {
    "additionalProperties": False, "properties": {"item": {"type": "string"}, "qty": {"type": "integer"}},
    "required": ["item", "qty"], "type": "object"}, "type": "array"}}, "required": ["lines"],
    "additionalProperties": False}


def test_the_json_schema_sent_is_unchanged_while_extras_are_read_as_the_class_reads_them() -> None:
    from toolwire.models.structured import output_tool

    invoice, read_invoice = output_tool(Invoice)
    order, read_order = output_tool(Order)
    assert invoice.parameters == _INVOICE_SCHEMA and order.parameters == _ORDER_SCHEMA  # as sent before
    assert read_invoice({**GOOD, "note": "x"}) == Invoice(**GOOD)
    assert read_order({"lines": [{"item": "pen", "qty": 1, "colour": "red"}]}) == Order(lines=[Line(item="pen",
                                                                                                   qty=1)])


def test_typeddicts_and_dataclasses_read_unknown_keys_as_pydantic_does() -> None:
    # (review 103: they were refused, where pydantic's TypeAdapter drops them; a config that forbids them still does)
    import dataclasses

    from pydantic import ConfigDict

    @dataclasses.dataclass
    class Spot:
        x: int

    class Strict(TypedDict):
        __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
        x: int

    model = ScriptedChatModel([_call({"x": 1, "y": 2, "z": 3}, name="Point"), _call({"x": 1, "zz": 2}, name="Spot"),
                               _call({"x": 1, "zz": 2}, name="Strict")])
    assert model.with_structured_output(Point).invoke("q") == {"x": 1, "y": 2}
    assert model.with_structured_output(Spot).invoke("q") == Spot(x=1)
    with pytest.raises(ToolCallParseError, match="zz: Extra inputs are not permitted"):
        model.with_structured_output(Strict).invoke("q")
