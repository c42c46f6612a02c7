"""Review 25, messages: ToolMessage content of any value, LangChain's ``messages_to_dict`` form and OpenAI's
``developer`` role in message_from_dict, a JSON-ready ``to_dict``, and LangChain's ``tool_calls`` /
``usage_metadata`` on streamed chunks."""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import uuid
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire.errors import UserError
from toolwire.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    coerce_messages,
    merge_chunks,
    message_from_dict,
    tool_call,
)
from toolwire.results import result_to_content


class Point(BaseModel):
    x: int
    y: int


@dataclasses.dataclass
class Box:
    w: float


# -- 1: ToolMessage takes any content ------------------------------------------------------------------------------


def test_tool_message_takes_a_number_as_text() -> None:
    """``ToolMessage(content=calculate(...), tool_call_id=...)`` raised TypeError when the tool returned a number."""
    assert ToolMessage(content=56088, tool_call_id="c1").content == "56088"  # type: ignore[arg-type]
    assert ToolMessage(2.5, "c1").content == "2.5"  # type: ignore[arg-type]
    assert ToolMessage(True, "c1").content == "true"  # type: ignore[arg-type]
    assert ToolMessage(None, "c1").content == "null"  # type: ignore[arg-type]
    assert ToolMessage(float("inf"), "c1").content == '"Infinity"'  # type: ignore[arg-type]


def test_tool_message_writes_other_values_as_a_tool_result_is_written() -> None:
    values: list[Any] = [{"total": 3, "items": ["a"]}, Point(x=1, y=2), Box(w=1.5), (1, 2),
                         datetime.date(2020, 1, 2), uuid.UUID(int=5), {"bad": math.nan}]
    for value in values:
        content = ToolMessage(value, "c1", name="f").content
        assert content == result_to_content(value)
        assert isinstance(content, str)
    assert ToolMessage({"a": 1}, "c1").content == '{"a": 1}'  # type: ignore[arg-type]
    assert json.loads(ToolMessage(Point(x=1, y=2), "c1").content) == {"x": 1, "y": 2}  # type: ignore[arg-type]
    # copy() takes the same values
    assert ToolMessage("x", "c1").copy(content=7).content == "7"


def test_tool_message_lists_keep_blocks_and_make_other_items_text() -> None:
    blocks = [{"type": "text", "text": "one"}, {"type": "image", "url": "u"}, "plain"]
    message = ToolMessage(blocks, "c1")
    assert message.content == blocks  # strings and dicts are kept as they are
    mixed = ToolMessage(["see:", {"type": "text", "text": "t"}, 3, None, Point(x=1, y=2), [1, 2]], "c1")
    assert mixed.content == ["see:", {"type": "text", "text": "t"}, "3", "null", '{"x":1,"y":2}', "[1, 2]"]
    assert mixed.text == 'see:t3null{"x":1,"y":2}[1, 2]'  # (joined as LangChain joins them: review 93)
    nested = ToolMessage([[{"type": "text", "text": "a"}], 1], "c1")
    assert nested.content == [{"type": "text", "text": "a"}, "1"]
    assert ToolMessage([], "c1").content == []


def test_tool_message_content_matches_langchain_for_numbers_and_lists() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    for value in (56088, 2.5, [1, "a", {"type": "text", "text": "t"}], "text"):
        assert ToolMessage(value, "c1").content == lc.ToolMessage(content=value, tool_call_id="c1").content


def test_tool_message_bytes_say_what_to_do() -> None:
    for value in (b"\x89PNG", [b"x"], bytearray(b"y")):
        with pytest.raises(TypeError, match=r"^ToolMessage content cannot be bytes: decode it to text, or pass "):
            ToolMessage(value, "c1")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="content must be a string or a list of content blocks, not int"):
        HumanMessage(5)  # type: ignore[arg-type]  # (only a ToolMessage takes any value)


def test_a_saved_tool_message_with_a_number_content_is_read() -> None:
    assert message_from_dict({"role": "tool", "tool_call_id": "c1", "content": 42}) == ToolMessage("42", "c1")
    with pytest.raises(UserError, match="whose content is int"):
        message_from_dict({"role": "user", "content": 5})


# -- 2: LangChain's messages_to_dict form, OpenAI's developer role -----------------------------------------------


def test_langchain_dump_keeps_the_content() -> None:
    """``{"type": "ai", "data": {...}}`` gave AIMessage(content='') silently."""
    assert message_from_dict({"type": "ai", "data": {"content": "lc dump"}}) == AIMessage("lc dump")
    assert message_from_dict({"type": "human", "data": {"content": "hi", "id": "h1", "example": False,
                                                          "additional_kwargs": {}, "response_metadata": {}}}) == \
        HumanMessage("hi", id="h1")
    assert message_from_dict({"type": "system", "data": {"content": "s", "type": "system"}}) == SystemMessage("s")
    assert message_from_dict({"type": "chat", "data": {"content": "d", "role": "developer"}}) == SystemMessage("d")
    tool = {"type": "tool", "data": {"content": "r", "tool_call_id": "c1", "status": "error", "artifact": {"k": 1},
                                     "name": "f", "additional_kwargs": {}, "response_metadata": {}}}
    assert message_from_dict(tool) == ToolMessage("r", "c1", status="error", artifact={"k": 1}, name="f")


def test_langchain_dump_of_an_ai_message_keeps_calls_usage_and_metadata() -> None:
    data = {
        "content": "", "id": "m1", "name": None, "example": False, "type": "ai",
        "tool_calls": [{"name": "f", "args": {"x": 1}, "id": "c1", "type": "tool_call"}],
        "invalid_tool_calls": [{"name": "g", "args": "{bad", "id": "c2", "error": "bad json",
                                "type": "invalid_tool_call"}],
        "usage_metadata": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5,
                           "input_token_details": {"cache_read": 1}},
        "response_metadata": {"model_name": "m"},
        "additional_kwargs": {"refusal": "no", "reasoning_content": "think", "toolwire_provider_data": {"p": 1},
                              "tool_calls": [{"id": "c1", "type": "function",
                                              "function": {"name": "f", "arguments": '{"x": 1}'}}]},
    }
    message = message_from_dict({"type": "AIMessageChunk", "data": data})
    assert message == AIMessage(
        "", id="m1", tool_calls=[tool_call("f", {"x": 1}, "c1")],
        invalid_tool_calls=[{"name": "g", "args": "{bad", "id": "c2", "error": "bad json",
                             "type": "invalid_tool_call"}],
        usage={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5, "cached_tokens": 1},
        response_metadata={"model_name": "m", "refusal": "no", "additional_kwargs": {"reasoning_content": "think"}},
        provider_data={"p": 1},
    )
    # older LangChain kept the calls only in additional_kwargs, in OpenAI's form
    old = {"type": "ai", "data": {"content": "", "additional_kwargs": {"tool_calls": data["additional_kwargs"]
                                                                         ["tool_calls"]}}}
    assert message_from_dict(old).tool_calls == [tool_call("f", {"x": 1}, "c1")]


def test_langchain_messages_to_dict_round_trip() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    from toolwire.interop.langchain import from_langchain_messages

    originals = [
        lc.SystemMessage("s"), lc.HumanMessage("h", id="h1"),
        lc.AIMessage("a", tool_calls=[{"name": "f", "args": {"x": 1}, "id": "c1"}],
                     usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}),
        lc.ToolMessage(content="r", tool_call_id="c1", artifact={"k": 1}),
    ]
    read = [message_from_dict(d) for d in lc.messages_to_dict(originals)]
    assert read == from_langchain_messages(originals)
    assert coerce_messages(lc.messages_to_dict(originals)) == read


def test_openai_developer_role_is_a_system_message() -> None:
    assert message_from_dict({"role": "developer", "content": "be brief"}) == SystemMessage("be brief")
    assert coerce_messages([{"role": "developer", "content": "x"}, "hi"]) == [SystemMessage("x"), HumanMessage("hi")]


def test_unreadable_dicts_are_refused_not_read_as_empty() -> None:
    cases = [
        ({"type": "ai", "data": "text"}, r"^Cannot read a LangChain message dict whose 'data' is str; "),
        ({"type": "function", "data": {"content": "x", "name": "f"}},
         r"^Cannot read a LangChain message of type 'function'; toolwire reads the types AIMessageChunk, "),
        ({"type": "remove", "data": {"id": "m1"}}, r"^Cannot read a LangChain message of type 'remove'"),
        ({"type": ["ai"], "data": {}}, r"^Cannot read a LangChain message of type \['ai'\]"),
        ({"type": "chat", "data": {"content": "x", "role": "narrator"}},
         r"^Cannot read a LangChain chat message with the role 'narrator'; use 'system', 'user' or 'assistant'\.$"),
        ({"type": "ai", "data": {"content": "x", "usage_metadata": {"input_tokens": "many"}}},
         r"^Cannot read a LangChain message whose usage_metadata .* is not a whole number of tokens \(0 or more\); "),
        ({"type": "ai", "data": {"content": "x", "response_metadata": [1]}},
         r"'response_metadata' must be a dict, not list"),
        ({"role": "user", "text": "hi"},
         r"^Cannot read a 'user' message without 'content' that has the key\(s\) \['text'\]; put the message's "
         r"text in 'content'\.$"),
    ]
    for data, pattern in cases:
        with pytest.raises(UserError, match=pattern):
            message_from_dict(data)
        with pytest.raises(UserError, match=pattern):
            coerce_messages([data])
    # no content and only keys that are read: an assistant turn that only calls tools
    only_calls = {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                                                       "function": {"name": "f", "arguments": "{}"}}]}
    assert message_from_dict(only_calls) == AIMessage("", tool_calls=[tool_call("f", {}, "c1")])


# -- 3: to_dict is JSON-ready ----------------------------------------------------------------------------------------


def test_to_dict_converts_what_json_cannot_hold() -> None:
    message = AIMessage("", tool_calls=[{"name": "f", "args": {"d": datetime.date(2020, 1, 1), "p": Point(x=1, y=2),
                                                               "t": (1, 2)}, "id": "1"}],
                        response_metadata={"created": datetime.datetime(2020, 1, 1, 12, 0)},
                        provider_data={"sig": b"\x00\x01"})
    saved = json.loads(json.dumps(message.to_dict()))
    assert saved["tool_calls"][0]["args"] == {"d": "2020-01-01", "p": {"x": 1, "y": 2}, "t": [1, 2]}
    assert saved["response_metadata"] == {"created": "2020-01-01T12:00:00"}
    assert saved["provider_data"] == {"sig": "AAE="}
    image = HumanMessage([{"type": "image", "base64": b"\x89PNG", "mime_type": "image/png"}])
    assert json.loads(json.dumps(image.to_dict()))["content"] == [
        {"type": "image", "base64": "iVBORw==", "mime_type": "image/png"}]
    assert message_from_dict(saved).tool_calls[0]["args"]["p"] == {"x": 1, "y": 2}


def test_to_dict_keeps_json_values_and_round_trips() -> None:
    messages = [
        SystemMessage("s", id="s1"),
        HumanMessage([{"type": "text", "text": "hi"}], name="ann"),
        AIMessage("a", tool_calls=[tool_call("f", {"x": [1, 2.5, None, True], "nan": math.inf}, "c1")],
                  usage={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}, response_metadata={"m": "x"},
                  provider_data={"k": [1]}),
        ToolMessage("r", "c1", status="error", artifact={"a": [1, 2]}, name="f"),
    ]
    for message in messages:
        saved = message.to_dict()
        assert message_from_dict(saved) == message
        assert message_from_dict(json.loads(json.dumps(saved))) == message
        saved_content = saved["content"]
        if isinstance(saved_content, list):
            saved_content.append("changed")  # the dict's lists are its own
            assert message.content != saved_content
    assert messages[2].to_dict()["tool_calls"][0]["args"]["nan"] == math.inf  # kept as json.dumps writes it


def test_a_field_that_does_not_compare_as_a_bool_does_not_break_to_dict() -> None:
    """An artifact such as a numpy array made ``value != default`` ambiguous: to_dict and repr raised."""

    class Elementwise:
        def __eq__(self, other: object) -> Any:
            return self

        def __ne__(self, other: object) -> Any:
            return self

        def __bool__(self) -> bool:
            raise ValueError("The truth value is ambiguous")

        def __str__(self) -> str:
            return "elementwise"

        __hash__ = object.__hash__

    message = ToolMessage("r", "c1", artifact=Elementwise())
    assert message.to_dict()["artifact"] == "elementwise"
    assert "artifact=" in repr(message)


# -- 4: LangChain's tool_calls and usage_metadata on chunks ----------------------------------------------------------


def test_added_chunks_read_tool_calls_and_usage_metadata() -> None:
    chunks = [
        AIMessageChunk("Let me ", id="m1"),
        AIMessageChunk(tool_call_chunks=[{"name": "add", "args": '{"a": ', "id": "c1", "index": 0,
                                          "type": "tool_call_chunk"}]),
        AIMessageChunk(tool_call_chunks=[{"name": None, "args": "1}", "id": None, "index": 0,
                                          "type": "tool_call_chunk"}]),
        AIMessageChunk(tool_call_chunks=[{"name": "bad", "args": "{oops", "id": "c2", "index": 1,
                                          "type": "tool_call_chunk"}],
                       usage={"input_tokens": 4, "output_tokens": 6, "total_tokens": 10}),
    ]
    acc = chunks[0]
    for chunk in chunks[1:]:
        acc = acc + chunk
    assert acc.tool_calls == [tool_call("add", {"a": 1}, "c1")] == acc.to_message().tool_calls
    assert acc.usage_metadata == {"input_tokens": 4, "output_tokens": 6, "total_tokens": 10} == acc.usage
    assert [c["name"] for c in acc.to_message().invalid_tool_calls] == ["bad"]
    assert merge_chunks(chunks).tool_calls == acc.tool_calls
    assert AIMessageChunk("x").tool_calls == [] and AIMessageChunk("x").usage_metadata is None
    with pytest.raises(AttributeError):
        acc.tool_calls = []  # type: ignore[misc]  # read-only: computed from tool_call_chunks


def test_ai_message_reads_usage_metadata() -> None:
    usage = {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}
    assert AIMessage("a", usage=usage).usage_metadata == usage  # type: ignore[arg-type]
    assert AIMessage("a").usage_metadata is None
    assert "usage_metadata" not in AIMessage("a", usage=usage).to_dict()  # type: ignore[arg-type]
