"""with_structured_output does not ask again after a reply Anthropic cut because the context window filled
(stop_reason model_context_window_exceeded), as it does not after max_tokens (review 223 #1)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from toolwire.errors import ToolCallParseError
from toolwire.messages import AIMessage
from toolwire.testing import ScriptedChatModel


class City(BaseModel):
    name: str
    country: str


def _cut(reason: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "City", "args": {"name": "Paris"}, "id": "c1", "type": "tool_call"}],
                     response_metadata={"finish_reason": reason})


@pytest.mark.parametrize(("reason", "says"), [("model_context_window_exceeded", "context window filled"),
                                               ("max_tokens", "higher max_tokens")])
def test_a_cut_reply_is_not_asked_again(reason: str, says: str) -> None:
    model = ScriptedChatModel([_cut(reason), _cut(reason), _cut(reason)])
    with pytest.raises(ToolCallParseError, match=says):
        model.with_structured_output(City, retries=2).invoke("Where is the Eiffel Tower?")
    assert len(model.requests) == 1
