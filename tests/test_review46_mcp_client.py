"""Review 46, MCP client: a server whose answers break the protocol (a tool listing or a call result the SDK
refuses) is said in one sentence that says so, not as a pydantic dump with the advice to check the command
(finding 1); a JSON-RPC error answer is not "did not answer" (finding 2); an HTTP server refusing the
credentials (401/403) says to check the token, and other HTTP errors give their status (finding 3); secrets of a
stdio command line (``--token X``, ``--header "Authorization: Bearer X"``) never show in labels, reprs or
errors (finding 4); the SDK's own log of the URL it connects to masks the URL's token (finding 5).

The servers are small processes the tests start (``tests/mcp_review46/odd_server.py``, a hand-written JSON-RPC
server, so that it can send what the SDK's servers never send); no model is loaded."""

from __future__ import annotations

import asyncio
import http.server
import logging
import socketserver
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from toolwire import ToolExecutor, UserError
from toolwire.mcp import HttpServer, StdioServer, connect, load_tools, server_from
from toolwire.messages import AIMessage

pytestmark = pytest.mark.timeout(120)

ODD = [sys.executable, str(Path(__file__).parent / "mcp_review46" / "odd_server.py")]


def _call(name: str, args: dict, call_id: str = "c1") -> dict:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


@pytest.fixture(scope="module")
def odd() -> Iterator[dict]:
    """The odd server's tools whose schemas every SDK accepts, by toolwire name, with a 3-second call timeout."""
    with load_tools([*ODD, "conforming"], timeout=3) as tools:
        yield {t.name: t for t in tools}


# -- finding 1: answers that break the protocol ----------------------------------------------------


def test_a_tool_listing_the_sdk_refuses_is_one_sentence_that_says_the_server_is_at_fault() -> None:
    # three tools whose inputSchema is not an object schema ({}, no "type", "type": "string"): mcp 2.x refuses
    # the whole listing; mcp 1.x takes it, and toolwire skips or repairs each tool
    try:
        with warnings.catch_warnings():  # mcp 1.x: the string schema is skipped, with a warning
            warnings.simplefilter("ignore")
            tools = load_tools(ODD, connect_timeout=30)
    except UserError as exc:
        text = str(exc)
        assert "\n" not in text and "For further information" not in text, text
        assert "not as the MCP protocol says" in text and "inputSchema" in text, text
        assert "check that the command exists" not in text, text
    else:
        with tools:
            assert {"add", "empty_schema", "no_type"} <= {t.name for t in tools}


def test_a_call_result_the_sdk_refuses_is_a_one_line_error_result(odd: dict) -> None:
    # a content block of an unknown type: the SDK refuses the result
    message = odd["unknown_block"].invoke(_call("unknown_block", {}))
    assert message.status == "error"
    assert "\n" not in message.text and "For further information" not in message.text, message.text
    assert "breaks the MCP protocol" in message.text and "did not answer" not in message.text, message.text


# -- finding 2: an error answer is an answer ------------------------------------------------------


def test_a_json_rpc_error_answer_is_said_as_such(odd: dict) -> None:
    message = odd["rpc_error"].invoke(_call("rpc_error", {}))
    assert message.status == "error"
    assert "answered the call with an error" in message.text and "the server broke" in message.text, message.text


# -- finding 3: HTTP errors -----------------------------------------------------------------------


class _Refusing(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.send_response(401 if self.path.startswith("/auth") else 404)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "4")
        self.end_headers()
        self.wfile.write(b"nope")

    do_GET = do_DELETE = do_POST

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def refusing_url() -> Iterator[str]:
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Refusing)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_refused_credentials_say_to_check_the_token_and_never_show_it(refusing_url: str) -> None:
    server = HttpServer(f"{refusing_url}/auth/mcp", headers={"Authorization": "Bearer HEADER-SECRET"})
    with pytest.raises(UserError) as caught:
        load_tools(server, connect_timeout=30)
    text = str(caught.value)
    assert "HTTP 401" in text and "token" in text and "HEADER-SECRET" not in text, text


def test_other_http_errors_give_their_status(refusing_url: str) -> None:
    with pytest.raises(UserError, match=r"\(HTTP 404, .*check the URL"):
        load_tools(f"{refusing_url}/nothing-here", connect_timeout=30)


# -- finding 4: secrets of a command line ---------------------------------------------------------

SECRET_LINE = ("npx mcp-remote https://h.example/mcp?token=URL-SECRET --header 'Authorization: Bearer HDR-SECRET' "
               "--api-key=KEY-SECRET --token TOKEN-SECRET --port 80 GITHUB_TOKEN=ENV-SECRET")
SECRETS = ("URL-SECRET", "HDR-SECRET", "KEY-SECRET", "TOKEN-SECRET", "ENV-SECRET")


def test_the_secrets_of_a_command_line_never_show_in_its_label_or_repr() -> None:
    server = server_from(SECRET_LINE)
    assert isinstance(server, StdioServer)
    for shown in (server.label, repr(server)):
        assert not [s for s in SECRETS if s in shown], shown
        assert "mcp-remote" in shown and "--port" in shown and "80" in shown, shown  # the rest is kept
    assert server.args[-1] == "GITHUB_TOKEN=ENV-SECRET"  # what is run is unchanged


def test_the_secrets_of_a_command_line_never_show_in_errors() -> None:
    line = "toolwire-no-such-command-r46 --token TOKEN-SECRET --header 'Authorization: Bearer HDR-SECRET'"
    with pytest.raises(UserError) as caught:
        load_tools(line, connect_timeout=30)
    assert "Could not connect" in str(caught.value)
    assert "TOKEN-SECRET" not in str(caught.value) and "HDR-SECRET" not in str(caught.value), str(caught.value)
    with pytest.raises(UserError) as unsplit:
        server_from("srv --token TOKEN-SECRET 'unclosed")
    assert "TOKEN-SECRET" not in str(unsplit.value), str(unsplit.value)


# -- finding 5: the SDK's log of the URL ----------------------------------------------------------


def test_the_sdk_log_of_the_url_it_connects_to_masks_the_token(caplog: pytest.LogCaptureFixture,
                                                               refusing_url: str) -> None:
    with caplog.at_level(logging.DEBUG), pytest.raises(UserError):
        load_tools(f"{refusing_url}/nothing?token=URL-SECRET-5", connect_timeout=30)
    logged = [r.getMessage() for r in caplog.records]
    assert logged and not [m for m in logged if "URL-SECRET-5" in m], logged


# -- what already held (kept so): parallel calls, timeouts, sync and async alike -----------------


def test_parallel_calls_on_one_session_each_get_one_result_and_a_hang_times_out(odd: dict) -> None:
    reply = AIMessage("", tool_calls=[
        *[_call("sleep", {"seconds": 1}, f"s{i}") for i in range(4)],
        *[_call("add", {"a": i, "b": 1}, f"a{i}") for i in range(4)],
        _call("sleep", {"seconds": 30}, "hang"), _call("nope", {}, "unknown"), _call("add", {"a": "1"}, "bad")])
    started = time.monotonic()
    results = ToolExecutor(list(odd.values())).execute(reply)
    assert time.monotonic() - started < 15  # the sleeps overlap and the hang stops at the 3-second timeout
    by_id = {r.tool_call_id: r for r in results}
    assert len(results) == len(by_id) == 11
    assert [by_id[f"a{i}"].text for i in range(4)] == ["1", "2", "3", "4"]
    assert all(by_id[f"s{i}"].text == "slept" for i in range(4))
    assert [by_id[k].status for k in ("hang", "unknown", "bad")] == ["error"] * 3
    assert "3 seconds" in by_id["hang"].text


def test_sync_and_async_sessions_give_the_same_messages(odd: dict) -> None:
    cases = [("add", {"a": 1, "b": 2}), ("fails", {}), ("image", {}), ("resource", {}), ("structured", {}),
             ("refs", {"p": {"n": "x"}}), ("draft7", {"pair": ["a", 1]})]

    async def via_connect() -> list:
        async with connect([*ODD, "conforming"]) as client:
            tools = {t.name: t for t in client}
            return [await tools[name].ainvoke(_call(name, args)) for name, args in cases]

    got = asyncio.run(via_connect())
    want = [odd[name].invoke(_call(name, args)) for name, args in cases]
    assert [(m.status, m.content, m.artifact) for m in got] == [(m.status, m.content, m.artifact) for m in want]
    assert [m.status for m in got] == ["success", "error", "success", "success", "success", "error", "success"]
