"""Review 305 #1: text pasted into ``--mcp`` / ``load_tools`` that is clearly JSON (after a BOM and whitespace:
``{``, ``[``, or a ``"name": {...}`` entry copied with its name) is read or refused, never split as a command line,
and no part of it is echoed in an error."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("mcp")

from toolwire.errors import UserError
from toolwire.mcp import StdioServer, server_from

SECRET = "ghp_SECRET123456"
ENTRY = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
         "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": SECRET}}


@pytest.mark.parametrize("text", [
    '"github": ' + json.dumps(ENTRY),
    '  "github" : ' + json.dumps(ENTRY) + ",\n",
    "\ufeff" + json.dumps(ENTRY),
    "\ufeff  " + '"github": ' + json.dumps(ENTRY),
])
def test_an_entry_with_its_name_or_a_bom_is_read_as_the_entry(text: str) -> None:
    assert server_from(text) == server_from(ENTRY)


def test_a_json_list_of_words_is_read_as_the_command_words() -> None:
    server = server_from('\ufeff["npx", "-y", "srv", "--token", "%s"]'.replace("%s", SECRET))
    assert isinstance(server, StdioServer)
    assert server.command == "npx" and server.args == ("-y", "srv", "--token", SECRET)
    assert SECRET not in repr(server) and SECRET not in server.label


@pytest.mark.parametrize("text", [
    '["npx", "-y", "--token", "%s"'.replace("%s", SECRET),           # not valid JSON
    '["npx", 5, "%s"]'.replace("%s", SECRET),                         # not all words
    "[]",
    '"github": {"command": "npx", "env": {"T": "%s"}'.replace("%s", SECRET),   # not valid JSON
    '"github": {"command": "npx"}, "gitlab": {"command": "%s"}'.replace("%s", SECRET),  # two entries
    '"github": ["npx", "%s"]'.replace("%s", SECRET),
    '\ufeff{"command": "npx", "env": {"T": "%s"'.replace("%s", SECRET),
])
def test_clearly_json_text_that_cannot_be_read_is_refused_quoting_none_of_it(text: str) -> None:
    with pytest.raises(UserError) as info:
        server_from(text)
    message = str(info.value)
    assert SECRET not in message and "--token" not in message and '"T"' not in message
    assert "check that the command exists" not in message


def test_a_command_line_starting_with_a_quoted_word_is_still_a_command_line() -> None:
    server = server_from('"my server" --flag')
    assert isinstance(server, StdioServer) and server.command == "my server" and server.args == ("--flag",)


@pytest.mark.parametrize("spec", [
    {"type": "sse", "url": "http://127.0.0.1:9/sse", "headers": {"Authorization": f"Bearer {SECRET}"}},
    {"type": "SSE", "url": "http://127.0.0.1:9/sse"},
    {"transport": "sse", "url": "http://127.0.0.1:9/sse"},
    '"remote": {"type": "sse", "url": "http://127.0.0.1:9/sse"}',
])
def test_an_sse_entry_is_refused_saying_sse_is_not_supported(spec: object) -> None:
    """Review 305 #2: ``"type": "sse"`` is not dropped to connect over streamable HTTP and blame the URL."""
    with pytest.raises(UserError) as info:
        server_from(spec)  # type: ignore[arg-type]
    message = str(info.value)
    assert "SSE" in message and "streamable HTTP" in message and "/mcp" in message
    assert SECRET not in message and "check the URL" not in message


def test_an_http_typed_entry_is_still_read() -> None:
    server = server_from({"type": "streamable-http", "url": "http://127.0.0.1:9/mcp"})
    assert server == server_from({"type": "http", "url": "http://127.0.0.1:9/mcp"})


@pytest.mark.parametrize(("url", "statuses"), [("http://127.0.0.1:9/sse", []), ("http://127.0.0.1:9/x", [405])])
def test_a_failed_connection_to_what_may_be_an_sse_server_says_sse_is_not_supported(url: str, statuses: list) -> None:
    from toolwire.mcp import HttpServer
    from toolwire.mcp.common import _connect_error

    message = str(_connect_error(HttpServer(url), ConnectionError("refused"), statuses))
    assert "SSE" in message and "streamable HTTP" in message and "/mcp" in message
