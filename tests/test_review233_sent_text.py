"""A system prompt or assistant turn written as an untyped {"text": ..., <other keys>} dict is sent as its text, as
before review 229's record rule, which is for tool results only (review 233 #2)."""

from __future__ import annotations

from toolwire import AIMessage, HumanMessage, SystemMessage
from toolwire.models.lowering._common import sent_text
from toolwire.models.lowering.gemini import lower_messages


def test_untyped_text_dicts_are_sent_as_text() -> None:
    system = SystemMessage(content=[{"text": "Answer in French.", "cache_control": {"type": "ephemeral"}}])
    reply = AIMessage(content=[{"text": "Your order 4417 ships Monday.", "thought_signature": "c2ln"}])
    assert sent_text(system) == "Answer in French."
    assert sent_text(reply) == "Your order 4417 ships Monday."
    instruction, contents = lower_messages([system, HumanMessage("When does order 4417 ship?"), reply,
                                            HumanMessage("And 4418?")])
    assert "Answer in French." in str(instruction)
    assert [c["role"] for c in contents] == ["user", "model", "user"]
