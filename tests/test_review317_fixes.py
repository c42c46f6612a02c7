"""Review 317: LangChain assistant turns sent to Anthropic.

#1: a v1 ``server_tool_result`` whose ``output`` LangChain left out (a web search that found nothing: langchain-core
keeps no empty output) is sent with the ``content`` the Messages API requires (``[]``), as the same turn in v0 form
is; an ``mcp_tool_result``, whose ``content`` is optional, without one.
#2: an Anthropic ``compaction`` block in a LangChain turn (v0, or v1 as a ``non_standard`` block) is sent back, in
its place, as toolwire's own replies and langchain-anthropic send it (it stands in for the turns before it).
#3: a v1 turn whose call is only a ``tool_call`` content block (LangChain's ``tool_calls`` empty) sends the call as
a ``tool_use`` and its ToolMessage as its ``tool_result``, as the v0 form (a ``tool_use`` block) and
langchain-anthropic do.
"""

from __future__ import annotations

import json

import anthropic
import httpx2 as httpx
from langchain_core import messages as lc

from toolwire.interop.langchain import from_langchain_messages
from toolwire.messages import HumanMessage
from toolwire.models.lowering._anthropic_replies import parse_response
from toolwire.models.lowering.anthropic import lower_messages

ANT = {"model_provider": "anthropic"}
V1 = {"model_provider": "anthropic", "output_version": "v1"}
USE = {"type": "tool_use", "id": "toolu_1", "name": "get_temp", "input": {"city": "Paris"}}
CALL = {"name": "get_temp", "args": {"city": "Paris"}, "id": "toolu_1", "type": "tool_call"}


def _turns(messages: list) -> list[dict]:
    """The turns after the first one that toolwire sends for these LangChain messages."""
    return lower_messages(from_langchain_messages(messages))[1][1:]


def _v1(native: list[dict], **kw: object) -> lc.AIMessage:
    """ChatAnthropic's reply ``native`` as LangChain writes it with ``output_version="v1"``."""
    blocks = lc.AIMessage(content=native, response_metadata=dict(ANT), **kw).content_blocks
    return lc.AIMessage(content=blocks, response_metadata=dict(V1), **kw)


# #1 ------------------------------------------------------------------------------------------------------------

EMPTY_SEARCH = [
    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "xyzzy 2031"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
    {"type": "text", "text": "I found nothing."}]


def test_a_web_search_that_found_nothing_keeps_its_empty_content() -> None:
    v1 = _v1(EMPTY_SEARCH)
    assert "output" not in v1.content[1]  # (langchain-core's translator leaves an empty result out)
    for turn in (v1, lc.AIMessage(content=EMPTY_SEARCH, response_metadata=dict(ANT))):
        sent = _turns([lc.HumanMessage("q"), turn, lc.HumanMessage("again")])
        assert sent[0] == {"role": "assistant", "content": EMPTY_SEARCH}


def test_an_mcp_result_without_output_goes_without_content() -> None:
    """(``content`` is optional on ``mcp_tool_result``; ``is_error`` is sent, as langchain-anthropic sends it.)"""
    turn = lc.AIMessage(content=[
        {"type": "server_tool_call", "id": "mcptoolu_2", "name": "remote_mcp", "args": {},
         "extras": {"tool_name": "ping", "server_name": "srv"}},
        {"type": "server_tool_result", "tool_call_id": "mcptoolu_2", "status": "success",
         "extras": {"block_type": "mcp_tool_result"}},
        {"type": "text", "text": "pinged"}], response_metadata=dict(V1))
    assert _turns([lc.HumanMessage("q"), turn, lc.HumanMessage("more")])[0]["content"][1] == {
        "type": "mcp_tool_result", "tool_use_id": "mcptoolu_2", "is_error": False}


# #2 ------------------------------------------------------------------------------------------------------------

COMPACTED = [{"type": "compaction", "content": "Summary: the user asked about Paris weather; 21C."},
             {"type": "text", "text": "It is 21C."}]


def test_a_compaction_block_goes_back_as_toolwire_own_reply_sends_it() -> None:
    raw = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-4-6", "content": COMPACTED,
           "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
    own = lower_messages([HumanMessage("q"), parse_response(raw), HumanMessage("more")])[1][1]["content"]
    assert own == COMPACTED
    edited = parse_response(raw).model_copy(update={"content": "It is 22C."})  # (its kept blocks not sent as such)
    assert lower_messages([HumanMessage("q"), edited, HumanMessage("more")])[1][1]["content"] == [
        COMPACTED[0], {"type": "text", "text": "It is 22C."}]
    v0 = lc.AIMessage(content=COMPACTED, response_metadata=dict(ANT))
    for turn in (v0, _v1(COMPACTED)):
        assert _turns([lc.HumanMessage("q"), turn, lc.HumanMessage("more")])[0]["content"] == COMPACTED


def test_a_streamed_compaction_block_loses_its_index_and_keeps_its_place() -> None:
    block = {"type": "compaction", "content": "Summary.", "encrypted_content": "enc", "index": 0}
    v0 = lc.AIMessage(content=[block, {"type": "text", "text": "Checking.", "index": 1},
                               {**USE, "index": 2}], tool_calls=[CALL], response_metadata=dict(ANT))
    want = [{"type": "compaction", "content": "Summary.", "encrypted_content": "enc"},
            {"type": "text", "text": "Checking."}, USE]
    for turn in (v0, _v1([{k: v for k, v in b.items() if k != "index"} for b in v0.content], tool_calls=[CALL])):
        sent = _turns([lc.HumanMessage("q"), turn, lc.ToolMessage("21C", tool_call_id="toolu_1")])
        assert sent[0]["content"] == want
        assert sent[1]["content"] == [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "21C"}]


def test_a_compaction_block_with_thinking_and_server_blocks_keeps_the_order() -> None:
    native = [{"type": "compaction", "content": "Summary."},
              {"type": "thinking", "thinking": "Plan.", "signature": "sig"}, *EMPTY_SEARCH]
    for turn in (lc.AIMessage(content=native, response_metadata=dict(ANT)), _v1(native)):
        assert _turns([lc.HumanMessage("q"), turn, lc.HumanMessage("more")])[0]["content"] == native


# #3 ------------------------------------------------------------------------------------------------------------

def test_a_v1_call_given_only_as_a_content_block_is_sent_with_its_result() -> None:
    turn = lc.AIMessage(content=[{"type": "reasoning", "reasoning": "r", "extras": {"signature": "s"}},
                                 {"type": "tool_call", "id": "toolu_1", "name": "get_temp", "args": {"city": "Paris"}}],
                        response_metadata=dict(V1))
    assert turn.tool_calls == []
    assert _turns([lc.HumanMessage("q"), turn, lc.ToolMessage("21C", tool_call_id="toolu_1")]) == [
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "r", "signature": "s"}, USE]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "21C"}]}]


def test_a_v1_call_chunk_and_an_invalid_call_given_only_as_blocks() -> None:
    turn = lc.AIMessage(content=[
        {"type": "text", "text": "Two checks."},
        {"type": "tool_call_chunk", "id": "toolu_1", "name": "get_temp", "args": '{"city": "Paris"}', "index": 1},
        {"type": "invalid_tool_call", "id": "toolu_2", "name": "get_temp", "args": '{"city": ', "error": "bad"}],
        response_metadata=dict(V1))
    sent = _turns([lc.HumanMessage("q"), turn, lc.ToolMessage("21C", tool_call_id="toolu_1"),
                   lc.ToolMessage("Error: bad arguments", tool_call_id="toolu_2", status="error")])
    assert sent[0]["content"] == [{"type": "text", "text": "Two checks."}, USE,
                                  {"type": "tool_use", "id": "toolu_2", "name": "get_temp", "input": {}}]
    assert sent[1]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "21C"},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "Error: bad arguments", "is_error": True}]


def test_a_v1_turn_with_calls_still_drops_a_block_whose_call_was_edited_away() -> None:
    """(Only a turn with no calls at all is read from its blocks: an edited call id wins, as before.)"""
    turn = lc.AIMessage(content=[{"type": "tool_call", "id": "toolu_1", "name": "get_temp",
                                  "args": {"city": "Paris"}}],
                        tool_calls=[dict(CALL, id="toolu_9")], response_metadata=dict(V1))
    assert _turns([lc.HumanMessage("q"), turn, lc.ToolMessage("21C", tool_call_id="toolu_9")]) == [
        {"role": "assistant", "content": [dict(USE, id="toolu_9")]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "21C"}]}]


def test_the_request_body_through_the_sdk() -> None:
    from toolwire.models.anthropic import ChatAnthropic

    bodies: list[dict] = []

    def server(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json={
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": [{"type": "text", "text": "21C in Paris."}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}})

    model = ChatAnthropic("claude-sonnet-4-6", api_key="k", max_retries=0)
    model._clients.sync = anthropic.Anthropic(api_key="k", max_retries=0,
                                              http_client=httpx.Client(transport=httpx.MockTransport(server)))
    turn = lc.AIMessage(content=[{"type": "non_standard", "value": COMPACTED[0]},
                                 {"type": "tool_call", "id": "toolu_1", "name": "get_temp", "args": {"city": "Paris"}}],
                        response_metadata=dict(V1))
    model.invoke(from_langchain_messages([lc.HumanMessage("weather?"), turn,
                                          lc.ToolMessage("21C", tool_call_id="toolu_1")]))
    assert bodies[0]["messages"][1:] == [
        {"role": "assistant", "content": [COMPACTED[0], USE]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "21C"}]}]
