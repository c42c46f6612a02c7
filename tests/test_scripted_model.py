"""toolwire.testing.ScriptedChatModel and the BaseChatModel interface it implements (issue [1])."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel, Field

from toolwire import AIMessage, BaseChatModel, HumanMessage, SchemaError, SystemMessage, UserError, merge_chunks, tool
from toolwire.messages import invalid_tool_call, tool_call
from toolwire.testing import RecordedRequest, ScriptedChatModel

REPLY = AIMessage(
    "Vou verificar o clima em São Paulo e Oslo.",
    tool_calls=[tool_call("get_weather", {"city": "São Paulo"}, "c1"),
                tool_call("get_weather", {"city": "Oslo", "units": {"temp": "C"}}, "c2")],
    invalid_tool_calls=[invalid_tool_call("calculate", '{"expression": "1 +', "c3", "cut off")],
    usage={"input_tokens": 20, "output_tokens": 9, "total_tokens": 29},
    response_metadata={"finish_reason": "tool_calls"},
    id="msg_1",
)


@tool
def get_weather(city: str) -> str:
    """Get the weather of a city."""
    return f"sunny in {city}"


class Calculate(BaseModel):
    """Evaluate an arithmetic expression."""

    expression: str = Field(description="e.g. 123 * 456")


LOOKUP = {"type": "function", "function": {"name": "lookup", "description": "Look up a word.",
                                           "parameters": {"type": "object", "properties": {"w": {"type": "string"}},
                                                          "required": ["w"]}}}


def test_replays_in_order_and_records_requests() -> None:
    model = ScriptedChatModel([REPLY, "plain text", lambda messages: AIMessage(f"{len(messages)} messages")])
    assert isinstance(model, BaseChatModel)
    assert model.invoke("Como está o clima?") == REPLY
    assert model.invoke([SystemMessage("s"), HumanMessage("h")]) == AIMessage("plain text")
    assert model.invoke([("user", "a"), ("assistant", "b"), ("user", "c")]) == AIMessage("3 messages")
    assert model.requests[0] == RecordedRequest([HumanMessage("Como está o clima?")], [], None, None, {})
    assert model.requests[1].messages == [SystemMessage("s"), HumanMessage("h")]
    with pytest.raises(UserError, match="ScriptedChatModel ran out of replies after 3"):
        model.invoke("more")


def test_cycle_starts_again() -> None:
    model = ScriptedChatModel(["a", "b"], cycle=True)
    assert [model.invoke("x").content for _ in range(5)] == ["a", "b", "a", "b", "a"]


def test_bad_scripted_reply_is_a_clear_error() -> None:
    model = ScriptedChatModel([42])  # type: ignore[list-item]
    with pytest.raises(UserError, match=r"must be a toolwire AIMessage \(or LangChain's\) or a string, not int:"):
        model.invoke("x")


def test_bind_tools_returns_a_new_model_and_leaves_the_original_unchanged() -> None:
    def plain(word: str) -> str:
        """Spell a word."""
        return word

    model = ScriptedChatModel(["one", "two"])
    bound = model.bind_tools([get_weather, plain, Calculate, LOOKUP], tool_choice="get_weather",
                             parallel_tool_calls=False, strict=True)
    assert bound is not model
    assert (model.tools, model.tool_choice, model.parallel_tool_calls, model.strict) == ((), None, None, None)
    assert [t.name for t in bound.tools] == ["get_weather", "plain", "Calculate", "lookup"]
    assert (bound.tool_choice, bound.parallel_tool_calls, bound.strict) == ("get_weather", False, True)
    assert [s.description for s in bound.tool_specs] == [
        "Get the weather of a city.", "Spell a word.", "Evaluate an arithmetic expression.", "Look up a word."]
    assert bound.tool_specs[2].parameters == {"type": "object", "properties": {
        "expression": {"type": "string", "description": "e.g. 123 * 456"}}, "required": ["expression"],
        "additionalProperties": False}
    bound.invoke("q")
    model.invoke("r")
    # the bound copy shares the script and the record with its model
    assert [(r.tools, r.tool_choice, r.parallel_tool_calls) for r in model.requests] == [
        (["get_weather", "plain", "Calculate", "lookup"], "get_weather", False), ([], None, None)]
    rebound = bound.bind_tools([get_weather])
    assert [t.name for t in rebound.tools] == ["get_weather"] and rebound.tool_choice == "auto"
    assert [t.name for t in bound.tools] == ["get_weather", "plain", "Calculate", "lookup"]


@pytest.mark.parametrize(("given", "stored"), [("auto", "auto"), ("none", "none"), ("required", "required"),
                                               ("any", "required"), (True, "required"), (None, None),
                                               ("get_weather", "get_weather"),
                                               ({"type": "function", "function": {"name": "get_weather"}},
                                                "get_weather")])
def test_tool_choice_forms(given: object, stored: str | None) -> None:
    assert ScriptedChatModel([]).bind_tools([get_weather], tool_choice=given).tool_choice == stored


def test_bind_tools_errors() -> None:
    model = ScriptedChatModel([])
    with pytest.raises(UserError, match=r"tool_choice 'get_time' is not 'auto', 'none', 'required', a bound "
                                        r"tool name \(get_weather\), or a dict"):
        model.bind_tools([get_weather], tool_choice="get_time")
    with pytest.raises(SchemaError, match="Two tools are named 'get_weather'"):
        model.bind_tools([get_weather, get_weather])
    with pytest.raises(SchemaError, match="Cannot use str as a tool"):
        model.bind_tools(["get_weather"])


def test_stream_adds_up_to_what_invoke_returns() -> None:
    model = ScriptedChatModel([REPLY, REPLY], stream_pieces=4)
    chunks = list(model.stream("q"))
    assert len(chunks) > 4
    assert merge_chunks(chunks, as_chunk=False) == REPLY
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    assert total.to_message() == REPLY
    assert model.invoke("q") == REPLY


def test_astream_and_ainvoke() -> None:
    model = ScriptedChatModel([REPLY, REPLY], stream_pieces=4)

    async def main() -> tuple[list, AIMessage]:
        chunks = [c async for c in model.astream("q")]
        return chunks, await model.ainvoke("q")

    chunks, reply = asyncio.run(main())
    assert reply == REPLY
    assert merge_chunks(chunks, as_chunk=False) == REPLY
    assert [c.content for c in chunks] == [c.content for c in ScriptedChatModel([REPLY], stream_pieces=4).stream("q")]
    assert len(model.requests) == 2


def test_options_are_recorded() -> None:
    model = ScriptedChatModel(["x"])
    model.invoke("q", temperature=0.2, seed=7)
    assert model.requests[0].options == {"temperature": 0.2, "seed": 7}


def test_a_callable_reply_sees_the_conversation() -> None:
    def echo_last(messages: list) -> str:
        return "echo: " + messages[-1].text

    model = ScriptedChatModel([echo_last])
    assert model.invoke([HumanMessage("first"), HumanMessage("second")]) == AIMessage("echo: second")


def test_repr_names_the_bound_tools() -> None:
    model = ScriptedChatModel([])
    assert repr(model) == "ScriptedChatModel(model='scripted')"
    assert repr(model.bind_tools([get_weather])) == "ScriptedChatModel(model='scripted', tools=['get_weather'])"


def test_call_options_are_checked_as_a_hosted_model_checks_them() -> None:
    model = ScriptedChatModel(["x", "y"], cycle=True)
    with pytest.raises(UserError, match="did you mean 'temperature'"):
        model.invoke("q", temprature=0)
    with pytest.raises(UserError, match="max_tokens must be a whole number"):
        model.invoke("q", max_tokens=0)
    with pytest.raises(UserError, match="request field toolwire writes"):
        model.invoke("q", messages=[])
    assert model.requests == []  # a refused call is not recorded, and does not use up a reply
    assert model.invoke("q", top_k=3, custom="kept") == AIMessage("x")
    assert model.requests[0].options == {"top_k": 3, "custom": "kept"}
