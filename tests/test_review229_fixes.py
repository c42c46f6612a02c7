"""Review 229: tool records in a ToolMessage list kept whole (#1), LangChain's additional_kwargs/response_metadata
attributes (#2), a lone image-block dict returned by a tool sent as an image (#3), NaN/Infinity in past call
arguments written as "NaN"/"Infinity" by the local dialects (#5)."""

from __future__ import annotations

import base64
import json
import math

from test_dialects import QWEN_TEMPLATE
from toolwire import AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage, tool
from toolwire.models._text_content import json_form, result_text
from toolwire.models.chat_template import ChatTemplate
from toolwire.models.dialects import get_dialect
from toolwire.models.lowering import anthropic, gemini, openai
from toolwire.models.lowering._common import block_as_text, content_parts
from toolwire.results import bounded_content, result_to_content
from toolwire.tools import ToolSpec

HITS = [{"url": "https://a.example/1", "title": "Paris", "text": "Paris is sunny"},
        {"url": "https://b.example/2", "title": "Rome"}]
ROWS = [{"sku": "A1", "qty": 3, "text": ""}, {"sku": "B2", "qty": 0, "text": None}, {"sku": "C3", "text": 7}]
CALL = {"name": "search", "args": {"q": "weather"}, "id": "c1", "type": "tool_call"}


def _conversation(content: object) -> list:
    return [HumanMessage("q"), AIMessage("", tool_calls=[CALL]), ToolMessage(content, "c1", name="search")]


def _sent(content: object) -> dict[str, str]:
    """What each provider and the local dialect gets as the tool result's text."""
    msgs = _conversation(content)
    chat = openai.lower_messages(msgs)[-1]["content"]
    responses = openai.lower_responses_messages(msgs)[-1]["output"]
    _, turns = anthropic.lower_messages(msgs)
    blocks = turns[-1]["content"][0]["content"]
    _, contents = gemini.lower_messages(msgs)
    response = contents[-1]["parts"][0]["function_response"]["response"]
    return {"openai_chat": chat, "responses": responses, "gemini": json.dumps(response, ensure_ascii=False),
            "anthropic": "\n".join(b["text"] for b in blocks), "local": result_text(msgs[-1].content)}


def _records_in(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_a_record_with_a_text_key_among_others_is_sent_whole_everywhere() -> None:
    for name, text in _sent(HITS).items():
        if name == "gemini":
            text = json.loads(text)["result"]
        assert _records_in(text) == HITS, name


def test_records_whose_text_is_empty_none_or_a_number_are_never_dropped() -> None:
    for name, text in _sent(ROWS).items():
        if name == "gemini":
            text = json.loads(text)["result"]
        assert _records_in(text) == ROWS, name


def test_real_text_blocks_stay_text_and_keep_their_keys() -> None:
    block = {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}
    assert content_parts([block, {"text": "one key"}, {"type": "text", "text": "  "}]) == [
        block, {"type": "text", "text": "one key"}]
    part = {"inline_data": {"mime_type": "image/png", "data": "AAAA"}}
    assert content_parts([part]) == [part]  # a Gemini part is a block, not a record
    sent = _sent([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])
    assert sent["openai_chat"] == "a\nb" and sent["local"] == "a\nb"


def test_text_follows_langchain_records_are_no_text() -> None:
    assert ToolMessage(HITS, "c1").text == ""
    assert ToolMessage([{"type": "text", "text": "a"}, {"text": "b"}], "c1").text == "ab"


def test_a_dict_of_an_unknown_type_is_written_whole_and_a_media_block_with_a_note() -> None:
    record = {"type": "hotel", "data": "not base64 but a field", "name": "Ritz"}
    assert json.loads(block_as_text(record)) == record
    audio = json.loads(block_as_text({"type": "audio", "data": "AAAA", "mime_type": "audio/wav"}))
    assert audio["data"] == "<4 base64 characters not sent>"


def test_additional_kwargs_and_response_metadata_read_as_langchains() -> None:
    ai = AIMessage("4", additional_kwargs={"reasoning_content": "2+2=4"})
    assert ai.additional_kwargs == {"reasoning_content": "2+2=4"} == ai.model_dump()["additional_kwargs"]
    ai.additional_kwargs["x"] = 1  # a new dict: the message is unchanged
    assert "x" not in ai.additional_kwargs
    assert AIMessage("4").additional_kwargs == {}
    chunk = AIMessageChunk(content="x", additional_kwargs={"reasoning_content": "r"})
    assert chunk.additional_kwargs == {"reasoning_content": "r"} == chunk.model_dump()["additional_kwargs"]
    for message in (SystemMessage("s"), HumanMessage("q"), ToolMessage("r", "c1")):
        assert message.additional_kwargs == {} and message.response_metadata == {}
    assert AIMessage("a", response_metadata={"model_name": "m"}).response_metadata == {"model_name": "m"}


PNG64 = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()


def test_a_tool_returning_one_image_block_dict_sends_an_image() -> None:
    image = {"type": "image", "base64": PNG64, "mime_type": "image/png"}

    @tool
    def screenshot() -> dict:
        """Take a screenshot."""
        return image

    call = {"name": "screenshot", "args": {}, "id": "c1", "type": "tool_call"}
    message = screenshot.invoke(call)
    assert message.content == [image]
    assert result_to_content(image) == [image] and bounded_content(image, 20000) == [image]
    _, turns = anthropic.lower_messages([HumanMessage("look"), AIMessage("", tool_calls=[call]), message])
    assert turns[-1]["content"][0]["content"] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG64}}]
    # data that only has a "type" key stays JSON text
    assert isinstance(result_to_content({"type": "image", "name": "cat.png", "url": "x"}), str)
    assert isinstance(result_to_content({"type": "text", "text": "hi"}), str)


def test_nan_and_infinity_in_past_arguments_are_strings_in_every_local_dialect() -> None:
    assert json_form({"a": [math.nan, -math.inf], "b": math.inf}) == {"a": ["NaN", "-Infinity"], "b": "Infinity"}
    specs = [ToolSpec("set_range", "Set a range.", {"type": "object", "properties": {
        "low": {"type": "number"}, "high": {"type": "number"}}})]
    msgs = [HumanMessage("Set it."),
            AIMessage("", tool_calls=[{"name": "set_range", "args": {"low": math.nan, "high": math.inf}, "id": "c1"}]),
            ToolMessage("done", "c1", name="set_range")]
    template = ChatTemplate(QWEN_TEMPLATE)
    pythonic = template.render(get_dialect("pythonic", QWEN_TEMPLATE).render(msgs, specs))
    assert 'set_range(low="NaN", high="Infinity")' in pythonic
    for name in ("json", "template"):
        text = template.render(get_dialect(name, QWEN_TEMPLATE).render(msgs, specs))
        assert '"arguments": {"low": "NaN", "high": "Infinity"}' in text, name
