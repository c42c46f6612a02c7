"""Review 160 #2 and #4 (messages; no model loaded).

2. A tool call dict whose arguments sat under another library's key (Anthropic's ``tool_use`` ``input``, the
   ``parameters`` of Llama-style calls) was accepted with ``args={}``: the executor ran the tool with its defaults.
   Now they are read as ``arguments`` is, and two of these keys with different values make an invalid call.
4. ``message_from_dict(msg.model_dump())`` (LangChain's flat dump, which toolwire's ``model_dump`` writes) dropped
   ``usage_metadata`` and ``additional_kwargs`` without a word; now they are read as the ``{"type", "data"}`` form
   reads them, with the constructor's checks.
"""

from __future__ import annotations

import json

import pytest

from toolwire import AIMessage, ToolExecutor, UserError, tool
from toolwire.messages import message_from_dict


@tool
def delete_files(pattern: str = "*") -> str:
    """Delete the files matching a glob pattern."""
    return f"deleted {pattern}"


# -- 2. arguments under input / parameters ------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["input", "parameters", "arguments"])
@pytest.mark.parametrize("value", [{"pattern": "*.tmp"}, '{"pattern": "*.tmp"}'])
def test_arguments_under_another_key_are_read_everywhere(key: str, value: object) -> None:
    call = {"name": "delete_files", key: value, "id": "t1"}
    reply = AIMessage("", tool_calls=[call])
    assert reply.tool_calls == [{"name": "delete_files", "args": {"pattern": "*.tmp"}, "id": "t1",
                                 "type": "tool_call"}]
    assert message_from_dict({"type": "ai", "content": "", "tool_calls": [call]}) == reply
    assert AIMessage("").model_copy(update={"tool_calls": [call]}) == reply
    for given in ([call], [{**call, "type": "tool_call"}], reply):
        [answer] = ToolExecutor([delete_files]).execute(given)
        assert (answer.content, answer.status, answer.tool_call_id) == ("deleted *.tmp", "success", "t1")


def test_args_none_does_not_hide_arguments_under_another_key() -> None:
    reply = AIMessage("", tool_calls=[{"name": "delete_files", "args": None, "input": {"pattern": "*.tmp"},
                                       "id": "t1", "type": "tool_call"}])
    assert reply.tool_calls[0]["args"] == {"pattern": "*.tmp"}


def test_the_same_arguments_under_two_keys_are_read_once() -> None:
    reply = AIMessage("", tool_calls=[{"name": "delete_files", "args": {"pattern": "*.tmp"},
                                       "input": '{"pattern": "*.tmp"}', "id": "t1"}])
    assert reply.tool_calls[0]["args"] == {"pattern": "*.tmp"} and not reply.invalid_tool_calls


@pytest.mark.parametrize(("first", "second"), [("args", "input"), ("args", "arguments"), ("arguments", "parameters"),
                                               ("args", "parameters")])
def test_different_arguments_under_two_keys_make_an_invalid_call(first: str, second: str) -> None:
    call = {"name": "delete_files", first: {}, second: {"pattern": "*.tmp"}, "id": "t1"}
    reply = AIMessage("", tool_calls=[call, {"name": "delete_files", "args": {"pattern": "a"}, "id": "t2"}])
    assert [c["id"] for c in reply.tool_calls] == ["t2"]
    [bad] = reply.invalid_tool_calls
    assert (bad["name"], bad["id"], bad["index"]) == ("delete_files", "t1", 0)
    assert json.loads(bad["args"]) == {first: {}, second: {"pattern": "*.tmp"}}  # nothing dropped
    assert bad["error"] == (f"the call gives its arguments under both {first!r} and {second!r}, with different "
                            "values, so which were meant cannot be told; give them once, under 'args'.")
    assert message_from_dict({"type": "ai", "content": "", "tool_calls": [call]}).invalid_tool_calls[0]["id"] == "t1"
    for given in ([call], [{**call, "type": "tool_call"}]):  # the executor never runs it with either set
        [answer] = ToolExecutor([delete_files]).execute(given)
        assert answer.status == "error" and answer.tool_call_id == "t1" and "deleted" not in answer.content


# -- 4. LangChain's flat model_dump() read back ---------------------------------------------------------------------


def _rich_reply() -> AIMessage:
    return AIMessage(
        "Paris is sunny.", id="m1",
        tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c2"}],
        invalid_tool_calls=[{"name": "g", "args": "{bad", "id": "c1", "error": "cut", "index": 0}],
        usage={"input_tokens": 120, "output_tokens": 8, "total_tokens": 128, "cached_tokens": 100},
        response_metadata={"model_name": "m", "additional_kwargs": {"system_fingerprint": "fp_1"},
                           "refusal": "no"},
        provider_data={"signature": "abc"})


@pytest.mark.parametrize("mode", ["python", "json"])
def test_the_flat_model_dump_reads_back_into_an_equal_message(mode: str) -> None:
    reply = _rich_reply()
    saved = json.loads(reply.model_dump_json()) if mode == "json" else reply.model_dump()
    assert "usage_metadata" in saved and "additional_kwargs" in saved
    back = message_from_dict(saved)
    assert back == reply
    assert back.usage == reply.usage and back.provider_data == {"signature": "abc"}
    assert back.response_metadata["additional_kwargs"] == {"system_fingerprint": "fp_1"}
    assert message_from_dict({"type": "ai", "data": saved}) == back  # as the {"type", "data"} form reads it


def test_a_flat_dump_without_content_keeps_its_usage() -> None:
    back = message_from_dict({"type": "ai", "usage_metadata": {"input_tokens": 3, "output_tokens": 2}})
    assert back.usage == {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}


def test_a_legacy_function_call_in_a_flat_dumps_additional_kwargs_is_the_call() -> None:
    saved = {"type": "ai", "content": "", "tool_calls": [],
             "additional_kwargs": {"function_call": {"name": "f", "arguments": '{"a": 1}'}, "x": 1}}
    back = message_from_dict(saved)
    assert [(c["name"], c["args"]) for c in back.tool_calls] == [("f", {"a": 1})]
    assert back.response_metadata == {"additional_kwargs": {"x": 1}}
    other = message_from_dict({"type": "ai", "data": saved})  # (the legacy call has no id: each read makes one)
    assert back.copy(tool_calls=[]) == other.copy(tool_calls=[]) and back.tool_calls[0]["args"] == {"a": 1}


@pytest.mark.parametrize("keywords", [
    {"usage_metadata": {"input_tokens": 1.5, "output_tokens": 1}},
    {"usage_metadata": {"input_tokens": -1, "output_tokens": 1}},
    {"usage_metadata": "12 tokens"},
    {"additional_kwargs": ["fp_1"]},
    {"usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
     "usage_metadata": {"input_tokens": 5, "output_tokens": 1}},
])
def test_a_bad_langchain_keyword_in_a_flat_dict_gets_the_constructors_error(keywords: dict) -> None:
    with pytest.raises(UserError) as made:
        AIMessage("x", **keywords)
    with pytest.raises(UserError) as read:
        message_from_dict({"type": "ai", "content": "x", **keywords})
    assert str(read.value) == str(made.value)
