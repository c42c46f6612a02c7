"""Review 298 #3, the Gemini provider: the note that stands for an image (or audio, a file) a tool returned says
something true of Gemini: toolwire sends only a tool result's text to Gemini (Gemini 3's ``FunctionResponse.parts``
could take the image), not that "this API takes only text in a tool result"; the developer is told once, in a
warning that names Gemini."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from toolwire.messages import AIMessage, HumanMessage, ToolMessage
from toolwire.models.lowering import gemini

_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="


def _conversation() -> list[Any]:
    return [HumanMessage("Take a screenshot and describe it"),
            AIMessage("", tool_calls=[{"name": "screenshot", "args": {}, "id": "c0"}]),
            ToolMessage([{"type": "text", "text": "Here it is."},
                         {"type": "image", "base64": _PNG, "mime_type": "image/png"}], tool_call_id="c0")]


def test_the_note_is_true_of_gemini(caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gemini, "_TOLD_MEDIA", [])
    with caplog.at_level(logging.WARNING, logger="toolwire"):
        _, contents = gemini.lower_messages(_conversation())
        gemini.lower_messages(_conversation())
    result = contents[-1]["parts"][0]["function_response"]["response"]["result"]
    assert result.startswith("Here it is.\n[The result holds an image (image/png) that cannot be shown here: ")
    assert "this API takes only text" not in result
    assert "toolwire sends only the text of a tool result to Gemini" in result
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "Gemini" in warnings[0] and "takes only" not in warnings[0]


def test_a_text_result_is_unchanged() -> None:
    answer = ToolMessage([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], tool_call_id="c0")
    conversation = [*_conversation()[:2], answer]
    _, contents = gemini.lower_messages(conversation)
    assert contents[-1]["parts"][0]["function_response"]["response"] == {"result": "a\nb"}
