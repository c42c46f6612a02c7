"""Review 81 (of review 79's MCP findings): a callback that is not one, re-entering ``async with`` after the server
died, an empty ``host`` for ``serve``, and server dicts that cannot be read."""

from __future__ import annotations

import asyncio
import socket
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from toolwire import ToolExecutor
from toolwire.errors import UserError
from toolwire.mcp import MCPClient, connect, load_tools
from toolwire.messages import AIMessage

_NO_SERVER = "python -c 'raise SystemExit(1)'"  # never started: the options are refused first


@pytest.mark.parametrize("callback", [5, "print", [print]])
def test_an_on_tools_changed_that_is_not_a_function_is_refused_when_given(callback: Any) -> None:
    # it was taken, and failed only at the server's first tools/list_changed, as a traceback in the log
    for make in (MCPClient, connect, load_tools):
        with pytest.raises(UserError, match="on_tools_changed must be a function taking the new list of tools") as info:
            make(_NO_SERVER, on_tools_changed=callback)
        assert "async function" in str(info.value) and str(info.value).count(". ") == 0


def test_an_on_tools_changed_that_takes_no_argument_is_refused_when_given() -> None:
    with pytest.raises(UserError, match="on_tools_changed must be a function taking the new list of tools"):
        MCPClient(_NO_SERVER, on_tools_changed=lambda: None)


def test_functions_sync_or_async_and_none_are_taken_as_on_tools_changed() -> None:
    async def changed(tools: list[Any]) -> None:
        pass

    for callback in (None, print, changed, lambda tools, *more: None, list.append.__get__([])):
        assert MCPClient(_NO_SERVER, on_tools_changed=callback).on_tools_changed is callback


def _ping_tools(folder: Path) -> Path:
    """A tools file with one tool, ``ping``, answering ``"pong"``."""
    path = folder / "ping_tools.py"
    path.write_text('from toolwire import tool\n\n@tool\ndef ping() -> str:\n    """Ping."""\n    return "pong"\n')
    return path


def test_async_with_opens_again_a_client_whose_http_server_died(tmp_path: Path) -> None:
    # as start() did before review 79: the client said "closed", calls said the session is closed, and entering it
    # again answered "This MCP client is already open."
    from test_review79_mcp_stream import _http_server

    tools_file = _ping_tools(tmp_path)
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    call = AIMessage("", tool_calls=[{"name": "ping", "args": {}, "id": "c1"}])
    procs = [_http_server(tools_file, port)]

    async def scenario() -> list[tuple[str, Any]]:
        client = connect(f"http://127.0.0.1:{port}/mcp", timeout=20, connect_timeout=20)
        async with client:
            procs[0].kill()
            procs[0].wait()
            assert [m.status for m in await ToolExecutor(client).aexecute(call)] == ["error"]
            limit = time.monotonic() + 20  # the session's task ends once the SDK has closed the transport
            while client._holder is not None and not client._holder.done() and time.monotonic() < limit:
                await asyncio.sleep(0.05)
            assert "closed" in repr(client)
            procs.append(await asyncio.to_thread(_http_server, tools_file, port))
            async with client:  # what a closed client takes, not "already open"
                again = await ToolExecutor(client).aexecute(call)
            assert "closed" in repr(client)
        return [(m.status, m.content) for m in again]

    try:
        assert asyncio.run(scenario()) == [("success", "pong")]
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def test_a_client_open_on_a_live_session_is_still_refused_as_already_open(tmp_path: Path) -> None:
    tools_file = _ping_tools(tmp_path)
    server = [sys.executable, "-c", "from toolwire.cli import main; main()", "mcp", "serve", "--tools", str(tools_file)]

    async def scenario() -> None:
        async with connect(server, connect_timeout=20) as client:
            with pytest.raises(UserError, match="already open"):
                await client.__aenter__()
            with pytest.raises(UserError, match="already open"):
                client.start()

    asyncio.run(scenario())
    with load_tools(server, connect_timeout=20) as tools:
        with pytest.raises(UserError, match="already open"):
            asyncio.run(tools.client.__aenter__())
        with pytest.raises(UserError, match="already open"):
            tools.client.start()


@pytest.mark.parametrize("host", ["", "  ", None, 5])
def test_serve_refuses_an_empty_host_rather_than_listening_on_every_interface(host: Any) -> None:
    # serve(..., transport="http", host="") bound every interface; only the CLI's --host refused it
    from toolwire.mcp import serve_async
    from toolwire.tools import tool

    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    wanted = "host is empty: give an address, such as 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)."
    if not isinstance(host, str):
        wanted = "host must be an address as text, such as 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)"
    with pytest.raises(UserError) as info:  # (before: it served, until this limit)
        asyncio.run(asyncio.wait_for(serve_async([ping], transport="http", host=host, port=0), 10))
    assert str(info.value).startswith(wanted)


_URL_TEXT = "An MCP server dict's 'url' must be text, such as 'http://127.0.0.1:8000/mcp', not a value of type"


@pytest.mark.parametrize(("spec", "wanted"), [
    ({"url": 5}, f"{_URL_TEXT} int."),
    ({"url": ["http://127.0.0.1:8000/mcp"], "headers": {"Authorization": "Bearer SECRET1"}}, f"{_URL_TEXT} list."),
    ({"command": 5}, "An MCP server dict's 'command' must be text, such as 'python', not a value of type int."),
    ({"command": "python", "args": ["server.py"], "url": "http://user:SECRET1@127.0.0.1:8000/mcp"},
     "An MCP server dict has both 'command' and 'url': give 'command' (with 'args') for a server to start here, or "
     "'url' for one to reach over HTTP, not both."),
    ({"command": "python", "args": 5}, "StdioServer args must be a list of texts"),
])
def test_a_server_dict_that_cannot_be_read_is_refused_in_one_sentence(spec: dict[str, Any], wanted: str) -> None:
    # {"url": 5} became HttpServer("5"), and a dict with both keys a server reached at its url, silently
    from toolwire.mcp import server_from

    for read in (server_from, MCPClient, load_tools):
        with pytest.raises(UserError) as info:
            read(spec)
        assert str(info.value).startswith(wanted) and "SECRET1" not in str(info.value)


def test_a_server_dict_gives_args_as_a_stdio_server_takes_them() -> None:
    from toolwire.mcp import StdioServer, server_from

    given = server_from({"command": "python", "args": "server.py --verbose"})
    assert given == StdioServer("python", "server.py --verbose") and given.args == ("server.py", "--verbose")
    assert server_from({"command": "python", "args": ["server.py"], "url": None}).args == ("server.py",)
    assert server_from({"url": "http://127.0.0.1:8000/mcp", "command": None}).url == "http://127.0.0.1:8000/mcp"
