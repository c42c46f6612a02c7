"""Review 104 #3: a call answered without running the tool (a repeated call) is marked where a program can read it:
``AgentResult.reused_calls`` (positions in the conversation: call ids may repeat across replies, review 106) and, in
``toolwire ask --json``, the ToolMessage's ``"answer_reused_from"``, also when the run ends in an error."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from toolwire import Agent, AIMessage, RepeatedCallWarning, ToolMessage, tool
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel


def _tools(ran: list[str]) -> list:
    @tool
    def list_orders(customer: str) -> str:
        """List a customer's orders."""
        ran.append(customer)
        return f"orders of {customer}: O-{len(ran)}"

    @tool
    def flaky(n: int) -> str:
        """Fail."""
        ran.append(f"flaky {n}")
        raise ValueError("down")

    return [list_orders, flaky]


def _replies() -> list[AIMessage]:
    first = AIMessage("", tool_calls=[tool_call("list_orders", {"customer": "Ana"}, "a1"),
                                      tool_call("list_orders", {"customer": "Bo"}, "b1"),
                                      tool_call("list_orders", {"customer": "Ana"}, "a2")])
    again = AIMessage("", tool_calls=[tool_call("list_orders", {"customer": "Bo"}, "b2")])
    return [first, again, AIMessage("Done.")]


def test_the_result_maps_each_call_answered_without_running_to_the_call_whose_answer_it_got() -> None:
    ran: list[str] = []
    with pytest.warns(RepeatedCallWarning):
        result = Agent(ScriptedChatModel(_replies()), _tools(ran)).invoke("orders?")
    assert ran == ["Ana", "Bo"]
    where = {m.tool_call_id: i for i, m in enumerate(result.messages) if isinstance(m, ToolMessage)}
    # a twin in one reply, then a repeat in a later round
    assert result.reused_calls == {where["a2"]: where["a1"], where["b2"]: where["b1"]}
    for given, source in result.reused_calls.items():
        assert result.messages[given].content == result.messages[source].content


def test_a_failed_call_answered_with_its_error_again_names_the_last_failure() -> None:
    ran: list[str] = []
    replies = [AIMessage("", tool_calls=[tool_call("flaky", {"n": 1}, f"f{i}")]) for i in (1, 2, 3, 4)]
    result = Agent(ScriptedChatModel([*replies, AIMessage("Gave up.")]), _tools(ran)).invoke("go")
    assert ran == ["flaky 1"] * 3  # the fourth identical call is answered with the error, not run
    where = {m.tool_call_id: i for i, m in enumerate(result.messages) if isinstance(m, ToolMessage)}
    assert result.reused_calls == {where["f4"]: where["f3"]}


@pytest.mark.parametrize("repeat_calls", ["run", ["list_orders"]])
def test_nothing_is_marked_when_every_call_runs(repeat_calls) -> None:
    ran: list[str] = []
    result = Agent(ScriptedChatModel(_replies()), _tools(ran), repeat_calls=repeat_calls).invoke("orders?")
    assert ran == ["Ana", "Bo", "Ana", "Bo"] and result.reused_calls == {}
    assert "reused_calls" not in result  # not one of the LangGraph-style dict keys


@pytest.mark.filterwarnings("ignore::toolwire.RepeatedCallWarning")
def test_ask_json_marks_the_tool_message_of_a_reused_answer(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from toolwire import cli

    model = ScriptedChatModel(_replies())
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    tools_file = tmp_path / "shop.py"
    tools_file.write_text(
        "from toolwire import tool\n\n\n@tool\ndef list_orders(customer: str) -> str:\n"
        '    """List a customer\'s orders."""\n    return f"orders of {customer}"\n')
    result = CliRunner().invoke(cli.app, ["ask", "orders?", "--tools", str(tools_file), "--json"])
    assert result.exit_code == 0, result.output
    start = result.stdout.index("[")
    messages = json.loads(result.stdout[start:])
    where = {m["tool_call_id"]: i for i, m in enumerate(messages) if m["type"] == "tool"}
    marks = {m["tool_call_id"]: m.get("answer_reused_from") for m in messages if m["type"] == "tool"}
    assert marks == {"a1": None, "b1": None, "a2": where["a1"], "b2": where["b1"]}
    # the marked dicts still read back as messages
    from toolwire.messages import messages_from_dict

    assert [m.type for m in messages_from_dict(messages)] == ["human", "ai", "tool", "tool", "tool", "ai", "tool", "ai"]


def test_call_ids_a_server_gives_again_in_each_reply_do_not_mix_up_the_marks() -> None:
    ran: list[str] = []
    replies = [AIMessage("", tool_calls=[tool_call("list_orders", {"customer": "Ana"}, "call_0")]),
               AIMessage("", tool_calls=[tool_call("list_orders", {"customer": "Ana"}, "call_0")]),
               AIMessage("Done.")]
    with pytest.warns(RepeatedCallWarning):
        result = Agent(ScriptedChatModel(replies), _tools(ran)).invoke("orders?")
    assert ran == ["Ana"]
    first, second = (i for i, m in enumerate(result.messages) if isinstance(m, ToolMessage))
    assert result.reused_calls == {second: first}  # the second answer was not run; the first was


@pytest.mark.filterwarnings("ignore::toolwire.RepeatedCallWarning")
def test_a_run_that_reaches_max_steps_still_says_which_answers_were_reused(monkeypatch: pytest.MonkeyPatch,
                                                                           tmp_path) -> None:
    from toolwire import cli
    from toolwire.errors import MaxStepsExceeded

    loop = AIMessage("", tool_calls=[tool_call("list_orders", {"customer": "Ana"}, "c1")])
    ran: list[str] = []
    with pytest.raises(MaxStepsExceeded) as caught:
        Agent(ScriptedChatModel([loop], cycle=True), _tools(ran), max_steps=3).invoke("orders?")
    tools = [i for i, m in enumerate(caught.value.messages) if isinstance(m, ToolMessage)]
    # (the third call, made with tools off, is answered "tool calls were off", not reused: review 141 #7)
    assert ran == ["Ana"] and caught.value.reused_calls == {tools[1]: tools[0]}
    model = ScriptedChatModel([loop], cycle=True)
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    tools_file = tmp_path / "shop.py"
    tools_file.write_text(
        "from toolwire import tool\n\n\n@tool\ndef list_orders(customer: str) -> str:\n"
        '    """List a customer\'s orders."""\n    return f"orders of {customer}"\n')
    result = CliRunner().invoke(cli.app, ["ask", "orders?", "--tools", str(tools_file), "--json", "--max-steps", "3"])
    assert result.exit_code == 1
    messages = json.loads(result.stdout[result.stdout.index("["):])
    tools = [i for i, m in enumerate(messages) if m["type"] == "tool"]
    assert [messages[i].get("answer_reused_from") for i in tools] == [None, tools[0], None]
