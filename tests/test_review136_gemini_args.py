"""Review 136: Gemini finish reasons read by meaning (#5), a Gemini request the SDK refuses before sending (#9), and
the Python values of a past call's arguments written alike for every provider (#8).

Each provider is driven through its SDK against a small local server that answers with queued JSON bodies (or
server-sent events) and records what came.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from toolwire import Agent, HumanMessage, ProviderError, SystemMessage, UserError, tool
from toolwire.models.google import ChatGoogleGenAI


class Server:
    """Answers each request with the next queued body (a dict), or ``default``; ``requests`` holds ``(path, body)``."""

    def __init__(self) -> None:
        self.queue: list[dict[str, Any]] = []
        self.requests: list[tuple[str, Any]] = []
        self.default: dict[str, Any] = gemini_reply([{"text": "ok"}])
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                server.requests.append((self.path, json.loads(raw) if raw else None))
                body = server.queue.pop(0) if server.queue else reply_for(self.path, server.default)
                if "alt=sse" in self.path:
                    data, kind = f"data: {json.dumps(body)}\r\n\r\n".encode(), "text/event-stream"
                else:
                    data, kind = json.dumps(body).encode(), "application/json"
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()


@pytest.fixture
def server() -> Iterator[Server]:
    found = Server()
    yield found
    found.http.shutdown()
    found.http.server_close()


def reply_for(path: str, gemini_body: dict[str, Any]) -> dict[str, Any]:
    """A plain text reply in the format of the API ``path`` belongs to (Gemini's: ``gemini_body``)."""
    if "/chat/completions" in path:
        return {"id": "c", "object": "chat.completion", "created": 1, "model": "gpt-4o",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}
    if "/responses" in path:
        return {"id": "r", "object": "response", "created_at": 1, "model": "gpt-4o", "status": "completed",
                "output": [{"type": "message", "id": "m", "role": "assistant", "status": "completed",
                            "content": [{"type": "output_text", "text": "ok", "annotations": []}]}],
                "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
    if "/messages" in path:
        return {"id": "m", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
                "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1}}
    return gemini_body


def gemini_reply(parts: list[dict[str, Any]] | None, finish: str = "STOP") -> dict[str, Any]:
    candidate: dict[str, Any] = {"finishReason": finish, "index": 0}
    if parts is not None:
        candidate["content"] = {"role": "model", "parts": parts}
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash"}


def gemini(server: Server, **kwargs: Any) -> ChatGoogleGenAI:
    kwargs.setdefault("max_retries", 0)
    return ChatGoogleGenAI("gemini-2.5-flash", api_key="test-key-123456", base_url=server.url, retry_backoff=0.001,
                           **kwargs)


@tool
def get_weather(city: str) -> str:
    """Get the weather of a city."""
    return f"Sunny in {city}"


# --------------------------------------------------------------------------- #5: finish reasons by meaning

@pytest.mark.parametrize("streaming", [False, True])
@pytest.mark.parametrize(("reason", "text"), [("RECITATION", None), ("RECITATION", "Here are the full lyrics: Is"),
                                              ("LANGUAGE", None), ("OTHER", None), ("SAFETY", None)])
def test_a_candidate_blocked_for_its_content_ends_the_run_as_a_refusal(server, reason, text, streaming):
    server.queue = [gemini_reply([{"text": text}] if text else None, reason), gemini_reply([{"text": "(second)"}])]
    result = Agent(gemini(server, streaming=streaming), [get_weather]).invoke("Weather in Paris?")
    assert result.stop_reason == "refusal" and len(server.requests) == 1
    assert result.output == (text or "")
    metadata = result.messages[-1].response_metadata
    assert reason in (metadata["finish_reason"], metadata.get("server_finish_reason"))


@pytest.mark.parametrize("streaming", [False, True])
def test_an_unexpected_tool_call_is_answered_with_an_error_and_the_model_calls_again(server, streaming):
    server.queue = [gemini_reply(None, "UNEXPECTED_TOOL_CALL"),
                    gemini_reply([{"function_call": {"name": "get_weather", "args": {"city": "Paris"}}}]),
                    gemini_reply([{"text": "Sunny in Paris."}])]
    result = Agent(gemini(server, streaming=streaming), [get_weather]).invoke("Weather in Paris?")
    assert result.stop_reason == "answer" and result.output == "Sunny in Paris." and len(server.requests) == 3
    answer = server.requests[1][1]["contents"][-1]["parts"][0]["functionResponse"]["response"]
    assert "UNEXPECTED_TOOL_CALL" in answer["error"] and "exact names" in answer["error"]


@pytest.mark.parametrize("streaming", [False, True])
@pytest.mark.parametrize(("reason", "retryable", "said"), [
    ("MISSING_THOUGHT_SIGNATURE", False, "provider_data"), ("MALFORMED_RESPONSE", True, "Try the request again")])
def test_a_request_or_reply_that_failed_is_a_provider_error_that_says_what_to_do(server, reason, retryable, said,
                                                                                  streaming):
    server.default = gemini_reply(None, reason)
    with pytest.raises(ProviderError) as caught:
        Agent(gemini(server, streaming=streaming, max_retries=1), [get_weather]).invoke("Weather in Paris?")
    assert reason in str(caught.value) and said in str(caught.value)
    assert caught.value.retryable is retryable and len(server.requests) == (2 if retryable else 1)


# --------------------------------------------------------------------------- #9: refused before any request

@pytest.mark.parametrize("conversation", [[SystemMessage("You are a poet. Write a haiku.")], "",
                                          [SystemMessage("Be brief."), HumanMessage("")]])
def test_a_conversation_without_a_user_turn_is_a_user_error_before_any_request(server, conversation):
    model = gemini(server, max_retries=2)
    with pytest.raises(UserError, match="pass the question as a user message"):
        model.invoke(conversation)
    with pytest.raises(UserError, match="pass the question as a user message"):
        asyncio.run(model.ainvoke(conversation))
    assert server.requests == []


@pytest.mark.parametrize("how", ["invoke", "stream", "ainvoke", "astream"])
def test_a_request_the_sdk_refuses_before_sending_is_not_read_as_a_bad_body(server, monkeypatch, how):
    model = gemini(server, max_retries=2)
    lower = ChatGoogleGenAI._lower
    monkeypatch.setattr(ChatGoogleGenAI, "_lower", lambda self, request: {**lower(self, request), "contents": []})

    async def astream() -> list[Any]:
        return [chunk async for chunk in model.astream("hi")]

    calls = {"invoke": lambda: model.invoke("hi"), "stream": lambda: list(model.stream("hi")),
             "ainvoke": lambda: asyncio.run(model.ainvoke("hi")), "astream": lambda: asyncio.run(astream())}
    with pytest.raises(UserError, match=r"SDK refused to send the request \(contents are required\.\): check"):
        calls[how]()
    assert server.requests == []


# --------------------------------------------------------------------------- #8: Python values in a past call's args

def every_provider(server: Server) -> dict[str, Any]:
    from toolwire.models.anthropic import ChatAnthropic
    from toolwire.models.openai import ChatOpenAI

    openai = {"api_key": "sk-test-123456", "base_url": server.url + "/v1", "max_retries": 0}
    return {"openai": ChatOpenAI("gpt-4o", compatible=False, **openai),
            "responses": ChatOpenAI("gpt-4o", use_responses_api=True, **openai),
            "anthropic": ChatAnthropic("claude-sonnet-4-6", api_key="sk-ant-test-123456", base_url=server.url,
                                       max_retries=0),
            "gemini": gemini(server)}


def sent_args(provider: str, body: dict[str, Any]) -> Any:
    """The arguments of the past call in a request ``body`` of ``provider``'s API, decoded."""
    if provider == "openai":
        return json.loads(body["messages"][1]["tool_calls"][0]["function"]["arguments"])
    if provider == "responses":
        return json.loads(next(i for i in body["input"] if i.get("type") == "function_call")["arguments"])
    if provider == "anthropic":
        return next(b for b in body["messages"][1]["content"] if b["type"] == "tool_use")["input"]
    return body["contents"][1]["parts"][0]["functionCall"]["args"]


def conversation(args: dict[str, Any]) -> list[Any]:
    from toolwire import AIMessage, ToolMessage

    return [HumanMessage("Book May 1st for 12.50"),
            AIMessage("", tool_calls=[{"name": "book", "args": args, "id": "call_1"}]),
            ToolMessage("booked", tool_call_id="call_1"), HumanMessage("Thanks!")]


def test_python_values_in_a_past_calls_args_are_sent_alike_by_every_provider(server):
    import datetime
    import decimal
    import uuid

    args = {"day": datetime.date(2026, 5, 1), "amount": decimal.Decimal("12.50"), "ref": uuid.UUID(int=1),
            "tags": {"a"}, "ratio": float("nan"), "top": float("inf"), "pair": (1, 2), "note": b"ok"}
    expected = {"day": "2026-05-01", "amount": "12.50", "ref": "00000000-0000-0000-0000-000000000001",
                "tags": ["a"], "ratio": "NaN", "top": "Infinity", "pair": [1, 2], "note": "ok"}
    for provider, model in every_provider(server).items():
        server.requests.clear()
        assert model.invoke(conversation(args)).text == "ok"
        assert sent_args(provider, server.requests[-1][1]) == expected, provider


def test_a_value_json_cannot_carry_is_refused_alike_before_any_request(server):
    for provider, model in every_provider(server).items():
        server.requests.clear()
        with pytest.raises(UserError, match=r"^The arguments of the earlier call to 'book' \(id 'call_1'\) hold a "
                                            r"value JSON cannot carry \(2 bytes that are not UTF-8 text\): give"):
            model.invoke(conversation({"data": b"\xff\xfe"}))
        assert server.requests == [], provider


# --------------------------------------------------------------------------- #2: a base_url with a query string

def test_a_base_url_query_is_sent_as_the_query_of_every_request(server):
    from toolwire.models.openai import ChatOpenAI

    for responses, path in ((False, "/v1/chat/completions"), (True, "/v1/responses")):
        model = ChatOpenAI("gpt-4o", api_key="sk-test-123456", base_url=server.url + "/v1?key=gatewaytoken&v=2",
                           use_responses_api=responses, max_retries=0)
        assert "gatewaytoken" not in repr(model)
        server.requests.clear()
        assert model.invoke("hi").text == "ok" and asyncio.run(model.ainvoke("hi")).text == "ok"
        assert [p for p, _ in server.requests] == [f"{path}?key=gatewaytoken&v=2"] * 2


def test_a_base_url_that_repeats_a_query_parameter_is_refused_when_the_model_is_built():
    from toolwire.models.openai import ChatOpenAI

    with pytest.raises(UserError, match=r"gives the query parameter 'a' more than once.*give each parameter once\.$"):
        ChatOpenAI("gpt-4o", api_key="sk-test-123456", base_url="http://127.0.0.1:9/v1?a=1&a=2")
