"""A SystemMessage after a Gemini conversation started is moved to system_instruction with a logged warning, as
Anthropic's is (review 229 #4)."""

from __future__ import annotations

import logging

import pytest

from toolwire import AIMessage, HumanMessage, SystemMessage
from toolwire.models.lowering.gemini import lower_messages


def test_a_later_system_message_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    messages = [SystemMessage("You are a travel agent."), HumanMessage("Book Paris."), AIMessage("Booked."),
                SystemMessage("From now on, answer only in French."), HumanMessage("And Rome?")]
    with caplog.at_level(logging.WARNING, logger="toolwire.lowering"):
        system, contents = lower_messages(messages)
    assert "answer only in French" in str(system)
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert any("SystemMessage after the conversation started" in r.getMessage() for r in caplog.records)


def test_a_leading_system_message_is_not_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolwire.lowering"):
        lower_messages([SystemMessage("Be brief."), HumanMessage("Hi")])
    assert not caplog.records
