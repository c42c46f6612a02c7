"""toolwire.messages: message values, tool-call records, JSON round trips and streamed chunks (issue [1])."""

from __future__ import annotations

import copy
import json
import pickle
from collections import OrderedDict

import pytest

from toolwire import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    UserError,
    merge_chunks,
    message_from_dict,
)
from toolwire.messages import coerce_messages, invalid_tool_call, new_tool_call_id, tool_call


def chunk_call(name: str | None, args: str | None, id: str | None, index: int | None) -> AIMessageChunk:
    return AIMessageChunk(tool_call_chunks=[{"name": name, "args": args, "id": id, "index": index,
                                             "type": "tool_call_chunk"}])


# -- records ------------------------------------------------------------------------------------------


def test_tool_call_is_a_plain_dict_in_key_order() -> None:
    call = tool_call("get_weather", {"city": "Paris"}, "call_hgXrHGD")
    assert call == {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_hgXrHGD", "type": "tool_call"}
    assert list(call) == ["name", "args", "id", "type"]
    assert type(call) is dict


def test_generated_ids_are_unique() -> None:
    ids = {new_tool_call_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(i.startswith("call_") for i in ids)
    assert tool_call("f")["id"].startswith("call_") and tool_call("f")["args"] == {}


def test_invalid_tool_call_keeps_raw_text_and_error() -> None:
    bad = invalid_tool_call("get_weather", '{"city": "Pa', "c1", "the JSON is cut off")
    assert bad == {"name": "get_weather", "args": '{"city": "Pa', "id": "c1", "error": "the JSON is cut off",
                   "type": "invalid_tool_call"}


# -- messages ----------------------------------------------------------------------------------------


def test_ai_message_fields() -> None:
    usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    message = AIMessage(
        "",
        tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}],
        invalid_tool_calls=[invalid_tool_call("g", "{", "c2", "cut off")],
        usage=usage,
        response_metadata={"finish_reason": "tool_calls"},
    )
    assert message.content == ""
    assert message.tool_calls == [{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}]
    assert message.invalid_tool_calls[0]["args"] == "{"
    assert message.usage == usage
    assert message.response_metadata == {"finish_reason": "tool_calls"}
    assert type(message).__name__ == "AIMessage"


def test_a_tool_call_without_id_or_type_is_completed() -> None:
    message = AIMessage("", tool_calls=[{"name": "f", "args": {"a": 1}}])  # type: ignore[list-item, typeddict-item]
    call = message.tool_calls[0]
    assert call["type"] == "tool_call" and call["id"].startswith("call_")
    assert (call["name"], call["args"]) == ("f", {"a": 1})


def test_tool_message_fields_and_print() -> None:
    message = ToolMessage("It's always sunny in Paris!", tool_call_id="call_hgXrHGD")
    assert str(message) == "content=\"It's always sunny in Paris!\" tool_call_id='call_hgXrHGD'"
    assert (message.status, message.artifact, message.name) == ("success", None, None)
    assert repr(message) == "ToolMessage(content=\"It's always sunny in Paris!\", tool_call_id='call_hgXrHGD')"
    error = ToolMessage("bad", "c1", status="error", name="f", artifact={"x": 1})
    assert str(error) == "content='bad' tool_call_id='c1' status='error'"
    assert [type(m).__name__ for m in (SystemMessage("s"), HumanMessage("h"), AIMessage("a"), error)] == \
        ["SystemMessage", "HumanMessage", "AIMessage", "ToolMessage"]


def test_tool_message_needs_an_id_and_a_known_status() -> None:
    with pytest.raises(TypeError, match="ToolMessage needs tool_call_id"):
        ToolMessage("x")
    with pytest.raises(ValueError, match="status must be 'success' or 'error'"):
        ToolMessage("x", "c1", status="failed")  # type: ignore[arg-type]


def test_content_is_a_string_or_blocks() -> None:
    blocks = [{"type": "text", "text": "one"}, {"type": "image", "url": "u"}, {"type": "text", "text": "two"}]
    message = HumanMessage(blocks)
    assert message.content == blocks
    assert message.text == "onetwo"  # (joined with nothing between, as LangChain joins them; review 93)
    assert HumanMessage("plain").text == "plain"
    with pytest.raises(TypeError, match="content must be a string or a list of content blocks, not int"):
        HumanMessage(5)  # type: ignore[arg-type]


def test_messages_are_immutable_values() -> None:
    message = AIMessage("hi", tool_calls=[tool_call("f", {"a": 1}, "c1")])
    with pytest.raises(AttributeError, match="immutable"):
        message.content = "changed"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del message.content
    assert message == AIMessage("hi", tool_calls=[tool_call("f", {"a": 1}, "c1")])
    assert message != AIMessage("hi")
    assert HumanMessage("x") != SystemMessage("x")
    with pytest.raises(TypeError):
        hash(message)
    changed = message.copy(content="bye")
    assert (changed.content, message.content) == ("bye", "hi")
    assert changed.tool_calls == message.tool_calls
    with pytest.raises(TypeError, match="has no field"):
        message.copy(colour="red")


def test_the_caller_changing_its_dicts_does_not_change_a_message() -> None:
    call = tool_call("f", {"a": 1}, "c1")
    message = AIMessage("", tool_calls=[call])
    call["args"]["a"] = 2
    assert message.tool_calls[0]["args"] == {"a": 1}
    data = message.to_dict()
    data["tool_calls"][0]["args"]["a"] = 3
    data["tool_calls"].append(tool_call("g"))
    assert message.tool_calls == [tool_call("f", {"a": 1}, "c1")]


def test_to_dict_leaves_out_defaults() -> None:
    assert HumanMessage("hi").to_dict() == {"type": "human", "content": "hi"}
    assert AIMessage("a").to_dict() == {"type": "ai", "content": "a"}
    assert ToolMessage("r", "c1").to_dict() == {"type": "tool", "content": "r", "tool_call_id": "c1"}
    assert ToolMessage("r", "c1", status="error", name="f").to_dict() == \
        {"type": "tool", "content": "r", "name": "f", "tool_call_id": "c1", "status": "error"}


def conversation() -> list:
    return [
        SystemMessage("Você é útil."),
        HumanMessage("Como está o clima em Paris e em Tóquio?", id="u1"),
        AIMessage(
            "",
            tool_calls=[tool_call("get_weather", {"city": "Paris"}, "call_a1"),
                        tool_call("get_weather", {"city": "Tóquio"}, "call_b2")],
            invalid_tool_calls=[invalid_tool_call("calculate", '{"expression": "1 +', "call_c3", "cut off")],
            usage={"input_tokens": 12, "output_tokens": 30, "total_tokens": 42},
            response_metadata={"model": "scripted", "finish_reason": "tool_calls"},
            provider_data={"thought_signature": "abc"},
            id="m1",
        ),
        ToolMessage("It's always sunny in Paris!", "call_a1", name="get_weather", artifact={"raw": [1, 2]}),
        ToolMessage([{"type": "text", "text": "Chuva em Tóquio"}], "call_b2", name="get_weather"),
        ToolMessage("Error: cut off", "call_c3", status="error"),
        AIMessage("Em Paris faz sol; em Tóquio chove."),
    ]


def test_conversation_round_trips_through_json() -> None:
    messages = conversation()
    text = json.dumps([m.to_dict() for m in messages], ensure_ascii=False)
    restored = [message_from_dict(d) for d in json.loads(text)]
    assert restored == messages
    assert [type(m) for m in restored] == [type(m) for m in messages]
    assert restored[2].tool_calls[1]["args"] == {"city": "Tóquio"}
    assert restored[3].artifact == {"raw": [1, 2]}
    # and again: the dump of the restored conversation is the same text
    assert json.dumps([m.to_dict() for m in restored], ensure_ascii=False) == text


def test_messages_pickle_and_deepcopy() -> None:
    messages = conversation()
    assert pickle.loads(pickle.dumps(messages)) == messages
    assert copy.deepcopy(messages) == messages
    # an artifact is the program's object: its types survive
    odd = ToolMessage("r", "c1", artifact=(1, OrderedDict(b=2), {3}))
    for restored in (pickle.loads(pickle.dumps(odd)), copy.deepcopy(odd)):
        assert restored == odd
        assert type(restored.artifact) is tuple and type(restored.artifact[1]) is OrderedDict


def test_message_from_openai_role_dicts() -> None:
    assistant = message_from_dict({
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}],
    })
    assert assistant == AIMessage("", tool_calls=[tool_call("get_weather", {"city": "Oslo"}, "call_1")])
    assert message_from_dict({"role": "tool", "content": "sunny", "tool_call_id": "call_1"}) == \
        ToolMessage("sunny", "call_1")
    assert message_from_dict({"role": "user", "content": "hi"}) == HumanMessage("hi")
    with pytest.raises(UserError, match="Cannot read a message with the role 'robot'"):  # (review 170 #7)
        message_from_dict({"role": "robot", "content": "x"})


SAVED_CUT_OFF = [
    {"role": "user", "content": "weather?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Par'}},
        {"id": "c2", "type": "function", "function": {"name": "get_time", "arguments": "{}"}},
        {"id": "c3", "type": "function", "function": {"name": "", "arguments": '{"x": 1}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "Error: cut off"},
]


def test_saved_openai_calls_with_malformed_arguments_load_as_invalid_calls() -> None:
    """Finding 7: cut-off arguments in a saved conversation become an InvalidToolCall keeping the raw text."""
    _, assistant, result = coerce_messages(SAVED_CUT_OFF)
    assert isinstance(assistant, AIMessage) and isinstance(result, ToolMessage)
    assert assistant.tool_calls == [tool_call("get_time", {}, "c2")]
    cut, nameless = assistant.invalid_tool_calls
    assert (cut["name"], cut["args"], cut["id"], cut["type"]) == ("get_weather", '{"city": "Par', "c1",
                                                                 "invalid_tool_call")
    assert cut["error"].startswith("The arguments JSON is cut off")
    assert (nameless["name"], nameless["args"], nameless["id"]) == (None, '{"x": 1}', "c3")
    kept = invalid_tool_call("old", "x", "c0", "earlier")
    loaded = message_from_dict({**SAVED_CUT_OFF[1], "invalid_tool_calls": [kept]})
    assert [b["id"] for b in loaded.invalid_tool_calls] == ["c0", "c1", "c3"]  # AIMessage: ids pair with results


def test_model_and_agent_take_a_saved_conversation_with_malformed_arguments() -> None:
    """Finding 7 end to end: model.invoke and Agent.invoke take the dicts; the raw text reaches the model."""
    from toolwire import Agent, tool
    from toolwire.testing import ScriptedChatModel

    @tool
    def get_weather(city: str) -> str:
        """Weather of a city."""
        return f"sunny in {city}"

    model = ScriptedChatModel(["ok", "done"])
    assert model.invoke(SAVED_CUT_OFF[:2] + [{"role": "tool", "tool_call_id": c, "content": "?"}
                                             for c in ("c1", "c2", "c3")]).text == "ok"
    sent = model.requests[0].messages[1]
    assert isinstance(sent, AIMessage) and sent.invalid_tool_calls[0]["args"] == '{"city": "Par'
    result = Agent(model, [get_weather]).invoke(
        SAVED_CUT_OFF[:2] + [{"role": "tool", "tool_call_id": c, "content": "?"} for c in ("c1", "c2", "c3")])
    assert result.output == "done"


def test_openai_sdk_message_dump_is_accepted() -> None:
    """Finding 8: keys a message does not use (OpenAI SDK's refusal, annotations, audio...) are ignored."""
    dump = {"role": "assistant", "content": "Hi", "refusal": None, "annotations": [], "audio": None,
            "function_call": None, "tool_calls": None}  # ChatCompletionMessage.model_dump()
    assert coerce_messages([{"role": "user", "content": "hello"}, dump]) == [HumanMessage("hello"), AIMessage("Hi")]
    with_calls = {**dump, "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}]}
    assert message_from_dict(with_calls) == AIMessage("", tool_calls=[tool_call("f", {"a": 1}, "c1")])
    assert message_from_dict({"role": "user", "content": "x", "extra": 1}) == HumanMessage("x")
    assert message_from_dict({"role": "tool", "content": "r", "tool_call_id": "c1", "refusal": None}) == \
        ToolMessage("r", "c1")


def test_openai_refusal_is_kept_and_a_legacy_function_call_is_read_as_a_call() -> None:
    """Finding 8: the keys that matter are not dropped: a refusal is kept; a legacy function call was an error, and
    is now read as the message's one call, as from_langchain_messages reads it (review 95)."""
    refused = message_from_dict({"role": "assistant", "content": None, "refusal": "I can't help with that."})
    assert refused == AIMessage("", response_metadata={"refusal": "I can't help with that."})
    legacy = {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": '{"a": 1}'}}
    [read] = coerce_messages([legacy])
    assert [(c["name"], c["args"]) for c in read.tool_calls] == [("f", {"a": 1})]  # type: ignore[attr-defined]
    both = {**legacy, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "g", "arguments": "{}"}}]}
    with pytest.raises(UserError, match=r"^Cannot read an OpenAI legacy 'function_call' that is not a dict or "
                                        r"stands beside 'tool_calls'"):
        coerce_messages([both])


def test_coerce_messages() -> None:
    human = HumanMessage("x")
    assert coerce_messages("hi") == [HumanMessage("hi")]
    assert coerce_messages(human) == [human]
    assert coerce_messages([("system", "s"), ("user", "u"), {"role": "assistant", "content": "a"}, "t"]) == [
        SystemMessage("s"), HumanMessage("u"), AIMessage("a"), HumanMessage("t")]
    with pytest.raises(UserError, match="Cannot use int as a message"):
        coerce_messages([1])


def test_a_single_role_tuple_is_one_message() -> None:
    """Review 2 #11: invoke(("user", "hi")) was sent as two user messages, "user" and "hi"."""
    assert coerce_messages(("user", "What is 2+2?")) == [HumanMessage("What is 2+2?")]
    assert coerce_messages(("system", "s")) == [SystemMessage("s")]
    assert coerce_messages(("ai", [{"type": "text", "text": "a"}])) == [AIMessage([{"type": "text", "text": "a"}])]
    # a tuple of messages or questions is still a sequence
    assert coerce_messages(("q1", "q2")) == [HumanMessage("q1"), HumanMessage("q2")]
    assert coerce_messages((("user", "u"), ("assistant", "a"))) == [HumanMessage("u"), AIMessage("a")]


def test_a_bad_role_tuple_says_what_is_wrong() -> None:
    with pytest.raises(UserError, match=r"^Cannot read the role 'critic' of a \(role, text\) tuple; use 'system', "
                                        r"'user' or 'assistant' \(or 'human', 'ai', 'developer'\)\.$"):
        coerce_messages([("critic", "be brief")])
    with pytest.raises(UserError, match=r"^The text of a \('user', text\) tuple is int; give a string or a list of "
                                        r"content blocks\.$"):
        coerce_messages(("user", 5))


def test_message_from_dict_errors_are_one_sentence() -> None:
    """Review 2 #11: malformed saved data gave AttributeError/TypeError, never a UserError."""
    cases = [
        ("user", r"^Cannot read a message from str; give a dict such as \{'role': 'user', 'content': 'hi'\}\.$"),
        ({"type": "ai", "response_metadata": [1, 2]},
         r"^Cannot read a saved 'ai' message: 'response_metadata' must be a dict, not list; fix or remove that key\.$"),
        ({"type": "ai", "tool_calls": "f(1)"}, r"^Cannot read a saved 'ai' message: 'tool_calls' must be a list, "),
        ({"type": "ai", "invalid_tool_calls": ["x"]}, r"each item of 'invalid_tool_calls' must be a dict"),
        ({"type": "ai", "usage": 5}, r"'usage' must be a dict, not int"),
        ({"role": "user", "content": 5},
         r"^Cannot read a saved 'user' message whose content is int; the content must be a string or a list"),
        ({"role": "user", "content": "x", "id": [7]}, r"'id' must be a string, not list"),
        ({"role": "tool", "content": "r"}, r"^Cannot read a saved 'tool' message without 'tool_call_id'; add the id "),
        ({"role": "tool", "content": "r", "tool_call_id": "c", "status": "ok"},
         r"^Cannot read a saved 'tool' message whose status is 'ok'; use 'success' or 'error'\.$"),
        ({"type": ["ai"]}, r"^Cannot read a message of type \['ai'\]"),
    ]
    for data, pattern in cases:
        with pytest.raises(UserError, match=pattern):
            message_from_dict(data)  # type: ignore[arg-type]
        if isinstance(data, dict):  # (in a list, a string is a question)
            with pytest.raises(UserError, match=pattern):
                coerce_messages([data])


def test_none_fields_take_their_defaults_and_an_empty_content_list_round_trips() -> None:
    assert message_from_dict({"type": "ai", "content": None, "usage": None, "response_metadata": None, "id": None,
                              "tool_calls": None, "invalid_tool_calls": None}) == AIMessage("")
    assert message_from_dict({"type": "tool", "content": "r", "tool_call_id": "c", "status": None}) == \
        ToolMessage("r", "c")
    for message in (HumanMessage([]), AIMessage([]), ToolMessage([], "c1")):
        restored = message_from_dict(json.loads(json.dumps(message.to_dict())))
        assert restored == message and restored.content == []


# -- streamed chunks ----------------------------------------------------------------------------------


def test_text_chunks_add_up() -> None:
    total = AIMessageChunk("Hel", id="m1") + AIMessageChunk("lo") + AIMessageChunk(", world")
    assert total.content == "Hello, world" and total.id == "m1"
    assert total.to_message() == AIMessage("Hello, world", id="m1")


def test_parallel_tool_call_chunks_interleaved_by_index() -> None:
    chunks = [
        AIMessageChunk("Checking"),
        chunk_call("get_weather", "", "call_a", 0),
        chunk_call("get_time", "", "call_b", 1),
        chunk_call(None, '{"ci', None, 0),
        chunk_call(None, '{"tz": "CET"', None, 1),
        chunk_call(None, 'ty": "Oslo"}', None, 0),
        chunk_call(None, "}", None, 1),
        AIMessageChunk(usage={"input_tokens": 3, "output_tokens": 4, "total_tokens": 7},
                       response_metadata={"finish_reason": "tool_calls"}),
    ]
    expected = AIMessage(
        "Checking",
        tool_calls=[tool_call("get_weather", {"city": "Oslo"}, "call_a"),
                    tool_call("get_time", {"tz": "CET"}, "call_b")],
        usage={"input_tokens": 3, "output_tokens": 4, "total_tokens": 7},
        response_metadata={"finish_reason": "tool_calls"},
    )
    assert merge_chunks(chunks, as_chunk=False) == expected
    summed = chunks[0]
    for chunk in chunks[1:]:
        summed = summed + chunk
    assert summed.to_message() == expected
    # merging is associative: any grouping gives the same message
    left = merge_chunks(chunks[:4]) + merge_chunks(chunks[4:])
    assert left.to_message() == expected


def test_calls_come_out_in_index_order_even_if_a_later_index_starts_first() -> None:
    chunks = [chunk_call("second", "{}", "c2", 1), chunk_call("first", "{}", "c1", 0)]
    message = merge_chunks(chunks, as_chunk=False)
    assert [c["id"] for c in message.tool_calls] == ["c1", "c2"]


def test_chunks_without_index_group_by_id_and_follow_the_last_call() -> None:
    chunks = [chunk_call("f", '{"a":', "c1", None), chunk_call(None, " 1}", None, None),
              chunk_call("g", '{"b": 2}', "c2", None)]
    message = merge_chunks(chunks, as_chunk=False)
    assert message.tool_calls == [tool_call("f", {"a": 1}, "c1"), tool_call("g", {"b": 2}, "c2")]


def test_usage_of_chunks_is_summed() -> None:
    a = AIMessageChunk(usage={"input_tokens": 1, "output_tokens": 1, "total_tokens": 2})
    b = AIMessageChunk(usage={"input_tokens": 0, "output_tokens": 2, "total_tokens": 2})
    assert (a + b).usage == {"input_tokens": 1, "output_tokens": 3, "total_tokens": 4}


def test_cut_off_or_nameless_streamed_call_becomes_invalid_and_keeps_the_text() -> None:
    message = merge_chunks([chunk_call("get_weather", '{"city": "Pa', "c1", 0),
                            chunk_call(None, '{"x": 1}', "c2", 1)], as_chunk=False)
    assert message.tool_calls == []
    assert [(b["name"], b["args"], b["id"]) for b in message.invalid_tool_calls] == [
        ("get_weather", '{"city": "Pa', "c1"), (None, '{"x": 1}', "c2")]
    assert message.invalid_tool_calls[1]["error"] == (
        "The tool call has no name; send it again with the name of the tool to call.")


def test_empty_arguments_stream_as_an_empty_object() -> None:
    message = merge_chunks([chunk_call("reset", "", "c1", 0)], as_chunk=False)
    assert message.tool_calls == [tool_call("reset", {}, "c1")]


def test_invalid_tool_calls_carried_by_chunks_stay_invalid() -> None:
    bad = invalid_tool_call("lookup", '{"q": "x"}', "c5", "lookup is not a tool")
    merged = merge_chunks([AIMessageChunk("a"), AIMessageChunk(invalid_tool_calls=[bad])], as_chunk=False)
    assert merged == AIMessage("a", invalid_tool_calls=[bad])
