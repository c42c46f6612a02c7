"""Review 173 #4: whether an invalid call's answer adds "Send the call again ..." is decided from toolwire's own
words in the detail, not from the model's arguments (or a tool name) the detail quotes."""

from __future__ import annotations

import pytest

from toolwire import ToolExecutor, tool
from toolwire.messages import AIMessage, InvalidToolCall

_AGAIN = "Send the call again with the arguments as a JSON object."


@tool
def email(to: str, body: str) -> str:
    """Send an email."""
    return "sent"


@tool(name="send-sms")
def send_sms(to: str) -> str:
    """Send a text message."""
    return "sent"


def _answer(name: str, raw: str, error: str) -> str:
    bad = InvalidToolCall(name=name, args=raw, id="c1", error=error, type="invalid_tool_call")
    [answer] = ToolExecutor([email, send_sms]).execute(AIMessage("", invalid_tool_calls=[bad]))
    return answer.content


@pytest.mark.parametrize("body", ["please call me", "please send the report", "ok. Send it now; send more"])
def test_the_models_own_words_do_not_drop_the_instruction(body: str) -> None:
    raw = '{"to": "bob", "body": "' + body + '"'
    error = (f"Function email arguments:\n\n{raw}\n\nare not valid JSON. Received JSONDecodeError Expecting ',' "
             "delimiter: line 1 column 40 (char 39)")  # LangChain's own wording
    content = _answer("email", raw, error)
    assert content.endswith(_AGAIN) and content.count("Send the call again") == 1


def test_a_tool_named_send_does_not_drop_the_instruction() -> None:
    content = _answer("send-sms", '{"to": 1', "Function send-sms arguments:\n\n{\"to\": 1\n\nare not valid JSON.")
    assert content.endswith(_AGAIN)


@pytest.mark.parametrize("error", [
    "The tool call has no name; send it again with the name of the tool to call.",
    "Expecting value Send the complete arguments of email as one JSON object such as {\"param\": \"value\"}.",
    "The call ends before it is closed (it looks cut off). Send the whole tool call again as valid JSON.",
])
def test_toolwires_own_instruction_is_not_doubled(error: str) -> None:
    content = _answer("email", '{"to": "please send it"', error)
    assert "Send the call again" not in content
