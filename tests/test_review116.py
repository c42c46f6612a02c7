"""Review 116 (the session's docs read against behaviour): an unset variable in a command line's NAME=value words,
an unquoted header split into three words, a whole mcpServers config, a URL of another scheme, option errors that
name what the user called, and a memoryview result."""

from __future__ import annotations

import base64

import pytest

from toolwire import UserError
from toolwire.mcp import load_tools, server_from
from toolwire.results import result_to_content

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAA"
                       "AABJRU5ErkJggg==")


def test_a_variable_that_is_not_set_is_refused_not_passed_as_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TW_NOT_SET_116", raising=False)
    with pytest.raises(UserError, match=r"sets GITHUB_TOKEN from \$TW_NOT_SET_116, which is not set here"):
        server_from("GITHUB_TOKEN=$TW_NOT_SET_116 npx server")
    with pytest.raises(UserError, match="TW_NOT_SET_116"):
        server_from("A=${TW_NOT_SET_116}/bin npx server")


@pytest.mark.parametrize("command", [
    "npx mcp-remote https://x/mcp --header=Authorization: Bearer SECRET_U1",  # (unquoted: three words)
    "npx mcp-remote https://x/mcp --header Authorization:Bearer SECRET_U1",
    "npx mcp-remote https://x/mcp --header Authorization: SECRET_U1"])
def test_an_unquoted_header_split_into_words_is_still_masked(command: str) -> None:
    server = server_from(command)
    assert "SECRET_U1" not in server.label and "SECRET_U1" not in repr(server)
    assert server_from("python s.py --path /tmp a: b").label == "python s.py --path /tmp a: b"  # nothing else hidden


def test_a_whole_mcp_config_says_to_pass_one_entry() -> None:
    config = {"mcpServers": {"github": {"command": "npx", "args": ["-y", "server"]}}}
    with pytest.raises(UserError, match=r"whole MCP config.*config\['mcpServers'\]\[name\].*'github'"):
        server_from(config)
    assert server_from(config["mcpServers"]["github"]).command == "npx"


def test_a_url_of_another_scheme_is_refused_as_a_url() -> None:
    with pytest.raises(UserError, match="must start with http:// or https://, not ftp://"):
        server_from("ftp://example.com/mcp")


def test_an_option_error_of_load_tools_does_not_name_a_class_the_user_never_called() -> None:
    with pytest.raises(UserError) as error:
        load_tools("python never_started.py", timeout=-1)
    assert str(error.value).startswith("The MCP option timeout must be a positive number")


def test_a_memoryview_is_the_bytes_it_views() -> None:
    assert result_to_content(memoryview(b"250 OK")) == "250 OK"
    assert result_to_content(memoryview(PNG))[0]["mime_type"] == "image/png"
    assert result_to_content({"reply": memoryview(b"hi")}) == '{"reply": "hi"}'
    text, image = result_to_content([memoryview(PNG)])
    assert text["text"] == '["<image 1>"]' and image["type"] == "image"
