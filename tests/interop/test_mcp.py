"""MCP, end to end, against real servers the tests start: the demo server written with the SDK's own
server API (tests/interop/mcp_servers/demo.py) and toolwire's own ``toolwire mcp serve``, over stdio and
streamable HTTP on 127.0.0.1, with the Agent loop and the scripted model."""

from __future__ import annotations

import asyncio
import sys
import textwrap
import threading

import pytest

pytest.importorskip("mcp")

from typer.testing import CliRunner

from conftest import DEMO, SRC, free_port, start_http, stop
from toolwire import Agent, AIMessage, ToolExecutor, ToolMessage, UserError
from toolwire.mcp import HttpServer, MCPClient, StdioServer, aload_tools, connect, load_tools, server_from
from toolwire.mcp.client import convert_call_result
from toolwire.testing import ScriptedChatModel

pytestmark = pytest.mark.timeout(120)


def calls(*items: tuple[str, dict, str]) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": n, "args": a, "id": i, "type": "tool_call"} for n, a, i in items])


def by_id(messages: list) -> dict[str, ToolMessage]:
    return {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}


# -- server descriptions (no process) ---------------------------------------------------------------


def test_server_descriptions():
    assert server_from("python srv.py --flag 'a b'") == StdioServer("python", ("srv.py", "--flag", "a b"))
    assert server_from("https://example.org/mcp") == HttpServer("https://example.org/mcp")
    assert server_from(["npx", "-y", "pkg"]) == StdioServer("npx", ("-y", "pkg"))
    assert server_from({"command": "uvx", "args": ["x"], "env": {"K": "v"}}) == StdioServer("uvx", ("x",), {"K": "v"})
    assert server_from({"url": "http://h/mcp", "headers": {"A": "b"}}) == HttpServer("http://h/mcp", {"A": "b"})
    for bad in ("  ", {"nothing": 1}, 42):
        with pytest.raises(UserError):
            server_from(bad)  # type: ignore[arg-type]


def test_result_mapping_without_a_server():
    content, artifact, err = convert_call_result({"content": [], "structuredContent": {"x": 1}})
    assert (content, artifact["structured_content"], err) == ('{"x": 1}', {"x": 1}, False)
    content, _, _ = convert_call_result({"content": [
        {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "hello"}},
        {"type": "resource_link", "uri": "file:///b", "name": "b"},
        {"type": "audio", "data": "AAA=", "mimeType": "audio/wav"},
    ]})
    assert content == [{"type": "text", "text": "Resource <file:///a.txt>:\nhello"},  # (its uri kept: review 149 #4)
                       {"type": "text", "text": "Resource: b <file:///b>"},
                       {"type": "audio", "base64": "AAA=", "mime_type": "audio/wav"}]


# -- stdio, async session -----------------------------------------------------------------------------


def test_stdio_tools_results_and_errors():
    async def main() -> None:
        async with connect(DEMO) as client:
            names = [t.name for t in client]
            assert names[:5] == ["add", "divide", "weather", "picture", "echo_env"]
            assert "dotted_name" in names  # "dotted.name" renamed; calls still use the MCP name
            add = client[0]
            assert add.description == "Add two integers."
            assert add.parameters["properties"] == {"a": {"type": "integer"}, "b": {"type": "integer"}}
            assert add.parameters["required"] == ["a", "b"]
            assert client.server_info["serverInfo"]["name"] == "demo"

            out = by_id(await ToolExecutor(client).aexecute(calls(
                ("add", {"a": 2, "b": 3}, "c1"),
                ("divide", {"a": 1, "b": 0}, "c2"),
                ("weather", {"city": "Paris"}, "c3"),
                ("picture", {"label": "a cat"}, "c4"),
                ("add", {"a": "2"}, "c5"),
                ("dotted_name", {"text": "hi"}, "c6"),
            )))
            assert (out["c1"].content, out["c1"].status) == ("5", "success")
            assert out["c1"].artifact["structured_content"] == {"result": "5"}
            assert out["c2"].status == "error" and "division by zero is not allowed" in out["c2"].content
            assert out["c3"].artifact["structured_content"] == {"city": "Paris", "celsius": 21.5, "sky": "clear"}
            assert '"sky": "clear"' in out["c3"].content
            text, image = out["c4"].content
            assert text == {"type": "text", "text": "a picture of a cat"}
            assert image["type"] == "image" and image["mime_type"] == "image/png" and image["base64"]
            assert out["c4"].artifact["content"][1]["mimeType"] == "image/png"
            # checked against the input schema before anything is sent, naming the fields
            assert out["c5"].status == "error"
            assert "'b' is required but missing" in out["c5"].content and "'a'" in out["c5"].content
            assert out["c6"].content == "HI"
            # the arguments form raises like a decorated tool
            from toolwire import ToolValidationError

            with pytest.raises(ToolValidationError, match="'a'"):
                await add.ainvoke({"a": "x", "b": 1})
            assert await add.ainvoke({"a": 1, "b": 1}) == ("2", {"structured_content": {"result": "2"},
                                                                 "content": [{"type": "text", "text": "2"}]})
        # the session is closed: the tools answer with an error instead of hanging
        late = await add.ainvoke({"name": "add", "args": {"a": 1, "b": 1}, "id": "late", "type": "tool_call"})
        assert late.status == "error" and "closed" in late.content

    asyncio.run(main())


def test_stdio_agent_loop_with_scripted_model():
    async def main() -> None:
        async with connect(StdioServer(DEMO[0], tuple(DEMO[1:]), env={"TOOLWIRE_MCP_TEST": "42"})) as tools:
            model = ScriptedChatModel([
                calls(("add", {"a": 20, "b": 22}, "a1"), ("echo_env", {"name": "TOOLWIRE_MCP_TEST"}, "a2")),
                "20 + 22 = 42, and the variable is 42.",
            ])
            result = await Agent(model, tools).ainvoke("What is 20 + 22?")
            assert result.output == "20 + 22 = 42, and the variable is 42."
            assert [type(m).__name__ for m in result.messages] == [
                "HumanMessage", "AIMessage", "ToolMessage", "ToolMessage", "AIMessage"]
            assert [(m.tool_call_id, m.content) for m in result.messages[2:4]] == [("a1", "42"), ("a2", "42")]
            # the model was told about every MCP tool, with its schema
            assert model.requests[0].tools[:3] == ["add", "divide", "weather"]
            assert model.requests[1].messages[2].tool_call_id == "a1"

    asyncio.run(main())


def test_list_changed_notification_refreshes_the_tools():
    async def main() -> None:
        changed = asyncio.Event()
        async with MCPClient(DEMO, on_tools_changed=lambda tools: changed.set()) as client:
            assert "extra" not in [t.name for t in client]
            before = client.tools
            assert await client.list_tools() == before  # cached
            msg = await client[[t.name for t in client].index("enable_extra")].ainvoke(
                {"name": "enable_extra", "args": {}, "id": "e1", "type": "tool_call"})
            assert msg.content == "extra enabled"
            await asyncio.wait_for(changed.wait(), 30)
            extra = next(t for t in client if t.name == "extra")
            assert extra.description == "Repeat a word twice."
            assert await extra.ainvoke({"word": "hi"}) == ("hi hi", {"structured_content": {"result": "hi hi"},
                                                                   "content": [{"type": "text", "text": "hi hi"}]})
            assert [t.name for t in await client.list_tools(refresh=True)] == [t.name for t in client]

    asyncio.run(main())


def test_transport_failure_becomes_an_error_message():
    async def main() -> None:
        async with connect(DEMO) as client:
            crash = next(t for t in client if t.name == "crash")
            add = client[0]
            msg = await crash.ainvoke({"name": "crash", "args": {}, "id": "x1", "type": "tool_call"})
            assert msg.status == "error" and msg.tool_call_id == "x1"
            assert "did not answer" in msg.content
            after = await add.ainvoke({"name": "add", "args": {"a": 1, "b": 2}, "id": "x2", "type": "tool_call"})
            assert after.status == "error"
            # the repr no longer says "open" (review 61's known gap): it says what to do
            assert "server gone (close it, then start it again)" in repr(client)

    asyncio.run(main())


def test_async_session_used_from_another_loop_says_so():
    async def main() -> None:
        async with connect(DEMO) as client:
            # sync invoke inside a running loop runs the tool on a worker loop: refused, not deadlocked
            msg = client[0].invoke({"name": "add", "args": {"a": 1, "b": 2}, "id": "w", "type": "tool_call"})
            assert msg.status == "error" and "load_tools" in msg.content

    asyncio.run(main())


def test_connect_failures_are_user_errors():
    with pytest.raises(UserError, match="Could not connect"):
        load_tools("toolwire-no-such-command-xyz --help")
    with pytest.raises(UserError, match="Could not connect"):
        load_tools(f"http://127.0.0.1:{free_port()}/mcp", connect_timeout=20)


# -- sync path (background session), stdio and HTTP ----------------------------------------------------


def test_load_tools_sync_agent_and_threads():
    with load_tools(DEMO, prefix="demo_") as tools:
        assert tools[0].name == "demo_add"
        model = ScriptedChatModel([calls(("demo_add", {"a": 1, "b": 2}, "s1")), "3"])
        result = Agent(model, tools).invoke("1 + 2?")
        assert by_id(result.messages)["s1"].content == "3"
        # usable from many threads at once
        results: list[str] = []

        def work(n: int) -> None:
            results.append(tools[0].invoke({"a": n, "b": n})[0])

        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(results, key=int) == [str(2 * n) for n in range(8)]
        assert tools.client.refresh()[0].name == "demo_add"
    msg = tools[0].invoke({"name": "demo_add", "args": {"a": 1, "b": 1}, "id": "z", "type": "tool_call"})
    assert msg.status == "error" and "closed" in msg.content


def test_aload_tools_from_async_code():
    async def main() -> None:
        tools = await aload_tools(DEMO, timeout=30)
        try:
            # the session runs on its own thread; calls from this loop are marshalled to it
            assert await tools[0].ainvoke({"a": 4, "b": 5}) == ("9", {"structured_content": {"result": "9"},
                                                                   "content": [{"type": "text", "text": "9"}]})
            result = await Agent(ScriptedChatModel([calls(("add", {"a": 1, "b": 1}, "l1")), "2"]), tools).ainvoke("?")
            assert by_id(result.messages)["l1"].content == "2"
        finally:
            await asyncio.to_thread(tools.close)

    asyncio.run(main())


def test_http_transport_agent_sync_and_async(demo_http_url):
    with load_tools(HttpServer(demo_http_url, headers={"X-Test": "1"})) as tools:
        assert [t.name for t in tools][:3] == ["add", "divide", "weather"]
        model = ScriptedChatModel([calls(("weather", {"city": "Lisboa"}, "h1"), ("divide", {"a": 1, "b": 0}, "h2")),
                                   "Lisboa: clear."])
        result = Agent(model, tools).invoke("Weather in Lisboa?")
        out = by_id(result.messages)
        assert out["h1"].artifact["structured_content"]["city"] == "Lisboa"
        assert out["h2"].status == "error" and "division by zero" in out["h2"].content
        assert result.output == "Lisboa: clear."
        header = next(t for t in tools if t.name == "request_header")
        assert header.invoke({"name": "X-Test"})[0] == "1"  # the headers reach the server

    async def main() -> None:
        async with connect(demo_http_url) as client:
            model = ScriptedChatModel([calls(("add", {"a": 5, "b": 6}, "h3")), "11"])
            result = await Agent(model, client).ainvoke("5 + 6?")
            assert by_id(result.messages)["h3"].content == "11"

    asyncio.run(main())


# -- toolwire tools published as an MCP server -----------------------------------------------------


TOOLS_FILE = textwrap.dedent('''
    from toolwire import tool

    @tool
    def get_weather(city: str) -> str:
        """Obtém o clima atual de uma determinada cidade."""
        return f"It's always sunny in {city}!"

    @tool
    def stats(values: list[float], precision: int = 2) -> dict:
        """Mean and count of some numbers."""
        return {"mean": round(sum(values) / len(values), precision), "count": len(values)}

    @tool
    def dot() -> list:
        """A one-pixel image."""
        return [{"type": "text", "text": "a dot"},
                {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"}]
''')


def _serve_argv(path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "toolwire.cli", "mcp", "serve", "--tools", str(path), *extra]


def _check_served(tools) -> None:
    from toolwire import tool

    names = [t.name for t in tools]
    assert names == ["get_weather", "stats", "dot"]

    @tool
    def stats(values: list[float], precision: int = 2) -> dict:
        """Mean and count of some numbers."""

    served = tools[1]
    assert served.description == stats.description
    assert served.parameters == stats.parameters  # the schema survives the trip
    executor = ToolExecutor(tools)
    out = by_id(executor.execute(calls(
        ("get_weather", {"city": "Paris"}, "t1"),
        ("stats", {"values": [1, 2, 4]}, "t2"),
        ("dot", {}, "t3"),
    )))
    assert out["t1"].content == "It's always sunny in Paris!"
    assert out["t2"].content == '{"mean": 2.33, "count": 3}'
    assert out["t3"].content == [{"type": "text", "text": "a dot"},
                                 {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"}]


def test_serve_stdio_roundtrip(tmp_path):
    path = tmp_path / "my_tools.py"
    path.write_text(TOOLS_FILE)
    server = StdioServer(sys.executable, tuple(_serve_argv(path)[1:]), env={"PYTHONPATH": str(SRC)})
    with load_tools(server) as tools:
        _check_served(tools)
        # the server validates with toolwire: an error result even when the client skips validation
        async def raw() -> tuple:
            return await tools.client.call_tool("stats", {"values": "nope"})

        from toolwire import ToolExecutionError

        with pytest.raises(ToolExecutionError, match="Invalid arguments for tool 'stats'"):
            asyncio.run(raw())


def test_serve_http_roundtrip(tmp_path):
    path = tmp_path / "my_tools.py"
    path.write_text(TOOLS_FILE)
    port = free_port()
    proc = start_http(_serve_argv(path, "--transport", "http", "--port", str(port)), port)
    try:
        with load_tools(f"http://127.0.0.1:{port}/mcp") as tools:
            _check_served(tools)
    finally:
        stop(proc)


def test_serve_errors_are_one_line(tmp_path):
    from toolwire.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["mcp", "serve", "--tools", str(tmp_path / "missing.py")])
    assert result.exit_code == 1
    assert "error:" in result.output and "missing.py" in result.output
    path = tmp_path / "t.py"
    path.write_text(TOOLS_FILE)
    result = runner.invoke(app, ["mcp", "serve", "--tools", str(path), "--transport", "carrier-pigeon"])
    assert result.exit_code != 0


# -- toolwire ask --mcp ---------------------------------------------------------------------------


def test_cli_ask_with_mcp_servers(monkeypatch, demo_http_url):
    import toolwire.cli as cli
    import toolwire.mcp

    opened: list = []

    def load_and_keep(server, **options):
        opened.append(load_tools(server, **options))
        return opened[-1]

    monkeypatch.setattr(toolwire.mcp, "load_tools", load_and_keep)
    try:
        _ask_with_mcp(cli, monkeypatch, demo_http_url)
    finally:  # a command closes its sessions at exit; this test process goes on
        for tools in opened:
            tools.close()


def _ask_with_mcp(cli, monkeypatch, demo_http_url) -> None:
    model = ScriptedChatModel([calls(("add", {"a": 2, "b": 2}, "q1")), "2 + 2 = 4"])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    runner = CliRunner()
    command = " ".join(DEMO)
    result = runner.invoke(cli.app, ["ask", "2 + 2?", "--mcp", command, "--json"])
    assert result.exit_code == 0, result.output
    assert '"tool_call_id": "q1"' in result.output and '"content": "4"' in result.output
    assert model.requests[0].tools[:2] == ["add", "divide"]  # only the MCP tools: no --tools given

    # two servers at once with the same tools: the second server's tools get a prefix, said in one note
    both = ScriptedChatModel([calls(("mcp2_add", {"a": 1, "b": 2}, "q2")), "3"])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: both)
    result = runner.invoke(cli.app, ["ask", "1 + 2?", "--mcp", command, "--mcp", demo_http_url, "--json"])
    assert result.exit_code == 0, result.output
    offered = both.requests[0].tools
    assert offered[:2] == ["add", "divide"] and len(offered) % 2 == 0
    assert offered[len(offered) // 2:] == [f"mcp2_{name}" for name in offered[:len(offered) // 2]]
    assert "note: --mcp server 2 offers tools named like those before it ('add', 'crash', 'divide' and" in result.output
    assert "so its tools are named mcp2_<name>" in result.output and '"content": "3"' in result.output

    # with --tools too, both sets are offered
    model2 = ScriptedChatModel(["ok"])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model2)
    result = runner.invoke(cli.app, ["ask", "x", "--tools", "toolwire.examples.book", "--mcp", demo_http_url])
    assert result.exit_code == 0, result.output
    assert model2.requests[0].tools[:4] == ["get_weather", "calculate", "search_web", "add"]

    result = runner.invoke(cli.app, ["ask", "x", "--mcp", "toolwire-no-such-command-xyz"])
    assert result.exit_code == 1 and "Could not connect" in result.output


def test_cleanup_of_failed_http_server_fixture_helper():
    # start_http reports a server that cannot start instead of waiting forever
    with pytest.raises(RuntimeError, match="did not start"):
        start_http([sys.executable, "-c", "import sys; sys.exit(2)"], free_port())


def test_cancelling_an_in_process_http_server_frees_its_port_and_serving_again_works():
    """Review 58: ``serve_async(transport="http")`` cancelled inside uvicorn's main loop never shut down, so clients
    still reached the tools and serving again on the port failed with "port in use"."""
    from toolwire import tool
    from toolwire.mcp import serve_async

    @tool
    def double(n: int) -> int:
        """Double a number."""
        return 2 * n

    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    async def served_once() -> None:
        task = asyncio.create_task(serve_async([double], transport="http", port=port))
        async with connect(url, connect_timeout=20) as client:
            assert (await client[0].ainvoke({"n": 3}))[0] == "6"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    async def run() -> None:
        await served_once()
        with pytest.raises(UserError, match="Could not connect"):
            async with connect(url, connect_timeout=2):
                pass
        await served_once()  # the same port again

    asyncio.run(run())
