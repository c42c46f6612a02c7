"""Review 172: where the embedded model declined a repeated call, the reply may neither end nor open a list (the model
answers in text); the warning for an empty answer names the cause the model reported; LangGraph's tasks and
checkpoints stream modes are named as LangGraph's."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from toolwire import Agent, AIMessage, UserError, tool
from toolwire._agent_checks import warn_call_as_answer
from toolwire.models._answered import answer_bans
from toolwire.testing import ScriptedChatModel


class _Vocabulary:
    """What answer_bans reads of a loaded model: its end tokens and the tokens a prefix starts."""

    end_tokens = np.array([2, 3])

    def tokens_starting_with(self, prefix: bytes) -> np.ndarray:
        return {b"[": np.array([10, 11]), b" [": np.array([20])}.get(prefix, np.array([], dtype=int))


def test_a_declined_repeat_bans_the_reply_end_and_any_list_opening() -> None:
    assert sorted(answer_bans(_Vocabulary())) == [2, 3, 10, 11, 20]  # type: ignore[arg-type]


@pytest.mark.parametrize(("meta", "cause", "fix"), [
    ({"declined_calls": 1, "declined_repeat_calls": 1}, "a repeat of a call already answered",
     "decline_repeat_calls=False"),
    ({"declined_calls": 1, "declined_unknown_calls": 1}, "a call of a tool it does not have", "bind a tool"),
    ({"declined_calls": 1}, "too unsure a call", "lower that option"),
    ({"declined_calls": 1, "made_up_values": ["42"]}, "values it looked to have made up (42", "give those values"),
])
def test_the_empty_answer_warning_names_the_cause_the_model_reported(
        meta: dict[str, object], cause: str, fix: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolwire.agent"):
        warn_call_as_answer(AIMessage("", response_metadata=meta), ["todo"])
    (record,) = caplog.records
    assert cause in record.getMessage() and fix in record.getMessage()


@tool
def todo() -> str:
    """List the to-do items."""
    return "- buy milk"


@pytest.mark.parametrize("mode", ["tasks", "checkpoints"])
def test_langgraphs_other_stream_modes_are_named_as_langgraphs(mode: str) -> None:
    with pytest.raises(UserError, match=f"LangGraph's {mode} stream has no counterpart in an Agent run"):
        Agent(ScriptedChatModel(["ok"]), [todo]).stream("q", stream_mode=mode)
