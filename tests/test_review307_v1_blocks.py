"""Review 307 #1: a LangChain v1 assistant turn (``output_version="v1"``) holding LangChain's standard
``server_tool_call`` / ``server_tool_result`` blocks sent ``server_tool_result`` to Anthropic as it was, a block type
the Messages API has not (a 400); it goes as the turn's text, as before review 297's fix."""

from __future__ import annotations

from langchain_core import messages as lc

from toolwire.interop.langchain import from_langchain_messages
from toolwire.models.lowering.anthropic import lower_messages


def test_langchains_standard_server_blocks_are_not_sent_as_anthropic_blocks() -> None:
    turn = lc.AIMessage(content=[
        {"type": "server_tool_call", "id": "ws_1", "name": "web_search", "args": {"query": "news today"}},
        {"type": "server_tool_result", "tool_call_id": "ws_1", "status": "success", "output": {"sources": []}},
        {"type": "text", "text": "X happened today."},
    ], response_metadata={"output_version": "v1", "model_provider": "openai"})
    _, sent = lower_messages(from_langchain_messages([lc.HumanMessage("what's new?"), turn, lc.HumanMessage("more?")]))
    assert sent[1] == {"role": "assistant", "content": [{"type": "text", "text": "X happened today."}]}


def test_anthropics_own_server_blocks_still_go_back() -> None:
    turn = lc.AIMessage(content=[
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "news"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
        {"type": "text", "text": "Nothing new."},
    ])
    _, sent = lower_messages(from_langchain_messages([lc.HumanMessage("what's new?"), turn, lc.HumanMessage("more?")]))
    assert [b["type"] for b in sent[1]["content"]] == ["server_tool_use", "web_search_tool_result", "text"]
