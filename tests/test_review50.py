"""Review 50 (a fresh user driving the embedded model; the fixes that need no model are tested here, the fit of
cut tool results in ``test_review29.py``):

* ``bind_tools([], tool_choice="required")`` was accepted, and the local model then answered in quotes.
* ``MaxStepsExceeded`` said "after 1 steps".
"""

from __future__ import annotations

import json

import pytest

from toolwire import Agent, AIMessage, MaxStepsExceeded, UserError
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel


@pytest.mark.parametrize("choice", ["required", "any", True])
def test_a_required_tool_choice_with_no_tools_is_refused(choice: object) -> None:
    with pytest.raises(UserError, match="needs at least one tool"):
        ScriptedChatModel([]).bind_tools([], tool_choice=choice)  # type: ignore[arg-type]
    ScriptedChatModel([]).bind_tools([], tool_choice="none")  # nothing to refuse there
    ScriptedChatModel([]).bind_tools([], parallel_tool_calls=False)  # the Agent binds its tools later


def test_one_step_is_said_in_the_singular() -> None:
    def lookup(term: str) -> str:
        """Look a term up."""
        return term

    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("lookup", {"term": "x"}, "c1")])])
    with pytest.raises(MaxStepsExceeded, match="after 1 step: raise max_steps"):
        Agent(model, [lookup], max_steps=1).invoke("q")


@pytest.mark.parametrize("dialect", ["pythonic", "json"])
def test_an_empty_tool_result_is_said_to_be_empty(dialect: str) -> None:
    from toolwire import HumanMessage, ToolMessage
    from toolwire.models.dialects import get_dialect
    from toolwire.tools import ToolSpec

    spec = ToolSpec("get_weather", "Weather of a city.", {"type": "object", "properties": {"city": {"type": "string"}},
                                                           "required": ["city"]})
    messages = [HumanMessage("Weather in Oslo?"),
                AIMessage("", tool_calls=[tool_call("get_weather", {"city": "Oslo"}, "c1")]),
                ToolMessage("", tool_call_id="c1"), ToolMessage("  ", tool_call_id="c2")]
    chat = get_dialect(dialect).render(messages, [spec], tool_choice="auto", parallel=None, model="m")
    shown = json.dumps(chat.messages if hasattr(chat, "messages") else chat, default=str)
    assert shown.count("(the tool returned nothing)") == 2
