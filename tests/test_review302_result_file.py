"""Review 302 #1: a file block with no mime_type in a Responses API tool result: the note the model reads and the
warning the developer gets say the real reason (the file has no mime_type: add it to the block), as a user message's
UserError does, not "takes only text, images and files" and "audio (or video)"; audio keeps its own note."""

from __future__ import annotations

import logging

import pytest

from toolwire import HumanMessage, ToolMessage
from toolwire.errors import UserError
from toolwire.messages import AIMessage
from toolwire.models.lowering import openai

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
PDF = "JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBSL0ZpbHRlci9GbGF0ZURlY29kZT4+CnN0cmVhbQo="
IMAGE = {"type": "image", "base64": PNG, "mime_type": "image/png"}
FILE = {"type": "file", "base64": PDF}
AUDIO = {"type": "audio", "base64": "UklGRg==", "mime_type": "audio/wav"}


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openai, "_TOLD_OUTPUT", set())


def _output(content: list) -> object:
    conversation = [HumanMessage("hi"), AIMessage("", tool_calls=[{"name": "read", "args": {}, "id": "call_1"}]),
                    ToolMessage(content, tool_call_id="call_1")]
    items = openai.lower_responses_messages(conversation)
    return next(item for item in items if item.get("type") == "function_call_output")["output"]


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def _the_user_error() -> str:
    with pytest.raises(UserError) as refused:
        openai.lower_responses_messages([HumanMessage([FILE])])
    return str(refused.value)


def test_the_note_and_the_warning_say_the_file_has_no_mime_type(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolwire"):
        output = _output([IMAGE, FILE])
    assert isinstance(output, list) and [part["type"] for part in output] == ["input_image", "input_text"]
    note = output[1]["text"]
    assert "mime_type" in note and "add it to the block" in note
    assert "takes only text, images and files" not in note and PDF not in note
    warnings = _warnings(caplog)
    assert len(warnings) == 1
    assert "audio" not in warnings[0] and "mime_type" in warnings[0] and "add it to the block" in warnings[0]
    assert "needs its mime_type" in _the_user_error()  # the same advice as a user message's block gets


def test_a_file_beside_text_only_gets_the_same_note(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolwire"):
        output = _output([{"type": "text", "text": "Report:"}, FILE])
    text = output if isinstance(output, str) else "\n".join(part["text"] for part in output)
    assert text.startswith("Report:")
    assert "mime_type" in text and "takes only text, images and files" not in text
    assert any("mime_type" in w for w in _warnings(caplog))


def test_audio_keeps_its_note_and_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolwire"):
        output = _output([IMAGE, AUDIO, FILE])
    assert "takes only text, images and files" in output[1]["text"]
    assert "mime_type" in output[2]["text"]
    warnings = _warnings(caplog)
    assert len(warnings) == 2 and "audio" in warnings[0] and "mime_type" in warnings[1]


def test_a_file_with_its_mime_type_is_sent() -> None:
    output = _output([IMAGE, {**FILE, "mime_type": "application/pdf"}])
    assert [part["type"] for part in output] == ["input_image", "input_file"]
