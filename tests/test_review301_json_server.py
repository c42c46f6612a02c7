"""Review 301 #2: a server given as text that is a JSON object (one server's entry of an ``mcpServers`` config, as
pasted into ``--mcp``) is read as that entry, as the same dict given from Python is, never split as a command line;
no ``env`` or header value shows in an error, a label or a repr."""

from __future__ import annotations

import json
import sys

import pytest

pytest.importorskip("mcp")

from toolwire.errors import ToolwireError, UserError
from toolwire.mcp import HttpServer, StdioServer, load_tools, server_from

SECRET = "ghp_abcdef123456SECRET"


def test_a_json_stdio_entry_is_read_as_the_dict_it_holds() -> None:
    entry = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
             "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": SECRET}}
    server = server_from("  " + json.dumps(entry) + "\n")
    assert server == server_from(entry)
    assert isinstance(server, StdioServer) and server.command == "npx"
    assert server.args == ("-y", "@modelcontextprotocol/server-github")
    assert server.env == {"GITHUB_PERSONAL_ACCESS_TOKEN": SECRET}
    assert server.label == "npx -y @modelcontextprotocol/server-github"
    assert SECRET not in repr(server)


def test_a_json_http_entry_is_read_as_the_dict_it_holds() -> None:
    text = json.dumps({"type": "http", "url": "http://127.0.0.1:9/mcp",
                       "headers": {"Authorization": f"Bearer {SECRET}"}})
    server = server_from(text)
    assert isinstance(server, HttpServer) and server.url == "http://127.0.0.1:9/mcp"
    assert server.headers == {"Authorization": f"Bearer {SECRET}"}
    assert SECRET not in repr(server) and SECRET not in server.label


@pytest.mark.parametrize("text", [
    '{"command": "npx", "env": {"GITHUB_TOKEN": "' + SECRET + '"}',  # the closing brace left out
    "{'command': 'npx', 'env': {'GITHUB_TOKEN': '" + SECRET + "'}}",  # Python's quotes
])
def test_text_that_starts_like_a_json_object_but_is_not_one_is_refused_without_its_values(text: str) -> None:
    with pytest.raises(UserError) as caught:
        server_from(text)
    message = str(caught.value)
    assert SECRET not in message and "GITHUB_TOKEN" not in message
    assert "JSON" in message and "command line" in message
    assert message.count(". ") == 0 and message.endswith(".")


def test_a_json_entry_that_is_no_server_gets_the_dicts_message_without_its_values() -> None:
    with pytest.raises(UserError, match="keys 'env'") as caught:
        server_from(json.dumps({"env": {"GITHUB_TOKEN": SECRET}}))
    assert SECRET not in str(caught.value)
    with pytest.raises(UserError, match="whole MCP config"):
        server_from(json.dumps({"mcpServers": {"github": {"command": "npx", "env": {"T": SECRET}}}}))


def test_a_pasted_entry_whose_server_fails_names_its_command_never_its_env() -> None:
    text = json.dumps({"command": sys.executable, "args": ["-c", "raise SystemExit(2)"],
                       "env": {"GITHUB_TOKEN": SECRET}})
    with pytest.raises(ToolwireError) as caught:
        load_tools(text, connect_timeout=20)
    message = str(caught.value)
    assert SECRET not in message and "{command:" not in message, message
    assert "raise SystemExit(2)" in message


def test_the_no_tools_error_of_the_cli_quotes_masked_labels(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``--mcp`` text itself (a pasted entry's ``env`` token) is never printed: the servers' labels are."""
    from typer.testing import CliRunner

    import toolwire.mcp
    from toolwire import cli
    from toolwire.testing import ScriptedChatModel

    monkeypatch.setattr(toolwire.mcp, "load_tools", lambda server: [])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: ScriptedChatModel(["x"]))
    entry = '{"command": "npx", "args": ["-y", "srv"], "env": {"GITHUB_TOKEN": "ghp_SECRETxyz"}}'
    result = CliRunner().invoke(cli.app, ["ask", "q", "--mcp", entry, "--mcp", "TOKEN=abc srv --api-key zzz"])
    assert result.exit_code == 1 and "'npx -y srv'" in result.stderr
    assert "ghp_SECRETxyz" not in result.stderr and "abc" not in result.stderr and "zzz" not in result.stderr
