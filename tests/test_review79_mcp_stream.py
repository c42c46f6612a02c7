"""Review 79: MCP support and streaming, as a new user reads the docs."""

from __future__ import annotations

import pytest

from toolwire.errors import UserError
from toolwire.mcp import connect, load_tools
from toolwire.messages import AIMessageChunk, merge_chunks


def test_a_stream_cut_inside_a_string_names_where_it_breaks_in_one_clear_sentence():
    # a stream that ended early, inside the argument text's string: the error must not say "starting at at"
    chunks = [AIMessageChunk(tool_call_chunks=[{"name": "get_weather", "args": '{"city": "Par', "id": "c1",
                                                "index": 0}])]
    bad = merge_chunks(chunks, as_chunk=False).invalid_tool_calls
    assert len(bad) == 1
    error = bad[0]["error"]
    assert " at at " not in error
    assert "Unterminated string starting at line 1 column 10" in error


@pytest.mark.parametrize("prefix", [3, None, b"gh_"])
def test_a_prefix_that_is_not_text_is_refused_before_any_server_starts(prefix):
    # it was taken, the server started, and the opening failed blaming the connection ("check the URL")
    with pytest.raises(UserError, match="prefix must be text"):
        connect("python -c 'raise SystemExit(1)'", prefix=prefix)
    with pytest.raises(UserError, match="prefix must be text"):
        load_tools("python -c 'raise SystemExit(1)'", prefix=prefix, connect_timeout=5)
