"""Review 297 #3: an assistant turn in LangChain's or the Anthropic SDK's form (its content list holding
``server_tool_use`` / ``web_search_tool_result`` blocks and text with ``citations``) is sent back to Anthropic with
those blocks and citations in place (docs/providers.md: Anthropic's own block types and its server tools' results
are sent as given to Anthropic), as langchain-anthropic sends them."""

from __future__ import annotations

from toolwire._message_dicts import coerce_messages
from toolwire.messages import AIMessage, HumanMessage, ToolMessage
from toolwire.models.base import ChatRequest
from toolwire.models.lowering.anthropic import lower_messages, lower_request

CITATION = {"type": "web_search_result_location", "url": "https://ex.com/n", "title": "News",
            "encrypted_index": "EI==", "cited_text": "X happened"}
USE = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "news"}}
RESULT = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
          "content": [{"type": "web_search_result", "url": "https://ex.com/n", "title": "News",
                       "encrypted_content": "EC=="}]}
TURN = [{"type": "text", "text": "Let me search."}, USE, RESULT,
        {"type": "text", "text": "X happened.", "citations": [CITATION]}]


def test_a_langchain_turn_keeps_its_server_blocks_and_citations() -> None:
    _, turns = lower_messages([HumanMessage("what's new?"), AIMessage(TURN), HumanMessage("more?")])
    assert turns[1] == {"role": "assistant", "content": TURN}


def test_an_sdk_form_conversation_keeps_them() -> None:
    conversation = coerce_messages([{"role": "user", "content": "what's new?"},
                                    {"role": "assistant", "content": TURN},
                                    {"role": "user", "content": "more?"}])
    body = lower_request(ChatRequest(conversation), "claude-x")
    assert body["messages"][1] == {"role": "assistant", "content": TURN}


def test_langchain_stream_keys_are_dropped_and_calls_stay_in_place() -> None:
    """A merged LangChain stream gives blocks an ``index`` and a server tool's input as ``partial_json``; a
    ``tool_use`` block is sent from the message's call of that id (its arguments as the call has them)."""
    content = [{"type": "thinking", "thinking": "hm", "signature": "sig", "index": 0},
               {"type": "text", "text": "Let me search.", "index": 1},
               {**USE, "input": {}, "partial_json": '{"query": "news"}', "index": 2},
               {**RESULT, "index": 3},
               {"type": "text", "text": "X happened.", "index": 4,
                "citations": [{**CITATION, "file_id": None}]},
               {"type": "text", "text": "  ", "index": 5},
               {"type": "tool_use", "id": "toolu_1", "name": "save", "input": {}, "index": 6}]
    message = AIMessage(content, tool_calls=[{"name": "save", "args": {"note": "X"}, "id": "toolu_1",
                                              "type": "tool_call"},
                                             {"name": "log", "args": {}, "id": "toolu_2", "type": "tool_call"}])
    _, turns = lower_messages([HumanMessage("q"), message, ToolMessage("ok", tool_call_id="toolu_1"),
                               ToolMessage("ok", tool_call_id="toolu_2")])
    assert turns[1]["content"] == [
        {"type": "thinking", "thinking": "hm", "signature": "sig"}, *TURN,
        {"type": "tool_use", "id": "toolu_1", "name": "save", "input": {"note": "X"}},
        {"type": "tool_use", "id": "toolu_2", "name": "log", "input": {}}]
    assert [b["tool_use_id"] for b in turns[2]["content"]] == ["toolu_1", "toolu_2"]


def test_a_plain_langchain_turn_is_sent_as_before() -> None:
    message = AIMessage([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])
    _, turns = lower_messages([HumanMessage("q"), message, HumanMessage("r")])
    assert turns[1] == {"role": "assistant", "content": [{"type": "text", "text": "a\nb"}]}
