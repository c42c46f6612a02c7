"""Review 101 (a Pydantic AI / OpenAI Agents SDK user porting three programs): what changed in code."""

from __future__ import annotations

import threading

import pytest

from toolwire import tool
from toolwire.errors import ToolTimeoutError

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
        with pytest.raises(ToolTimeoutError, match=r"still running .* may yet finish and take effect; its result "
                                                   r"will not be used: check what it did before calling it again\."):
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
