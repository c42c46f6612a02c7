"""Review 173 #1: both OpenAI codecs refuse an image or file block whose data or url is not text with the same
one-sentence UserError the other providers give, instead of sending 'data:image/png;base64,None' or the raw block."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire.errors import UserError
from toolwire.messages import HumanMessage
from toolwire.models.lowering import anthropic, openai

_LOWER = [openai.lower_messages, openai.lower_responses_messages]


@pytest.mark.parametrize("lower", _LOWER, ids=["chat", "responses"])
@pytest.mark.parametrize(("block", "said"), [
    ({"type": "image", "data": None, "mime_type": "image/png"}, "The image block's data must be base64 text, not None"),
    ({"type": "image", "data": 5, "mime_type": "image/png"}, "The image block's data must be base64 text, not int"),
    ({"type": "image", "url": None}, "The image block's url must be text, not None: give the address as a string."),
    ({"type": "file", "base64": 5, "mime_type": "application/pdf"},
     "The file block's base64 must be base64 text, not int"),
])
def test_a_block_whose_data_is_not_text_is_one_user_error(lower: Any, block: dict[str, Any], said: str) -> None:
    with pytest.raises(UserError) as caught:
        lower([HumanMessage([dict(block)])])
    assert str(caught.value).startswith(said)
    with pytest.raises(UserError) as other:  # the same sentence as Anthropic's
        anthropic.lower_messages([HumanMessage([dict(block)])])
    assert str(other.value) == str(caught.value)


def test_good_images_and_native_file_parts_are_still_sent() -> None:
    blocks = [{"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"},
              {"type": "image", "url": "https://example.com/a.png"},
              {"type": "image_url", "image_url": {"url": "https://example.com/b.png", "detail": "low"}},
              {"type": "file", "file": {"file_id": "file-abc"}}]
    [chat] = openai.lower_messages([HumanMessage(blocks)])
    assert chat["content"] == [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
        {"type": "image_url", "image_url": {"url": "https://example.com/b.png", "detail": "low"}},
        {"type": "file", "file": {"file_id": "file-abc"}},
    ]
    [responses] = openai.lower_responses_messages([HumanMessage(blocks[:3])])
    assert [p["image_url"] for p in responses["content"]] == [
        "data:image/png;base64,iVBORw0KGgo=", "https://example.com/a.png", "https://example.com/b.png"]
