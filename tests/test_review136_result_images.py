"""Review 136 #1: the Responses API takes text, image and file parts in a ``function_call_output``; an image a tool
returned reached it as a note that it is not shown."""

from __future__ import annotations

from toolwire import AIMessage, HumanMessage, ToolMessage
from toolwire.models.lowering.openai import lower_responses_messages

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def _outputs(content: object) -> list:
    messages = [HumanMessage("shot"), AIMessage("", tool_calls=[{"name": "shot", "args": {}, "id": "c1",
                                                                  "type": "tool_call"}]),
                ToolMessage(content, "c1", name="shot")]
    return [item["output"] for item in lower_responses_messages(messages) if item.get("type") == "function_call_output"]


def test_an_image_a_tool_returned_is_an_input_image_part() -> None:
    [output] = _outputs([{"type": "text", "text": "Screenshot:"},
                         {"type": "image", "base64": PNG, "mime_type": "image/png"}])
    assert output == [{"type": "input_text", "text": "Screenshot:"},
                      {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"}]


def test_text_only_and_audio_results_stay_text() -> None:
    assert _outputs("plain") == ["plain"]
    assert _outputs([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]) == ["a\nb"]
    [audio] = _outputs([{"type": "text", "text": "Recording:"},
                        {"type": "audio", "base64": "UklGRg==", "mime_type": "audio/wav"}])
    assert isinstance(audio, str) and audio.startswith("Recording:\n[The result holds")
