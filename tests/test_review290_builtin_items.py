"""Review 290 #2: the output items of OpenAI's built-in tools (``image_generation_call``, ``code_interpreter_call``,
``web_search_call``, ``file_search_call``, ``mcp_call``, ``mcp_list_tools``, ``mcp_approval_request``, any unknown
type) are kept on the AIMessage (``provider_data["openai"]["output"]``), reasoning model or not, invoke and stream
alike, and sent back in order in the next request; an ``mcp_approval_request`` is said (a warning), and a
HumanMessage's ``mcp_approval_response`` block answers it."""

from __future__ import annotations

import copy
import logging
from typing import Any

import pydantic
import pytest
import typing_extensions

from toolwire import HumanMessage
from toolwire.chunks import merge_chunks
from toolwire.messages import AIMessage
from toolwire.models.lowering import openai
from toolwire.models.lowering._openai_replies import ResponsesStreamState

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
ITEMS: dict[str, dict[str, Any]] = {
    "image_generation_call": {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": PNG},
    "code_interpreter_call": {"type": "code_interpreter_call", "id": "ci_1", "status": "completed",
                              "code": "print(6*7)", "container_id": "cntr_1",
                              "outputs": [{"type": "logs", "logs": "42\n"}]},
    "web_search_call": {"type": "web_search_call", "id": "ws_1", "status": "completed",
                        "action": {"type": "search", "query": "rome weather"}},
    "file_search_call": {"type": "file_search_call", "id": "fs_1", "status": "completed", "queries": ["q"],
                         "results": None},
    "mcp_call": {"type": "mcp_call", "id": "mcp_1", "server_label": "deepwiki", "name": "ask_question",
                 "arguments": "{\"repo\": \"a/b\"}", "output": "It does b."},
    "mcp_list_tools": {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "deepwiki",
                       "tools": [{"name": "ask_question", "input_schema": {"type": "object"}}]},
    "mcp_approval_request": {"type": "mcp_approval_request", "id": "mcpr_1", "server_label": "deepwiki",
                             "name": "ask_question", "arguments": "{\"repo\": \"a/b\"}"},
}
MESSAGE = {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
           "content": [{"type": "output_text", "text": "Here it is.", "annotations": []}]}


def _reply(output: list[dict[str, Any]], model: str = "gpt-4.1") -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "status": "completed", "model": model, "output": output,
            "usage": {"input_tokens": 10, "output_tokens": 20, "total_tokens": 30}}


def _streamed(reply: dict[str, Any]) -> AIMessage:
    """The reply as OpenAI streams it: each item added and done, then ``response.completed``."""
    state = ResponsesStreamState()
    events: list[dict[str, Any]] = [{"type": "response.created", "response": {**reply, "output": [], "usage": None}}]
    for n, item in enumerate(reply["output"]):
        if item["type"] == "message":
            events.append({"type": "response.output_text.delta", "output_index": n, "item_id": item["id"],
                           "content_index": 0, "delta": item["content"][0]["text"]})
        events += [{"type": "response.output_item.added", "output_index": n, "item": item},
                   {"type": "response.output_item.done", "output_index": n, "item": item}]
    events.append({"type": "response.completed", "response": reply})
    chunks = [c for c in map(state.feed, events) if c is not None]
    return merge_chunks([*chunks, state.finish()], as_chunk=False)  # type: ignore[return-value]


def _valid(items: list[dict[str, Any]]) -> None:
    """``items`` as the openai SDK's ``input`` param type takes them, no key it does not know."""
    from openai.types.responses.response_input_item_param import ResponseInputItemParam

    seen: set[int] = set()

    def forbid(tp: Any) -> None:
        if id(tp) in seen:
            return
        seen.add(id(tp))
        if typing_extensions.is_typeddict(tp):
            tp.__pydantic_config__ = pydantic.ConfigDict(extra="forbid")
            for hint in typing_extensions.get_type_hints(tp, include_extras=True).values():
                forbid(hint)
        for arg in getattr(tp, "__args__", ()) or ():
            forbid(arg)

    forbid(ResponseInputItemParam)
    pydantic.TypeAdapter(list[ResponseInputItemParam]).validate_python(items)


@pytest.mark.parametrize("kind", sorted(ITEMS))
@pytest.mark.parametrize("reasoning", [False, True])
def test_a_built_in_tool_item_is_kept_and_sent_back(kind: str, reasoning: bool) -> None:
    item = ITEMS[kind]
    thought = [{"type": "reasoning", "id": "rs_1", "summary": []}] if reasoning else []
    reply = _reply([*thought, item, MESSAGE])
    read = openai.parse_responses_response(copy.deepcopy(reply))
    assert read.text == "Here it is."
    output = read.provider_data["openai"]["output"]
    assert item in output
    assert _streamed(copy.deepcopy(reply)).provider_data == read.provider_data
    sent = openai.lower_responses_messages([HumanMessage("go"), read, HumanMessage("and then?")])
    kinds = [i.get("type", i.get("role")) for i in sent]
    assert kinds == ["user", *(["reasoning"] if reasoning else []), kind, "message", "user"]
    assert item in sent
    _valid(sent)


def test_an_unknown_item_type_is_kept_too() -> None:
    item = {"type": "future_tool_call", "id": "ft_1", "status": "completed", "data": [1, 2]}
    read = openai.parse_responses_response(_reply([item, MESSAGE]))
    assert item in read.provider_data["openai"]["output"]
    assert _streamed(_reply([item, MESSAGE])).provider_data == read.provider_data


def test_a_reply_of_text_only_keeps_nothing_as_before() -> None:
    assert openai.parse_responses_response(_reply([MESSAGE])).provider_data is None


def test_an_mcp_approval_request_is_said_and_can_be_answered(caplog: pytest.LogCaptureFixture) -> None:
    request = ITEMS["mcp_approval_request"]
    with caplog.at_level(logging.WARNING, logger="toolwire.lowering"):
        read = openai.parse_responses_response(_reply([request]))
    assert read.text == "" and read.provider_data["openai"]["output"] == [request]
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "mcpr_1" in said and "ask_question" in said and "mcp_approval_response" in said
    answer = HumanMessage([{"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True}])
    sent = openai.lower_responses_messages([HumanMessage("What does a/b do?"), read, answer])
    assert sent[1:] == [request, {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True}]
    _valid(sent)
    with_text = HumanMessage([{"type": "text", "text": "Go on."},
                              {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": False}])
    sent = openai.lower_responses_messages([HumanMessage("q"), read, with_text])
    assert [i.get("type", i.get("role")) for i in sent] == ["user", "mcp_approval_request", "mcp_approval_response",
                                                          "user"]
    _valid(sent)
