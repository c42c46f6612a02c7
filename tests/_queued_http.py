"""A local HTTP server for provider tests that replay an API's documented replies: each POST gets ``answer(body, n)``
(``n``: the request's number from 0) when that gives something, else the next queued reply. A dict is sent as
JSON; a list (or any reply to a Gemini ``alt=sse`` request) as server-sent events, OpenAI's ending with
``data: [DONE]`` when ``done`` is set; ``(status, reply)`` sends that HTTP status. ``requests`` holds the decoded
bodies. :func:`serving` gives one for a ``with`` block (a pytest fixture's body)."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar


class QueuedServer:
    """See the module docstring. ``path``: what :attr:`url` ends with (``"/v1"`` for OpenAI's base URL)."""

    def __init__(self, path: str = "", done: bool = False) -> None:
        self.queue: list[Any] = []
        self.requests: list[Any] = []
        self.answer: Callable[[Any, int], Any] | None = None
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                body = json.loads(raw) if raw else None
                owner.requests.append(body)
                found = owner.answer(body, len(owner.requests) - 1) if owner.answer else None
                reply = found if found is not None else owner.queue.pop(0)
                status = 200
                if isinstance(reply, tuple):
                    status, reply = reply
                gemini_stream = "alt=sse" in self.path
                if isinstance(reply, list) or gemini_stream:
                    end = "\r\n\r\n" if gemini_stream else "\n\n"
                    events = reply if isinstance(reply, list) else [reply]
                    data = ("".join(f"data: {json.dumps(e)}{end}" for e in events)
                            + (f"data: [DONE]{end}" if done else "")).encode()
                    kind = "text/event-stream"
                else:
                    data, kind = json.dumps(reply).encode(), "application/json"
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}{path}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()


@contextlib.contextmanager
def serving(path: str = "", done: bool = False) -> Iterator[QueuedServer]:
    """A :class:`QueuedServer` for the block, shut down and closed at its end."""
    found = QueuedServer(path, done)
    try:
        yield found
    finally:
        found.http.shutdown()
        found.http.server_close()


def weather_answer(body: Any, n: int) -> dict[str, Any]:
    """An OpenAI-compatible reply for ``QueuedServer.answer`` (tests of the command line): a call of
    ``get_weather(city="Paris")``, then, once a tool answered, the answer "It is sunny."."""
    if body["messages"][-1]["role"] == "tool":
        message: dict[str, Any] = {"role": "assistant", "content": "It is sunny."}
    else:
        message = {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]}
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def serve_handler(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    """Serve ``handler`` on a free localhost port for a fixture: yields the port, then stops the server."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


class QuotingGateway(BaseHTTPRequestHandler):
    """A gateway that answers every POST with an OpenAI-style error (``status``, 400 unless a subclass says) whose
    message is :meth:`said` (a subclass's quote of the request's headers, as some gateways quote them)."""

    protocol_version = "HTTP/1.1"
    status = 400
    error: ClassVar[dict[str, Any]] = {"type": "invalid_request_error"}  # the error's other fields

    def said(self) -> str:
        return ""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = json.dumps({"error": {"message": self.said(), **self.error}}).encode()
        self.send_response(self.status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def weather_serving() -> Iterator[QueuedServer]:
    """For a ``server`` fixture: a queued OpenAI-compatible server at ``/v1`` answering with :func:`weather_answer`."""
    with serving("/v1") as found:
        found.answer = weather_answer
        yield found
