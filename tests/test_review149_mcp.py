"""Review 149, MCP: a URL scheme in any letter case is an HTTP server (#5). No server is started and no model is
loaded."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

from toolwire.mcp import HttpServer, server_from

# -- 5: a URL scheme in any letter case ---------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["HTTP://127.0.0.1:8000/mcp", "Https://example.org/mcp", "hTtPs://example.org/mcp"])
def test_a_url_scheme_in_any_letter_case_is_an_http_server(url: str) -> None:
    assert server_from(url) == HttpServer(url)
    assert server_from(f"  {url} ") == HttpServer(url)
