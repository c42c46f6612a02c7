"""Review 143 (porting LangChain tool-calling programs): a toolwire tool run by LangChain passes a ToolMessage or a
LangGraph Command it returns on as LangChain's own tool does; a LangChain tool with an async side is awaited by
toolwire's async API; the same LangChain reply gives its id-less calls the same ids on every reading; the
``developer`` role is read as a system message in a tuple and a LangChain ChatMessage. Each test failed on the code
before its fix."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.messages import AIMessage as LCAIMessage
from langchain_core.messages import ToolMessage as LCToolMessage
from langchain_core.tools import InjectedToolCallId

from toolwire import tool
from toolwire.interop.langchain import to_langchain_tool
from toolwire.messages import ToolMessage

pytestmark = pytest.mark.timeout(60)

CALL = {"name": "lookup", "args": {"key": "k"}, "id": "c1", "type": "tool_call"}


@tool
def lookup(key: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
    """Look a key up.

    Args:
        key: the key
    """
    return LCToolMessage(f"no value for {key}", tool_call_id=tool_call_id, artifact={"key": key}, status="error")


@tool(name="lookup")
def lookup_tw(key: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
    """Look a key up.

    Args:
        key: the key
    """
    return ToolMessage(f"no value for {key}", tool_call_id=tool_call_id, artifact={"key": key}, status="error",
                       name="lookup")


@tool(name="lookup")
async def alookup(key: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
    """Look a key up.

    Args:
        key: the key
    """
    return LCToolMessage(f"no value for {key}", tool_call_id=tool_call_id, artifact={"key": key}, status="error")


def _answer(message: Any) -> tuple[Any, ...]:
    assert isinstance(message, LCToolMessage)
    return message.content, message.tool_call_id, message.status, message.artifact


@pytest.mark.parametrize("made", [lookup, lookup_tw, alookup])
def test_a_toolmessage_the_tool_returns_reaches_langchain_as_is(made: Any) -> None:
    """#1: the answer was the message's JSON (or repr) as a success, its status and artifact lost."""
    lc_tool = to_langchain_tool(made)
    expected = ("no value for k", "c1", "error", {"key": "k"})
    if made is not alookup:
        assert _answer(lc_tool.invoke(CALL)) == expected
    assert _answer(asyncio.run(lc_tool.ainvoke(CALL))) == expected
    if made is lookup_tw:
        assert lc_tool.invoke(CALL).name == "lookup"  # toolwire's message converted, its name kept


def test_a_toolmessage_returned_by_a_content_and_artifact_tool_is_passed_on() -> None:
    @tool(response_format="content_and_artifact")
    def fetch(key: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
        """Fetch a key.

        Args:
            key: the key
        """
        return LCToolMessage("gone", tool_call_id=tool_call_id, artifact=[1], status="error")

    out = to_langchain_tool(fetch).invoke({**CALL, "name": "fetch"})
    assert _answer(out) == ("gone", "c1", "error", [1])


def test_tool_node_gets_the_toolmessage_and_the_command() -> None:
    """#1 and #9 in LangGraph's ToolNode: the status and artifact were lost, and the Command's update dropped."""
    pytest.importorskip("langgraph")
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode
    from langgraph.types import Command

    class State(MessagesState):
        user_name: str

    @tool
    def save_name(name: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
        """Save the user's name.

        Args:
            name: the user's name
        """
        return Command(update={"user_name": name,
                               "messages": [LCToolMessage(f"Saved {name}.", tool_call_id=tool_call_id)]})

    graph = StateGraph(State)
    graph.add_node("tools", ToolNode([to_langchain_tool(lookup), to_langchain_tool(save_name)]))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    app = graph.compile()
    calls = [CALL, {"name": "save_name", "args": {"name": "Ana"}, "id": "c2", "type": "tool_call"}]
    for out in (app.invoke({"messages": [LCAIMessage("", tool_calls=calls)], "user_name": ""}),
                asyncio.run(app.ainvoke({"messages": [LCAIMessage("", tool_calls=calls)], "user_name": ""}))):
        assert out["user_name"] == "Ana"
        answers = {m.tool_call_id: m for m in out["messages"][1:]}
        assert _answer(answers["c1"]) == ("no value for k", "c1", "error", {"key": "k"})
        assert (answers["c2"].content, answers["c2"].status) == ("Saved Ana.", "success")


def _split_tools() -> list[Any]:
    from langchain_core.tools import BaseTool, StructuredTool

    def fetch(x: str) -> str:
        return "sync " + x

    async def afetch(x: str) -> str:
        return "async " + x

    class Both(BaseTool):
        name: str = "both"
        description: str = "Fetch x."

        def _run(self, x: str) -> str:
            return "sync " + x

        async def _arun(self, x: str) -> str:
            return "async " + x

    class AsyncOnly(Both):  # LangChain's usual shape of an async-only BaseTool: a _run stub
        name: str = "aonly"

        def _run(self, x: str) -> str:
            raise NotImplementedError("aonly does not support sync invocation")

    return [StructuredTool.from_function(func=fetch, coroutine=afetch, name="fetch", description="Fetch x."), Both(),
            AsyncOnly()]


@pytest.mark.parametrize("index", [0, 1, 2])
def test_a_langchain_tool_with_an_async_side_is_awaited_by_the_async_api(index: int) -> None:
    """#2: toolwire's async API ran the sync side (and a _run stub failed under Agent.ainvoke)."""
    from toolwire import Agent, AIMessage, ToolExecutor
    from toolwire.interop.langchain import from_langchain_tool
    from toolwire.testing import ScriptedChatModel

    lc_tool = _split_tools()[index]
    tw = from_langchain_tool(lc_tool)
    call = {"name": lc_tool.name, "args": {"x": "x"}, "id": "c1", "type": "tool_call"}
    reply = AIMessage("", tool_calls=[call])
    assert asyncio.run(tw.ainvoke({"x": "x"})) == "async x"
    assert asyncio.run(tw.abatch([{"x": "x"}])) == ["async x"]
    assert asyncio.run(ToolExecutor([lc_tool]).aexecute(reply))[0].content == "async x"
    result = asyncio.run(Agent(ScriptedChatModel([reply, "done"]), [lc_tool]).ainvoke("go"))
    assert result.messages[2].content == "async x"
    if index < 2:  # the sync side stays LangChain's invoke
        assert tw.invoke({"x": "x"}) == "sync x"
        assert ToolExecutor([lc_tool]).execute(reply)[0].content == "sync x"
        assert Agent(ScriptedChatModel([reply, "done"]), [lc_tool]).invoke("go").messages[2].content == "sync x"


def _recorder() -> tuple[Any, list[str]]:
    runs: list[str] = []

    @tool
    def send_email(to: str) -> str:
        """Send an e-mail.

        Args:
            to: the address
        """
        runs.append(to)
        return f"sent to {to}"

    return send_email, runs


def _pairs(request: Any) -> tuple[list[str], list[str]]:
    calls = [c["id"] for m in request.messages if m.type == "ai" for c in [*m.tool_calls, *m.invalid_tool_calls]]
    answers = [m.tool_call_id for m in request.messages if m.type == "tool"]
    return calls, answers


def test_idless_langchain_calls_keep_their_ids_in_the_manual_loop_and_a_resumed_agent() -> None:
    """#4: every reading of the reply made new ids, so the results answered no call and the Agent ran them again."""
    from langchain_core.messages import AIMessageChunk as LCChunk

    from toolwire import Agent, HumanMessage, ToolExecutor
    from toolwire.testing import ScriptedChatModel

    send_email, runs = _recorder()
    replies = [
        LCAIMessage("", tool_calls=[{"name": "send_email", "args": {"to": "a@x"}, "id": None},
                                    {"name": "send_email", "args": {"to": "b@x"}, "id": None}]),
        LCChunk("", tool_call_chunks=[{"name": "send_email", "args": '{"to": ', "id": None, "index": 0}])
        + LCChunk("", tool_call_chunks=[{"name": None, "args": '"c@x"}', "id": None, "index": 0}]),
        LCAIMessage("", invalid_tool_calls=[{"name": "send_email", "args": '{"to": ', "id": None,
                                             "error": "bad json", "type": "invalid_tool_call"}]),
    ]
    for reply in replies:
        runs.clear()
        messages: list[Any] = [HumanMessage("mail them"), reply]
        messages.extend(ToolExecutor([send_email]).execute(reply))
        model = ScriptedChatModel(["done"])
        model.invoke(messages)
        calls, answers = _pairs(model.requests[-1])
        assert calls == answers and len(set(calls)) == len(calls) >= 1
        agent_model = ScriptedChatModel(["done"])
        result = Agent(agent_model, [send_email]).invoke(messages)
        assert _pairs(agent_model.requests[-1]) == (calls, answers)  # the calls are answered: not run again
        assert runs == {0: ["a@x", "b@x"], 1: ["c@x"], 2: []}[replies.index(reply)]
        assert result.output == "done"


def test_the_ids_are_written_into_the_langchain_message() -> None:
    from langchain_core.messages import AIMessageChunk as LCChunk

    from toolwire.interop.langchain import from_langchain_messages

    chunk = LCChunk("", tool_calls=[{"name": "f", "args": {"a": 1}, "id": None}],
                    invalid_tool_calls=[{"name": "g", "args": "{", "id": None, "error": "bad"}])
    first, second = from_langchain_messages([chunk, chunk])
    assert first == second
    made = [first.tool_calls[0]["id"], first.invalid_tool_calls[0]["id"]]
    assert [chunk.tool_calls[0]["id"], chunk.invalid_tool_calls[0]["id"]] == made
    assert [piece["id"] for piece in chunk.tool_call_chunks] == [None, None]  # (so a later real id still merges)


def test_a_partial_langchain_chunk_read_mid_stream_still_merges_with_a_later_real_id() -> None:
    from langchain_core.messages import AIMessageChunk as LCChunk

    from toolwire.interop.langchain import from_langchain_messages

    partial = LCChunk("", tool_call_chunks=[{"name": "f", "args": '{"a": ', "id": None, "index": 0}])
    assert from_langchain_messages(partial) == from_langchain_messages(partial)
    whole = partial + LCChunk("", tool_call_chunks=[{"name": None, "args": "1}", "id": "call_real", "index": 0}])
    assert from_langchain_messages(whole)[0].tool_calls == [
        {"name": "f", "args": {"a": 1}, "id": "call_real", "type": "tool_call"}]


def test_the_developer_role_is_a_system_message_in_a_tuple_and_a_langchain_chat_message() -> None:
    """#5: the tuple and LangChain's ChatMessage(role="developer") were refused, while the dict form was taken."""
    import warnings

    from langchain_core.messages import ChatMessage, convert_to_messages

    from toolwire.interop.langchain import from_langchain_messages
    from toolwire.messages import HumanMessage, SystemMessage, coerce_messages
    from toolwire.testing import ScriptedChatModel

    expected = [SystemMessage("Answer briefly."), HumanMessage("hi")]
    assert coerce_messages([("developer", "Answer briefly."), ("user", "hi")]) == expected
    assert coerce_messages(("developer", "Answer briefly.")) == expected[:1]
    model = ScriptedChatModel(["ok"])
    model.invoke([("developer", "Answer briefly."), ("user", "hi")])
    assert model.requests[-1].messages == expected
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # LangChain's mark of a developer message is not data left out
        assert from_langchain_messages([ChatMessage(role="developer", content="Answer briefly."), ("human", "hi")]) \
            == expected
        assert from_langchain_messages(convert_to_messages([("developer", "Answer briefly.")])) == expected[:1]
