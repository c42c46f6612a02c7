"""Review 101 (a Pydantic AI / OpenAI Agents SDK user porting three programs): what changed in code."""

from __future__ import annotations

import threading
import time

import pytest

from toolwire import AIMessage, message_from_dict, tool
from toolwire.errors import ToolTimeoutError
from toolwire.messages import tool_call

WAIT = 5.0


def test_a_timed_out_sync_tool_still_running_is_not_called_a_dead_end() -> None:
    # the model read "its result will not be used. Try a smaller request." and sent the email again, while the
    # first one, on its abandoned thread, went out too
    release = threading.Event()
    sent: list[str] = []

    @tool(timeout=0.05)
    def send_email(to: str) -> str:
        """Send an email."""
        release.wait(WAIT)
        sent.append(to)
        return "sent"

    try:
        with pytest.raises(ToolTimeoutError, match=r"still running, so it may yet take effect; its result will not "
                                                   r"be used: check what it did before calling it again\."):
            send_email.invoke({"to": "bob@example.com"})
        answer = send_email.invoke({"name": "send_email", "args": {"to": "bob@example.com"}, "id": "c1",
                                    "type": "tool_call"})
        assert answer.status == "error" and "Try a smaller request" not in answer.content
        assert answer.content.endswith("check what it did before calling it again.")
    finally:
        release.set()


def test_url_credentials_in_a_tool_error_are_masked_before_the_model_sees_them() -> None:
    @tool
    def leaky(q: str) -> str:
        """Query the database."""
        raise ConnectionError("could not connect to postgres://admin:hunter2@db.internal/prod?sslmode=require or "
                              "https://api.example.com/v1?q=1&token=abc123")

    answer = leaky.invoke({"name": "leaky", "args": {"q": "x"}, "id": "c1", "type": "tool_call"})
    assert answer.content == ("Error: tool 'leaky' raised ConnectionError: could not connect to "
                              "postgres://****@db.internal/prod?sslmode=require or "
                              "https://api.example.com/v1?q=1&token=****")


def _nested(levels: int) -> dict:
    top: dict = {}
    node = top
    for _ in range(levels - 1):
        node["x"] = {}
        node = node["x"]
    return top


@pytest.mark.parametrize("levels", [65, 600, 5000])
def test_an_aimessage_with_arguments_nested_too_deeply_holds_an_invalid_call_as_a_providers_reply_does(
        levels: int) -> None:
    message = AIMessage("", tool_calls=[tool_call("echo", _nested(levels), "c1"),
                                        tool_call("echo", {"data": "ok"}, "c2")])
    assert [c["id"] for c in message.tool_calls] == ["c2"]
    [bad] = message.invalid_tool_calls
    assert bad["id"] == "c1" and bad["name"] == "echo" and isinstance(bad["args"], str)
    assert bad["error"].startswith("The arguments are nested too deeply to read (more than 64 levels")
    from_dict = message_from_dict({"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": _nested(levels)}}]})
    assert from_dict.invalid_tool_calls[0]["error"] == bad["error"]
    # an invalid call given with such arguments keeps them as text
    again = AIMessage("", invalid_tool_calls=[{"name": "echo", "args": _nested(levels), "id": "c3", "error": "e"}])
    assert isinstance(again.invalid_tool_calls[0]["args"], str)


def test_arguments_64_levels_deep_are_still_a_call() -> None:
    message = AIMessage("", tool_calls=[tool_call("echo", _nested(64), "c1")])
    assert message.tool_calls[0]["args"] == _nested(64) and not message.invalid_tool_calls


def test_the_three_ways_the_readme_gives_to_pass_dependencies_keep_them_from_the_model() -> None:
    import contextvars
    import functools

    from toolwire import Agent
    from toolwire.testing import ScriptedChatModel

    user: contextvars.ContextVar[str] = contextvars.ContextVar("user")

    def balance(db: dict, account: str) -> str:
        """Look up an account's balance.

        Args:
            account: the account's name.
        """
        return f"{user.get()}:{db[account]}"

    class Accounts:
        def __init__(self, db: dict) -> None:
            self.db = db

        @tool
        def owner(self, account: str) -> str:
            """Name an account's owner."""
            return f"{user.get()} owns {account} ({self.db[account]})"

    db = {"main": 42}
    by_partial, by_method = tool(functools.partial(balance, db)), Accounts(db).owner
    for made in (by_partial, by_method):
        assert list(made.args) == ["account"], made.name
    replies = [AIMessage("", tool_calls=[tool_call("balance", {"account": "main"}, "c1"),
                                         tool_call("owner", {"account": "main"}, "c2")]), "done"]
    token = user.set("u1")
    try:
        result = Agent(ScriptedChatModel(replies), [by_partial, by_method]).invoke("go")
    finally:
        user.reset(token)
    assert [m.content for m in result.messages[2:4]] == ["u1:42", "u1 owns main (42)"]
    refused = by_partial.invoke({"name": "balance", "args": {"account": "main", "db": {}}, "id": "c3",
                                 "type": "tool_call"})
    assert refused.status == "error" and "db" in refused.content


@pytest.mark.parametrize(("option", "advice"), [
    ("deps", r"not deps=: give tools what they need when they are made \(functools\.partial"),
    ("message_history", r"not message_history=: continue a conversation by passing its messages as the input, "
                        r"invoke\(result\.messages \+ \[question\]\)\."),
])
def test_pydantic_ai_run_options_are_refused_with_what_to_do(option: str, advice: str) -> None:
    from toolwire import Agent, UserError
    from toolwire.testing import ScriptedChatModel

    agent = Agent(ScriptedChatModel(["hi"]), [])
    with pytest.raises(UserError, match=r"^Agent\.invoke\(\) takes only the input, " + advice):
        agent.invoke("q", **{option: 1})
    with pytest.raises(UserError, match=r"^Agent\.stream\(\) takes only"):
        list(agent.stream("q", **{option: 1}))


def test_agent_options_of_other_libraries_are_refused_with_what_to_do() -> None:
    from toolwire import Agent, UserError
    from toolwire.testing import ScriptedChatModel

    with pytest.raises(UserError, match=r"'instructions': give the instructions as the system prompt, "
                                        r"Agent\(\.\.\., system_prompt="):
        Agent(ScriptedChatModel(["hi"]), [], instructions="be brief")
    with pytest.raises(UserError, match=r"'model_settings': set generation options on the model, "
                                        r"model\.bind\(temperature=0\)"):
        Agent(ScriptedChatModel(["hi"]), [], model_settings={"temperature": 0})


def test_a_runs_result_given_as_the_input_says_to_pass_its_messages() -> None:
    from toolwire import Agent, UserError
    from toolwire.testing import ScriptedChatModel

    agent = Agent(ScriptedChatModel(["hi", "again"]), [])
    result = agent.invoke("q")
    with pytest.raises(UserError, match=r"not a run's result \(AgentResult\): to continue its conversation, pass "
                                        r"result\.messages \+ \[question\]\.$"):
        agent.invoke(result)
    assert agent.invoke([*result.messages, "more"]).output == "again"


def test_messages_to_dict_can_always_be_written_as_json_and_read_back() -> None:
    import datetime
    import decimal
    import json

    from toolwire import ToolMessage, message_to_dict, messages_from_dict, messages_to_dict

    artifact = {"rows": [[1, datetime.date(2025, 1, 1), decimal.Decimal("1.5")]], "tags": {"a"}}
    messages = [AIMessage("", tool_calls=[tool_call("query", {"q": "x"}, "c1")]),
                ToolMessage("1 row", "c1", artifact=artifact)]
    saved = json.dumps(messages_to_dict(messages))
    again = messages_from_dict(json.loads(saved))
    assert again[1].artifact == {"rows": [[1, "2025-01-01", "1.5"]], "tags": ["a"]}
    assert again[0].tool_calls == messages[0].tool_calls and again[1].content == "1 row"
    assert json.dumps(message_to_dict(messages[1])) == json.dumps(messages_to_dict(messages)[1])


def test_a_result_object_with_no_text_of_its_own_is_logged_once_per_class(caplog: pytest.LogCaptureFixture) -> None:
    class Opaque:
        pass

    class Shown:
        def __str__(self) -> str:
            return "shown"

    @tool
    def fetch(which: str) -> object:
        """Fetch something."""
        return {"opaque": Opaque(), "shown": Shown()}

    with caplog.at_level("WARNING", logger="toolwire.tools"):
        first = fetch.invoke(tool_call("fetch", {"which": "a"}, "c1")).content
        fetch.invoke(tool_call("fetch", {"which": "b"}, "c2"))
    assert '"shown": "shown"' in first and "Opaque object at 0x" in first
    told = [r.getMessage() for r in caplog.records if "no JSON form" in r.getMessage()]
    name = Opaque.__qualname__
    assert told == [f"A tool result or artifact holds an instance of {name}, which has no JSON form and no text of its "
                    f"own, so it is written as '<{name} object at 0x...>': return a dict, a dataclass or a pydantic "
                    "model of what it holds, or give the class a __str__."]


@pytest.mark.parametrize("run", ["invoke", "stream", "values", "batch"])
def test_a_langgraph_state_with_other_keys_is_refused_without_naming_another_method(run: str) -> None:
    # (review 100: Agent.stream's error named Agent.invoke)
    from toolwire import Agent, HumanMessage, UserError
    from toolwire.testing import ScriptedChatModel

    agent = Agent(ScriptedChatModel(["hi"]), [])
    state = {"messages": [HumanMessage("q")], "user_id": "u1"}
    calls = {"invoke": lambda: agent.invoke(state), "stream": lambda: list(agent.stream(state)),
             "values": lambda: list(agent.stream(state, stream_mode="values")), "batch": lambda: agent.batch([state])}
    wanted = (r"^An Agent run reads only the 'messages' of a LangGraph state, not user_id: pass the messages .* \(see "
              r"the README's \"Passing dependencies to tools\"\)\.$")
    with pytest.raises(UserError, match=wanted):
        calls[run]()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # (langgraph 1.x's notice that create_react_agent moved)
@pytest.mark.parametrize("mode", ["updates", "values"])
def test_a_failing_round_under_handle_errors_false_streams_the_calls_that_finished_as_langgraph_does(
        mode: str) -> None:
    # (review 100: "updates" gave nothing for the calls that succeeded before the failure; LangGraph's tool node
    # streams each finished call's update, then raises; its "values" stream has no state for them)
    import threading

    from toolwire import Agent
    from toolwire.testing import ScriptedChatModel

    prebuilt = pytest.importorskip("langgraph.prebuilt")
    fakes = pytest.importorskip("langchain_core.language_models.fake_chat_models")
    from langchain_core.messages import AIMessage as LCAIMessage
    from langchain_core.tools import tool as lc_tool

    added = threading.Event()

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        added.set()
        return a + b

    def boom(a: int) -> int:
        """Fail."""
        added.wait(WAIT)  # (after add has answered)
        time.sleep(0.2)  # (add set the event before it returned: LangGraph's ToolNode, whose side this compares with,
        # dropped add's answer when boom raised first, once in a full run of the suite)
        raise ValueError("boom")

    class Fake(fakes.FakeMessagesListChatModel):
        def bind_tools(self, tools, **kwargs):  # type: ignore[no-untyped-def]
            return self

    calls = [{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}, {"name": "boom", "args": {"a": 3}, "id": "c2"}]

    def collect(stream: object) -> tuple[list[object], str]:
        got: list[object] = []
        with pytest.raises(ValueError, match="boom"):
            for item in stream:  # type: ignore[attr-defined]
                got.append(item)
        shown = [(next(iter(u)), [m.content for m in next(iter(u.values()))["messages"]]) if mode == "updates" else
                 [m.type for m in u["messages"]] for u in got]  # type: ignore[union-attr]
        return shown, mode

    lc_tools = prebuilt.ToolNode([lc_tool(add), lc_tool(boom)], handle_tool_errors=False)
    theirs = collect(prebuilt.create_react_agent(Fake(responses=[LCAIMessage("", tool_calls=calls)]), lc_tools).stream(
        {"messages": [("user", "go")]}, stream_mode=mode))
    added.clear()
    ours = collect(Agent(ScriptedChatModel([AIMessage("", tool_calls=calls)]), [tool(add), tool(boom)],
                         handle_errors=False).stream("go", stream_mode=mode))
    assert ours == theirs
    assert ours[0] == ([("agent", [""]), ("tools", ["3"])] if mode == "updates" else [["human"], ["human", "ai"]])
