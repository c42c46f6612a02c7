"""Review 149, MCP: an embedded resource keeps its URI in what the model reads (#4); a URL scheme in any letter case is
an HTTP server (#5). No server is started and no model is loaded."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

from toolwire.mcp import HttpServer, convert_call_result, server_from

# -- 4: an embedded resource keeps its uri ------------------------------------------------------------------------


def test_embedded_text_resources_keep_their_uri_where_the_model_reads_them() -> None:
    result = {"content": [
        {"type": "text", "text": "Here are the files:"},
        {"type": "resource", "resource": {"uri": "file:///repo/src/a.py", "mimeType": "text/x-python",
                                          "text": "print('a')"}},
        {"type": "resource", "resource": {"uri": "file:///repo/src/b.py", "mimeType": "text/x-python",
                                          "text": "print('b')"}},
        {"type": "resource_link", "uri": "file:///repo/README.md", "name": "README.md"}]}
    content, artifact, is_error = convert_call_result(result)
    assert content == ("Here are the files:\nResource <file:///repo/src/a.py>:\nprint('a')\n"
                       "Resource <file:///repo/src/b.py>:\nprint('b')\nResource: README.md <file:///repo/README.md>")
    assert artifact["content"] == result["content"] and not is_error


def test_an_embedded_text_resource_without_a_uri_is_its_text() -> None:
    content, _, _ = convert_call_result({"content": [{"type": "resource", "resource": {"text": "hello"}}]})
    assert content == "hello"


def test_embedded_binary_resources_keep_their_file_name_and_kind() -> None:
    content, _, _ = convert_call_result({"content": [
        {"type": "resource", "resource": {"uri": "file:///docs/My%20report.pdf", "mimeType": "application/pdf",
                                          "blob": "JVBERi0="}},
        {"type": "resource", "resource": {"uri": "file:///sounds/beep.wav", "mimeType": "audio/wav", "blob": "AAA="}},
        {"type": "resource", "resource": {"uri": "file:///pics/cat.png", "mimeType": "image/png", "blob": "iVBO"}},
        {"type": "resource", "resource": {"uri": "urn:x", "blob": "AAEC"}},
    ]})
    assert content == [
        {"type": "file", "base64": "JVBERi0=", "mime_type": "application/pdf", "filename": "My report.pdf"},
        {"type": "audio", "base64": "AAA=", "mime_type": "audio/wav"},
        {"type": "image", "base64": "iVBO", "mime_type": "image/png"},
        {"type": "file", "base64": "AAEC", "mime_type": "application/octet-stream"},  # ("urn:x" names no file)
    ]


# -- 5: a URL scheme in any letter case ---------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["HTTP://127.0.0.1:8000/mcp", "Https://example.org/mcp", "hTtPs://example.org/mcp"])
def test_a_url_scheme_in_any_letter_case_is_an_http_server(url: str) -> None:
    assert server_from(url) == HttpServer(url)
    assert server_from(f"  {url} ") == HttpServer(url)
