"""Review 79: MCP support and streaming, as a new user reads the docs."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolwire import Agent, ToolExecutor, tool
from toolwire.errors import UserError
from toolwire.mcp import HttpServer, StdioServer, connect, load_tools, server_from
from toolwire.messages import AIMessage, AIMessageChunk, merge_chunks
from toolwire.models.base import BaseChatModel


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


def _http_server(tools_file: Path, port: int) -> subprocess.Popen[bytes]:
    """``toolwire mcp serve --transport http`` on ``port``, once it accepts connections (20 s at most)."""
    argv = [sys.executable, "-c", "from toolwire.cli import main; main()", "mcp", "serve", "--tools", str(tools_file),
            "--transport", "http", "--port", str(port)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    limit = time.monotonic() + 20
    while time.monotonic() < limit:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    pytest.fail("the MCP test server did not start")


def test_a_client_whose_http_server_died_and_says_closed_can_be_started_again(tmp_path: Path) -> None:
    # the HTTP session ends itself when its server dies: the client said "closed", yet start() answered
    # "This MCP client is already open."
    tools_file = tmp_path / "add_tools.py"
    tools_file.write_text(textwrap.dedent('''
        from toolwire import tool

        @tool
        def add(a: int, b: int) -> int:
            """Add a and b."""
            return a + b
    '''))
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    call = AIMessage("", tool_calls=[{"name": "add", "args": {"a": 2, "b": 3}, "id": "c1"}])
    proc = _http_server(tools_file, port)
    tools = load_tools(f"http://127.0.0.1:{port}/mcp", timeout=20, connect_timeout=20)
    try:
        proc.kill()
        proc.wait()
        first = ToolExecutor(tools).execute(call)
        assert [m.status for m in first] == ["error"]
        limit = time.monotonic() + 20  # the session's thread ends once the SDK has closed the transport
        while tools.client._thread is not None and tools.client._thread.is_alive() and time.monotonic() < limit:
            time.sleep(0.05)
        assert "closed" in repr(tools.client)
        proc = _http_server(tools_file, port)
        tools.client.start()  # what a closed client takes, not "already open"
        again = ToolExecutor(tools).execute(call)
        assert [(m.status, m.content) for m in again] == [("success", "5")]
    finally:
        tools.close()
        proc.kill()
        proc.wait()


class _Streamed(BaseChatModel):
    """A custom model that implements only ``_stream`` (its ``invoke`` merges the chunks)."""

    provider = "streamed"

    def __init__(self, replies: list[list[AIMessageChunk]]) -> None:
        self.replies = list(replies)

    def _stream(self, request: Any) -> Iterator[AIMessageChunk]:
        yield from self.replies.pop(0)


@pytest.mark.parametrize("reason", ["length", "max_tokens", "MAX_TOKENS"])
def test_a_streamed_call_whose_arguments_the_token_limit_cut_before_they_began_is_never_run(reason):
    # README: "A tool call that limit cut off (its argument text empty or unclosed) ... is answered with an error
    # and never run"; merged, its empty argument text read as {} and the tool ran with its defaults
    runs: list[str] = []

    @tool
    def ping(host: str = "localhost") -> str:
        """Ping a host."""
        runs.append(host)
        return "pong"

    cut = [AIMessageChunk(tool_call_chunks=[{"name": "ping", "args": "", "id": "c1", "index": 0}],
                          response_metadata={"finish_reason": reason})]
    merged = merge_chunks(cut, as_chunk=False)
    assert merged.tool_calls == [] and [bad["id"] for bad in merged.invalid_tool_calls] == ["c1"]
    result = Agent(_Streamed([cut, [AIMessageChunk("ok")]]), [ping]).invoke("Ping it.")
    answers = [m for m in result.messages if m.type == "tool"]
    assert runs == [] and [(m.tool_call_id, m.status) for m in answers] == [("c1", "error")]
    assert "cut off" in answers[0].content


def test_a_streamed_call_with_complete_arguments_at_the_token_limit_still_runs():
    part = {"name": "ping", "args": '{"host": "a"}', "id": "c1", "index": 0}
    chunk = AIMessageChunk(tool_call_chunks=[part], response_metadata={"finish_reason": "length"})  # type: ignore[list-item]
    merged = merge_chunks([chunk], as_chunk=False)
    assert merged.tool_calls == [{"name": "ping", "args": {"host": "a"}, "id": "c1", "type": "tool_call"}]


@pytest.mark.parametrize("tools", [None, []])
def test_serving_no_tools_says_to_pass_a_list_of_at_least_one_not_to_pass_an_empty_one(tools):
    # serve(None) said "Pass the tools as a list, such as serve([my_tool]), or [] for no tools", and serve([])
    # then refused with "An MCP server needs at least one tool." (no advice)
    from toolwire.mcp import serve

    with pytest.raises(UserError) as info:
        serve(tools, transport="http", port=1)
    message = str(info.value)
    assert "[] for no tools" not in message and "serve([my_tool])" in message


def test_a_later_chunk_with_finish_reason_none_does_not_lose_the_reason():
    # OpenAI-style raw chunks carry finish_reason null on every delta, then the reason, then a usage chunk with
    # null again: the merge kept None, so an Agent no longer saw that the reply stopped at the token limit
    chunks = [AIMessageChunk("a", response_metadata={"finish_reason": None}),
              AIMessageChunk("b", response_metadata={"finish_reason": "length", "model_name": "m"}),
              AIMessageChunk("", response_metadata={"finish_reason": None, "model_name": None},
                             usage={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3})]
    merged = merge_chunks(chunks, as_chunk=False)
    assert merged.response_metadata == {"finish_reason": "length", "model_name": "m"}
    assert merge_chunks(chunks[:1], as_chunk=False).response_metadata == {"finish_reason": None}


@pytest.mark.parametrize("make", [
    lambda: HttpServer("http://127.0.0.1:9/mcp", headers="Bearer SECRET1"),  # type: ignore[arg-type]
    lambda: HttpServer("http://127.0.0.1:9/mcp", headers=["Authorization: Bearer SECRET1"]),  # type: ignore[arg-type]
    lambda: HttpServer("http://127.0.0.1:9/mcp", headers={"Authorization": "Bearer SEC\nRET1"}),
    lambda: HttpServer("http://127.0.0.1:9/mcp", headers={"Authorization": None}),  # type: ignore[dict-item]
    lambda: StdioServer("python", ["server.py"], env="GITHUB_TOKEN=SECRET1"),  # type: ignore[arg-type]
    lambda: StdioServer("python", ["server.py"], env={"GITHUB_TOKEN": 5}),  # type: ignore[dict-item]
    lambda: server_from({"url": "http://127.0.0.1:9/mcp", "headers": ["Authorization: Bearer SECRET1"]}),
])
def test_headers_or_env_that_are_not_a_dict_of_texts_are_refused_without_showing_the_secret(make):
    # a string was read as a mapping of its characters, so the repr spelled the token out ({'S': '***', 'E': ...}),
    # a list kept "Authorization: Bearer X" as a header name in the repr, a value with a line break came back in the
    # connection error (httpx quotes it), and an int env value was blamed on the server ("the server needs fixing")
    with pytest.raises(UserError) as info:
        make()
    message = str(info.value)
    assert "SECRET" not in message and "SEC" not in message and "must" in message


def test_a_header_value_read_with_its_line_end_is_sent_without_it():
    server = HttpServer("http://127.0.0.1:9/mcp", headers={"Authorization": "Bearer SECRET1\n"})
    assert server.headers == {"Authorization": "Bearer SECRET1"}
    assert "SECRET1" not in repr(server)


@pytest.mark.parametrize("host", ["", "  "])
def test_mcp_serve_refuses_an_empty_host_rather_than_listening_everywhere(tmp_path, monkeypatch, host):
    # --host "" (an unset $HOST) listened on every interface and printed "serving 1 tool at http://:8000/mcp"
    from typer.testing import CliRunner

    import toolwire.mcp.server as mcp_server
    from toolwire.cli import app

    path = tmp_path / "one_tool.py"
    path.write_text('from toolwire import tool\n\n@tool\ndef ping() -> str:\n    """Ping."""\n    return "pong"\n')
    served: list[dict[str, Any]] = []
    monkeypatch.setattr(mcp_server, "serve", lambda tools, **options: served.append(options))
    result = CliRunner().invoke(app, ["mcp", "serve", "--tools", str(path), "--transport", "http", "--host", host])
    assert result.exit_code == 1 and served == []
    assert "--host is empty" in result.output and "127.0.0.1" in result.output
