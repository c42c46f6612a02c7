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


def test_streamed_blocks_merged_by_index_keep_every_citation_and_merge_nested_dicts() -> None:
    """Review 95 #3: merging blocks that share an index kept only the first list or dict value of a key."""
    from toolwire import AIMessageChunk, merge_chunks

    pieces = [{"type": "text", "text": "The grass is green", "index": 0, "meta": {"a": "x"}},
              {"type": "text", "text": "", "index": 0, "citations": [{"cited_text": "grass is green"}]},
              {"type": "text", "text": " and the sky is blue.", "index": 0, "meta": {"a": "y", "b": 1}},
              {"type": "text", "text": "", "index": 0, "citations": [{"cited_text": "sky is blue"}]}]
    merged = merge_chunks([AIMessageChunk([piece]) for piece in pieces])
    assert merged.content == [{"type": "text", "text": "The grass is green and the sky is blue.", "index": 0,
                               "meta": {"a": "xy", "b": 1},
                               "citations": [{"cited_text": "grass is green"}, {"cited_text": "sky is blue"}]}]


def test_an_agent_result_reads_like_a_langgraph_result_dict() -> None:
    """Review 95 #5: 'messages' in result and list(result) raised a KeyError naming 0."""
    from toolwire import Agent, tool
    from toolwire.testing import ScriptedChatModel

    @tool
    def noop(x: int) -> int:
        """Return x."""
        return x

    result = Agent(ScriptedChatModel(["ok"]), [noop]).invoke({"messages": [("user", "hi")]})
    assert "messages" in result and "structured_response" not in result
    assert list(result) == list(result.keys()) == ["messages", "output", "steps", "stop_reason"]
    assert result.get("output") == "ok" and result.get("todos", []) == []


def test_a_tools_batch_refuses_options_its_invoke_does_not_take() -> None:
    """Review 95 #6: batch(temperature=1) was a raw TypeError from Tool.invoke."""
    import pytest

    from toolwire import tool
    from toolwire.errors import UserError

    @tool
    def noop(x: int) -> int:
        """Return x."""
        return x

    with pytest.raises(UserError, match=r"^Tool.batch\(\) passes on only timeout= to each invoke\(\), not "
                                        r"temperature=\.$"):
        noop.batch([{"x": 1}], temperature=1)
    with pytest.raises(UserError, match="which a toolwire Tool does not take"):
        noop.batch([{"x": 1}], config={})
    assert noop.batch([{"x": 1}], timeout=5) == [1]
