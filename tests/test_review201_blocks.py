"""Review 201 #1, #2, #4: content-block calls and odd call types.

#1: a ``tool_use`` block without an id is one call with one id on every reading (coerce_messages, the LangChain
reader, the Anthropic lowering, the Agent). #2: an ``"invalid_tool_call"`` entry given in ``tool_calls`` is a proper
InvalidToolCall (its arguments as text, an error), on AIMessage and AIMessageChunk alike. #4: a ``tool_result`` block
in an assistant turn is read as its call's ToolMessage, or refused, never dropped.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolwire import Agent, tool
from toolwire.errors import UserError
from toolwire.messages import AIMessage, HumanMessage, ToolMessage, coerce_messages
from toolwire.models import ChatAnthropic, ChatOpenAI
from toolwire.models.lowering.anthropic import lower_messages
from toolwire.testing import ScriptedChatModel

BLOCK = {"type": "tool_use", "name": "add_expense", "input": {"amount": 80}}
HISTORY = [{"role": "user", "content": "add 80"}, {"role": "assistant", "content": [BLOCK]}]


def _anthropic_body(history: Any) -> list[dict[str, Any]]:
    model = ChatAnthropic(model="claude-sonnet-4-5", api_key="sk-ant-test")
    return model._lower(model._request(history, {}))["messages"]


def _openai_body(history: Any) -> list[dict[str, Any]]:
    model = ChatOpenAI(model="gpt-4o", api_key="sk-test")
    return model._lower(model._request(history, {}))["messages"]


def _ids(message: Any) -> list[str]:
    return [c["id"] for c in (*message.tool_calls, *message.invalid_tool_calls)]


# --- #1: a tool_use block without an id -------------------------------------------------------------------------

@pytest.mark.parametrize("block_id", [None, "", True])
def test_an_id_less_block_is_one_call_with_one_id_however_often_read(block_id: Any) -> None:
    block = dict(BLOCK) if block_id is None else {**BLOCK, "id": block_id}
    history = [{"role": "user", "content": "add 80"}, {"role": "assistant", "content": [block]}]
    once = coerce_messages(history)[1]
    twice = coerce_messages(coerce_messages(history))[1]
    again = coerce_messages(history)[1]
    assert len(_ids(once)) == 1
    assert _ids(once) == _ids(twice) == _ids(again)


def test_the_anthropic_request_sends_the_call_once() -> None:
    turn = _anthropic_body(HISTORY)[1]
    uses = [b for b in turn["content"] if b.get("type") == "tool_use"]
    assert len(uses) == 1
    assert uses[0]["id"] == _ids(coerce_messages(HISTORY)[1])[0]
    assert len(lower_messages(coerce_messages(HISTORY))[1][1]["content"]) == 1


def test_the_langchain_reader_gives_the_same_id() -> None:
    import langchain_core.messages as lc

    from toolwire.interop.langchain import from_langchain_messages, to_langchain_messages

    message = lc.AIMessage(content=[dict(BLOCK)])
    first = from_langchain_messages([message])[0]
    second = from_langchain_messages([message])[0]
    assert len(_ids(first)) == 1
    assert _ids(first) == _ids(second) == _ids(coerce_messages([first])[0]) == _ids(coerce_messages(HISTORY)[1])
    back = from_langchain_messages(to_langchain_messages([first]))[0]
    assert _ids(coerce_messages([back])[0]) == _ids(first)


def test_a_call_read_from_the_block_with_another_id_is_not_read_again() -> None:
    import langchain_core.messages as lc

    from toolwire.interop.langchain import from_langchain_messages

    message = lc.AIMessage(content=[dict(BLOCK)], tool_calls=[{"name": "add_expense", "args": {"amount": 80},
                                                                "id": None}])
    read = from_langchain_messages([message])[0]
    assert len(read.tool_calls) == 1
    assert coerce_messages([read])[0].tool_calls == read.tool_calls


def test_two_equal_id_less_blocks_are_two_calls_and_stay_two() -> None:
    message = AIMessage([dict(BLOCK), dict(BLOCK)])
    once = coerce_messages([message])[0]
    assert len(set(_ids(once))) == 2
    assert _ids(coerce_messages([once])[0]) == _ids(once)


def test_a_block_whose_id_is_a_call_id_is_never_read_twice() -> None:
    message = AIMessage([{**BLOCK, "id": "t1"}, {**BLOCK, "id": "t1"}],
                        tool_calls=[{"name": "add_expense", "args": {"amount": 80}, "id": "t1"}])
    assert _ids(coerce_messages([message])[0]) == ["t1"]


def test_the_agent_runs_an_id_less_block_once() -> None:
    ran: list[int] = []

    @tool
    def add_expense(amount: int) -> str:
        """Add an expense."""
        ran.append(amount)
        return "added"

    result = Agent(ScriptedChatModel(["done"]), [add_expense], repeat_calls=["add_expense"]).invoke(HISTORY)
    assert ran == [80]
    answers = [m for m in result.messages if isinstance(m, ToolMessage)]
    assert [m.tool_call_id for m in answers] == _ids(result.messages[1])


# --- #4: a tool_result block inside an assistant turn -----------------------------------------------------------

RESULT_IN_TURN = [HumanMessage("Weather in Paris?"),
                  AIMessage([{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}},
                             {"type": "tool_result", "tool_use_id": "t1", "content": "sunny"}]),
                  HumanMessage("So, umbrella?")]


def test_a_tool_result_in_the_assistant_turn_is_read_as_its_answer() -> None:
    messages = coerce_messages(RESULT_IN_TURN)
    assert [type(m) for m in messages] == [HumanMessage, AIMessage, ToolMessage, HumanMessage]
    assert messages[2].tool_call_id == "t1" and messages[2].content == "sunny"
    assert all(b.get("type") != "tool_result" for b in messages[1].content)
    assert [type(m) for m in coerce_messages(messages)] == [type(m) for m in messages]


@pytest.mark.parametrize("body", [_openai_body, _anthropic_body])
def test_the_result_is_sent_not_the_was_not_run_note(body: Any) -> None:
    text = json.dumps(body(RESULT_IN_TURN))
    assert "sunny" in text and "was not run" not in text


def test_a_tool_result_answering_no_call_of_the_turn_is_refused() -> None:
    turn = AIMessage([{"type": "text", "text": "ok"}, {"type": "tool_result", "tool_use_id": "t0", "content": "x"}])
    with pytest.raises(UserError, match="move it into the user message"):
        coerce_messages([HumanMessage("hi"), turn])


# --- #2: an "invalid_tool_call" entry given in tool_calls -------------------------------------------------------

MARKED = {"name": "add", "args": {"a": 1, "b": 2}, "id": "c2", "type": "invalid_tool_call"}


def test_a_marked_entry_is_an_invalid_call_with_text_args_and_an_error() -> None:
    message = AIMessage("", tool_calls=[MARKED])
    assert message.tool_calls == []
    [bad] = message.invalid_tool_calls
    assert bad["args"] == '{"a": 1, "b": 2}' and bad["id"] == "c2" and bad["type"] == "invalid_tool_call"
    assert isinstance(bad["error"], str) and "invalid" in bad["error"]
    own = AIMessage("", tool_calls=[{**MARKED, "error": "cut off"}]).invalid_tool_calls[0]
    assert own["error"] == "cut off"
    assert MARKED["args"] == {"a": 1, "b": 2}  # the caller's dict is untouched


def test_a_marked_entry_keeps_its_place_among_the_calls() -> None:
    call = {"name": "add", "args": {"a": 3}, "id": "c3"}
    message = AIMessage("", tool_calls=[MARKED, call])
    assert [c["id"] for c in message.tool_calls] == ["c3"]
    assert message.invalid_tool_calls[0]["index"] == 0


def test_langchain_loads_the_message_back() -> None:
    import langchain_core.messages as lc

    from toolwire import messages_to_dict
    from toolwire.interop.langchain import to_langchain_messages

    message = AIMessage("", tool_calls=[MARKED])
    for loaded in (lc.messages_from_dict(messages_to_dict([message]))[0], lc.AIMessage(**message.model_dump()),
                   to_langchain_messages([message])[0]):
        assert loaded.tool_calls == []
        assert [(c["id"], c["args"]) for c in loaded.invalid_tool_calls] == [("c2", '{"a": 1, "b": 2}')]


def test_a_chunk_reads_the_marked_entry_as_invalid_too() -> None:
    from toolwire.chunks import AIMessageChunk

    call = {"name": "add", "args": {"a": 3}, "id": "c3"}
    message = AIMessageChunk("", tool_calls=[MARKED, call]).to_message()
    assert [c["id"] for c in message.tool_calls] == ["c3"]
    assert [(c["id"], c["args"]) for c in message.invalid_tool_calls] == [("c2", '{"a": 1, "b": 2}')]
    assert message.invalid_tool_calls[0]["index"] == 0
    assert message.invalid_tool_calls == AIMessage("", tool_calls=[MARKED, call]).invalid_tool_calls
