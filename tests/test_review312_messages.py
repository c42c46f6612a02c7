"""Review 312 #6: toolwire messages as fields of pydantic models, as LangChain's can be.

A field typed ``BaseMessage``, ``AnyMessage`` (``toolwire.messages``), ``list[...]`` of them or one message class
(``AIMessage``) takes messages and the dicts :func:`~toolwire.message_from_dict` reads (toolwire's ``to_dict()``,
LangChain's ``model_dump()``, LangChain's ``messages_to_dict`` form, OpenAI ``role`` dicts), and is written as
LangChain's pydantic field is: each message's ``model_dump()`` (the ``data`` of ``messages_to_dict``'s entries), so
``model_validate_json(model_dump_json())`` gives an equal model.
"""

from __future__ import annotations

import copy
import json
import pickle

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from toolwire import AIMessage, HumanMessage, SystemMessage, ToolMessage, messages_to_dict
from toolwire.messages import AnyMessage, BaseMessage


def _conversation() -> list[BaseMessage]:
    return [
        SystemMessage("Be brief.", id="s1"),
        HumanMessage([{"type": "text", "text": "hi"}, {"type": "image", "url": "https://x.test/a.png"}], name="bob"),
        AIMessage("Let me add.", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}],
                  invalid_tool_calls=[{"name": "add", "args": "{bad", "id": "c2", "error": "not JSON"}],
                  usage={"input_tokens": 3, "output_tokens": 4, "total_tokens": 7, "cached_tokens": 1},
                  response_metadata={"finish_reason": "tool_calls", "model_name": "m"},
                  provider_data={"openai": {"x": [1, 2]}}, id="r1"),
        ToolMessage("3", tool_call_id="c1", name="add", artifact={"k": [1, 2]}, status="success"),
        AIMessage("It is 3."),
    ]


class Chat(BaseModel):
    messages: list[BaseMessage] = []


class AnyChat(BaseModel):
    messages: list[AnyMessage]
    last: AIMessage | None = None


def test_a_list_of_messages_is_a_pydantic_field_and_round_trips_through_json() -> None:
    chat = Chat(messages=_conversation())
    assert chat.messages == _conversation()
    text = chat.model_dump_json()
    assert [m["type"] for m in json.loads(text)["messages"]] == ["system", "human", "ai", "tool", "ai"]
    back = Chat.model_validate_json(text)
    assert back == chat
    assert [type(m) for m in back.messages] == [type(m) for m in chat.messages]


def test_a_field_is_written_as_langchains_field_is_each_messages_model_dump() -> None:
    conversation = _conversation()
    chat = Chat(messages=conversation)
    assert chat.model_dump(mode="json")["messages"] == [m.model_dump(mode="json") for m in conversation]
    assert chat.model_dump()["messages"] == [m.model_dump() for m in conversation]
    assert chat.model_dump(mode="json")["messages"] == [entry["data"] for entry in messages_to_dict(conversation)]
    each = ",".join(m.model_dump_json() for m in conversation)
    assert chat.model_dump_json() == '{"messages":[' + each + "]}"


def test_any_message_and_a_single_message_class() -> None:
    conversation = _conversation()
    chat = AnyChat(messages=conversation, last=conversation[-1])
    back = AnyChat.model_validate_json(chat.model_dump_json())
    assert back == chat and back.last == AIMessage("It is 3.")
    with pytest.raises(ValidationError, match="AIMessage"):
        AnyChat(messages=[], last=HumanMessage("hi"))
    with pytest.raises(ValidationError, match="AIMessage"):
        AnyChat(messages=[], last={"type": "human", "content": "hi"})


@pytest.mark.parametrize("form", ["to_dict", "model_dump", "messages_to_dict"])
def test_fields_read_the_dicts_message_from_dict_reads(form: str) -> None:
    conversation = _conversation()
    dicts = {"to_dict": [m.to_dict() for m in conversation],
             "model_dump": [m.model_dump(mode="json") for m in conversation],
             "messages_to_dict": messages_to_dict(conversation)}[form]
    assert Chat(messages=dicts).messages == conversation
    assert AnyChat.model_validate({"messages": dicts}).messages == conversation
    assert TypeAdapter(list[AnyMessage]).validate_json(json.dumps(dicts)) == conversation


def test_role_dicts_and_a_class_fields_own_type() -> None:
    chat = Chat(messages=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}])
    assert chat.messages == [HumanMessage("hi"), AIMessage("yo")]

    class Reply(BaseModel):
        reply: AIMessage

    assert Reply(reply={"type": "ai", "content": "hello"}).reply == AIMessage("hello")
    # the field's class is the message's, as on LangChain's field (review 319 #1); in a union it is not known
    assert Reply(reply={"content": "hello"}).reply == AIMessage("hello")
    with pytest.raises(ValidationError, match="role"):
        Chat(messages=[{"content": "hello"}])


def test_wrong_values_are_validation_errors_that_say_what_to_give() -> None:
    with pytest.raises(ValidationError) as info:
        Chat(messages=["hi"])
    assert "message_from_dict" in str(info.value) or "dict" in str(info.value)
    with pytest.raises(ValidationError, match="type"):
        Chat(messages=[{"content": "no type"}])
    with pytest.raises(ValidationError, match="tool_call_id"):
        Chat(messages=[{"type": "tool", "content": "x"}])


def test_a_langchain_message_is_converted() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    chat = Chat(messages=[lc.HumanMessage("hi"), lc.AIMessage("yo")])
    assert chat.messages == [HumanMessage("hi"), AIMessage("yo")]


def test_include_exclude_and_exclude_none_reach_the_messages() -> None:
    chat = AnyChat(messages=[HumanMessage("hi"), AIMessage("yo", id="x")], last=AIMessage("z"))
    assert json.loads(chat.model_dump_json(include={"messages": {"__all__": {"type", "content"}}})) == {
        "messages": [{"type": "human", "content": "hi"}, {"type": "ai", "content": "yo"}]}
    dumped = chat.model_dump(exclude={"messages": {1: {"additional_kwargs", "type"}}}, exclude_none=True)
    assert dumped["messages"][1] == {"content": "yo", "response_metadata": {}, "id": "x", "tool_calls": [],
                                     "invalid_tool_calls": []}
    assert dumped["last"] == AIMessage("z").model_dump(exclude_none=True)


def test_a_streamed_chunk_is_taken_as_its_message() -> None:
    from toolwire import AIMessageChunk

    assert Chat(messages=[AIMessageChunk("yo", id="c")]).messages == [AIMessage("yo", id="c")]


def test_the_model_copies_pickles_and_has_a_json_schema() -> None:
    chat = AnyChat(messages=_conversation(), last=AIMessage("x"))
    assert chat.model_copy(deep=True) == chat
    assert copy.deepcopy(chat) == chat
    assert pickle.loads(pickle.dumps(chat)) == chat
    schema = AnyChat.model_json_schema()
    assert schema["properties"]["messages"]["type"] == "array"
    # AnyMessage reads as BaseMessage does and needs the type; `last: AIMessage | None` defaults it (review 319 #1,
    # #2, review 324 #1)
    assert set(schema["$defs"]) == {"BaseMessage", "SystemMessage-Typed", "HumanMessage-Typed", "AIMessage-Typed",
                                    "ToolMessage-Typed", "AIMessage"}
    assert schema["$defs"]["AIMessage-Typed"]["properties"]["type"]["const"] == "ai"
    assert schema["$defs"]["AIMessage"]["properties"]["type"]["default"] == "ai"
    serialised = Chat.model_json_schema(mode="serialization")
    assert serialised["properties"]["messages"]["items"] == {"$ref": "#/$defs/BaseMessage-Output"}


def test_langchain_reads_what_the_field_writes() -> None:
    lc = pytest.importorskip("langchain_core.messages")

    class LangChainChat(BaseModel):
        messages: list[lc.AnyMessage]

    conversation = [HumanMessage("hi"), AIMessage("yo", tool_calls=[{"name": "a", "args": {}, "id": "1"}]),
                    ToolMessage("done", tool_call_id="1")]
    theirs = LangChainChat.model_validate_json(Chat(messages=conversation).model_dump_json())
    assert [m.type for m in theirs.messages] == ["human", "ai", "tool"]
    assert theirs.messages[1].tool_calls[0]["name"] == "a"
    assert Chat.model_validate_json(theirs.model_dump_json()).messages == conversation
