"""Review 324: toolwire messages as pydantic fields.

#1 A field of one message class reads a dict without ``type``/``role`` as that class wherever the class is used (in
   a dataclass, a TypedDict, a list or a ``defer_build`` model that is itself a member of a union, whichever model
   is built first); ``BaseMessage`` and toolwire's ``AnyMessage`` need the ``type``; a union of message classes the
   user writes takes the first member that reads the value, as pydantic's smart union does with LangChain's classes.
#4 The strict-mode warning for a schema with a message field says why (a message takes keys beyond its declared
   ones), not to drop an ``extra='allow'`` the user never set.
"""

from __future__ import annotations

import dataclasses
from typing import Optional, Union

import pytest
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from toolwire import AIMessage, HumanMessage, SystemMessage, ToolMessage
from toolwire.messages import AnyMessage, BaseMessage


@dataclasses.dataclass
class Turn:
    question: HumanMessage
    answer: AIMessage


class Pair(TypedDict):
    q: HumanMessage


def test_1_a_one_class_field_inside_a_union_member_reads_a_dict_without_type() -> None:
    data = {"question": {"content": "2+2?"}, "answer": {"content": "4"}}
    want = Turn(HumanMessage("2+2?"), AIMessage("4"))
    assert TypeAdapter(Turn).validate_python(data) == want
    assert TypeAdapter(Union[Turn, HumanMessage, AIMessage]).validate_python(data) == want  # noqa: UP007
    assert TypeAdapter(Union[list[Pair], HumanMessage, AIMessage]).validate_python(  # noqa: UP007
        [{"q": {"content": "q"}}]) == [{"q": HumanMessage("q")}]
    assert TypeAdapter(Union[list[HumanMessage], AIMessage, HumanMessage]).validate_python(  # noqa: UP007
        [{"content": "q"}]) == [HumanMessage("q")]


@pytest.mark.parametrize("first", [False, True])
def test_1_a_defer_build_model_reads_the_same_whichever_model_is_built_first(first: bool) -> None:
    class Lazy(BaseModel):
        model_config = ConfigDict(defer_build=True)
        question: HumanMessage

    if first:
        assert Lazy(question={"content": "hi"}).question == HumanMessage("hi")

    class InUnion(BaseModel):
        item: Union[Lazy, HumanMessage, AIMessage]  # noqa: UP007

    assert InUnion(item={"question": {"content": "hi"}}).item == Lazy(question=HumanMessage("hi"))
    assert Lazy(question={"content": "hi"}).question == HumanMessage("hi")


@pytest.mark.parametrize("annotation", [BaseMessage, AnyMessage, list[AnyMessage], Optional[AnyMessage]])  # noqa: UP045
def test_1_base_message_and_any_message_need_the_type(annotation: object) -> None:
    adapter = TypeAdapter(annotation)
    listed = annotation == list[AnyMessage]
    with pytest.raises(ValidationError, match="role"):
        adapter.validate_python([{"content": "hi"}] if listed else {"content": "hi"})
    for kind, cls in (("human", HumanMessage), ("ai", AIMessage), ("system", SystemMessage)):
        got = adapter.validate_python([{"type": kind, "content": "x"}] if listed else {"type": kind, "content": "x"})
        assert got == ([cls("x")] if listed else cls("x"))
    assert TypeAdapter(AnyMessage).validate_python({"role": "tool", "content": "3", "tool_call_id": "c"}) \
        == ToolMessage("3", tool_call_id="c")
    assert "HumanMessage-Typed" in str(TypeAdapter(annotation).json_schema())


def test_1_a_union_the_user_writes_takes_the_first_member_that_reads_the_value() -> None:
    assert TypeAdapter(HumanMessage | AIMessage).validate_python({"content": "hi"}) == HumanMessage("hi")
    assert TypeAdapter(AIMessage | HumanMessage).validate_python({"content": "hi"}) == AIMessage("hi")
    assert TypeAdapter(HumanMessage | AIMessage).validate_python({"type": "ai", "content": "hi"}) == AIMessage("hi")
    assert TypeAdapter(Union[SystemMessage, HumanMessage, None]).validate_python(  # noqa: UP007
        {"content": "hi"}) == SystemMessage("hi")
    assert TypeAdapter(Union[ToolMessage, HumanMessage]).validate_python(  # noqa: UP007
        {"content": "3", "tool_call_id": "c"}) == ToolMessage("3", tool_call_id="c")
    assert TypeAdapter(Union[ToolMessage, HumanMessage]).validate_python(  # noqa: UP007
        {"content": "hi"}) == HumanMessage("hi")
