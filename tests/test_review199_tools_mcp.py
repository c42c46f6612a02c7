"""Review 199 #1, #3, #8, #10: ``--mcp URL`` answering non-MCP JSON or HTML gives toolwire's line only; two
``--tools`` files whose sibling modules share a name; a tools file of a package given as a path; ``models list`` with
``TOOLWIRE_MODEL_PATH``."""

from __future__ import annotations

import http.server
import logging
import threading
from collections.abc import Iterator

import pytest

from toolwire.errors import UserError

# -- #1: the SDK's record of an answer toolwire reports itself -------------------------------------------------------


class _NotMCP(http.server.BaseHTTPRequestHandler):
    """Answers every POST as an OpenAI server's /mcp path (JSON that is not JSON-RPC) or a web page would."""

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path.endswith("/html"):
            body, kind = b"<html><body>hello</body></html>", "text/html"
        else:
            body, kind = b'{"id": "x", "object": "chat.completion", "choices": []}', "application/json"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_DELETE(self) -> None:  # noqa: N802
        self.do_GET()


@pytest.fixture
def not_mcp() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NotMCP)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("path", "said"), [("/mcp", "JSON that is not an MCP message"),
                                            ("/html", "Unexpected content type")])
def test_a_url_answering_non_mcp_gives_toolwires_line_and_no_sdk_record(
        not_mcp: str, path: str, said: str, caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("mcp")
    from toolwire.mcp import load_tools

    caplog.set_level(logging.DEBUG, logger="mcp")
    with pytest.raises(UserError, match=said):
        load_tools(not_mcp + path, connect_timeout=20)
    sdk = [r for r in caplog.records if r.name.startswith("mcp.client") and r.levelno >= logging.WARNING]
    assert sdk == [], [r.getMessage() for r in sdk]


def test_the_sdks_records_pass_for_code_that_is_not_a_toolwire_session(caplog: pytest.LogCaptureFixture) -> None:
    from toolwire.mcp import _sdk_logs

    caplog.set_level(logging.DEBUG, logger="mcp")
    logging.getLogger("mcp.client.streamable_http").error("Error parsing JSON response")
    with _sdk_logs.toolwire_reports():
        logging.getLogger("mcp.client.streamable_http").error("Error parsing JSON response")
        logging.getLogger("mcp.client.streamable_http").warning("Session termination failed: 500")
    assert [r.getMessage() for r in caplog.records if r.name.startswith("mcp.client")] == [
        "Error parsing JSON response", "Session termination failed: 500"]
