"""Local HTTP servers that speak each provider's wire format, so the official SDKs run unchanged.

A :class:`WireServer` listens on 127.0.0.1 (a free port), in a background thread. One *adapter* per API
(``wire_openai``, ``wire_anthropic``, ``wire_gemini``) knows its routes, validates every request body
against the shapes of that API's reference (problems are answered with HTTP 400 in the API's error
format and kept in ``server.problems``), reads the conversation out of the request, and renders replies,
whole or as the API's server-sent events.

Scripting: ``server.queue(Reply(...), Fail(429), ...)`` answers the next requests in order; when the
queue is empty, ``server.brain(conversation)`` computes the reply (by default :func:`book_brain`, which
plays the book chapter's model). ``server.requests`` records each request (path, headers, JSON body).
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = ["Fail", "Recorded", "Reply", "WireServer", "book_brain", "fragments"]


@dataclasses.dataclass
class Reply:
    """A model reply in neutral form; each adapter renders it in its API's format.

    Attributes:
        text: the reply text.
        calls: ``[(name, args dict), ...]`` tool calls, in order (several = parallel calls).
        opaque: when set, the reply carries provider-opaque data built from this token (Anthropic thinking
            block + signature, Gemini thought signature, Responses reasoning item) that the client must
            send back unchanged.
        piece: characters per streamed text/argument fragment.
        interleave: stream the fragments of parallel calls round-robin (OpenAI Chat only).
        delay: seconds to wait before answering.
        raw_arguments: per-call raw argument text to send instead of the JSON of ``args``.
        drop_after: stream only this many events, then close the connection in the middle of the body.
    """

    text: str = ""
    calls: list[tuple[str, dict[str, Any]]] = dataclasses.field(default_factory=list)
    opaque: str | None = None
    piece: int = 3
    interleave: bool = False
    delay: float = 0.0
    raw_arguments: dict[int, str] = dataclasses.field(default_factory=dict)
    drop_after: int | None = None

    def arguments(self, index: int) -> str:
        """The argument JSON text of call ``index``."""
        if index in self.raw_arguments:
            return self.raw_arguments[index]
        return json.dumps(self.calls[index][1], ensure_ascii=False)


@dataclasses.dataclass
class Fail:
    """An HTTP error reply: ``status``, a message, an optional ``Retry-After`` (seconds) and delay."""

    status: int
    message: str = "scripted failure"
    retry_after: float | None = None
    delay: float = 0.0


@dataclasses.dataclass
class Recorded:
    """One request the server received."""

    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    stream: bool


def fragments(text: str, size: int) -> list[str]:
    """Cut ``text`` into pieces of ``size`` characters (at least one piece)."""
    size = max(1, size)
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event frame."""
    head = f"event: {event}\n" if event else ""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return (head + f"data: {payload}\n\n").encode()


# --------------------------------------------------------------------------- the book chapter's model

_CITY = re.compile(r"clima em ([^\s?,.!]+)", re.IGNORECASE)
_PRODUCT = re.compile(r"123 (\*|multiplicado)")


def book_brain(conversation: list[dict[str, Any]]) -> Reply:
    """Answer as the chapter's model does.

    The last user question decides the calls: "clima em <city>" calls ``get_weather(city)``, "123 * 456"
    or "123 multiplicado" calls ``calculate("123 * 456")`` (both when both appear: parallel calls). Once
    the results are in, the answer is their texts joined, so a test sees that every result went through
    the wire.
    """
    last_user = max((i for i, t in enumerate(conversation) if t["role"] == "user"), default=-1)
    question = conversation[last_user]["text"] if last_user >= 0 else ""
    results = [t for t in conversation[last_user + 1:] if t["role"] == "tool"]
    if results:
        return Reply(text="Resposta: " + " | ".join(r["text"] for r in results))
    calls: list[tuple[str, dict[str, Any]]] = []
    city = _CITY.search(question)
    if city:
        calls.append(("get_weather", {"city": city.group(1)}))
    if _PRODUCT.search(question):
        calls.append(("calculate", {"expression": "123 * 456"}))
    return Reply(calls=calls) if calls else Reply(text="Olá! Como posso ajudar?")


# --------------------------------------------------------------------------- the server


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # no 40 ms stalls between a reply's header and body packets
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:
        self.server.wire.handle(self)

    def do_GET(self) -> None:
        self.server.wire.send_json(self, 404, {"error": {"message": "not found"}})


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    wire: WireServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that gave up (timeout test)
            super().handle_error(request, client_address)


class WireServer:
    """A scriptable local server for one API (an adapter from ``wire_*``).

    Use as a context manager or call :meth:`close`. ``url`` is ``http://127.0.0.1:<port>``.
    """

    def __init__(self, adapter: Any, brain: Callable[[list[dict[str, Any]]], Reply | Fail] | None = book_brain):
        self.adapter = adapter
        self.brain = brain
        self.requests: list[Recorded] = []
        self.problems: list[str] = []
        self._queue: collections.deque[Reply | Fail] = collections.deque()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.issued: dict[str, Any] = {}  # opaque data handed out, checked when it comes back
        self.returned: list[str] = []  # opaque tokens that came back unchanged
        self.followers: dict[str, str] = {}  # Responses API: reasoning item id -> id of the output item after it
        self._http = _HTTPServer(("127.0.0.1", 0), _Handler)
        self._http.wire = self
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}"
        self._thread = threading.Thread(target=self._http.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self._thread.start()

    def __enter__(self) -> WireServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Stop the server."""
        self._http.shutdown()
        self._http.server_close()

    def queue(self, *items: Reply | Fail) -> WireServer:
        """Answer the next requests with these items, in order."""
        with self._lock:
            self._queue.extend(items)
        return self

    def new_id(self) -> int:
        """A number unique within this server (for ids)."""
        with self._lock:
            return next(self._ids)

    def bodies(self) -> list[Any]:
        """The JSON bodies of all requests so far."""
        return [r.body for r in self.requests]

    # -- HTTP ----------------------------------------------------------------------------------------

    def send_json(self, handler: BaseHTTPRequestHandler, status: int, body: Any,
                  headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body, ensure_ascii=False).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.end_headers()
        handler.wfile.write(data)

    def send_events(self, handler: BaseHTTPRequestHandler, frames: list[bytes], drop_after: int | None = None) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        for frame in frames[:drop_after]:
            handler.wfile.write(f"{len(frame):x}\r\n".encode() + frame + b"\r\n")
        if drop_after is not None:  # no final chunk: the client sees the connection close mid-body
            handler.close_connection = True
            return
        handler.wfile.write(b"0\r\n\r\n")

    def handle(self, handler: BaseHTTPRequestHandler) -> None:
        split = urlsplit(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            self.send_json(handler, 400, self.adapter.error_body(400, "the body is not JSON"))
            return
        query = parse_qs(split.query)
        headers = {k.lower(): v for k, v in handler.headers.items()}
        route = self.adapter.route(split.path, query)
        if route is None:
            self.send_json(handler, 404, self.adapter.error_body(404, f"no route {split.path}"))
            return
        stream = self.adapter.is_stream(route, body, query)
        with self._lock:
            self.requests.append(Recorded(split.path, query, headers, body, stream))
        problems = self.adapter.validate(body, headers, route, self)
        if problems:
            with self._lock:
                self.problems.extend(problems)
            self.send_json(handler, 400, self.adapter.error_body(400, "; ".join(problems)))
            return
        with self._lock:
            item = self._queue.popleft() if self._queue else None
        if item is None:
            if self.brain is None:
                self.send_json(handler, 500, self.adapter.error_body(500, "no reply scripted"))
                return
            item = self.brain(self.adapter.conversation(body))
        if item.delay:
            time.sleep(item.delay)
        if isinstance(item, Fail):
            extra = {"Retry-After": f"{item.retry_after:g}"} if item.retry_after is not None else None
            self.send_json(handler, item.status, self.adapter.error_body(item.status, item.message), extra)
            return
        model = self.adapter.model_of(route, body)
        if stream:
            self.send_events(handler, self.adapter.render_stream(item, body, model, self), item.drop_after)
        else:
            self.send_json(handler, 200, self.adapter.render(item, body, model, self))


def usage_counts(conversation_length: int, reply: Reply) -> tuple[int, int]:
    """Deterministic (input, output) token counts, equal for the whole and the streamed form of a reply."""
    output = len(reply.text) // 4 + 5 * len(reply.calls) + 1
    return 10 * conversation_length + 3, output


class Checker:
    """Collects request-shape problems as ``"<path>: <what is wrong>"`` sentences."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def fail(self, path: str, message: str) -> bool:
        self.problems.append(f"{path}: {message}")
        return False

    def expect(self, condition: Any, path: str, message: str) -> bool:
        return True if condition else self.fail(path, message)

    def obj(self, value: Any, path: str, allowed: set[str] | None = None, required: tuple[str, ...] = ()) -> bool:
        """``value`` is a JSON object holding ``required`` keys and no key outside ``allowed``."""
        if not isinstance(value, dict):
            return self.fail(path, f"must be an object, got {type(value).__name__}")
        ok = True
        for key in required:
            if key not in value:
                ok = self.fail(path, f"missing required field {key!r}")
        if allowed is not None:
            for key in value:
                if key not in allowed and key not in required:
                    ok = self.fail(path, f"unknown field {key!r}")
        return ok

    def kind(self, value: Any, types: type | tuple[type, ...], path: str) -> bool:
        if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
            return self.fail(path, "must not be a boolean")
        return self.expect(isinstance(value, types), path, f"has the wrong type {type(value).__name__}")

    def text(self, value: Any, path: str, non_empty: bool = False) -> bool:
        if not self.kind(value, str, path):
            return False
        return self.expect(not non_empty or value.strip(), path, "must not be empty")


TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
