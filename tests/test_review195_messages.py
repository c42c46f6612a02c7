"""Review 195 #1: a tool call given with another ``"type"`` (OpenAI's ``"function"``) sat in ``tool_calls`` as a valid
call that never ran; #5: a message could not be rebuilt from its own ``model_dump()`` (``cls(**data)``)."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import AIMessage, ToolExecutor, tool
from toolwire.agent import Agent
from toolwire.testing import ScriptedChatModel


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _call(kind: Any) -> dict[str, Any]:
    return {"name": "add", "args": {"a": 2, "b": 3}, "id": "c1", "type": kind}


@pytest.mark.parametrize("kind", ["function", "tool_use", "tool_call_chunk", "", None, 5])
def test_a_call_of_another_type_is_a_call(kind: Any) -> None:
    ai = AIMessage("", tool_calls=[_call(kind)])
    assert ai.tool_calls == [{"name": "add", "args": {"a": 2, "b": 3}, "id": "c1", "type": "tool_call"}]
    assert ai.invalid_tool_calls == []
    [answer] = ToolExecutor([add]).execute(ai)
    assert (answer.content, answer.status, answer.tool_call_id) == ("5", "success", "c1")
    assert add.invoke(ai.tool_calls[0]).content == "5"


def test_a_call_of_another_type_runs_in_the_executor_and_the_agent() -> None:
    [answer] = ToolExecutor([add]).execute([_call("function")])
    assert (answer.content, answer.status) == ("5", "success")
    result = Agent(ScriptedChatModel([AIMessage("", tool_calls=[_call("function")]), "done"]), [add]).invoke("2+3?")
    assert (result.messages[2].content, result.messages[2].status) == ("5", "success")


def test_other_keys_are_kept_and_the_caller_dict_is_untouched() -> None:
    given = {**_call("function"), "extras": {"k": [1]}}
    ai = AIMessage("", tool_calls=[given])
    assert ai.tool_calls[0]["type"] == "tool_call" and ai.tool_calls[0]["extras"] == {"k": [1]}
    assert given["type"] == "function"


def test_an_invalid_call_given_among_the_calls_stays_invalid() -> None:
    bad = {"name": "add", "args": "{", "id": "c0", "error": "cut", "type": "invalid_tool_call"}
    ai = AIMessage("", tool_calls=[bad, _call("function")])
    assert [c["id"] for c in ai.tool_calls] == ["c1"]
    assert [(c["id"], c["type"]) for c in ai.invalid_tool_calls] == [("c0", "invalid_tool_call")]


def test_the_langchain_reading_agrees() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    for kind in ("function", "tool_use", None):
        theirs = lc.AIMessage("", tool_calls=[_call(kind)]).tool_calls
        assert AIMessage("", tool_calls=[_call(kind)]).tool_calls == theirs


def _messages() -> list[Any]:
    from toolwire import HumanMessage, SystemMessage, ToolMessage

    bad = {"name": "add", "args": "{", "id": "c0", "error": "cut", "type": "invalid_tool_call"}
    return [
        HumanMessage("hi", id="h1", name="ann"), HumanMessage([{"type": "text", "text": "blocks"}]),
        SystemMessage("be brief"), ToolMessage("42", tool_call_id="c1", name="add", status="error", artifact=[1]),
        AIMessage("hello"),
        AIMessage("", tool_calls=[bad, _call("tool_call")], usage={"input_tokens": 3, "output_tokens": 2,
                  "total_tokens": 5, "cached_tokens": 1}, response_metadata={"model_name": "m"},
                  provider_data={"signature": "s"}, id="a1"),
    ]


@pytest.mark.parametrize("mode", ["python", "json"])
def test_each_message_is_rebuilt_from_its_model_dump(mode: str) -> None:
    for message in _messages():
        assert type(message)(**message.model_dump(mode=mode)) == message


def test_the_type_must_be_the_class_own() -> None:
    from toolwire import HumanMessage, SystemMessage, ToolMessage
    from toolwire.errors import UserError

    for cls, kind in ((HumanMessage, "human"), (SystemMessage, "system"), (AIMessage, "ai")):
        assert cls("x", type=kind) == cls("x")
        with pytest.raises(UserError, match=f"{cls.__name__} was given type='tool', but its type is '{kind}'"):
            cls("x", type="tool")
    assert ToolMessage("x", "c1", type="tool") == ToolMessage("x", "c1")
    with pytest.raises(UserError, match="ToolMessage was given type='human'"):
        ToolMessage("x", "c1", type="human")
    with pytest.raises(UserError, match="AIMessage was given type='AIMessageChunk'"):
        AIMessage("x", type="AIMessageChunk")
    with pytest.raises(UserError, match="was given type=7"):
        HumanMessage("x", type=7)  # type: ignore[arg-type]


def test_response_metadata_is_taken_only_when_empty() -> None:
    from toolwire import HumanMessage, SystemMessage, ToolMessage
    from toolwire.errors import UserError

    assert HumanMessage("x", response_metadata={}) == HumanMessage("x", response_metadata=None) == HumanMessage("x")
    assert ToolMessage("x", "c1", response_metadata={}) == ToolMessage("x", "c1")
    with pytest.raises(UserError, match=r"HumanMessage has no response_metadata \('k'\).*in its content"):
        HumanMessage("x", response_metadata={"k": 1})
    with pytest.raises(UserError, match="SystemMessage has no response_metadata"):
        SystemMessage("x", response_metadata={"k": 1})
    with pytest.raises(UserError, match=r"ToolMessage has no response_metadata \('k'\).*artifact="):
        ToolMessage("x", "c1", response_metadata={"k": 1})


def test_a_langchain_dump_is_read_as_langchain_reads_it() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    from toolwire import HumanMessage, SystemMessage, ToolMessage

    for ours, theirs in ((HumanMessage, lc.HumanMessage("hi")), (SystemMessage, lc.SystemMessage("s")),
                         (ToolMessage, lc.ToolMessage("42", tool_call_id="c1")), (AIMessage, lc.AIMessage("a"))):
        assert ours(**theirs.model_dump()).model_dump() == theirs.model_dump()
