"""Review 319: toolwire messages as pydantic fields.

#1 A field of one message class reads a dict without ``type``/``role`` as that class, as LangChain's field does; a
   ``BaseMessage`` field, ``AnyMessage`` and other unions of message classes still need the type.
"""

from __future__ import annotations

from typing import Annotated, Union

import pytest
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from toolwire import AIMessage, HumanMessage, SystemMessage, ToolMessage
from toolwire.messages import AnyMessage, BaseMessage


class OneEach(BaseModel):
    h: HumanMessage
    a: AIMessage | None = None
    t: ToolMessage | None = None


def test_1_a_field_of_one_class_reads_a_dict_without_type_as_that_class() -> None:
    got = OneEach(h={"content": "hi"}, a={"content": "yo", "id": "r1"}, t={"content": "3", "tool_call_id": "c1"})
    assert got.h == HumanMessage("hi")
    assert got.a == AIMessage("yo", id="r1")
    assert got.t == ToolMessage("3", tool_call_id="c1")
    assert TypeAdapter(list[SystemMessage]).validate_python([{"content": "be brief"}]) == [SystemMessage("be brief")]
    assert TypeAdapter(Annotated[HumanMessage, Field(description="x")]).validate_python({"content": "a"}) \
        == HumanMessage("a")
    # a role or type still says which message it is, and another class is refused
    assert OneEach(h={"role": "user", "content": "hi"}).h == HumanMessage("hi")
    with pytest.raises(ValidationError, match="HumanMessage"):
        OneEach(h={"type": "ai", "content": "hi"})
    with pytest.raises(ValidationError, match="tool_call_id"):
        OneEach(h={"content": "hi"}, t={"content": "3"})


@pytest.mark.parametrize("annotation", [BaseMessage, AnyMessage, HumanMessage | AIMessage,
                                        Union[SystemMessage, HumanMessage, None],  # noqa: UP007 (typing's too)
                                        list[AnyMessage],
                                        Annotated[HumanMessage, Field()] | AIMessage])
def test_1_a_union_of_message_classes_and_base_message_still_need_the_type(annotation: object) -> None:
    adapter = TypeAdapter(annotation)
    value = [{"content": "hi"}] if annotation == list[AnyMessage] else {"content": "hi"}
    with pytest.raises(ValidationError, match="role"):
        adapter.validate_python(value)
    typed = [{"type": "human", "content": "hi"}] if annotation == list[AnyMessage] else {"type": "human",
                                                                                         "content": "hi"}
    assert adapter.validate_python(typed) in (HumanMessage("hi"), [HumanMessage("hi")])


def test_1_a_union_with_a_non_message_type_still_defaults() -> None:
    adapter = TypeAdapter(Union[list[HumanMessage], AIMessage])  # noqa: UP007 (typing's Union)
    assert adapter.validate_python({"content": "yo"}) == AIMessage("yo")
    assert adapter.validate_python([{"content": "hi"}]) == [HumanMessage("hi")]
