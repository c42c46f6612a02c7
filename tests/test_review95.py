"""Review 95 (a skeptic's read of the thirty-seventh session's changes): regressions it found."""

from __future__ import annotations

from toolwire import AIMessage, HumanMessage, SystemMessage
from toolwire.models.lowering import anthropic, gemini
from toolwire.models.lowering import openai as lowering

SYSTEM = "You are a helpful assistant.\nAlways answer in French."


def test_messages_of_several_text_parts_reach_each_provider_a_part_a_line() -> None:
    """message.text joins parts with nothing between (as LangChain's); the wire keeps the newline between them."""
    parts = ["You are a helpful assistant.", {"type": "text", "text": "Always answer in French."}]
    conversation = [SystemMessage(parts), HumanMessage("hi"), AIMessage(["Bonjour.", "Salut."]), HumanMessage("ok")]
    chat = lowering.lower_messages(conversation)
    assert chat[0]["content"] == SYSTEM and chat[2]["content"] == "Bonjour.\nSalut."
    assert lowering.lower_responses_messages(conversation)[0]["content"] == SYSTEM
    system, turns = anthropic.lower_messages(conversation)
    assert system == SYSTEM and turns[1]["content"][0]["text"] == "Bonjour.\nSalut."
    system, turns = gemini.lower_messages(conversation)
    assert system == {"parts": [{"text": SYSTEM}]} and turns[1]["parts"][0]["text"] == "Bonjour.\nSalut."
