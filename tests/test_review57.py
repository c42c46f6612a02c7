"""Review 57 (a fresh user trying to break toolwire): what a model bound beforehand carries into an Agent.

The other faults it found are tested beside their code: calls left in a server's text
(tests/providers/test_text_tool_calls.py), long call ids for OpenAI (tests/providers/test_lowering_openai.py),
results a model cannot read (tests/test_tools.py)."""

from __future__ import annotations

import warnings

import pytest

from toolwire import Agent, AIMessage, tool
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel


@tool
def a(x: int) -> int:
    """A."""
    return x + 1


@tool
def b(x: int) -> int:
    """B."""
    return x * 2


def test_the_agent_keeps_the_tools_and_tool_choice_a_model_was_bound_with() -> None:
    calls = [tool_call("a", {"x": 1}, "c1"), tool_call("b", {"x": 2}, "c2")]
    model = ScriptedChatModel([AIMessage("", tool_calls=calls), "done"])
    agent = Agent(model.bind_tools([a], tool_choice="required"), [b])
    result = agent.invoke("q")
    assert result.output == "done"
    assert [m.content for m in result.messages if m.type == "tool"] == ["2", "4"]
    assert [sorted(r.tools) for r in model.requests] == [["a", "b"], ["a", "b"]]
    assert [r.tool_choice for r in model.requests] == ["required", "auto"]


def test_the_agents_own_tool_choice_and_tools_win_over_the_bound_ones() -> None:
    @tool(name="a")
    def other_a(x: int) -> int:
        """Another A."""
        return -x

    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("a", {"x": 1}, "c1")]), "done"])
    agent = Agent(model.bind_tools([a], tool_choice="required"), [other_a], tool_choice="auto")
    result = agent.invoke("q")
    assert [m.content for m in result.messages if m.type == "tool"] == ["-1"]
    assert [r.tool_choice for r in model.requests] == ["auto", "auto"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain = Agent(ScriptedChatModel(["hi"]), [a])  # nothing bound: nothing added, no warning
    assert [t.name for t in plain.model.tools] == ["a"] and plain.model.tool_choice == "auto"


def test_a_bound_schema_without_a_function_is_left_out_with_a_warning() -> None:
    spec = {"type": "function", "function": {"name": "lookup", "description": "Look up.",
                                             "parameters": {"type": "object", "properties": {}}}}
    model = ScriptedChatModel(["hi"])
    with pytest.warns(UserWarning, match=r"no function to run \(lookup\).*pass them to Agent\(model, tools\)"):
        agent = Agent(model.bind_tools([spec]), [b])
    assert [t.name for t in agent.model.tools] == ["b"]


def test_a_docstring_of_sections_only_is_told_to_add_a_summary() -> None:
    from toolwire import SchemaError

    def only_args(x: int) -> int:
        """Args:
            x: the value.
        """
        return x

    with pytest.raises(SchemaError, match="its docstring has sections but no summary; put a first line"):
        tool(only_args)

    def none(x: int) -> int:
        return x

    with pytest.raises(SchemaError, match="add a docstring to the function"):
        tool(none)


def test_a_forced_bound_schema_without_a_function_drops_its_tool_choice_with_the_warning() -> None:
    spec = {"type": "function", "function": {"name": "lookup", "description": "Look up.",
                                             "parameters": {"type": "object", "properties": {}}}}
    with pytest.warns(UserWarning, match="the tool_choice 'lookup' that forced one is dropped too"):
        agent = Agent(ScriptedChatModel(["hi"]).bind_tools([spec], tool_choice="lookup"), [b])
    assert agent.model.tool_choice == "auto" and [t.name for t in agent.model.tools] == ["b"]
