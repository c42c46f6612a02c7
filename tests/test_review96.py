"""Review 96 (a user leaning on with_structured_output): what it found in the code this session did not own."""

from __future__ import annotations

import logging

import pytest
from pydantic import BaseModel

from toolwire.messages import AIMessage
from toolwire.testing import ScriptedChatModel


class P(BaseModel):
    a: int


def test_one_call_per_reply_keeps_the_call_tool_choice_forces(caplog: pytest.LogCaptureFixture) -> None:
    """A reply [search(...), P(a=1)] to with_structured_output(P) kept search, then said P was not called."""
    reply = AIMessage("", tool_calls=[{"name": "search", "args": {"q": "x"}, "id": "1"},
                                      {"name": "P", "args": {"a": 1}, "id": "2"}])
    with caplog.at_level(logging.WARNING, "toolwire.models"):
        assert ScriptedChatModel([reply]).with_structured_output(P).invoke("x") == P(a=1)
    assert "kept the call of P, forced by tool_choice of the reply, dropped 1" in caplog.text
    first = ScriptedChatModel([reply]).bind_tools([P], parallel_tool_calls=False).invoke("x")  # no tool forced
    assert [c["name"] for c in first.tool_calls] == ["search"]
