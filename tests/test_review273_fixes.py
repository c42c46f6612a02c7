"""Review 273: what a tool gets besides its arguments.

#1 an injected parameter's default (and any value toolwire passes for a parameter the model is not shown) is written
``<hidden>`` in the error text the model reads, as a ``functools.partial``'s value is; #2 a toolwire tool taking
LangGraph's ``InjectedState``/``InjectedStore`` or LangChain's ``RunnableConfig``, converted with
``to_langchain_tool``, gets them from LangGraph's ``ToolNode`` / LangChain; #3 a LangChain tool taking v1's
``ToolRuntime`` gets each call's id in it; #4 a converted tool invoked with bare arguments hides a partial's value in
the ``ToolException`` text it answers with; #5 ``from_langchain_tool(injected=...)`` refuses the call id's argument.
"""

import asyncio
import functools
from typing import Annotated, Any

import pytest
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import InjectedToolArg, InjectedToolCallId, ToolException
from langchain_core.tools import tool as lc_tool
from pydantic import BaseModel

from toolwire import Agent, AIMessage, tool
from toolwire.errors import UserError
from toolwire.interop.langchain import from_langchain_tool, to_langchain_tool
from toolwire.testing import ScriptedChatModel


def _call(made: Any, args: dict[str, Any], call_id: str = "c1") -> Any:
    return made.invoke({"name": made.name, "args": args, "id": call_id, "type": "tool_call"})


# -- #1: an injected parameter's default is hidden like a partial's value ------------------------------------------


@tool
def _report(q: str, api_key: Annotated[str, InjectedToolArg] = "sk-DEFAULTSECRET") -> str:
    """Report."""
    raise PermissionError(f"key {api_key} was refused for {q}")


def test_injected_default_hidden_in_agent_error() -> None:
    model = ScriptedChatModel([AIMessage("", tool_calls=[{"name": "_report", "args": {"q": "a"}, "id": "c1"}]),
                               AIMessage("done")])
    answers = [m.content for m in Agent(model, [_report]).invoke("hi").messages if m.type == "tool"]
    assert answers == ["Error: tool '_report' raised PermissionError: key <hidden> was refused for a"]


def test_injected_default_hidden_async_and_runnable_config() -> None:
    @tool
    async def fetch(q: str, token: Annotated[str, InjectedToolArg] = "tok-ASYNCSECRET",
                    config: RunnableConfig | None = None) -> str:
        """Fetch."""
        raise PermissionError(f"token {token} refused for {q}")

    reply = asyncio.run(fetch.ainvoke({"name": "fetch", "args": {"q": "abc"}, "id": "c2", "type": "tool_call"}))
    assert "ASYNCSECRET" not in reply.content and "token <hidden> refused for abc" in reply.content


def test_args_schema_injected_default_hidden() -> None:
    class Args(BaseModel):
        q: str
        api_key: Annotated[str, InjectedToolArg] = "sk-SCHEMADEFAULT"

    @tool(args_schema=Args)
    def rep(q: str, api_key: str = "sk-SCHEMADEFAULT") -> str:
        """Report."""
        raise PermissionError(f"key {api_key} was refused for {q}")

    assert _call(rep, {"q": "a"}).content == "Error: tool 'rep' raised PermissionError: key <hidden> was refused for a"


def test_shown_values_and_call_id_stay() -> None:
    @tool
    def look(city: str, region: str = "europe-west", call: Annotated[str, InjectedToolCallId] = "",
             key: Annotated[str, InjectedToolArg] = "sk-KEEPOUT1") -> str:
        """Look up."""
        raise LookupError(f"{city} not in {region} (call {call}, key {key})")

    content = _call(look, {"city": "Paris"}, "call_XYZ12345").content
    assert "Paris not in europe-west (call call_XYZ12345, key <hidden>)" in content


def test_langchain_tool_injected_default_hidden() -> None:
    @lc_tool
    def lcf(q: str, token: Annotated[str, InjectedToolArg] = "tok-LCDEFAULT") -> str:
        """L."""
        raise PermissionError(f"token {token} refused")

    content = _call(from_langchain_tool(lcf), {"q": "a"}).content
    assert "LCDEFAULT" not in content and "token <hidden> refused" in content


# -- #2: LangGraph's ToolNode fills InjectedState / RunnableConfig of a converted toolwire tool ----------------------


def _count_msgs(q: str, state: Any, config: Any) -> str:
    user = None if config is None else config.get("configurable", {}).get("user")
    return f"n={None if state is None else len(state['messages'])} user={user} q={q}"


def _state_tool(secret_error: bool = False) -> Any:
    from langgraph.prebuilt import InjectedState

    def count_msgs(q: str, state: Annotated[dict | None, InjectedState] = None,
                   config: RunnableConfig = None) -> str:  # type: ignore[assignment]
        """Count messages.

        Args:
            q: q
        """
        if secret_error:
            raise PermissionError(f"user {config['configurable']['user']} refused")
        return _count_msgs(q, state, config)

    return count_msgs


def _graph(lt: Any) -> Any:
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode

    g = StateGraph(MessagesState)
    g.add_node("tools", ToolNode([lt]))
    g.add_edge(START, "tools")
    g.add_edge("tools", END)
    return g.compile()


def _graph_input(name: str = "count_msgs") -> dict[str, Any]:
    from langchain_core.messages import AIMessage as LCAI
    from langchain_core.messages import HumanMessage as LCH

    return {"messages": [LCH("hi"), LCAI("", tool_calls=[{"name": name, "args": {"q": "a"}, "id": "call_Z"}])]}


def test_toolnode_fills_state_and_config() -> None:
    pytest.importorskip("langgraph.prebuilt")
    graph = _graph(to_langchain_tool(tool(_state_tool())))
    config = {"configurable": {"user": "alice"}}
    out = graph.invoke(_graph_input(), config=config)
    assert [m.content for m in out["messages"] if m.type == "tool"] == ["n=2 user=alice q=a"]
    out = asyncio.run(graph.ainvoke(_graph_input(), config=config))
    assert [m.content for m in out["messages"] if m.type == "tool"] == ["n=2 user=alice q=a"]


def test_toolnode_values_hidden_in_errors() -> None:
    pytest.importorskip("langgraph.prebuilt")
    graph = _graph(to_langchain_tool(tool(_state_tool(secret_error=True))))
    out = graph.invoke(_graph_input(), config={"configurable": {"user": "alice-SECRETUSER"}})
    answer = next(m.content for m in out["messages"] if m.type == "tool")
    assert "SECRETUSER" not in answer and "user <hidden> refused" in answer


def test_converted_tool_bare_arguments() -> None:
    pytest.importorskip("langgraph.prebuilt")
    lt = to_langchain_tool(tool(_state_tool()))
    # LangChain passes a RunnableConfig with bare arguments too; the state only comes with a tool call
    assert lt.invoke({"q": "b"}, config={"configurable": {"user": "bob"}}) == "n=None user=bob q=b"
    refused = lt.invoke({"q": "b", "state": {"messages": [1, 2, 3]}})
    assert "'state' is not an argument a call may set" in refused
    # a toolwire run (no LangChain) keeps the defaults, as before
    assert tool(_state_tool()).invoke({"q": "c"}) == "n=None user=None q=c"


def test_converted_tool_config_only_without_langgraph() -> None:
    def who(q: str, cfg: RunnableConfig | None = None) -> str:
        """Who.

        Args:
            q: q
        """
        return f"{q} {None if cfg is None else cfg['configurable'].get('user')}"

    lt = to_langchain_tool(tool(who))
    assert lt.invoke({"q": "x"}, config={"configurable": {"user": "carol"}}) == "x carol"
    message = lt.invoke({"name": "who", "args": {"q": "y"}, "id": "c9", "type": "tool_call"},
                        config={"configurable": {"user": "dave"}})
    assert message.content == "y dave"


# -- #3: LangChain v1's ToolRuntime through from_langchain_tool ------------------------------------------------------


def test_tool_runtime_gets_each_call_id() -> None:
    prebuilt = pytest.importorskip("langgraph.prebuilt")
    runtime_type = getattr(prebuilt, "ToolRuntime", None)
    if runtime_type is None:
        pytest.skip("this langgraph has no ToolRuntime")

    def lrt(q: str, runtime: runtime_type) -> str:  # type: ignore[valid-type]
        """LR."""
        return f"q={q} id={runtime.tool_call_id} n={len(runtime.state['messages'])}"

    lt = lc_tool(lrt)
    with pytest.raises(UserError, match="ToolRuntime") as info:
        from_langchain_tool(lt)
    assert "tool_call_id" in str(info.value)
    snap = runtime_type(state={"messages": [1]}, context=None, config={}, stream_writer=lambda x: None,
                        tool_call_id=None, store=None)
    made = from_langchain_tool(lt, injected={"runtime": snap})
    assert [_call(made, {"q": "a"}, i).content for i in ("call_A", "call_B")] == ["q=a id=call_A n=1",
                                                                                  "q=a id=call_B n=1"]
    assert "runtime" not in str(made.parameters)
    refused = _call(made, {"q": "a", "runtime": "x"})
    assert refused.status == "error" and "ToolRuntime" in refused.content


# -- #4: bare arguments: a ToolException's text hides a partial's value ---------------------------------------------


def _fetch(api_key: str, q: str) -> str:
    """Fetch.

    Args:
        api_key: key
        q: the query
    """
    raise ToolException(f"key {api_key} was refused for {q}")


def test_bare_arguments_tool_exception_hidden() -> None:
    lt = to_langchain_tool(tool(functools.partial(_fetch, "sk-HIDDENVALUE123")))
    assert lt.invoke({"q": "a"}) == "key <hidden> was refused for a"
    assert asyncio.run(lt.ainvoke({"q": "a"})) == "key <hidden> was refused for a"
    assert "<hidden>" in _call(lt, {"q": "a"}).content


def test_bare_arguments_tool_exception_unchanged_without_secret() -> None:
    def plain(q: str) -> str:
        """Plain.

        Args:
            q: the query
        """
        raise ToolException(f"nothing found for {q}")

    assert to_langchain_tool(tool(plain)).invoke({"q": "abc"}) == "nothing found for abc"
    quiet = to_langchain_tool(tool(plain, hide_error_details=True))
    assert quiet.invoke({"q": "abc"}) == ("Error: tool 'plain' raised ToolException. Try different arguments or "
                                          "another approach.")
    with pytest.raises(LookupError):  # another failure is raised as tool.invoke(args) raises it
        to_langchain_tool(tool(functools.partial(_lookup, "sk-HIDDENVALUE123"))).invoke({"q": "a"})


def _lookup(api_key: str, q: str) -> str:
    """Look up.

    Args:
        api_key: key
        q: the query
    """
    raise LookupError(q)


# -- #5: injected= naming the InjectedToolCallId argument is refused ------------------------------------------------


def test_injected_call_id_refused() -> None:
    @lc_tool
    def lcf(q: str, token: Annotated[str, InjectedToolArg], tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """L."""
        return f"q={q} token={token} id={tool_call_id}"

    with pytest.raises(UserError, match=r"'tool_call_id'.*call's id.*tool call") as info:
        from_langchain_tool(lcf, injected={"token": "t", "tool_call_id": "FIXED"})
    assert str(info.value).count(". ") == 0
    assert _call(from_langchain_tool(lcf, injected={"token": "t"}), {"q": "a"}).content == "q=a token=t id=c1"


def test_only_a_configs_own_values_are_hidden_under_toolnode() -> None:
    """Review 275 #3: every string of the RunnableConfig LangGraph passed (its node name ``tools`` among them) was
    hidden, so the model's own ``'agent tools'`` came back ``'agent <hidden>'``; only ``configurable`` is the
    application's."""
    pytest.importorskip("langgraph")
    from langchain_core.messages import AIMessage as LCAIMessage
    from langchain_core.messages import HumanMessage as LCHumanMessage
    from langchain_core.runnables import RunnableConfig
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode

    from toolwire import tool
    from toolwire.interop.langchain import to_langchain_tool

    def search_docs(q: str, config: RunnableConfig = None) -> str:  # type: ignore[assignment]
        """Search the docs.

        Args:
            q: what to look for
        """
        raise LookupError(f"no page matches {q!r}: the tools index is empty; key {config['configurable']['key']}")

    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode([to_langchain_tool(tool(search_docs))], handle_tool_errors=True))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    out = graph.compile().invoke({"messages": [LCHumanMessage("hi"), LCAIMessage("", tool_calls=[
        {"name": "search_docs", "args": {"q": "agent tools"}, "id": "call_Z"}])]},
        config={"configurable": {"key": "sk-application-secret"}})
    text = next(m.content for m in out["messages"] if m.type == "tool")
    assert "'agent tools'" in text and "the tools index" in text and "sk-application-secret" not in text
