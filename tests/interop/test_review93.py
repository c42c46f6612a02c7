"""Review 93: LangChain code ported to toolwire (findings 1, 2, 3, 5, 6, 12's wording, 16, 17).

No model runs here: tools are invoked directly or through ToolExecutor, and agents use ScriptedChatModel.
"""

from __future__ import annotations

import asyncio
import warnings
from typing import Annotated, Any

import pytest

pytest.importorskip("langchain_core")

import langchain_core.messages as L
from langchain_core.tools import InjectedToolArg, InjectedToolCallId
from langchain_core.tools import tool as lc_tool

from toolwire import Agent, AIMessage, HumanMessage, ToolExecutor, ToolValidationError, tool
from toolwire.errors import SchemaError, UserError
from toolwire.interop.langchain import from_langchain_messages, from_langchain_tool, to_langchain_tool
from toolwire.testing import ScriptedChatModel


def _call(name: str, args: dict[str, Any], call_id: str = "c1") -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


# -- 1: a @tool returning LangChain's ToolMessage answers with its content, status and artifact ---------------------


@tool
def _make(x: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
    """Make."""
    return L.ToolMessage(content=f"made {x}", tool_call_id=tool_call_id, artifact={"a": x},
                         status="error" if x < 0 else "success")


def test_a_langchain_tool_message_returned_by_a_toolwire_tool_is_read_as_a_message() -> None:
    message = _make.invoke(_call("_make", {"x": 1}))
    assert (message.content, message.artifact, message.status, message.tool_call_id) == ("made 1", {"a": 1},
                                                                                         "success", "c1")
    (failed,) = ToolExecutor([_make]).execute(AIMessage("", tool_calls=[{"name": "_make", "args": {"x": -2},
                                                                         "id": "c2"}]))
    assert (failed.content, failed.artifact, failed.status, failed.tool_call_id) == ("made -2", {"a": -2}, "error",
                                                                                     "c2")


def test_a_big_langchain_tool_message_is_cut_not_written_out_as_json() -> None:
    @tool
    def big(tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
        """Big."""
        return L.ToolMessage(content="x" * 600_000, tool_call_id=tool_call_id, artifact=[1])

    (message,) = ToolExecutor([big], max_result_chars=50).execute(
        AIMessage("", tool_calls=[{"name": "big", "args": {}, "id": "c3"}]))
    assert message.content.startswith("x" * 50 + "\n[... result truncated") and message.artifact == [1]


# -- 3: from_langchain_tool keeps LangChain's response_format; a positional call works as LangChain's does ----------


def test_an_ordinary_langchain_tool_gives_its_content_and_a_content_and_artifact_one_the_pair() -> None:
    @lc_tool
    def weather(city: str, days: int = 1) -> str:
        """Weather."""
        return f"sunny {city} x{days}"

    @lc_tool(response_format="content_and_artifact")
    def rows(n: int) -> tuple[str, list[int]]:
        """Rows."""
        return f"{n} rows", list(range(n))

    w, r = from_langchain_tool(weather), from_langchain_tool(rows)
    assert (w.response_format, r.response_format) == ("content", "content_and_artifact")
    assert w.invoke({"city": "x"}) == weather.invoke({"city": "x"}) == "sunny x x1"
    assert r.invoke({"n": 2}) == ("2 rows", [0, 1])  # toolwire's bare form of such a tool (documented)
    assert r.invoke(_call("rows", {"n": 2})).artifact == [0, 1]
    assert w("Paris") == w("Paris", days=1) == w(city="Paris") == "sunny Paris x1"  # as weather("Paris") runs it
    with pytest.raises(TypeError, match=r"^LangChain tool 'weather' takes 2 argument\(s\) \(city, days\), but 3 were "
                                        r"given: pass them by name\.$"):
        w("a", 1, 2)
    with pytest.raises(TypeError, match=r"got 'city' both by position and by name"):
        w("a", city="b")


def test_a_content_langchain_tool_returning_a_tool_message_keeps_its_artifact() -> None:
    @lc_tool
    def make(x: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
        """Make."""
        return L.ToolMessage(content=f"made {x}", tool_call_id=tool_call_id, artifact={"a": x})

    converted = from_langchain_tool(make)
    assert converted.response_format == "content"
    (message,) = ToolExecutor([converted]).execute(AIMessage("", tool_calls=[{"name": "make", "args": {"x": 3},
                                                                              "id": "c4"}]))
    assert (message.content, message.artifact, message.status, message.tool_call_id) == ("made 3", {"a": 3},
                                                                                         "success", "c4")


# -- 6: a tool returning a LangGraph Command gets one clear error result -----------------------------------------


def test_a_langgraph_command_is_one_error_result_saying_toolwire_does_not_apply_it() -> None:
    types = pytest.importorskip("langgraph.types")
    ran: list[str] = []

    @lc_tool
    def set_name(name: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
        """Set the user's name."""
        ran.append(name)
        return types.Command(update={"name": name, "messages": [L.ToolMessage("ok", tool_call_id=tool_call_id)]})

    @tool
    def set_name_tw(name: str) -> Any:
        """Set the user's name."""
        ran.append(name)
        return types.Command(update={"name": name})

    calls = [{"name": "set_name", "args": {"name": "Al"}, "id": "c1"},
             {"name": "set_name_tw", "args": {"name": "Bo"}, "id": "c2"}]
    answers = ToolExecutor([set_name, set_name_tw]).execute(AIMessage("", tool_calls=calls))
    # (both ran; the calls run at once on the thread pool, so in no set order: alone, this test saw "Bo" first)
    assert [(m.tool_call_id, m.status) for m in answers] == [("c1", "error"), ("c2", "error")]
    assert sorted(ran) == ["Al", "Bo"]
    for message, name in zip(answers, ("set_name", "set_name_tw"), strict=True):
        assert message.content == (
            f"Error: tool '{name}' ran but returned a LangGraph Command (a graph state update), which toolwire's "
            "executor does not apply, so the update was not made: make the tool return the text the model should read "
            "(or a ToolMessage), or run it in a LangGraph graph's ToolNode.")
    assert set_name_tw.invoke(_call("set_name_tw", {"name": "Cy"})).status == "error"


# -- 2: to_langchain_tool with bare arguments raises as the toolwire tool does; a ToolCall gets an error message -----


@tool
def _boom(x: int) -> str:
    """Boom."""
    raise ValueError("kaboom")


@tool
def _needs_id(x: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Needs its call id."""
    return f"{x} {tool_call_id}"


def test_a_converted_tool_raises_on_bare_arguments_and_answers_a_tool_call_with_an_error() -> None:
    lt = to_langchain_tool(_boom)
    assert (lt.handle_tool_error, lt.handle_validation_error) == (True, True)  # what a ToolCall gets
    with pytest.raises(ValueError, match=r"^kaboom$"):
        lt.invoke({"x": 1})
    # invalid arguments are answered with their text, as LangChain's handle_validation_error=True answers them, so
    # LangChain's AgentExecutor (which runs tools with bare arguments) shows them to the model (review 95)
    assert lt.invoke({"x": "zz"}).startswith("Error: Invalid arguments for tool '_boom': 'x'")
    with pytest.raises(ValueError, match=r"^kaboom$"):
        asyncio.run(lt.ainvoke({"x": 1}))
    with pytest.raises(UserError, match="InjectedToolCallId"):
        to_langchain_tool(_needs_id).invoke({"x": 1})
    for args, text in (({"x": 1}, "Error: tool '_boom' raised ValueError: kaboom"),
                       ({"x": "zz"}, "Error: Invalid arguments for tool '_boom': 'x'")):
        for message in (lt.invoke(_call("_boom", args)), asyncio.run(lt.ainvoke(_call("_boom", args)))):
            assert isinstance(message, L.ToolMessage) and message.status == "error"
            assert message.content.startswith(text) and message.tool_call_id == "c1"
    assert to_langchain_tool(_needs_id).invoke(_call("_needs_id", {"x": 2}, "c9")).content == "2 c9"


def test_a_tool_that_does_not_handle_errors_raises_with_a_tool_call_too() -> None:
    @tool(handle_errors=False)
    def strict(x: int) -> str:
        """Strict."""
        raise ValueError("no")

    lt = to_langchain_tool(strict)
    assert (lt.handle_tool_error, lt.handle_validation_error) == (False, False)
    with pytest.raises(ValueError, match=r"^no$"):
        lt.invoke(_call("strict", {"x": 1}))
    with pytest.raises(ToolValidationError, match=r"^Invalid arguments for tool 'strict': 'x'"):
        lt.invoke({"x": "zz"})


def test_a_converted_tool_in_langchains_agent_executor_shows_bad_arguments_to_the_model() -> None:
    """Review 95: after review 93's change, one invalid call from the model ended the whole AgentExecutor run."""
    agents = pytest.importorskip("langchain_classic.agents")
    from langchain_core.agents import AgentAction, AgentFinish
    from langchain_core.runnables import RunnableLambda

    def agent(inputs: dict) -> AgentAction | AgentFinish:
        if steps := inputs["intermediate_steps"]:
            return AgentFinish({"output": steps[-1][1]}, "")
        return AgentAction("_boom", {"x": "seven"}, "")

    out = agents.AgentExecutor(agent=RunnableLambda(agent), tools=[to_langchain_tool(_boom)]).invoke({"input": "go"})
    assert out["output"].startswith("Error: Invalid arguments for tool '_boom': 'x'")


# -- 5: Agent given a LangChain chat model says to build toolwire's own ---------------------------------------------


def test_agent_refuses_a_langchain_chat_model_in_one_sentence() -> None:
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel

    lc_model = FakeMessagesListChatModel(responses=[L.AIMessage("done")])
    for model in (lc_model, lc_model.bind(stop=["x"])):  # the model, and a runnable made from it
        with pytest.raises(UserError) as info:
            Agent(model, [_boom])
        assert str(info.value) == (
            f"Agent takes a toolwire chat model, not LangChain's {type(model).__name__}: build toolwire's own for the "
            "same provider, such as toolwire.models.ChatOpenAI(model=...), ChatAnthropic, ChatGoogleGenAI or "
            "ChatLlamaCpp, or toolwire.models.init_chat_model('gpt-4o-mini') (LangChain tools and messages work with "
            "it as they are).")
    assert Agent(ScriptedChatModel(["hi"]), [_boom]).invoke("q").output == "hi"  # toolwire's own models still work
    mine = type("Mine", (ScriptedChatModel,), {"__module__": "langchain_migration.models"})  # a user's module
    assert Agent(mine(["ok"]), [_boom]).invoke("q").output == "ok"


# -- 12 (wording): an injected argument is named by its marker, and setting it in a call says how toolwire fills it --


def test_an_injected_state_parameter_is_not_called_injected_tool_arg() -> None:
    prebuilt = pytest.importorskip("langgraph.prebuilt")

    def read(x: int, state: Annotated[dict, prebuilt.InjectedState]) -> str:
        """Read."""
        return str(x)

    with pytest.raises(SchemaError) as info:
        tool(read)
    assert str(info.value).startswith("Tool 'read': parameter 'state' is injected by LangGraph (InjectedState), which "
                                      "toolwire has no value for: give it a default")


def test_setting_an_injected_argument_in_a_call_says_how_toolwire_fills_it() -> None:
    @tool
    def who(x: int, user_id: Annotated[str, InjectedToolArg] = "anon") -> str:
        """Who."""
        return f"{x}-{user_id}"

    assert who.invoke(_call("who", {"x": 1})).content == "1-anon"
    message = who.invoke(_call("who", {"x": 1, "user_id": "bob"}))
    assert message.status == "error" and message.content == (
        "Error: Invalid arguments for tool 'who': 'user_id' is not an argument a call may set (got 'bob'). Its "
        "parameters are: x. 'user_id' is injected (InjectedToolArg), which toolwire never reads from a call's "
        "arguments (it keeps its default): to give it a value, make the tool from functools.partial(func, "
        "user_id=...), one tool per value.")
    (sent,) = ToolExecutor([_needs_id]).execute(AIMessage("", tool_calls=[
        {"name": "_needs_id", "args": {"x": 1, "tool_call_id": "forged"}, "id": "c5"}]))
    assert sent.content.endswith("'tool_call_id' is the call's id (InjectedToolCallId), which toolwire fills from "
                                 "the tool call's \"id\".")
    with pytest.raises(ToolValidationError, match=r"'zz' is not a parameter of this tool \(got 1\)\. Its parameters "
                                                  r"are: x\.$"):
        who.invoke({"x": 1, "zz": 1})  # an unknown key is still called so

    @lc_tool
    def lc_who(x: int, user_id: Annotated[str, InjectedToolArg] = "anon") -> str:
        """Who."""
        return f"{x}-{user_id}"

    with pytest.raises(ToolValidationError) as info:
        from_langchain_tool(lc_who).invoke({"x": 1, "user_id": "bob"})
    assert str(info.value) == (
        "Invalid arguments for tool 'lc_who': 'user_id' is not an argument a call may set (got 'bob'). Its parameters "
        "are: x. 'user_id' is injected (InjectedToolArg), which toolwire never reads from a call's arguments: give its "
        "value with from_langchain_tool(lc_tool, injected={'user_id': ...}), passed with every call.")


# -- 16: from_langchain_messages says what it leaves out, and reads a legacy function_call as a call ---------------


def test_data_a_toolwire_message_cannot_hold_is_left_out_with_a_warning() -> None:
    with pytest.warns(UserWarning, match=r"^A LangChain HumanMessage's additional_kwargs \(foo\) were left out, since "
                                         r"toolwire's system, user and tool messages have no place for them: put what "
                                         r"the model should read in the content\.$"):
        (human,) = from_langchain_messages([L.HumanMessage("x", additional_kwargs={"foo": 1})])
    assert human == HumanMessage("x")
    with pytest.warns(UserWarning, match=r"ToolMessage's additional_kwargs \(a\) and response_metadata \(t\) were left "
                                         r"out, .* in the content, and data for your code in its artifact\.$"):
        (result,) = from_langchain_messages([L.ToolMessage("r", tool_call_id="c", artifact=[1], additional_kwargs={
            "a": 1}, response_metadata={"t": 2})])
    assert (result.content, result.artifact, result.tool_call_id) == ("r", [1], "c")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing to say for empty ones, nor for an AI message's, which are kept
        (_, ai) = from_langchain_messages([L.HumanMessage("q"), L.AIMessage("a", additional_kwargs={"x": 1},
                                                                             response_metadata={"model_name": "m"})])
    assert ai.response_metadata == {"model_name": "m", "additional_kwargs": {"x": 1}}


def test_a_legacy_function_call_is_read_as_a_tool_call() -> None:
    (ai,) = from_langchain_messages([L.AIMessage("", additional_kwargs={
        "function_call": {"name": "add", "arguments": '{"a": 2}'}, "other": 1})])
    assert [(c["name"], c["args"]) for c in ai.tool_calls] == [("add", {"a": 2})] and ai.tool_calls[0]["id"]
    assert ai.response_metadata == {"additional_kwargs": {"other": 1}}  # the call is not kept twice
    (cut,) = from_langchain_messages([L.AIMessage("", additional_kwargs={
        "function_call": {"name": "add", "arguments": '{"a": '}})])
    assert not cut.tool_calls and cut.invalid_tool_calls[0]["args"] == '{"a": '  # answered with an error, not run
    streamed = L.AIMessageChunk("", additional_kwargs={"function_call": {"name": "add", "arguments": '{"a"'}}) + \
        L.AIMessageChunk("", additional_kwargs={"function_call": {"arguments": ": 3}"}})
    assert from_langchain_messages([streamed])[0].tool_calls[0]["args"] == {"a": 3}
    both = L.AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1}, "id": "c1"}],
                       additional_kwargs={"function_call": {"name": "add", "arguments": '{"a": 9}'}})
    assert [c["args"] for c in from_langchain_messages([both])[0].tool_calls] == [{"a": 1}]  # tool_calls win


# -- 17: ScriptedChatModel takes LangChain's AIMessage and names other classes with their module; extra_body ---------


def test_a_scripted_langchain_reply_is_read_and_a_wrong_one_is_named_with_its_module() -> None:
    reply = ScriptedChatModel([L.AIMessage("", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c1"}])]).invoke("x")
    assert isinstance(reply, AIMessage) and reply.tool_calls[0]["args"] == {"a": 1}
    for wrong, named in ((L.HumanMessage("h"), "langchain_core.messages.human.HumanMessage"), (5, "int")):
        with pytest.raises(UserError) as info:
            ScriptedChatModel([wrong]).invoke("x")
        assert str(info.value) == (f"A scripted reply must be a toolwire AIMessage (or LangChain's) or a string, not "
                                   f"{named}: write the reply as toolwire.AIMessage(...).")


def test_chat_openai_extra_body_points_to_model_kwargs() -> None:
    from toolwire.models import ChatOpenAI

    with pytest.raises(UserError, match=r"^Unknown ChatOpenAI option 'extra_body': did you mean 'model_kwargs'\?$"):
        ChatOpenAI(model="q", base_url="http://127.0.0.1:1/v1", api_key="x", extra_body={"top_k": 3})
