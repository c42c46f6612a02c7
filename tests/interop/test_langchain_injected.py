"""LangChain's injected arguments and RunnableConfig (review 74, finding 4): in a toolwire ``@tool`` function, the
call id is filled, the others keep their default or the tool is refused; a LangChain tool needing an argument the
application injects is refused at conversion unless ``injected=`` gives it."""

from __future__ import annotations

import functools
from typing import Annotated, Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import InjectedToolArg, InjectedToolCallId
from langchain_core.tools import tool as lc_tool

from toolwire import Agent, AIMessage, tool
from toolwire.errors import SchemaError, UserError
from toolwire.interop.langchain import from_langchain_tool
from toolwire.testing import ScriptedChatModel


def test_a_toolwire_tool_gets_the_call_id_langchain_would_inject() -> None:
    @tool
    def remember(fact: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Store a fact."""
        return f"{fact} stored by {tool_call_id}"

    assert remember.parameters["properties"] == {"fact": {"type": "string"}}  # the model never sees it
    message = remember.invoke({"name": "remember", "args": {"fact": "x"}, "id": "c7", "type": "tool_call"})
    assert message.content == "x stored by c7" and message.status == "success"
    sent = remember.invoke({"name": "remember", "args": {"fact": "x", "tool_call_id": "evil"}, "id": "c8",
                            "type": "tool_call"})
    assert sent.status == "error" and "'tool_call_id' is not an argument a call may set" in sent.content


def test_runnable_config_and_injected_arguments_without_a_default_are_refused() -> None:
    def search(query: str, config: RunnableConfig) -> str:
        """Search."""
        return query

    def lookup(query: str, user_id: Annotated[str, InjectedToolArg]) -> str:
        """Look up."""
        return query + user_id

    with pytest.raises(SchemaError, match=r"parameter 'config' is LangChain's RunnableConfig, which toolwire has no "
                                          r"value for: give it a default, or fix its value with functools.partial"):
        tool(search)
    with pytest.raises(SchemaError, match=r"'user_id' is injected by the application in LangChain \(InjectedToolArg"):
        tool(lookup)
    fixed = tool(functools.partial(lookup, user_id="u1"), name="lookup")  # the advice works
    assert list(fixed.parameters["properties"]) == ["query"] and fixed.invoke({"query": "q-"}) == "q-u1"


def test_with_a_default_they_are_left_out_of_the_schema_and_keep_it() -> None:
    @tool
    def search(query: str, config: RunnableConfig | None = None,
               user_id: Annotated[str, InjectedToolArg()] = "anon") -> str:
        """Search."""
        return f"{query} {config} {user_id}"

    assert list(search.parameters["properties"]) == ["query"]
    assert search.invoke({"query": "q"}) == "q None anon"


def test_a_langchain_tool_needing_an_injected_argument_takes_it_from_injected() -> None:
    @lc_tool
    def lc_user(query: str, user_id: Annotated[str, InjectedToolArg]) -> str:
        """Look up a user."""
        return f"{query} for {user_id}"

    with pytest.raises(UserError, match=r"needs 'user_id', injected by the application rather than the model: "
                                        r"convert it with .*from_langchain_tool\(tool, injected=\{'user_id': \.\.\.\}"):
        from_langchain_tool(lc_user)
    with pytest.raises(UserError, match="needs 'user_id'"):  # also when bound as it is
        Agent(ScriptedChatModel(["x"]), [lc_user]).invoke("go")
    for wrong in ({"nope": 1}, {"query": "q"}):
        with pytest.raises(UserError, match="does not inject"):
            from_langchain_tool(lc_user, injected={"user_id": "u", **wrong})
    converted = from_langchain_tool(lc_user, injected={"user_id": "u42"})
    assert list(converted.parameters["properties"]) == ["query"]
    model = ScriptedChatModel([AIMessage("", tool_calls=[{"name": "lc_user", "args": {"query": "q"}, "id": "c1"}]),
                               "done"])
    result = Agent(model, [converted]).invoke("go")
    assert result.messages[2].content == "q for u42" and result.output == "done"


def test_the_call_id_reaches_the_tool_on_every_path_the_executor_and_the_agent_included() -> None:
    """Review 76: it was filled while the arguments were checked, which the executor did before it set the call
    being run, so every tool run by ToolExecutor or Agent got None."""
    import asyncio

    from toolwire import ToolExecutor

    seen: list[Any] = []

    @tool
    def note(text: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Note."""
        seen.append(tool_call_id)
        return "ok"

    @tool
    async def anote(text: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Note, async."""
        seen.append(tool_call_id)
        return "ok"

    reply = AIMessage("", tool_calls=[{"name": "note", "args": {"text": "a"}, "id": "c1"},
                                      {"name": "anote", "args": {"text": "b"}, "id": "c2"}])
    ToolExecutor([note, anote]).execute(reply)
    asyncio.run(ToolExecutor([note, anote]).aexecute(reply))
    ToolExecutor([note, anote], handle_errors=False).execute(reply)  # (arguments checked before any runs)
    Agent(ScriptedChatModel([reply, "done"]), [note, anote]).invoke("go")
    assert sorted(seen) == ["c1"] * 4 + ["c2"] * 4  # (the two tools of a reply run at the same time)
