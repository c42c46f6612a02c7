"""Review 211 #4: ChatAnthropic given nothing to send (an empty question, a system message alone) raises a one-sentence
UserError before any request, as ChatGoogleGenAI does; before, it sent ``"messages": []`` and the API answered 400."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("anthropic")

from toolwire import HumanMessage, SystemMessage
from toolwire.errors import UserError
from toolwire.models import ChatAnthropic

_REPLY = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
          "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "stop_sequence": None,
          "usage": {"input_tokens": 1, "output_tokens": 1}}


@pytest.fixture
def server() -> Iterator[tuple[str, list[dict]]]:
    requests: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            size = int(self.headers.get("content-length") or 0)
            requests.append(json.loads(self.rfile.read(size) or b"null"))
            out = json.dumps(_REPLY).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", requests
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


@pytest.mark.parametrize("given", ["", [SystemMessage("You are terse.")], [SystemMessage("Terse."), HumanMessage("")]])
def test_nothing_to_send_is_refused_before_any_request(server: tuple[str, list[dict]], given: object) -> None:
    url, requests = server
    claude = ChatAnthropic("claude-sonnet-4-5", api_key="sk-ant-test-0000000000", base_url=url)
    with pytest.raises(UserError) as caught:
        claude.invoke(given)
    assert requests == []
    text = str(caught.value)
    assert text.startswith("Anthropic needs at least one user message")
    assert "pass the question as a user message." in text and text.count(". ") == 0


def test_a_question_is_still_sent(server: tuple[str, list[dict]]) -> None:
    url, requests = server
    claude = ChatAnthropic("claude-sonnet-4-5", api_key="sk-ant-test-0000000000", base_url=url)
    assert claude.invoke([SystemMessage("You are terse."), HumanMessage("Hi")]).text == "ok"
    assert requests[0]["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]
    assert requests[0]["system"] == "You are terse."
