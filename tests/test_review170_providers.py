"""Review 170: the error texts of the provider and model layers (#1, #3, #4, #7, #10)."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import AIMessage, HumanMessage, ToolMessage
from toolwire.errors import ToolwireError, UserError
from toolwire.models.base import ChatRequest
from toolwire.models.lowering import anthropic as anthropic_codec
from toolwire.models.lowering import gemini as gemini_codec
from toolwire.models.lowering import openai as openai_codec


def _user(block: dict[str, Any]) -> list[Any]:
    return [HumanMessage([{"type": "text", "text": "see"}, block])]


def _gemini(messages: list[Any]) -> Any:
    return gemini_codec.lower_request(ChatRequest(messages, (), None, None, False, {}), "gemini-2.5-flash")


LOWER = {"anthropic": anthropic_codec.lower_messages, "openai": openai_codec.lower_messages,
         "responses": openai_codec.lower_responses_messages, "gemini": _gemini}


@pytest.mark.parametrize("value", [123, None, ["aGk="]])
@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_an_image_whose_base64_is_not_text_is_one_user_error(provider: str, value: Any) -> None:
    """#1 (Anthropic raised a bare KeyError: 'data'), #3 (OpenAI's text contradicted itself, Gemini's read
    "A 'image' ... got <class 'int'>")."""
    block = {"type": "image", "base64": value, "mime_type": "image/png"}
    with pytest.raises(UserError) as info:
        LOWER[provider](_user(block))
    name = "None" if value is None else type(value).__name__
    assert str(info.value) == (f"The image block's base64 must be base64 text, not {name}: give the file's bytes "
                               "as base64.b64encode(content).decode('ascii').")


@pytest.mark.parametrize("provider", ["anthropic", "responses", "gemini"])
def test_a_file_whose_base64_is_not_text_is_one_user_error(provider: str) -> None:
    """(Chat Completions sends a ``file`` block it does not read as given: its own part type.)"""
    block = {"type": "file", "base64": 7, "mime_type": "application/pdf"}
    with pytest.raises(UserError, match=r"^The file block's base64 must be base64 text, not int: "):
        LOWER[provider](_user(block))


def test_an_anthropic_image_without_data_or_url_is_a_user_error_not_a_key_error() -> None:
    with pytest.raises(ToolwireError) as info:
        anthropic_codec.lower_messages(_user({"type": "image", "mime_type": "image/png"}))
    assert str(info.value) == ("The image block (keys: mime_type, type) has no data toolwire reads: give it base64 "
                               "text and a mime_type, such as {'type': 'image', 'base64': '...', 'mime_type': "
                               "'image/png'}, or a url.")


def test_an_anthropic_tool_result_keeps_a_bad_image_block_as_its_text() -> None:
    """In a tool result, a block Anthropic cannot take goes as its JSON text, as other such blocks do there."""
    call = AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "c1"}])
    result = ToolMessage([{"type": "image", "base64": 123, "mime_type": "image/png"}], tool_call_id="c1")
    _, messages = anthropic_codec.lower_messages([HumanMessage("hi"), call, result])
    block = messages[-1]["content"][0]["content"][0]
    assert block["type"] == "text" and '"base64": 123' in block["text"]


def test_a_good_image_still_goes_to_anthropic() -> None:
    _, messages = anthropic_codec.lower_messages(_user({"type": "image", "base64": "aGk=", "mime_type": "image/png"}))
    assert messages[0]["content"][1] == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                      "data": "aGk="}}


def test_unknown_blocks_list_their_keys_plainly() -> None:
    """#7: the keys were shown as a Python list's repr (keys ['data', 'type'])."""
    block = {"type": "img", "data": "aGk="}
    with pytest.raises(UserError) as info:
        _gemini(_user(block))
    assert "(keys: data, type)" in str(info.value) and "[" not in str(info.value)
    for provider in ("anthropic", "openai"):
        with pytest.raises(UserError) as info:
            LOWER[provider](_user(block))
        assert "(keys: data, type): write it as a text, image or file block" in str(info.value)
        assert "[" not in str(info.value)


def test_gemini_texts_for_a_block_without_mime_type_or_with_data_not_base64() -> None:
    with pytest.raises(UserError) as info:
        _gemini(_user({"type": "file", "base64": "aGk="}))
    assert str(info.value) == ("The file block needs a mime_type for Gemini: add one, such as 'application/pdf' or "
                               "'audio/wav'.")
    with pytest.raises(UserError) as info:
        _gemini(_user({"type": "image", "base64": "not base64!", "mime_type": "image/png"}))
    assert str(info.value) == ("The image block's data is not base64: give the file's bytes as "
                               "base64.b64encode(content).decode('ascii').")
