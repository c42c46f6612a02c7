"""Review 305 #5, #4, #3: ``toolwire mcp serve`` over stdio: a valid notification with ``"id"`` inside its params is
passed on without a warning; a string id with a lone surrogate is answered with that id as it was written; a request
holding an integer too long for Python to read is answered with its id, not as a line that is no JSON."""

from __future__ import annotations

import logging
from typing import Any

import pytest

pytest.importorskip("mcp")

from toolwire.mcp._stdio_errors import _check


def _error(answer: Any) -> tuple[Any, int, str]:
    assert answer is not None and not isinstance(answer, str), answer
    error = getattr(answer.message, "root", answer.message)
    return error.id, error.error.code, error.error.message


@pytest.mark.parametrize("line", [
    '{"jsonrpc": "2.0", "method": "notifications/roots/list_changed", "params": {"_meta": {"id": 7}}}\n',
    '{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "\\"id\\": 1"}}\n',
])
def test_a_valid_notification_with_id_inside_its_params_passes_on_without_a_warning(
        line: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolwire.mcp"):
        assert _check(line) == line
    assert not caplog.records


@pytest.mark.parametrize("line", [
    '{"jsonrpc": "2.0", "id": "req-\\ud800", "method": "ping"}',
    '{"jsonrpc": "2.0", "id": "\\udfff\\u00e9", "method": "tools/call", "params": {"name": "echo", '
    '"arguments": {"text": "a\\ud800"}}}',
    '{"jsonrpc": "2.0", "id": "req-\\ud800", "method": "ping", "params": 5}',
])
def test_a_string_id_with_a_lone_surrogate_is_answered_with_that_id_as_written(line: str) -> None:
    import json

    answer = _check(line + "\n")
    assert not isinstance(answer, str)
    text = answer.message.model_dump_json(by_alias=True, exclude_unset=True)
    text.encode("utf-8")  # (what the SDK's stdout writer does: it must not fail)
    sent = json.loads(line)
    got = json.loads(text)
    assert got["id"] == sent["id"] and got["jsonrpc"] == "2.0"
    assert got["error"]["code"] in (-32600, -32602) and "result" not in got


BIG = "9" * 5000


@pytest.mark.parametrize(("line", "request_id"), [
    ('{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi", '
     '"n": %s}}}'.replace("%s", BIG), 5),
    ('{"jsonrpc": "2.0", "id": "six", "method": "tools/call", "params": {"name": "echo", "arguments": '
     '{"text": "a\\ud800", "n": -%s}}}'.replace("%s", BIG), "six"),
    ('{"jsonrpc": "2.0", "id": %s, "method": "ping"}'.replace("%s", BIG), None),
])
def test_a_request_with_an_integer_too_long_to_read_is_answered_with_its_id(line: str, request_id: Any) -> None:
    request_id_got, code, message = _error(_check(line + "\n"))
    assert request_id_got == request_id and code in (-32600, -32602)
    assert "not JSON" not in message


def test_a_notification_with_an_integer_too_long_to_read_is_not_answered() -> None:
    line = '{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": %s}}\n'.replace("%s", BIG)
    assert _check(line) == line
