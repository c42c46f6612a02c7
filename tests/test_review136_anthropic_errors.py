"""Review 136 #3: the Messages API refuses an error tool_result that is empty or holds anything but text; toolwire
sent both, so an Agent run (and every later request of that conversation) ended in a 400 on Anthropic only."""

from __future__ import annotations

from toolwire import AIMessage, HumanMessage, ToolMessage
from toolwire.models.lowering.anthropic import lower_messages

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def _result(message: ToolMessage) -> dict:
    conversation = [HumanMessage("go"), AIMessage("", tool_calls=[{"name": "shot", "args": {}, "id": "toolu_1",
                                                                    "type": "tool_call"}]), message]
    _, turns = lower_messages(conversation)
    return next(block for turn in turns if isinstance(turn["content"], list) for block in turn["content"]
                if block.get("type") == "tool_result")


def test_an_error_result_is_never_empty_and_holds_text_only() -> None:
    empty = _result(ToolMessage("", "toolu_1", status="error"))
    assert empty["is_error"] is True and empty["content"] == "Error"
    shot = _result(ToolMessage([{"type": "text", "text": "Failed, screen:"},
                                {"type": "image", "base64": PNG, "mime_type": "image/png"}], "toolu_1",
                               status="error"))
    assert shot["is_error"] is True and isinstance(shot["content"], str)
    assert shot["content"].startswith("Failed, screen:\n[The result holds an image")


def test_a_successful_result_keeps_its_image() -> None:
    shot = _result(ToolMessage([{"type": "image", "base64": PNG, "mime_type": "image/png"}], "toolu_1"))
    assert "is_error" not in shot and shot["content"][0]["type"] == "image"


def test_an_error_result_of_text_blocks_keeps_them_and_their_cache_control() -> None:
    """Review 139 #8: an all-text error result was flattened to one string, dropping cache_control."""
    result = _result(ToolMessage([{"type": "text", "text": "Failed.", "cache_control": {"type": "ephemeral"}}],
                                 "toolu_1", status="error"))
    assert result["is_error"] is True
    assert result["content"] == [{"type": "text", "text": "Failed.", "cache_control": {"type": "ephemeral"}}]
