"""Review 301 #1: ``toolwire mcp serve`` over stdio answers a request object the mcp SDK cannot read (``"params": 5``,
a string escaping a lone surrogate, an id that is not a string or an integer) with a JSON-RPC error carrying its id
and a warning, instead of leaving the client waiting; a lone surrogate is read as U+FFFD and the request is run."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from toolwire.mcp._stdio_errors import _answer, _check


def _error(answer: Any) -> tuple[Any, int, str]:
    assert answer is not None and not isinstance(answer, str), answer
    error = getattr(answer.message, "root", answer.message)
    return error.id, error.error.code, error.error.message


SURROGATE = '{"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "echo", "arguments": ' \
            '{"text": "a\\ud800b"}}}'


def test_a_lone_surrogate_is_read_as_the_replacement_character_and_the_request_passes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    import mcp.types as mcp_types

    with caplog.at_level(logging.WARNING, logger="toolwire.mcp"):
        line = _check(SURROGATE + "\n")
    assert isinstance(line, str)
    message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    assert message.id == 10 and message.params["arguments"] == {"text": "a\ufffdb"}
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    assert "lone surrogate" in caplog.records[0].getMessage() and "U+FFFD" in caplog.records[0].getMessage()
    assert _answer(SURROGATE) is None


@pytest.mark.parametrize(("line", "code", "said"), [
    ('{"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": 5}', -32602, "params"),
    ('{"jsonrpc": "2.0", "id": "s", "method": "tools/call", "params": []}', -32602, "params"),
    ('{"jsonrpc": "1.0", "id": 3, "method": "tools/call"}', -32600, "jsonrpc"),
    ('{"id": 3, "method": "tools/call", "params": {}}', -32600, "jsonrpc"),
    ('{"jsonrpc": "2.0", "id": 3, "method": 7}', -32600, "method"),
    ('{"jsonrpc": "2.0", "id": 3}', -32600, "method"),
])
def test_a_request_the_sdk_cannot_read_gets_an_error_with_its_id(line: str, code: int, said: str,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolwire.mcp"):
        answer = _check(line + "\n")
    request_id = json.loads(line)["id"]
    got_id, got_code, message = _error(answer)
    assert (got_id, got_code) == (request_id, code)
    assert said in message
    assert len(caplog.records) == 1 and caplog.records[0].levelname == "WARNING"
    assert str(code) in caplog.records[0].getMessage()


@pytest.mark.parametrize("request_id", ["1.5", "true", "null", "[1]", "{}"])
def test_a_request_whose_id_is_no_string_or_integer_gets_an_error_with_a_null_id(request_id: str) -> None:
    line = '{"jsonrpc": "2.0", "id": ' + request_id + ', "method": "ping"}'
    got_id, code, message = _error(_check(line))
    assert (got_id, code) == (None, -32600)
    assert "id" in message


@pytest.mark.parametrize("line", [
    '{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": 5}',  # a notification: never answered
    '{"jsonrpc": "2.0", "id": 4, "result": 5}',  # the client's answer to the server: never answered back
])
def test_a_notification_or_a_response_the_sdk_cannot_read_is_only_logged(line: str,
                                                                         caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolwire.mcp"):
        assert _check(line) == line
    assert len(caplog.records) == 1 and caplog.records[0].levelname == "WARNING"


@pytest.mark.parametrize("line", [
    '{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n',
    '{"jsonrpc": "2.0", "method": "notifications/initialized"}\n',
    '{"jsonrpc": "2.0", "id": "x", "method": "tools/call", "params": {"name": "echo", "arguments": {"text": '
    '"\\ud83d\\ude00 \\"id\\": 1.5"}}}\n',
    '{"jsonrpc": "2.0", "id": 2, "result": {}}\n',
    "\n",
])
def test_a_valid_line_passes_on_as_it_is(line: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolwire.mcp"):
        assert _check(line) == line
    assert not caplog.records


def test_the_stdio_server_answers_each_request_the_sdk_dropped(tmp_path: Path) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text("from toolwire import tool\n\n@tool\ndef echo(text: str) -> str:\n"
                     "    '''Echo.'''\n    return text\n")
    command = [sys.executable, "-c", "from toolwire.cli import app; app()", "mcp", "serve", "--tools", str(tools)]
    lines = [json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        SURROGATE,
        '{"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": 5}',
        '{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}',
        json.dumps({"jsonrpc": "2.0", "id": 12, "method": "ping"})]
    log = tmp_path / "stderr.txt"
    with log.open("w") as errors:
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, text=True)
    answers: list[dict[str, Any]] = []

    def read() -> None:
        for line in proc.stdout or ():
            answers.append(json.loads(line))
            if len(answers) == 5:
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert proc.stdin is not None
    proc.stdin.write("".join(line + "\n" for line in lines))
    proc.stdin.flush()
    reader.join(30)
    proc.stdin.close()
    proc.wait(30)
    stderr = log.read_text()
    by_id = {a.get("id"): a for a in answers}
    assert by_id[10]["result"]["content"] == [{"type": "text", "text": "a\ufffdb"}], answers
    assert by_id[11]["error"]["code"] == -32602
    assert by_id[None]["error"]["code"] == -32600
    assert by_id[12]["result"] == {}
    assert stderr.count("The MCP client sent a request") == 3, stderr  # one line each
