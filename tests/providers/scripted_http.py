"""A scripted local HTTP server for provider tests that need bodies no real API sends on purpose: a proxy's
HTML page with status 200, a body cut off mid-JSON, a stream that stops before its last event, an error
event inside a 200 stream. Each request is answered by the next scripted :class:`Answer`; requests are kept
in ``requests`` (their decoded JSON bodies)."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclasses.dataclass
class Answer:
    """One scripted answer: ``body`` (a dict as JSON, text or bytes as they are) with ``content_type``, or
    ``events`` for a server-sent-event stream (``(event, data)`` pairs, or data dicts; the connection is
    closed after the last one)."""

    status: int = 200
    body: Any = None
    content_type: str = "application/json"
    events: list[Any] | None = None
    pauses: list[float] | None = None  # seconds to wait before each event (a slow stream)


class ScriptedServer:
    """Answers POSTs on 127.0.0.1 from a queue of :class:`Answer` (``push``); use as a context manager."""

    def __init__(self) -> None:
        self.script: list[Answer] = []
        self.requests: list[Any] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    owner.requests.append(json.loads(raw))
                except ValueError:
                    owner.requests.append(raw)
                answer = owner.script.pop(0) if owner.script else Answer(500, {"error": {"message": "no script"}})
                self.send_response(answer.status)
                if answer.events is not None:
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("connection", "close")
                    self.end_headers()
                    try:
                        for n, event in enumerate(answer.events):
                            if answer.pauses and n < len(answer.pauses):
                                time.sleep(answer.pauses[n])
                            if isinstance(event, tuple):
                                self.wfile.write(f"event: {event[0]}\ndata: {json.dumps(event[1])}\n\n".encode())
                            else:
                                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                            self.wfile.flush()
                    except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting (a timeout test)
                        pass
                    self.close_connection = True
                    return
                body = answer.body
                data = body if isinstance(body, bytes) else (
                    body.encode() if isinstance(body, str) else json.dumps(body).encode())
                self.send_header("content-type", answer.content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def push(self, *answers: Answer) -> ScriptedServer:
        """Queue answers for the next requests, in order."""
        self.script.extend(answers)
        return self

    def __enter__(self) -> ScriptedServer:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
