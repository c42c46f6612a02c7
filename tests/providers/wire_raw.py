"""A raw OpenAI Chat Completions wire server for the provider tests: replies and error bodies sent exactly
as scripted (a server's own JSON, SSE events, or text), through the same request validation as the
conformance suite. The ``raw`` and ``make`` fixtures (``conftest.py``) give one, and a ``ChatOpenAI`` aimed
at it."""

from __future__ import annotations

import dataclasses
from typing import Any

from .wire_openai import OpenAIChat
from .wire_servers import Fail, Reply, WireServer, sse


class PlainText(str):
    """An error body sent as ``text/plain`` instead of JSON."""


@dataclasses.dataclass
class Raw(Reply):
    """A reply sent exactly as scripted: ``body`` (a whole ``chat.completion``) or ``events`` (SSE data:
    dicts as JSON, ``"[DONE]"``, or bytes written as they are)."""

    body: dict[str, Any] | None = None
    events: list[Any] | None = None


class RawChat(OpenAIChat):
    """The OpenAI Chat adapter, answering :class:`Raw` replies and registered error bodies verbatim."""

    def __init__(self) -> None:
        self.errors: dict[str, Any] = {}

    def error_body(self, status: int, message: str) -> Any:
        return self.errors.pop(message) if message in self.errors else super().error_body(status, message)

    def render(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> dict[str, Any]:
        return reply.body if isinstance(reply, Raw) and reply.body is not None else super().render(
            reply, body, model, server)

    def render_stream(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> list[bytes]:
        if not isinstance(reply, Raw) or reply.events is None:
            return super().render_stream(reply, body, model, server)
        return [e if isinstance(e, bytes) else sse(e) for e in reply.events]


class RawServer(WireServer):
    def fail(self, status: int, body: Any) -> Fail:
        """A failure answered with ``body`` as it is (a dict or list as JSON, a :class:`PlainText` as text)."""
        key = f"raw-error-{self.new_id()}"
        self.adapter.errors[key] = body
        return Fail(status, key)

    def send_json(self, handler: Any, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        if not isinstance(body, PlainText):
            super().send_json(handler, status, body, headers)
            return
        data = body.encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "text/plain; charset=utf-8")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


def completion(message: dict[str, Any], finish: str | None = "stop",
               choices: list[Any] | None = None) -> dict[str, Any]:
    if choices is None:
        choices = [{"index": 0, "message": message, "finish_reason": finish}]
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m", "choices": choices,
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def chunk(delta: dict[str, Any], finish: str | None = None, index: int = 0) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": index, "delta": delta, "finish_reason": finish}]}
