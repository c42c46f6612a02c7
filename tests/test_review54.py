"""Review 54 (``with_structured_output`` as a LangChain user drives it, over every provider's wire; no model loaded):

1. Arguments the tool path repairs were refused: a nested object sent as JSON text (Gemini gets every
   ``dict[str, X]`` field as a string of JSON), and the ``null`` OpenAI strict mode sends for a field with a default.
2. A TypedDict without a docstring described the tool with ``dict``'s own docstring.
3. Parallel calls were left on (LangChain's ChatOpenAI turns them off for structured output).
4. Anthropic with extended thinking was sent a forced tool choice, which Anthropic refuses.
5. A ``RootModel`` escaped as pydantic's own error.
6. A reply cut off at max_tokens was reported as a schema error or a missing call; a call of another tool was
   not named; ``StrictSchemaWarning`` pointed inside toolwire.
"""

from __future__ import annotations

import warnings
from typing import NotRequired, TypedDict

import pytest
from pydantic import BaseModel, RootModel

from toolwire import AIMessage, SchemaError, ToolCallParseError
from toolwire.messages import tool_call
from toolwire.models.lowering.openai import StrictSchemaWarning
from toolwire.testing import ScriptedChatModel


class Inner(BaseModel):
    x: int


class Outer(BaseModel):
    """An answer with nested parts."""

    inner: Inner
    tags: dict[str, int]
    count: int = 3
    names: list[str] = []


def _answer(args: dict, **metadata: str) -> AIMessage:
    return AIMessage("", tool_calls=[tool_call("Outer", args, "c1")], response_metadata=metadata)


def test_the_tool_path_repairs_apply_to_structured_output() -> None:
    model = ScriptedChatModel([_answer({"inner": '{"x": 1}', "tags": '{"a": 1}', "count": None, "names": None})])
    assert model.with_structured_output(Outer).invoke("q") == Outer(inner=Inner(x=1), tags={"a": 1})


def test_a_typeddict_without_a_docstring_is_not_described_by_dict() -> None:
    class Person(TypedDict):
        name: str
        nick: NotRequired[str]

    structured = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("Person", {"name": "A", "nick": None}, "c")])]
                                   ).with_structured_output(Person)
    assert structured.model.tools[0].description == "Give the answer as Person."
    assert structured.invoke("q") == {"name": "A"}  # a null for a key that may be left out is left out


def test_one_call_is_asked_for() -> None:
    model = ScriptedChatModel([_answer({"inner": {"x": 1}, "tags": {}})])
    model.with_structured_output(Outer).invoke("q")
    assert model.requests[0].tool_choice == "Outer" and model.requests[0].parallel_tool_calls is False


def test_anthropic_with_thinking_offers_the_tool_without_forcing_it() -> None:
    from toolwire.models import ChatAnthropic

    pytest.importorskip("anthropic")
    thinking = ChatAnthropic("claude", api_key="k", max_tokens=4096,
                             model_kwargs={"thinking": {"type": "enabled", "budget_tokens": 2048}})
    with pytest.warns(UserWarning, match="Extended thinking cannot force a tool call") as caught:
        structured = thinking.with_structured_output(Outer)
    assert structured.model.tool_choice == "auto" and caught[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ChatAnthropic("claude", api_key="k").with_structured_output(Outer).model.tool_choice == "Outer"


def test_a_root_model_is_refused_in_one_sentence() -> None:
    class Numbers(RootModel[list[int]]):
        pass

    with pytest.raises(SchemaError, match=r"^Numbers is a RootModel, whose value is not an object"):
        ScriptedChatModel([]).with_structured_output(Numbers)
    with pytest.raises(SchemaError, match="is a RootModel"):
        ScriptedChatModel([]).bind_tools([Numbers])


@pytest.mark.parametrize("reason", ["length", "max_tokens", "MAX_TOKENS", "max_output_tokens"])
def test_a_cut_off_reply_says_to_raise_max_tokens(reason: str) -> None:
    replies = [_answer({"inner": {"x": 1}}, finish_reason=reason), AIMessage("The answer is", response_metadata={
        "finish_reason": reason})]
    structured = ScriptedChatModel(replies).with_structured_output(Outer)
    for _ in replies:
        with pytest.raises(ToolCallParseError, match=r"^The reply was cut off at max_tokens before the model's Outer "
                                                     r"was complete: ask again with a higher max_tokens\.$"):
            structured.invoke("q")


def test_a_call_of_another_tool_is_named_and_invalid_calls_end_their_sentence() -> None:
    broken = {"name": "Outer", "args": "{", "id": "c", "error": "cut off", "type": "invalid_tool_call"}
    structured = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("Other", {}, "c")]),
                                    AIMessage("", invalid_tool_calls=[broken])]).with_structured_output(Outer)
    with pytest.raises(ToolCallParseError, match=r"^The model did not call Outer \(it called Other\)"):
        structured.invoke("q")
    with pytest.raises(ToolCallParseError, match=r"^The model's Outer could not be read: cut off\.$"):
        structured.invoke("q")


def test_the_strict_warning_points_at_the_users_line() -> None:
    from toolwire.models import ChatGoogleGenAI

    pytest.importorskip("google.genai")  # (a provider without strict mode: Anthropic has one since session 38)
    with pytest.warns(StrictSchemaWarning) as caught:
        ChatGoogleGenAI("gemini", api_key="k").with_structured_output(Outer, strict=True)
    assert caught[0].filename == __file__


def test_langchain_habits_get_one_sentence() -> None:
    from toolwire import UserError

    model = ScriptedChatModel([_answer({"inner": {"x": 1}, "tags": {}})])
    assert model.with_structured_output(Outer, method="function_calling").invoke("q").inner == Inner(x=1)
    with pytest.raises(UserError, match=r"method='json_schema'\) is not available: .*leave method out\.$"):
        model.with_structured_output(Outer, method="json_schema")
    with pytest.raises(UserError, match=r"^invoke\(config=\.\.\.\) is LangChain's RunnableConfig"):
        model.invoke("q", config={"tags": ["x"]})


def test_pydantic_v1_models_keep_their_types() -> None:
    v1 = pytest.importorskip("pydantic.v1")
    from toolwire.models.base import to_tool

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (pydantic.v1 on Python 3.14 warns)

        class Person(v1.BaseModel):
            """A person."""

            age: int
            name: str = "x"

    spec = to_tool(Person)
    assert spec.parameters["properties"] == {"age": {"type": "integer"}, "name": {"default": "x", "type": "string"}}
    assert spec.description == "A person."
    structured = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("Person", {"age": 3}, "c")]),
                                    AIMessage("", tool_calls=[tool_call("Person", {"age": "old"}, "c")])]
                                   ).with_structured_output(Person)
    assert structured.invoke("q") == Person(age=3)
    with pytest.raises(ToolCallParseError, match=r"^The model's Person does not fit the schema: age: "):
        structured.invoke("q")
