"""Review 281 #2: an Agent given a strict-bound model warned 2-3 times of one strict-mode fallback (each of its
internal model copies, bound again, warned again); docs/providers.md says the warning is given once."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest

from toolwire import Agent, tool
from toolwire.models import ChatOpenAI
from toolwire.models.lowering.openai import StrictSchemaWarning


@tool
def free(m: dict[str, int]) -> str:
    """Free-form keys: not strict-capable."""
    return "x"


@tool
def fine(city: str) -> str:
    """Strict-capable."""
    return city


def _model() -> ChatOpenAI:
    return ChatOpenAI(model="gpt-4o-mini", api_key="sk-test", base_url="http://127.0.0.1:9/v1")  # (never called)


def _warnings(make: Callable[[], Any]) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make()
    return [w for w in caught if issubclass(w.category, StrictSchemaWarning)]


@pytest.mark.parametrize("options", [{}, {"tool_choice": "required"}, {"tool_choice": "free"},
                                     {"tool_choice": "required", "reset_tool_choice": False},
                                     {"repeat_calls": "run", "on_max_steps": "answer"}])
def test_a_fallback_only_the_agents_tools_cause_warns_once(options: dict[str, Any]) -> None:
    caught = _warnings(lambda: Agent(_model().bind_tools([], strict=True), [free, fine], **options))
    assert len(caught) == 1, [str(w.message) for w in caught]
    assert "Tool 'free' cannot use OpenAI strict mode" in str(caught[0].message)
    assert caught[0].filename == __file__  # (at the user's line)


def test_the_users_own_bind_warns_once_and_the_agent_adds_nothing() -> None:
    model = _model()
    caught = _warnings(lambda: model.bind_tools([free], strict=True))
    assert len(caught) == 1 and caught[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bound = model.bind_tools([free], strict=True)
    assert _warnings(lambda: Agent(bound, [free], tool_choice="required")) == []


def test_each_agent_warns_again_and_two_tools_warn_once_each() -> None:
    @tool
    def loose(d: dict[str, str]) -> str:
        """Loose too."""
        return "y"

    for _ in range(2):  # (once per Agent made, not once per process)
        caught = _warnings(lambda: Agent(_model().bind_tools([], strict=True), [free, loose],
                                         tool_choice="required"))
        texts = sorted(str(w.message).split(" cannot")[0] for w in caught)
        assert texts == ["Tool 'free'", "Tool 'loose'"]


def test_bound_copies_still_leave_the_warnings_out_of_requests() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agent = Agent(_model().bind_tools([], strict=True), [free], tool_choice="required")
    for copy in (agent.model, agent._after_tools_model, agent._answer_model):
        assert any("Tool 'free'" in note for note in copy._strict_notes)
