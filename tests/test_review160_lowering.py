"""Review 160 #5 and #6: a block a provider's system prompt cannot take is refused, not dropped; a prefill sent to
Anthropic ends without trailing whitespace."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import AIMessage, HumanMessage, SystemMessage, UserError
from toolwire.models.lowering import anthropic, gemini, openai

IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
LOWERINGS: dict[str, Any] = {
    "chat": openai.lower_messages,
    "responses": openai.lower_responses_messages,
    "anthropic": anthropic.lower_messages,
    "gemini": lambda messages: gemini.lower_messages(messages),
}


@pytest.mark.parametrize("api", sorted(LOWERINGS))
@pytest.mark.parametrize("block", [IMAGE, {"type": "imagez", "x": 1}])
def test_a_system_message_with_a_block_other_than_text_is_refused(api: str, block: dict[str, Any]) -> None:
    system = SystemMessage(["Answer questions about this company logo:", block])
    with pytest.raises(UserError, match=r"text only in a system message.*move it into a user message"):
        LOWERINGS[api]([system, HumanMessage("What colour is it?")])


@pytest.mark.parametrize("api", sorted(LOWERINGS))
def test_a_system_message_of_text_blocks_is_sent(api: str) -> None:
    system = SystemMessage(["Be brief.", {"type": "text", "text": "Answer in French."}])
    assert "Answer in French." in str(LOWERINGS[api]([system, HumanMessage("hi")]))


def test_an_anthropic_prefill_ends_without_trailing_whitespace() -> None:
    _, turns = anthropic.lower_messages([HumanMessage("Write a haiku."), AIMessage("Here is the haiku:\n  ")])
    assert turns[-1] == {"role": "assistant", "content": [{"type": "text", "text": "Here is the haiku:"}]}


def test_an_anthropic_assistant_turn_before_the_end_keeps_its_text() -> None:
    _, turns = anthropic.lower_messages([HumanMessage("a"), AIMessage("b\n"), HumanMessage("c")])
    assert turns[1]["content"] == [{"type": "text", "text": "b\n"}]
