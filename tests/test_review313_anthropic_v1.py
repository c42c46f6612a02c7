"""Review 313 #4: a LangChain v1 assistant turn (``response_metadata["output_version"] == "v1"``, as ChatAnthropic
writes it with ``output_version="v1"``) is sent to Anthropic as langchain-anthropic sends it
(``_convert_from_v1_to_anthropic``, then ``_format_messages``): a ``reasoning`` block as a ``thinking`` block with
its ``extras["signature"]``, in the turn's order (before it was dropped, and the API refuses a turn with a tool call
that does not start with its thinking block when thinking is on); ``tool_call`` blocks in place (``caller`` and
``toolset_name`` kept), ``annotations`` as ``citations``, ``server_tool_call`` / ``server_tool_result`` and
``non_standard`` blocks as Anthropic's own. The expected bodies are those langchain-anthropic 1.7.10 builds for the
same messages (its ``_get_request_payload``)."""

from __future__ import annotations

import json

import anthropic
import httpx2 as httpx
from langchain_core import messages as lc

from toolwire.interop.langchain import from_langchain_messages
from toolwire.models.lowering.anthropic import lower_messages

CALL = {"name": "get_temp", "args": {"city": "Paris"}, "id": "toolu_1", "type": "tool_call"}
V1 = {"model_provider": "anthropic", "output_version": "v1"}
USE = {"type": "tool_use", "id": "toolu_1", "name": "get_temp", "input": {"city": "Paris"}}


def _turn(messages: list) -> list[dict]:
    """The content of the first assistant turn toolwire sends for these LangChain messages."""
    _, turns = lower_messages(from_langchain_messages(messages))
    return next(t["content"] for t in turns if t["role"] == "assistant")


def _v1(native: list[dict], calls: list[dict], **kw: object) -> lc.AIMessage:
    """ChatAnthropic's reply ``native`` as LangChain writes it with ``output_version="v1"`` (langchain-core's own
    Anthropic translator: ``content_blocks``)."""
    blocks = lc.AIMessage(content=native, tool_calls=calls, response_metadata={"model_provider": "anthropic"},
                          **kw).content_blocks
    return lc.AIMessage(content=blocks, tool_calls=calls, response_metadata=dict(V1), **kw)


def test_the_signed_reasoning_block_goes_first_as_thinking() -> None:
    turn = lc.AIMessage(content=[
        {"type": "reasoning", "reasoning": "Let me check.", "extras": {"signature": "sig1"}},
        {"type": "tool_call", "id": "toolu_1", "name": "get_temp", "args": {"city": "Paris"}}],
        tool_calls=[CALL], response_metadata=dict(V1))
    assert _turn([lc.HumanMessage("weather?"), turn, lc.ToolMessage("21C", tool_call_id="toolu_1")]) == [
        {"type": "thinking", "thinking": "Let me check.", "signature": "sig1"}, USE]


def test_a_reasoning_block_without_signature_is_a_thinking_block_without_one() -> None:
    turn = lc.AIMessage(content=[{"type": "reasoning", "reasoning": "hmm"}, {"type": "text", "text": "A."}],
                        response_metadata=dict(V1))
    assert _turn([lc.HumanMessage("q"), turn, lc.HumanMessage("more")]) == [
        {"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "A."}]


def test_a_signature_without_text_is_an_empty_thinking() -> None:
    turn = lc.AIMessage(content=[{"type": "reasoning", "extras": {"signature": "s"}},
                                 {"type": "tool_call", "id": "toolu_1", "name": "get_temp", "args": {"city": "Paris"}}],
                        tool_calls=[CALL], response_metadata=dict(V1))
    assert _turn([lc.HumanMessage("q"), turn, lc.ToolMessage("21C", tool_call_id="toolu_1")]) == [
        {"type": "thinking", "thinking": "", "signature": "s"}, USE]


def test_another_providers_reasoning_is_left_out_and_the_order_kept() -> None:
    call = {**CALL, "id": "call_1", "args": {"city": "X"}}
    turn = lc.AIMessage(content=[
        {"type": "reasoning", "reasoning": "hmm", "extras": {"signature": "s"}}, {"type": "text", "text": "A."},
        {"type": "tool_call", "id": "call_1", "name": "get_temp", "args": {"city": "X"}},
        {"type": "text", "text": "B."}], tool_calls=[call],
        response_metadata={"model_provider": "openai", "output_version": "v1"})
    assert _turn([lc.HumanMessage("q"), turn, lc.ToolMessage("1", tool_call_id="call_1")]) == [
        {"type": "text", "text": "A."}, {**USE, "id": "call_1", "input": {"city": "X"}},
        {"type": "text", "text": "B."}]


FULL = [
    {"type": "thinking", "thinking": "Plan.", "signature": "sigA"},
    {"type": "redacted_thinking", "data": "opaque=="},
    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "paris weather"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
        {"type": "web_search_result", "url": "https://w.example/p", "title": "P", "encrypted_content": "enc",
         "page_age": None}]},
    {"type": "text", "text": "It is mild", "citations": [
        {"type": "web_search_result_location", "cited_text": "mild", "url": "https://w.example/p", "title": "P",
         "encrypted_index": "ei"}]},
    {"type": "text", "text": " per the doc", "citations": [
        {"type": "char_location", "cited_text": "doc", "document_index": 0, "document_title": "D",
         "start_char_index": 0, "end_char_index": 3, "file_id": None},
        {"type": "page_location", "cited_text": "pg", "document_index": 1, "document_title": "E",
         "start_page_number": 1, "end_page_number": 2},
        {"type": "content_block_location", "cited_text": "cb", "document_index": 2, "document_title": None,
         "start_block_index": 0, "end_block_index": 1},
        {"type": "search_result_location", "cited_text": "sr", "search_result_index": 0, "source": "s",
         "title": "T", "start_block_index": 0, "end_block_index": 1}]},
    {"type": "server_tool_use", "id": "srvtoolu_2", "name": "code_execution", "input": {"code": "1+1"}},
    {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_2", "content": {
        "type": "code_execution_result", "stdout": "2", "stderr": "", "return_code": 0, "content": []}},
    {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "lookup", "server_name": "srv", "input": {"q": 1}},
    {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": False,
     "content": [{"type": "text", "text": "r"}]},
    {"type": "text", "text": "Now the tool."},
    {"type": "tool_use", "id": "toolu_1", "name": "get_temp", "input": {"city": "Paris"}},
]


def test_a_whole_chatanthropic_turn_in_v1_goes_back_as_it_came() -> None:
    sent = _turn([lc.HumanMessage("weather?"), _v1(FULL, [CALL]), lc.ToolMessage("21C", tool_call_id="toolu_1")])
    cited = FULL[5]["citations"]
    assert sent == [
        *FULL[:5],
        {"type": "text", "text": " per the doc", "citations": [
            {k: v for k, v in cited[0].items() if k != "file_id"}, *cited[1:]]},
        *FULL[6:]]


def test_a_tool_call_keeps_its_caller() -> None:
    call = {"name": "get_temp", "args": {"city": "Rome"}, "id": "toolu_9", "type": "tool_call"}
    caller = {"type": "code_execution_20250825", "tool_id": "srvtoolu_9"}
    native = [{"type": "server_tool_use", "id": "srvtoolu_9", "name": "code_execution", "input": {"code": "x"}},
              {"type": "tool_use", "id": "toolu_9", "name": "get_temp", "input": {"city": "Rome"}, "caller": caller}]
    assert _turn([lc.HumanMessage("q"), _v1(native, [call]), lc.ToolMessage("1", tool_call_id="toolu_9")]) == native


def test_streamed_server_call_and_its_result() -> None:
    turn = lc.AIMessage(content=[
        {"type": "server_tool_call", "id": "srvtoolu_3", "name": "web_search", "args": {},
         "extras": {"partial_json": '{"query": "x"}'}},
        {"type": "server_tool_result", "tool_call_id": "srvtoolu_3", "status": "success", "output": [],
         "extras": {"block_type": "web_search_tool_result"}},
        {"type": "text", "text": "done", "annotations": []}], response_metadata=dict(V1))
    assert _turn([lc.HumanMessage("q"), turn, lc.HumanMessage("more")]) == [
        {"type": "server_tool_use", "id": "srvtoolu_3", "name": "web_search", "input": {"query": "x"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_3", "content": []},
        {"type": "text", "text": "done"}]


def test_a_server_result_of_no_anthropic_type_is_left_out() -> None:
    """(langchain-anthropic would send it with ``"type": ""``, which the API refuses.)"""
    turn = lc.AIMessage(content=[
        {"type": "server_tool_call", "id": "srvtoolu_3", "name": "web_search", "args": {"query": "x"}},
        {"type": "server_tool_result", "tool_call_id": "srvtoolu_3", "status": "success", "output": []},
        {"type": "text", "text": "done"}], response_metadata=dict(V1))
    assert _turn([lc.HumanMessage("q"), turn, lc.HumanMessage("more")]) == [
        {"type": "server_tool_use", "id": "srvtoolu_3", "name": "web_search", "input": {"query": "x"}},
        {"type": "text", "text": "done"}]


def test_a_remote_mcp_call_and_its_error() -> None:
    turn = lc.AIMessage(content=[
        {"type": "server_tool_call", "id": "mcptoolu_2", "name": "remote_mcp", "args": {"q": 2},
         "extras": {"tool_name": "lookup", "server_name": "srv"}},
        {"type": "server_tool_result", "tool_call_id": "mcptoolu_2", "status": "error",
         "output": [{"type": "text", "text": "no"}], "extras": {"block_type": "mcp_tool_result"}},
        {"type": "text", "text": "It failed."}], response_metadata=dict(V1))
    assert _turn([lc.HumanMessage("q"), turn, lc.HumanMessage("more")]) == [
        {"type": "mcp_tool_use", "id": "mcptoolu_2", "name": "lookup", "server_name": "srv", "input": {"q": 2}},
        {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_2", "is_error": True,
         "content": [{"type": "text", "text": "no"}]},
        {"type": "text", "text": "It failed."}]


def test_an_invalid_call_keeps_its_place() -> None:
    bad = {"type": "invalid_tool_call", "id": "toolu_b", "name": "get_temp", "args": '{"city": ', "error": "bad"}
    turn = _v1([{"type": "tool_use", "id": "toolu_b", "name": "get_temp", "input": {}},
                {"type": "text", "text": "then this"}], [], invalid_tool_calls=[bad])
    assert _turn([lc.HumanMessage("q"), turn, lc.ToolMessage("Error", tool_call_id="toolu_b", status="error")]) == [
        {"type": "tool_use", "id": "toolu_b", "name": "get_temp", "input": {}}, {"type": "text", "text": "then this"}]


def test_without_output_version_v1_nothing_changes() -> None:
    """The same blocks in a turn LangChain did not mark v1 are not read as v1 (as langchain-anthropic does not)."""
    turn = lc.AIMessage(content=[{"type": "reasoning", "reasoning": "hmm", "extras": {"signature": "s"}},
                                 {"type": "text", "text": "A."}], response_metadata={"model_provider": "anthropic"})
    assert _turn([lc.HumanMessage("q"), turn, lc.HumanMessage("more")]) == [{"type": "text", "text": "A."}]


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
    turn = lc.AIMessage(content=[
        {"type": "reasoning", "reasoning": "Let me check.", "extras": {"signature": "sig1"}},
        {"type": "tool_call", "id": "toolu_1", "name": "get_temp", "args": {"city": "Paris"}}],
        tool_calls=[CALL], response_metadata=dict(V1))
    model.invoke(from_langchain_messages([lc.HumanMessage("weather?"), turn,
                                          lc.ToolMessage("21C", tool_call_id="toolu_1")]))
    assert bodies[0]["messages"][1] == {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "Let me check.", "signature": "sig1"}, USE]}


def test_a_chatanthropic_turn_in_its_own_form_keeps_the_caller_too() -> None:
    call = {"name": "get_temp", "args": {"city": "Rome"}, "id": "toolu_9", "type": "tool_call"}
    native = [{"type": "server_tool_use", "id": "srvtoolu_9", "name": "code_execution", "input": {"code": "x"}},
              {"type": "tool_use", "id": "toolu_9", "name": "get_temp", "input": {"city": "Rome"},
               "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_9"}}]
    turn = lc.AIMessage(content=native, tool_calls=[call], response_metadata={"model_provider": "anthropic"})
    assert _turn([lc.HumanMessage("q"), turn, lc.ToolMessage("1", tool_call_id="toolu_9")]) == native
