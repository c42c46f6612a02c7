"""Review 99 (a LangChain/LangGraph user porting three programs): what changed in code."""

from __future__ import annotations

import asyncio

import pytest

from toolwire import (
    Agent,
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    ToolMessage,
    UserError,
    messages_from_dict,
    messages_to_dict,
    tool,
)
from toolwire.errors import ToolCallParseError, ToolValidationError
from toolwire.testing import ScriptedChatModel


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_argument_and_parse_errors_are_value_errors_as_in_langchain() -> None:
    # pydantic's ValidationError and LangChain's OutputParserException are ValueErrors: ported excepts catch them
    with pytest.raises(ValueError, match="Invalid arguments for tool 'add'"):
        add.invoke({"a": "x", "b": 1})
    assert issubclass(ToolValidationError, ValueError) and issubclass(ToolCallParseError, ValueError)


def test_a_message_attribute_set_names_both_ways_to_change_it() -> None:
    message = AIMessage("hi")
    with pytest.raises(AttributeError, match=r"use \.copy\(content=\.\.\.\) or LangChain's \.model_copy\(update="
                                             r"\{'content': \.\.\.\}\) to change 'content'"):
        message.content = "x"  # type: ignore[misc]


def _two_rounds() -> ScriptedChatModel:
    return ScriptedChatModel([AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"},
                                                        {"name": "add", "args": {"a": 3, "b": 4}, "id": "c2"}]),
                              "It is 3 and 7."])


def test_langgraphs_stream_mode_values_yields_the_state_after_each_step() -> None:
    # review 99: LangGraph's tutorial loop; the input state first, then after the model, the tools, the model
    agent = Agent(_two_rounds(), [add])
    steps = list(agent.stream({"messages": [("user", "add them")]}, stream_mode="values"))
    assert [len(step["messages"]) for step in steps] == [1, 2, 4, 5]
    assert [type(step["messages"][-1]).__name__ for step in steps] == ["HumanMessage", "AIMessage", "ToolMessage",
                                                                       "AIMessage"]
    assert steps[-1]["messages"][-1].content == "It is 3 and 7."
    assert [m.content for m in steps[2]["messages"][2:]] == ["3", "7"]


def test_langgraphs_stream_mode_updates_yields_what_each_step_added() -> None:
    updates = list(Agent(_two_rounds(), [add]).stream("add them", stream_mode="updates"))
    assert [next(iter(u)) for u in updates] == ["agent", "tools", "tools", "agent"]  # a tools update per call (v2)
    assert [u["tools"]["messages"][0].content for u in updates[1:3]] == ["3", "7"]
    assert updates[3]["agent"]["messages"][0].content == "It is 3 and 7."

    async def run() -> list:
        return [u async for u in Agent(_two_rounds(), [add]).astream("add them", stream_mode="updates")]

    assert [next(iter(u)) for u in asyncio.run(run())] == ["agent", "tools", "tools", "agent"]


def test_calls_the_input_left_unanswered_give_one_input_state_and_only_this_runs_results() -> None:
    # review 100 #1: the input state came twice, and an update held the input's own ToolMessages
    calls = [{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"},
             {"name": "add", "args": {"a": 3, "b": 4}, "id": "c2"}]
    given = [HumanMessage("add them"), AIMessage("", tool_calls=calls), ToolMessage("3", tool_call_id="c1")]
    values = list(Agent(ScriptedChatModel(["done"]), [add]).stream(given, stream_mode="values"))
    assert [len(v["messages"]) for v in values] == [3, 4, 5]  # the input, c2 answered, the reply
    updates = list(Agent(ScriptedChatModel(["done"]), [add]).stream(given, stream_mode="updates"))
    assert [(next(iter(u)), [m.content for m in next(iter(u.values()))["messages"]]) for u in updates] == [
        ("tools", ["7"]), ("agent", ["done"])]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # (langgraph 1.x's notice that create_react_agent moved)
def test_the_values_stream_matches_langgraphs_on_the_same_script() -> None:
    prebuilt = pytest.importorskip("langgraph.prebuilt")
    fakes = pytest.importorskip("langchain_core.language_models.fake_chat_models")
    from langchain_core.messages import AIMessage as LCAIMessage
    from langchain_core.tools import tool as lc_tool

    @lc_tool
    def add(a: int, b: int) -> int:  # (LangChain's twin of the module's tool)
        """Add two numbers."""
        return a + b

    class Fake(fakes.FakeMessagesListChatModel):
        def bind_tools(self, tools, **kwargs):  # type: ignore[no-untyped-def]
            return self

    script = [LCAIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"},
                                          {"name": "add", "args": {"a": 3, "b": 4}, "id": "c2"}]),
              LCAIMessage("It is 3 and 7.")]
    theirs = list(prebuilt.create_react_agent(Fake(responses=script), [add]).stream(
        {"messages": [("user", "add them")]}, stream_mode="values"))
    ours = list(Agent(_two_rounds(), [globals()["add"]]).stream({"messages": [("user", "add them")]},
                                                              stream_mode="values"))
    assert [len(s["messages"]) for s in ours] == [len(s["messages"]) for s in theirs]
    assert [s["messages"][-1].type for s in ours] == [s["messages"][-1].type for s in theirs]
    theirs_updates = list(prebuilt.create_react_agent(Fake(responses=script), [add]).stream(
        {"messages": [("user", "add them")]}, stream_mode="updates"))
    ours_updates = list(Agent(_two_rounds(), [globals()["add"]]).stream("add them", stream_mode="updates"))
    assert [next(iter(u)) for u in ours_updates] == [next(iter(u)) for u in theirs_updates]
    # (LangGraph's ToolNode may send the two parallel calls' updates in the order they finish: compared as sets)
    assert sorted([m.content for m in next(iter(u.values()))["messages"]] for u in ours_updates) == sorted(
        [m.content for m in next(iter(u.values()))["messages"]] for u in theirs_updates)


def test_a_stream_mode_an_agent_has_not_says_what_to_use() -> None:
    agent = Agent(ScriptedChatModel(["ok"]), [add])
    with pytest.raises(UserError, match="an Agent streams one mode at a time"):
        agent.stream("hi", stream_mode=["values", "updates"])
    with pytest.raises(UserError, match=r"^Agent\.stream\(stream_mode='debug'\): LangGraph's debug stream has no "
                                        r"counterpart in an Agent run; use stream_mode='values'"):
        agent.stream("hi", stream_mode="debug")


def test_a_recursion_limit_becomes_the_model_calls_it_allows() -> None:
    agent = Agent(ScriptedChatModel(["ok"]), [add])
    with pytest.raises(UserError, match=r"max_steps=2\)"):  # as many model calls as a finished LangGraph run makes
        agent.invoke("hi", config={"recursion_limit": 5})
    with pytest.raises(UserError, match=r"max_steps=12\)"):
        agent.invoke("hi", config={"recursion_limit": 25})  # LangGraph's default


def test_tool_run_and_arun_as_langchains_older_entry_points() -> None:
    assert add.run({"a": 1, "b": 2}) == 3
    answered = add.run({"a": 1, "b": 2}, tool_call_id="c1")
    assert isinstance(answered, ToolMessage) and answered.tool_call_id == "c1" and answered.content == "3"
    assert asyncio.run(add.arun({"a": 2, "b": 2})) == 4
    assert add.run({"a": 1, "b": 1}, verbose=False, callbacks=None) == 2  # LangChain's defaults pass
    assert add.run({"a": 1, "b": 1}, True, "green", "green", config={}) == 2  # its positional console options too
    with pytest.raises(UserError, match=r"^Tool\.run\(\) takes the input .*callbacks, tags are LangChain's"):
        add.run({"a": 1, "b": 1}, callbacks=[object()], tags=["t"])


def test_a_chunk_plus_a_list_of_chunks_merges_them_all() -> None:
    merged = AIMessageChunk("a") + [AIMessageChunk("b"), AIMessageChunk("c")]  # noqa: RUF005 (the API under test)
    assert isinstance(merged, AIMessageChunk) and merged.text == "abc"
    with pytest.raises(TypeError):
        AIMessageChunk("a") + ["b"]  # type: ignore[operator]  # noqa: RUF005


CONVERSATION = [HumanMessage("q"), AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}]),
                ToolMessage("3", tool_call_id="c1")]


def test_messages_to_dict_writes_langchains_form_and_messages_from_dict_reads_it_back() -> None:
    saved = messages_to_dict(CONVERSATION)
    assert [d["type"] for d in saved] == ["human", "ai", "tool"]
    assert messages_from_dict(saved) == CONVERSATION
    lc = pytest.importorskip("langchain_core.messages")
    from toolwire.interop.langchain import to_langchain_messages

    assert saved == lc.messages_to_dict(to_langchain_messages(CONVERSATION))  # the same dicts LangChain writes
    assert [m.content for m in lc.messages_from_dict(saved)] == ["q", "", "3"]  # which LangChain reads
    assert messages_from_dict(lc.messages_to_dict(to_langchain_messages(CONVERSATION))) == CONVERSATION
    with pytest.raises(UserError, match="takes a toolwire message"):
        messages_to_dict([lc.HumanMessage("x")])


def test_a_repeated_call_answered_without_running_is_said_once_and_the_fix_named() -> None:
    cart: list[str] = []

    @tool
    def add_to_cart(item: str) -> str:
        """Add an item to the cart."""
        cart.append(item)
        return f"cart has {len(cart)} items"

    def call(i: int) -> dict:
        return {"name": "add_to_cart", "args": {"item": "apple"}, "id": f"c{i}"}

    script = [AIMessage("", tool_calls=[call(1), call(2)]), AIMessage("", tool_calls=[call(3)]), "done"]
    with pytest.warns(UserWarning, match=r"answered a repeated call of 'add_to_cart' .* pass Agent\(\.\.\., "
                                         r"repeat_calls=\['add_to_cart'\]\)\.") as caught:
        result = Agent(ScriptedChatModel(script), [add_to_cart]).invoke("add three apples")
    assert cart == ["apple"] and result.output == "done"
    assert len([w for w in caught if "repeated call" in str(w.message)]) == 1 and caught[0].filename == __file__
    cart.clear()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Agent(ScriptedChatModel(script), [add_to_cart], repeat_calls=["add_to_cart"]).invoke("add three apples")
    assert cart == ["apple"] * 3


def test_the_command_line_shows_a_warning_as_one_line(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # the Agent's repeated-call note reached `toolwire ask` users as Python's two-line warning with toolwire's path
    import warnings

    from toolwire import cli

    def app() -> None:
        warnings.warn("The Agent answered a repeated call of 'x'.", UserWarning, stacklevel=1)

    monkeypatch.setattr(cli, "app", app)
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)  # (restored after the test)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        cli.main()
    assert capsys.readouterr().err == "warning: The Agent answered a repeated call of 'x'.\n"



def test_the_repeated_call_note_keeps_the_tools_already_named() -> None:
    @tool
    def poll(job: str) -> str:
        """Poll a job."""
        return "running"

    call = {"name": "add", "args": {"a": 1, "b": 1}, "id": "c1"}
    script = [AIMessage("", tool_calls=[call, {**call, "id": "c2"}]), "done"]
    with pytest.warns(UserWarning, match=r"repeat_calls=\['add', 'poll'\]\)"):
        Agent(ScriptedChatModel(script), [add, poll], repeat_calls=["poll"]).invoke("go")
