"""Review 232: the MCP client sends a call again after a session renewal only when that call's own request got the
404 (#1); ``toolwire mcp serve`` over stdio answers a line nested too deeply to read instead of ending (#3)."""

from __future__ import annotations

import asyncio
import io
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("mcp")

from test_review224_fixes import _FakeHttpMcp
from toolwire.mcp import load_tools
from toolwire.mcp._renewal import Forgotten, watch_refusal
from toolwire.mcp._stdio_errors import LineCheck, _answer


@pytest.fixture
def fake() -> Iterator[_FakeHttpMcp]:
    server = _FakeHttpMcp()
    yield server
    server.http.shutdown()
    server.http.server_close()


def _invoke(tool: Any, a: int, call_id: str) -> Any:
    return tool.invoke({"name": "add", "args": {"a": a, "b": 1}, "id": call_id, "type": "tool_call"})


def test_a_call_the_server_ran_before_it_forgot_the_session_is_not_sent_again(fake: _FakeHttpMcp) -> None:
    """The server runs a=100, restarts (forgets its sessions) and loses that answer; meanwhile a=1 gets the 404, the
    session is renewed and a=1 is sent once more. a=100 must not run twice: its error says the tool may have run."""
    received, release = threading.Event(), threading.Event()
    handler = fake.http.RequestHandlerClass
    plain_post = handler.do_POST  # type: ignore[attr-defined]

    def do_post(self: Any) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        msg = json.loads(body)
        if msg.get("method") == "tools/call" and msg["params"]["arguments"]["a"] == 100:
            fake.ran.append(msg["params"])  # (the tool ran)
            fake.forget()  # (and the server restarts before it answers)
            received.set()
            release.wait(20)
            self.send_response(502)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.rfile = io.BytesIO(body)
        plain_post(self)

    handler.do_POST = do_post  # type: ignore[attr-defined]
    out: dict[str, Any] = {}
    with load_tools(fake.url, connect_timeout=20) as tools:
        slow = threading.Thread(target=lambda: out.update(slow=_invoke(tools[0], 100, "s")))
        slow.start()
        assert received.wait(20)
        out["fast"] = _invoke(tools[0], 1, "f")
        release.set()
        slow.join(30)
        assert (out["fast"].status, out["fast"].content) == ("success", "2")
        assert out["slow"].status == "error"
        assert "may have run" in out["slow"].content and "not sent again" in out["slow"].content
        assert [p["arguments"]["a"] for p in fake.ran] == [100, 1]
        assert (_invoke(tools[0], 5, "n").content, fake.inits) == ("6", 2)  # (the renewed session serves on)


def test_parallel_calls_after_a_forgotten_session_never_run_twice(fake: _FakeHttpMcp) -> None:
    with load_tools(fake.url, connect_timeout=20) as tools:
        fake.forget()
        out: dict[int, Any] = {}
        threads = [threading.Thread(target=lambda n=n: out.update({n: _invoke(tools[0], n, f"c{n}")}))
                   for n in (10, 20, 30)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        # each call either got its own 404 (sent again on the new session: it runs once) or was cut off while the
        # renewal closed the old connection (never sent again: "may have run"); none ever runs twice
        assert sorted(out) == [10, 20, 30]
        for n, reply in out.items():
            assert (reply.status, reply.content) == ("success", str(n + 1)) or (
                reply.status == "error" and "not sent again" in reply.content), (n, reply.content)
        ran = [p["arguments"]["a"] for p in fake.ran]
        assert len(ran) == len(set(ran))
        assert {n for n, reply in out.items() if reply.status == "success"} <= set(ran)
        assert sum(reply.status == "success" for reply in out.values()) >= 1


def test_a_404_counts_only_for_the_call_whose_request_got_it() -> None:
    forgotten = Forgotten()

    async def main() -> tuple[list[str], list[str]]:
        with watch_refusal() as mine:
            forgotten.append("s1")  # (this call's own request)
        with watch_refusal() as other:
            await asyncio.sleep(0)
        forgotten.append("s2")  # (a request no call watches: a ping, a listing)
        return mine, other

    mine, other = asyncio.run(main())
    assert (mine, other, list(forgotten)) == (["s1"], [], ["s1", "s2"])


def _deep_line() -> str:
    deep = "[" * 100_000 + "]" * 100_000
    return '{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"arguments": {"a": ' + deep + "}}}\n"


def test_a_line_nested_too_deeply_to_read_gets_a_parse_error_answer() -> None:
    answer = _answer(_deep_line())
    assert answer is not None
    error = getattr(answer.message, "root", answer.message)
    assert (error.id, error.error.code) == (None, -32700)
    assert "nests too deeply" in error.error.message


def test_the_line_check_goes_on_after_a_deeply_nested_line() -> None:
    ping = '{"jsonrpc": "2.0", "id": 9, "method": "ping"}\n'

    class Stdin:
        def __aiter__(self) -> Any:
            return self._lines()

        async def _lines(self) -> Any:
            for line in (_deep_line(), ping):
                yield line

    class Write:
        def __init__(self) -> None:
            self.sent: list[Any] = []

        async def send(self, message: Any) -> None:
            self.sent.append(message)

    async def main() -> tuple[list[str], list[Any]]:
        check = LineCheck(Stdin())
        check.write = Write()
        return [line async for line in check], check.write.sent

    passed, sent = asyncio.run(main())
    assert passed == [ping] and len(sent) == 1
