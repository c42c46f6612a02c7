"""Review 89 (a skeptic's review of the thirty-sixth session's changes)."""

from __future__ import annotations

import pytest

from toolwire import Agent, current_call_id, current_tool_call, tool
from toolwire.errors import MaxStepsExceeded, ToolExecutionError
from toolwire.messages import AIMessage
from toolwire.testing import ScriptedChatModel


def _calls(*calls: tuple[str, dict, str], invalid: list | None = None) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": n, "args": a, "id": i} for n, a, i in calls],
                     invalid_tool_calls=invalid or [])


# -- #1: a bad call beside a call that succeeds is still given up on (review 67's loop) ----------------------------

@pytest.mark.parametrize("bad_first", [True, False])  # (review 91: the good call first too)
def test_a_bad_call_sent_with_a_good_one_each_time_is_given_up_on(bad_first: bool) -> None:
    ran: list[str] = []

    @tool
    def calculate(expression: str) -> str:
        """Evaluate."""
        ran.append(expression)
        raise ValueError("bad expression")

    @tool
    def get_time() -> str:
        """The time."""
        return "12:00"

    def reply(i: int) -> AIMessage:
        bad, good = ("calculate", {"expression": "1+"}, f"a{i}"), ("get_time", {}, f"b{i}")
        return _calls(bad, good) if bad_first else _calls(good, bad)

    model = ScriptedChatModel([reply(i) for i in range(12)])
    with pytest.raises(MaxStepsExceeded):
        Agent(model, [calculate, get_time], max_steps=12).invoke("q")
    assert len(ran) <= 4  # three tries, and one more after another tool's success (review 88's reset let it run 9
    # times, tools on to the end)
    assert "none" in [r.tool_choice for r in model.requests]


# -- #2: handle_errors=False in an Agent: an invalid call is refused at its place; twins keep their answers --------

@tool
def send_email(to: str) -> str:
    """Send an email."""
    _sent.append(to)
    return f"sent to {to}"


_sent: list[str] = []
_CUT = {"name": "send_email", "args": '{"to": ', "id": "c0", "error": "the arguments were cut off"}


def test_an_invalid_call_first_in_the_reply_stops_the_agents_calls_after_it() -> None:
    _sent.clear()
    reply = _calls(("send_email", {"to": "bob"}, "c1"), invalid=[{**_CUT, "index": 0}])
    with pytest.raises(ToolExecutionError) as caught:
        Agent(ScriptedChatModel([reply, "done"]), [send_email], handle_errors=False).invoke("q")
    assert _sent == []  # (was: ['bob']: the Agent dropped the index, so the invalid call came last)
    assert [m.type for m in caught.value.messages] == ["human", "ai"]


def test_a_twin_of_a_call_that_ran_keeps_its_answer_on_the_error() -> None:
    _sent.clear()
    reply = _calls(("send_email", {"to": "bob"}, "c1"), ("send_email", {"to": "bob"}, "c2"), invalid=[_CUT])
    with pytest.raises(ToolExecutionError) as caught:
        Agent(ScriptedChatModel([reply, "done"]), [send_email], handle_errors=False).invoke("q")
    answered = [m.tool_call_id for m in caught.value.messages if m.type == "tool"]
    assert _sent == ["bob"] and answered == ["c1", "c2"]  # (was: c1 only)
    Agent(ScriptedChatModel(["done"]), [send_email]).invoke(caught.value.messages)
    assert _sent == ["bob"]  # (was: resuming sent bob a second email)


# -- #3: current_tool_call() copies the JSON containers only; current_call_id() copies nothing ---------------------

def test_the_current_call_shares_the_applications_objects_and_the_id_needs_no_copy() -> None:
    class Session:
        def __init__(self) -> None:
            self.log: list[str] = []

    session = Session()
    seen: list[object] = []

    @tool
    def act(session: object, rows: list) -> str:
        """Act."""
        call = current_tool_call()
        call["args"]["session"].log.append("acted")  # the application's object, not a copy
        call["args"]["rows"].append("edited")  # a copy of the list
        seen.append(current_call_id())
        return "ok"

    rows = [1, 2]
    answer = act.invoke({"name": "act", "args": {"session": session, "rows": rows}, "id": "c7", "type": "tool_call"})
    assert answer.content == "ok" and session.log == ["acted"] and rows == [1, 2] and seen == ["c7"]
    assert current_call_id() is None and current_tool_call() is None  # outside a call


# -- #5, #6: a resumed run with nothing to answer runs no round; call()'s errors name the argument at fault --------

def test_no_empty_round_and_call_names_the_bad_argument() -> None:
    from toolwire import HumanMessage, ToolMessage
    from toolwire.errors import UserError
    from toolwire.execution import ToolExecutor

    rounds: list[object] = []
    agent = Agent(ScriptedChatModel(["Sent."]), [send_email], tool_choice="required")
    real = agent.executor.call
    agent.executor.call = lambda *a: rounds.append(a) or real(*a)  # type: ignore[method-assign]
    done = [HumanMessage("Email Bob"), _calls(("send_email", {"to": "bob"}, "c1")), ToolMessage("sent", "c1")]
    assert agent.invoke(done).output == "Sent." and rounds == []  # (was: one round of no calls)
    with pytest.raises(UserError, match=r"^call\(\)'s invalid calls must be a list, not None"):
        ToolExecutor([send_email]).call([{"name": "send_email", "args": {"to": "x"}, "id": "c"}],
                                        None)  # type: ignore[arg-type]


# -- review 91: every success of a round is recorded, wherever it stands in the reply ------------------------------

def test_return_direct_first_and_repeats_are_seen_in_any_call_order() -> None:
    from toolwire import ToolMessage

    runs: list[str] = []

    @tool(return_direct=True)
    def finish(answer: str) -> str:
        """Give the final answer."""
        return f"FINAL:{answer}"

    @tool
    def lookup(key: str) -> str:
        """Look a key up."""
        runs.append(key)
        return f"value of {key}"

    model = ScriptedChatModel([_calls(("finish", {"answer": "x"}, "c1"), ("lookup", {"key": "a"}, "c2"))])
    result = Agent(model, [finish, lookup]).invoke("q")
    assert (result.stop_reason, result.output) == ("return_direct", "FINAL:x")  # (was: the model's text)
    runs.clear()
    model = ScriptedChatModel([_calls(("lookup", {"key": "a"}, "c1"), ("lookup", {"key": "b"}, "c2")),
                               _calls(("lookup", {"key": "a"}, "c3")), "done"])
    result = Agent(model, [lookup]).invoke("q")
    assert runs == ["a", "b"]  # the repeat of a (not the last call of its round) is answered, not run again
    assert result.messages[-2] == ToolMessage("value of a", "c3", name="lookup")


def test_two_invalid_calls_in_a_row_keep_their_order_and_mapping_args_are_copied() -> None:
    from collections import OrderedDict

    from toolwire._agent_repeats import executor_invalid
    from toolwire._call_records import in_reply_order

    first = {"name": "a", "args": "x", "id": "i0", "error": "first", "index": 0, "type": "invalid_tool_call"}
    second = {"name": "b", "args": "y", "id": "i1", "error": "second", "index": 1, "type": "invalid_tool_call"}
    valid = [{"name": "send_email", "args": {"to": "x"}, "id": "v", "type": "tool_call"}]
    placed = executor_invalid(valid, valid, [first, second], handle_errors=False)
    assert [c["id"] for c in in_reply_order(valid, placed, placed)] == ["i0", "i1", "v"]  # (was: i1, i0, v)

    @tool
    def login(user: str, password: str) -> str:
        """Log in."""
        current_tool_call()["args"]["password"] = "***"
        return "ok"

    mine = {"name": "login", "args": OrderedDict(user="u", password="secret"), "id": "c1", "type": "tool_call"}
    assert login.invoke(mine).content == "ok"
    assert mine["args"]["password"] == "secret"  # (was: '***': a dict subclass was shared)


def test_a_mapping_nested_in_the_arguments_is_copied_too() -> None:
    """Review 92: a mapping inside the arguments (not a plain dict) was still shared with the caller."""
    from collections import OrderedDict

    @tool
    def edit(x: dict) -> str:
        """Edit."""
        current_tool_call()["args"]["x"]["k"] = "EDIT"
        return "ok"

    mine = {"name": "edit", "args": {"x": OrderedDict(k="orig")}, "id": "c1", "type": "tool_call"}
    assert edit.invoke(mine).content == "ok" and mine["args"]["x"]["k"] == "orig"
