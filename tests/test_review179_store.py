"""Review 179 #1: with the Responses API and ``store=False`` (zero data retention), the request asks for
``reasoning.encrypted_content`` and sends reasoning items back with it (one without it is left out, not sent to be
refused with 404 "Item with id 'rs_...' not found"), so a tool loop's second request succeeds; a stored request is
unchanged. The server and replies are ``test_review179_openai.py``'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from _queued_http import QueuedServer, serving
from test_review179_openai import CALL, events, get_weather, message_item, model, reasoning, response
from toolwire import Agent
from toolwire.messages import AIMessage, HumanMessage, ToolMessage
from toolwire.models.base import ChatRequest
from toolwire.models.lowering import openai as codec


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    with serving("/v1", done=True) as found:
        yield found


# --------------------------------------------------------------------------- #1: store=False

def not_persisted(body: Any) -> dict[str, Any] | None:
    """OpenAI's 404 for a reasoning item sent by id alone under store=False (None when the input has none)."""
    for item in body["input"]:
        if body.get("store") is False and item.get("type") == "reasoning" and not item.get("encrypted_content"):
            return {"error": {"message": f"Item with id '{item['id']}' not found. Items are not persisted when "
                                         "`store` is set to false.", "type": "invalid_request_error",
                              "param": "input", "code": None}}
    return None


@pytest.mark.parametrize("streaming", [False, True])
def test_a_store_false_tool_loop_sends_reasoning_back_encrypted(server, streaming):
    def answer(body: Any, n: int) -> Any:
        if (refused := not_persisted(body)) is not None:
            return 404, refused
        encrypted = "gAAAA-secret" if "reasoning.encrypted_content" in (body.get("include") or []) else None
        reply = response([reasoning(1, encrypted), CALL]) if n == 0 else response([message_item("Sunny.")])
        return events(reply) if streaming else reply

    server.answer = answer
    chat = model(server, use_responses_api=True, streaming=streaming, model_kwargs={"store": False})
    assert Agent(chat, [get_weather]).invoke("Weather in Paris?").output == "Sunny."
    first, second = server.requests
    assert first["include"] == second["include"] == ["reasoning.encrypted_content"]
    sent = [item for item in second["input"] if item.get("type") == "reasoning"]
    assert sent == [{"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA-secret"}]


def lowered(history: list[Any], **options: Any) -> dict[str, Any]:
    return codec.lower_responses_request(ChatRequest(messages=history), "o4-mini", options)


def kept_turn(encrypted: str | None) -> AIMessage:
    return codec.parse_responses_response(response([reasoning(1, encrypted), CALL]))


def test_store_false_merges_the_users_include_and_leaves_out_reasoning_without_encrypted_content():
    history = [HumanMessage("Weather?"), kept_turn(None), ToolMessage("Sunny", tool_call_id="call_A")]
    body = lowered(history, store=False, include=["message.output_text.logprobs"])
    assert body["include"] == ["message.output_text.logprobs", "reasoning.encrypted_content"]
    assert [item.get("type") for item in body["input"]] == [None, "function_call", "function_call_output"]
    assert lowered(history, store=False, include=["reasoning.encrypted_content"])["include"] == [
        "reasoning.encrypted_content"]


def test_store_false_keeps_reasoning_with_encrypted_content():
    history = [HumanMessage("Weather?"), kept_turn("gAAAA"), ToolMessage("Sunny", tool_call_id="call_A")]
    body = lowered(history, store=False)
    assert [item.get("type") for item in body["input"]] == [None, "reasoning", "function_call", "function_call_output"]
    assert body["input"][1]["encrypted_content"] == "gAAAA"


@pytest.mark.parametrize("options", [{}, {"store": True}])
def test_a_stored_request_is_unchanged(options):
    history = [HumanMessage("Weather?"), kept_turn(None), ToolMessage("Sunny", tool_call_id="call_A")]
    body = lowered(history, **options)
    assert "include" not in body
    assert [item.get("type") for item in body["input"]] == [None, "reasoning", "function_call", "function_call_output"]


def test_store_false_asks_for_encrypted_reasoning_only_from_a_model_that_reasons():
    """Review 182 #1: gpt-4.1 and gpt-4o answer the entry with 400 "Encrypted content is not supported with this
    model"; a model reasons by its name, a ``reasoning`` option, or a reasoning item in the conversation."""
    plain = [HumanMessage("Weather?")]
    for name in ("gpt-4.1", "gpt-4o", "gpt-5-chat-latest", "gpt-5.1-chat-latest", "my-azure-deployment",
                 "ft:gpt-4.1-2025-04-14:acme::x"):
        assert "include" not in codec.lower_responses_request(ChatRequest(messages=plain), name, {"store": False})
    for name in ("o3", "o4-mini", "gpt-5", "gpt-5-mini", "gpt-5.1", "codex-mini-latest",
                 "ft:o4-mini-2025-04-16:acme:weather:AbC123"):
        body = codec.lower_responses_request(ChatRequest(messages=plain), name, {"store": False})
        assert body["include"] == ["reasoning.encrypted_content"]
    body = codec.lower_responses_request(ChatRequest(messages=plain), "my-azure-deployment",
                                         {"store": False, "reasoning": {"effort": "low"}})
    assert body["include"] == ["reasoning.encrypted_content"]
    history = [HumanMessage("Weather?"), kept_turn("gAAAA"), ToolMessage("Sunny", tool_call_id="call_A")]
    body = codec.lower_responses_request(ChatRequest(messages=history), "my-azure-deployment", {"store": False})
    assert body["include"] == ["reasoning.encrypted_content"]
    assert "include" not in codec.lower_responses_request(ChatRequest(messages=plain), "o3", {})
