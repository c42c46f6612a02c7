"""Review 297 #4: LangChain's standard image and file blocks keep Anthropic's ``cache_control``, ``title``,
``context`` and ``citations`` (given on the block, or in its ``extras`` or older ``metadata``) when sent to Anthropic,
as langchain-anthropic's ``_format_data_content_block`` keeps them."""

from __future__ import annotations

from toolwire.messages import AIMessage, HumanMessage, ToolMessage
from toolwire.models.lowering.anthropic import lower_messages

CC = {"type": "ephemeral"}


def _sent(*blocks: dict) -> list[dict]:
    _, turns = lower_messages([HumanMessage([{"type": "text", "text": "Summarise these."}, *blocks])])
    return turns[0]["content"][1:]


def test_image_blocks_keep_cache_control() -> None:
    assert _sent({"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png", "cache_control": CC},
                 {"type": "image", "url": "https://ex.com/a.png", "extras": {"cache_control": CC}},
                 {"type": "image", "file_id": "file_1", "metadata": {"cache_control": CC}}) == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
         "cache_control": CC},
        {"type": "image", "source": {"type": "url", "url": "https://ex.com/a.png"}, "cache_control": CC},
        {"type": "image", "source": {"type": "file", "file_id": "file_1"}, "cache_control": CC}]


def test_file_blocks_keep_cache_control_title_context_and_citations() -> None:
    pdf = {"type": "file", "base64": "JVBERi0=", "mime_type": "application/pdf", "cache_control": CC,
           "title": "Report", "context": "Q3", "citations": {"enabled": True}}
    assert _sent(pdf, {"type": "file", "url": "https://ex.com/a.pdf", "extras": {"cache_control": CC,
                                                                                 "title": "A"}},
                 {"type": "text-plain", "text": "notes", "metadata": {"citations": {"enabled": True}}}) == [
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="},
         "cache_control": CC, "title": "Report", "context": "Q3", "citations": {"enabled": True}},
        {"type": "document", "source": {"type": "url", "url": "https://ex.com/a.pdf"}, "cache_control": CC,
         "title": "A"},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"},
         "citations": {"enabled": True}}]


def test_the_block_itself_wins_over_extras_and_an_image_file_keeps_cache_control_only() -> None:
    assert _sent({"type": "file", "base64": "iVBORw0KGgo=", "mime_type": "image/png", "title": "T",
                  "cache_control": CC, "extras": {"cache_control": {"type": "other"}}}) == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
         "cache_control": CC}]


def test_in_a_tool_result_too() -> None:
    call = AIMessage("", tool_calls=[{"name": "shot", "args": {}, "id": "t1", "type": "tool_call"}])
    _, turns = lower_messages([HumanMessage("q"), call, ToolMessage(
        [{"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png", "cache_control": CC}],
        tool_call_id="t1")])
    result = next(b for t in turns for b in t["content"] if b.get("type") == "tool_result")
    assert result["content"] == [{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                              "data": "iVBORw0KGgo="}, "cache_control": CC}]


def test_other_providers_do_not_get_the_keys() -> None:
    from toolwire.models.lowering import openai

    block = {"type": "file", "base64": "JVBERi0=", "mime_type": "application/pdf", "cache_control": CC,
             "title": "Report", "filename": "r.pdf"}
    sent = openai.lower_messages([HumanMessage([block])])[0]["content"][0]
    assert "cache_control" not in str(sent) and "title" not in str(sent)
