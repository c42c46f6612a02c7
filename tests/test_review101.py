"""Review 101 (a Pydantic AI / OpenAI Agents SDK user porting three programs): what changed in code."""

from __future__ import annotations

import threading

import pytest

from toolwire import AIMessage, message_from_dict, tool
from toolwire.errors import ToolTimeoutError
from toolwire.messages import tool_call

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


def _nested(levels: int) -> dict:
    top: dict = {}
    node = top
    for _ in range(levels - 1):
        node["x"] = {}
        node = node["x"]
    return top


@pytest.mark.parametrize("levels", [65, 600, 5000])
def test_an_aimessage_with_arguments_nested_too_deeply_holds_an_invalid_call_as_a_providers_reply_does(
        levels: int) -> None:
    message = AIMessage("", tool_calls=[tool_call("echo", _nested(levels), "c1"),
                                        tool_call("echo", {"data": "ok"}, "c2")])
    assert [c["id"] for c in message.tool_calls] == ["c2"]
    [bad] = message.invalid_tool_calls
    assert bad["id"] == "c1" and bad["name"] == "echo" and isinstance(bad["args"], str)
    assert bad["error"].startswith("The arguments are nested too deeply to read (more than 64 levels")
    from_dict = message_from_dict({"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": _nested(levels)}}]})
    assert from_dict.invalid_tool_calls[0]["error"] == bad["error"]
    # an invalid call given with such arguments keeps them as text
    again = AIMessage("", invalid_tool_calls=[{"name": "echo", "args": _nested(levels), "id": "c3", "error": "e"}])
    assert isinstance(again.invalid_tool_calls[0]["args"], str)


def test_arguments_64_levels_deep_are_still_a_call() -> None:
    message = AIMessage("", tool_calls=[tool_call("echo", _nested(64), "c1")])
    assert message.tool_calls[0]["args"] == _nested(64) and not message.invalid_tool_calls
