"""Review 121 (a skeptic on the session's changes): tool_choice "none" holds when a server ignores it twice; a named
tool_choice stays on after a reply that called only other tools; a second read beside a second write does not
confirm the first; the embedded model's decline of repeated calls agrees with the Agent; --tools cannot shadow an
installed package; a dict keyed by a huge integer is saved."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import Agent, AIMessage, ToolMessage, tool
from toolwire.models._answered import answered_calls
from toolwire.testing import ScriptedChatModel


def _call(tool_name: str, call_id: str, **args: Any) -> dict[str, Any]:
    return {"name": tool_name, "args": args, "id": call_id, "type": "tool_call"}


def test_tool_choice_none_holds_when_the_server_ignores_it_on_every_reply() -> None:
    ran: list[str] = []

    @tool
    def delete_all() -> str:
        """Delete every record."""
        ran.append("delete_all")
        return "deleted"

    model = ScriptedChatModel([AIMessage("", tool_calls=[_call("delete_all", f"c{i}")]) for i in range(2)] + ["ok"])
    result = Agent(model, [delete_all], tool_choice="none").invoke("Summarise")
    assert ran == [] and result.output == "ok"  # was: the second reply's call ran
    assert all(m.status == "error" for m in result.messages if isinstance(m, ToolMessage))


def test_a_named_tool_choice_stays_on_after_a_reply_that_called_only_other_tools() -> None:
    ran: list[str] = []

    @tool
    def get_weather(city: str) -> str:
        """Weather of a city."""
        ran.append(city)
        return "sunny"

    @tool
    def search(q: str) -> str:
        """Search the web."""
        return "results"

    model = ScriptedChatModel([AIMessage("", tool_calls=[_call("search", "s1", q="Paris weather")]),
                               AIMessage("", tool_calls=[_call("get_weather", "w1", city="Paris")]), "Sunny."])
    result = Agent(model, [get_weather, search], tool_choice="get_weather").invoke("Weather in Paris?")
    assert [r.tool_choice for r in model.requests] == ["get_weather", "get_weather", "auto"]  # was: then "none"
    assert ran == ["Paris"] and result.output == "Sunny."


def test_a_second_read_beside_a_second_write_does_not_confirm_the_first() -> None:
    tasks: list[str] = []
    reads: list[int] = []

    @tool
    def add_task(name: str) -> str:
        """Add a task."""
        tasks.append(name)
        return f"added {name}"

    @tool
    def list_tasks() -> str:
        """List the tasks."""
        reads.append(1)
        return "a" if len(reads) <= 2 else ", ".join(tasks)  # (the two reads beside a write came before it)

    model = ScriptedChatModel([
        AIMessage("", tool_calls=[_call("add_task", "1", name="a"), _call("list_tasks", "2")]),
        AIMessage("", tool_calls=[_call("add_task", "3", name="b"), _call("list_tasks", "4")]),
        AIMessage("", tool_calls=[_call("list_tasks", "5")]), "done"])
    result = Agent(model, [add_task, list_tasks]).invoke("hi")
    answers = {m.tool_call_id: m.text for m in result.messages if isinstance(m, ToolMessage)}
    assert answers["5"] == "a, b" and result.reused_calls == {}  # was: "a" again, without running
    assert answered_calls(result.messages[:7]) == frozenset()  # the embedded model's decline agrees


def test_a_reply_repeated_whole_with_the_same_answers_is_given_again() -> None:
    ran: list[str] = []

    @tool
    def get_weather(city: str) -> str:
        """Weather of a city."""
        ran.append(city)
        return "sunny"

    @tool
    def calculate(expression: str) -> str:
        """Calculate."""
        ran.append(expression)
        return "4"

    both = [_call("get_weather", "w", city="Tokyo"), _call("calculate", "c", expression="2+2")]
    model = ScriptedChatModel([AIMessage("", tool_calls=both) for _ in range(3)] + ["Sunny; 4."])
    with pytest.warns(Warning):
        result = Agent(model, [get_weather, calculate]).invoke("q")
    assert sorted(ran) == sorted(["Tokyo", "2+2"] * 2)  # run twice (the second confirms); the third is answered
    assert model.requests[-1].tool_choice == "none" and result.output == "Sunny; 4."


def test_the_embedded_decline_does_not_count_an_answer_the_agent_gave_without_running() -> None:
    listed = AIMessage("", tool_calls=[_call("list_tasks", "1")])
    both = AIMessage("", tool_calls=[_call("list_tasks", "2"), _call("add_task", "3", name="a")])
    messages = [listed, ToolMessage("(none)", tool_call_id="1"), both, ToolMessage("(none)", tool_call_id="2"),
                ToolMessage("added a", tool_call_id="3")]
    assert answered_calls(messages) == frozenset()  # was: list_tasks, whose answer was round 1's


def test_tools_cannot_shadow_an_installed_package(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import sys

    from toolwire.cli_tools import load_tools

    (tmp_path / "json.py").write_text("SHADOWED = True\n")  # a user's file named like an installed module
    (tmp_path / "tools_r121.py").write_text("from toolwire import tool\n\n@tool\ndef ping() -> str:\n"
                                            "    \"\"\"Ping.\"\"\"\n    return 'pong'\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", os.getcwd())])
    assert [t.name for t in load_tools(str(tmp_path / "tools_r121.py"))] == ["ping"]
    assert sys.path.index(str(tmp_path)) > 0 and str(tmp_path) == sys.path[-1]  # after the installed packages
    import importlib.util
    from pathlib import Path

    origin = importlib.util.find_spec("json").origin  # type: ignore[union-attr]
    assert "SHADOWED" not in Path(str(origin)).read_text()  # (was: the user's json.py, put first on the path)


def test_a_dict_keyed_by_a_huge_integer_keeps_its_other_keys() -> None:
    import json

    from toolwire.results import json_ready

    ready = json_ready({"n": 10 ** 5000, 10 ** 5000: "key", "small": 1})
    assert ready["small"] == 1 and ready["n"].endswith("(5001 digits)")  # was: "<dict object>", all lost
    assert ready["10000000000000000000... (5001 digits)"] == "key"
    json.dumps(ready)


def test_a_server_that_ignores_tool_choice_none_is_named_at_the_step_limit() -> None:
    from toolwire import MaxStepsExceeded

    @tool
    def delete_all() -> str:
        """Delete every record."""
        return "deleted"

    def calls() -> ScriptedChatModel:
        return ScriptedChatModel([AIMessage("", tool_calls=[_call("delete_all", "c")])], cycle=True)

    with pytest.raises(MaxStepsExceeded, match="ignores tool_choice='none'") as error:  # was: "raise max_steps"
        Agent(calls(), [delete_all], tool_choice="none", max_steps=2).invoke("Summarise")
    assert "raise max_steps" not in str(error.value)
    result = Agent(calls(), [delete_all], tool_choice="none", max_steps=2, on_max_steps="answer").invoke("Summarise")
    assert "ignores tool_choice='none'" in result.output and "raise max_steps" not in result.output
