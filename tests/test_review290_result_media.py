"""Review 290 #4: a tool result holding an image and an audio clip, on the Responses API: the image goes as
``input_image`` and only the audio becomes a note (an ``input_text`` part), whose reason is true for that API."""

from __future__ import annotations

import logging

import pytest

from toolwire import HumanMessage, ToolMessage
from toolwire.messages import AIMessage
from toolwire.models.lowering import openai

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
IMAGE = {"type": "image", "base64": PNG, "mime_type": "image/png"}
AUDIO = {"type": "audio", "base64": "UklGRg==", "mime_type": "audio/wav"}


def _output(content: list) -> object:
    conversation = [HumanMessage("hi"), AIMessage("", tool_calls=[{"name": "record", "args": {}, "id": "call_1"}]),
                    ToolMessage(content, tool_call_id="call_1")]
    items = openai.lower_responses_messages(conversation)
    return next(item for item in items if item.get("type") == "function_call_output")["output"]


def test_the_image_goes_and_only_the_audio_is_a_note(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        output = _output([{"type": "text", "text": "Here:"}, IMAGE, AUDIO])
    assert isinstance(output, list)
    assert [part["type"] for part in output] == ["input_text", "input_image", "input_text"]
    assert output[0]["text"] == "Here:"
    assert output[1]["image_url"] == f"data:image/png;base64,{PNG}"
    note = output[2]["text"]
    assert "audio (audio/wav)" in note and "takes only text in a tool result" not in note
    assert "Responses API" in note and "UklGRg==" not in note
    assert not any("take images in tool results" in r.getMessage() and "only as text" in r.getMessage()
                   for r in caplog.records)


def test_audio_alone_is_a_note_that_says_why_on_this_api() -> None:
    output = _output([AUDIO])
    text = output if isinstance(output, str) else "".join(p["text"] for p in output)
    assert "audio (audio/wav)" in text and "takes only text in a tool result" not in text


def test_an_image_alone_is_unchanged() -> None:
    assert _output([IMAGE]) == [{"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"}]
