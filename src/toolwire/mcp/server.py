"""Publish toolwire tools as an MCP server (Model Context Protocol), on the official ``mcp`` SDK.

Protocol: MCP revision 2025-11-25, "Server features > Tools": each toolwire tool is listed
(``tools/list``) with its name, description and JSON Schema as ``inputSchema``; a ``tools/call`` runs
it through toolwire (argument validation, timeout, error handling) and answers with
``{"content": [...], "isError": bool}``: text as a ``text`` block, image/audio blocks as MCP
``image``/``audio`` blocks (``data`` + ``mimeType``), ``resource`` and ``resource_link`` blocks as they are,
binary ``file``/``document`` blocks as embedded resources (``blob`` + ``mimeType``), an image given by URL as the
text ``Image: <url>``, and a failed call (invalid arguments, exception, timeout, a ``KeyboardInterrupt`` or
``sys.exit()`` from the tool) as ``isError: true`` with toolwire's error text; a call of a tool the server does
not have is a JSON-RPC error, ``-32602`` ``Unknown tool: NAME...`` (a protocol error, as the revision's "Error
Handling" lists it; review 190 #3). A client that negotiated a revision older than a block's gets it in a form
that revision has (``audio`` before 2025-03-26 as an embedded resource, ``resource_link`` before 2025-06-18 as the
text ``Resource: name <uri>``; :mod:`toolwire.mcp._protocol`, review 190 #4). A block the SDK refuses as MCP content
(a ``resource`` without ``uri``) goes out as a text block of its JSON, with a warning (logger ``toolwire.mcp``) once
per tool. Artifacts stay on the server: they are never sent to a model, so they are not published.

Transports: stdio (the client starts this process) and streamable HTTP (``http://HOST:PORT/mcp``,
served with uvicorn; DNS-rebinding protection on for localhost). Works with mcp 1.x (the low-level
``Server`` with decorators) and 2.x (``Server(on_list_tools=..., on_call_tool=...)``).

Example::

    from toolwire.examples.book import BOOK_TOOLS
    from toolwire.mcp import serve
    serve(BOOK_TOOLS)                                  # stdio
    serve(BOOK_TOOLS, transport="http", port=8000)     # http://127.0.0.1:8000/mcp
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import inspect
import json
import logging
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import AsyncGeneratorType
from typing import Any, Literal

from toolwire._daemon_pool import loop_pool
from toolwire._extras import install_hint
from toolwire._keywords import check_keywords, keyword_names
from toolwire._warn_site import warn_user
from toolwire.errors import SchemaError, ToolExecutionError, UserError
from toolwire.mcp._http_security import OriginCheck, exposure_warning, is_loopback, security_settings
from toolwire.mcp._protocol import for_version, negotiated_v1, refuse_unknown_tools, unknown_tool_error
from toolwire.mcp._served_content import _blocks, _shortened
from toolwire.mcp._stdio_errors import LineCheck
from toolwire.messages import ToolMessage, new_tool_call_id
from toolwire.results import _is_block, valid_blocks
from toolwire.tools import Tool

__all__ = ["build_server", "message_to_result", "serve", "serve_async"]

Transport = Literal["stdio", "http"]
SHUTDOWN_SECONDS = 2.0
"""The longest a stopping HTTP server waits for its open connections to close (once its sessions are ended) before
it cuts them."""

log = logging.getLogger("toolwire.mcp")


def _sdk() -> Any:
    try:
        import mcp.types
        from mcp.server.lowlevel import Server
    except ImportError:
        raise UserError(f"MCP support needs the mcp SDK, {install_hint('mcp')}.") from None
    return mcp.types, Server


def _tools(tools: Sequence[Any]) -> dict[str, Tool]:
    from toolwire._agent_checks import check_tools
    from toolwire.models.base import to_tool

    if tools is None:  # (check_tools offers "[] for no tools", which a server cannot take)
        raise UserError("Pass the tools to serve as a list of at least one tool, such as serve([my_tool]); got None.")
    check_tools(tools, "serve([{}])")  # one tool rather than a list: one sentence, as Agent and bind_tools say it
    out: dict[str, Tool] = {}
    for item in tools:
        converted = to_tool(item)
        if not isinstance(converted, Tool):
            raise SchemaError(f"Tool {converted.name!r} has a schema but no function, so it cannot be served.")
        if converted.name in out:
            raise SchemaError(f"Two tools are named {converted.name!r}: give each tool a unique name.")
        out[converted.name] = _served(converted)
    if not out:
        raise UserError("An MCP server needs at least one tool: pass them as a list, such as serve([my_tool]).")
    return out


class _Served:
    """Mixed into the class of each served tool's copy (:func:`_served`): a ``KeyboardInterrupt`` raised by the tool
    (a library's, or a child process's Ctrl-C passed on) fails that call, as ``sys.exit()`` does, rather than
    leaving the event loop and wedging the server (review 114 #5); a list holding MCP ``resource_link`` blocks stays
    content blocks rather than JSON text."""

    __slots__ = ()
    name: str
    response_format: str

    def _call(self, kwargs: dict[str, Any], stop: Any = None) -> Any:
        try:
            result = super()._call(kwargs, stop)  # type: ignore[misc]
        except KeyboardInterrupt:
            raise _interrupted(self.name) from None
        if type(result) is AsyncGeneratorType:
            return _guarded_items(result, self.name)
        if inspect.isawaitable(result):
            return _guarded_await(result, self.name)
        return result

    def _to_message(self, result: Any, call: Mapping[str, Any]) -> ToolMessage:
        if self.response_format == "content" and _has_links(result):
            return ToolMessage(valid_blocks(list(result)), call["id"], name=self.name)
        return super()._to_message(result, call)  # type: ignore[misc,no-any-return]


_SERVED_CLASSES: dict[type, type] = {}


def _served(tool: Tool) -> Tool:
    """A copy of ``tool`` whose class has :class:`_Served` mixed in (an async twin too, a StructuredTool's)."""
    cls = type(tool)
    if issubclass(cls, _Served):
        return tool
    served_cls = _SERVED_CLASSES.get(cls)
    if served_cls is None:
        served_cls = _SERVED_CLASSES[cls] = type(f"Served{cls.__name__}", (_Served, cls), {"__slots__": ()})
    served = copy.copy(tool)
    served.__class__ = served_cls
    twin = getattr(tool, "_async_twin", None)
    if isinstance(twin, Tool):
        served._async_twin = _served(twin)  # type: ignore[attr-defined]
    return served


def _interrupted(name: str) -> ToolExecutionError:
    return ToolExecutionError(f"Tool '{name}' tried to stop the program (it raised KeyboardInterrupt); it was "
                              "stopped.", name)


async def _guarded_await(awaitable: Any, name: str) -> Any:
    try:
        return await awaitable
    except KeyboardInterrupt:
        raise _interrupted(name) from None


async def _guarded_items(generator: Any, name: str) -> list[Any]:
    from toolwire._tool_run import _gathered

    try:
        return await _gathered(generator)
    except KeyboardInterrupt:
        raise _interrupted(name) from None


def _has_links(result: Any) -> bool:
    """Whether ``result`` is a list of content blocks of which one at least is an MCP ``resource_link`` (``uri``)."""
    if type(result) is not list or not result:
        return False
    links = [isinstance(b, dict) and b.get("type") == "resource_link" and isinstance(b.get("uri"), str) for b in result]
    return any(links) and all(link or _is_block(b) for link, b in zip(links, result, strict=True))


_TOLD_UNSENDABLE: set[str] = set()
"""The tools :func:`_sendable` has logged about (each once per process)."""



def _sendable(types: Any, result: dict[str, Any], tool_name: str) -> dict[str, Any]:
    """``result`` (:func:`message_to_result`'s dict) with each content block the SDK's types refuse as MCP content
    (a ``resource`` without ``uri``) replaced by a text block of its JSON (long base64 payloads shortened), so the
    call is answered rather than failing as "Invalid request parameters" after the tool ran (review 114 #6); the
    first such block of a tool is logged, at WARNING, with what to return instead."""
    try:
        types.CallToolResult.model_validate(result)
        return result
    except Exception:  # (pydantic's ValidationError): look at the blocks one by one
        pass
    content = []
    for block in result["content"]:
        try:
            types.CallToolResult.model_validate({"content": [block], "isError": False})
        except Exception:
            content.append({"type": "text", "text": json.dumps(_shortened(block), ensure_ascii=False, default=str)})
            if tool_name not in _TOLD_UNSENDABLE:
                _TOLD_UNSENDABLE.add(tool_name)
                log.warning("Tool %r returned a %r block that is not valid MCP content, so it was sent as text: %s",
                            tool_name, block.get("type") if isinstance(block, dict) else type(block).__name__,
                            _advice(block))
        else:
            content.append(block)
    return {**result, "content": content}


def _advice(block: Any) -> str:
    """What a tool should return instead of ``block``, which MCP refuses."""
    kind = block.get("type") if isinstance(block, dict) else None
    if kind == "resource":
        return ("give its resource a uri and a text or a base64 blob, such as {'type': 'resource', 'resource': "
                "{'uri': 'file:///notes.txt', 'text': '...'}}, or return text.")
    if kind == "resource_link":
        return "give it a uri and a name, such as {'type': 'resource_link', 'uri': 'file:///x.csv', 'name': 'x.csv'}."
    return "return text, or blocks such as {'type': 'image', 'base64': ..., 'mime_type': 'image/png'}."


def message_to_result(message: ToolMessage) -> dict[str, Any]:
    """Return the MCP ``CallToolResult`` wire dict for a toolwire ToolMessage.

    Args:
        message: the tool's answer; its content becomes MCP content blocks (text, image...).

    Returns:
        ``{"content": [blocks], "isError": message.status == "error"}``.
    """
    return {"content": _blocks(message.content), "isError": message.status == "error"}


def build_server(tools: Sequence[Any], *, name: str = "toolwire", instructions: str | None = None) -> Any:
    """Build the SDK's low-level MCP ``Server`` that lists and runs ``tools``.

    Args:
        tools: toolwire tools (or anything ``bind_tools`` accepts that has a function).
        name: the server name sent in the handshake (``serverInfo.name``).
        instructions: optional text telling clients how to use the server.

    Returns:
        A ``mcp.server.lowlevel.Server``; run it with :func:`serve_async` / :func:`serve`. It answers a
        ``tools/call`` of a name it does not serve with a JSON-RPC error ``-32602`` (review 190 #3), and sends each
        client the content blocks of the revision it negotiated (review 190 #4; :mod:`toolwire.mcp._protocol`).

    Raises:
        SchemaError: a tool has no function, or two tools share a name.
        UserError: the mcp SDK is not installed, or ``tools`` is empty.
    """
    from toolwire import __version__

    types, Server = _sdk()
    by_name = _tools(tools)
    listing = [types.Tool.model_validate({"name": t.name, "description": t.description, "inputSchema": t.parameters})
               for t in by_name.values()]

    async def run_tool(tool_name: str, arguments: dict[str, Any] | None, version: str | None) -> dict[str, Any]:
        tool = by_name.get(tool_name)
        if tool is None:  # a protocol error, not an isError result (review 190 #3)
            raise unknown_tool_error(tool_name, list(by_name))
        call = {"name": tool_name, "args": dict(arguments or {}), "id": new_tool_call_id(), "type": "tool_call"}
        message = await tool.ainvoke(call)
        if not isinstance(message, ToolMessage):  # pragma: no cover - ainvoke(tool_call) always returns one
            message = ToolMessage(str(message), call["id"])
        result = _sendable(types, message_to_result(message), tool_name)
        return {**result, "content": for_version(result["content"], version)}  # (review 190 #4)

    params = inspect.signature(Server.__init__).parameters
    if "on_call_tool" in params:  # mcp 2.x: handlers are given to the constructor
        async def on_list_tools(ctx: Any, request: Any) -> Any:
            return types.ListToolsResult(tools=listing)

        async def on_call_tool(ctx: Any, request: Any) -> Any:
            version = getattr(ctx, "protocol_version", None)
            return types.CallToolResult.model_validate(await run_tool(request.name, request.arguments, version))

        return Server(name, version=__version__, instructions=instructions,
                      on_list_tools=on_list_tools, on_call_tool=on_call_tool)

    server = Server(name, version=__version__, instructions=instructions)  # mcp 1.x: decorators

    @server.list_tools()  # type: ignore[misc]
    async def list_tools() -> list[Any]:
        return listing

    # toolwire validates (its messages name the fields); newer 1.x would check the schema first
    skip = {"validate_input": False} if "validate_input" in inspect.signature(server.call_tool).parameters else {}

    @server.call_tool(**skip)  # type: ignore[misc]
    async def call_tool(tool_name: str, arguments: dict[str, Any]) -> list[Any]:
        result = await run_tool(tool_name, arguments, negotiated_v1(server))
        if result["isError"]:
            raise RuntimeError("\n".join(b.get("text", "") for b in result["content"]))
        return list(types.CallToolResult.model_validate(result).content)

    refuse_unknown_tools(server, list(by_name))  # (its call_tool handler answers any exception with isError)
    return server


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Send what is printed to standard error while stdio serving runs (standard output carries the
    protocol), then flush both streams and put ``sys.stdout`` back.

    Entered inside :func:`_protocol_streams`, which points file descriptor 1 at stderr until it exits: so text left
    in the buffer of the original ``sys.stdout`` (code that kept a reference to it) is flushed there too, not onto
    the protocol after the descriptor is restored.
    """
    original = sys.stdout
    with contextlib.ExitStack() as stack:
        target = sys.stderr if sys.stderr is not None else stack.enter_context(open(os.devnull, "w"))
        sys.stdout = target
        try:
            yield
        finally:
            sys.stdout = original
            for stream in (target, original):
                with contextlib.suppress(Exception):  # a closed or broken stream: nothing more to do
                    stream.flush()


@contextlib.contextmanager
def _protocol_streams() -> Iterator[dict[str, Any]]:
    """The protocol's stdin and stdout, as the SDK's ``stdio_server`` takes them, on copies of file descriptors 0
    and 1; while serving, descriptor 0 reads the null device and descriptor 1 writes to standard error.

    So a command a tool runs, or C code, can neither read the client's messages nor write onto the protocol. mcp 2.x
    does this itself when given no streams; mcp 1.x wraps ``sys.stdin``/``sys.stdout`` and leaves the descriptors as
    they are, so toolwire does it for both. The descriptors are themselves again on exit.

    Returns:
        A context manager giving ``{"stdin": ..., "stdout": ...}`` (anyio text files, UTF-8) to pass to
        ``stdio_server``; ``{}`` (the SDK's own streams) when descriptor 0, 1 or 2 is closed.
    """
    import io

    import anyio

    try:
        sys.stdout.flush()
        os.fstat(2)  # (first: with 2 closed, the copies below would take that number)
        saved_in, saved_out = os.dup(0), os.dup(1)
    except (OSError, ValueError, AttributeError):
        yield {}
        return
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
    except OSError:  # no descriptor 2: the protocol stays where it is
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)
        yield {}
        return
    reader = io.TextIOWrapper(os.fdopen(saved_in, "rb"), encoding="utf-8", errors="replace")
    writer = io.TextIOWrapper(os.fdopen(saved_out, "wb"), encoding="utf-8")
    try:
        yield {"stdin": anyio.wrap_file(reader), "stdout": anyio.wrap_file(writer)}
    finally:
        with contextlib.suppress(OSError, ValueError):  # the client's pipe is closed: nothing more reaches it
            writer.flush()
        os.dup2(reader.fileno(), 0)
        os.dup2(writer.fileno(), 1)
        for stream in (reader, writer):
            with contextlib.suppress(OSError, ValueError):
                stream.close()


async def _serve_stdio(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    try:
        with _protocol_streams() as streams:
            if "stdin" in streams:  # (a line that is not JSON, or a batch, gets an error: review 224 #4)
                streams["stdin"] = LineCheck(streams["stdin"])
            async with stdio_server(**streams) as (read, write):
                if isinstance(streams.get("stdin"), LineCheck):
                    streams["stdin"].write = write
                with _stdout_to_stderr():  # a tool's print() must never reach the protocol
                    await server.run(read, write, server.create_initialization_options())
    except BaseExceptionGroup as group:  # the client went away mid-call: its pipes are closed (review 32)
        if not _only_gone(group):
            raise
        with contextlib.suppress(OSError):  # nothing can be written to the closed pipe at exit either
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (kept open until the process ends)


def _only_gone(error: BaseException) -> bool:
    """Whether every exception in ``error`` (an exception group, walked to its leaves) says the client's pipe
    is closed (``BrokenPipeError``, ``ConnectionResetError``)."""
    if isinstance(error, BaseExceptionGroup):
        return all(_only_gone(inner) for inner in error.exceptions)
    return isinstance(error, BrokenPipeError | ConnectionResetError)


def _http_app(server: Any, host: str, path: str) -> Any:
    """The ASGI app serving ``server`` at ``path``, guarded against DNS rebinding (:mod:`toolwire.mcp._http_security`:
    Host and Origin on a loopback address, Origin elsewhere)."""
    security = security_settings(host)
    app = _sdk_http_app(server, host, path, security)
    return app if is_loopback(host) else OriginCheck(app)


def _sdk_http_app(server: Any, host: str, path: str, security: Any) -> Any:
    if hasattr(server, "streamable_http_app"):  # mcp 2.x
        return server.streamable_http_app(streamable_http_path=path, host=host, transport_security=security)
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.routing import Mount

    manager = server._toolwire_sessions = StreamableHTTPSessionManager(app=server, security_settings=security)

    async def handle(scope: Any, receive: Any, send: Any) -> None:
        await manager.handle_request(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        async with manager.run():
            yield

    return Starlette(routes=[Mount(path, app=handle)], lifespan=lifespan)


def check_host(host: Any, option: str = "host") -> None:
    """Refuse an HTTP ``host`` that names no address: ``""`` (an unset ``$HOST``) would listen on every interface,
    while the address shown, ``http://:8000/mcp``, names none.

    Args:
        host: the address to listen on.
        option: its name in the message (``"--host"`` on the command line).

    Raises:
        UserError: ``host`` is not text, or is empty or blank; the message names 127.0.0.1 and 0.0.0.0.
    """
    examples = "such as 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)"
    if not isinstance(host, str):
        raise UserError(f"{option} must be an address as text, {examples}, not a value of type {type(host).__name__}.")
    if not host.strip():
        raise UserError(f"{option} is empty: give an address, {examples}.")


async def serve_async(
    tools: Sequence[Any],
    *,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    name: str = "toolwire",
    log_level: str = "warning",
    ready: Callable[[], None] | None = None,
) -> None:
    """Serve ``tools`` over MCP until the client disconnects (stdio) or the task is cancelled (HTTP).

    Cancelling the HTTP server's task stops it quietly: each client's session ends (a call in flight is answered
    with JSON-RPC's "Connection closed" error), the port is freed, and the task ends with ``CancelledError``.

    Args:
        tools: the tools to publish.
        transport: ``"stdio"`` (JSON-RPC on this process's stdin/stdout; while serving, what the tools
            print, and what the commands they run write, goes to stderr, and stdin reads as empty to them; but
            write nothing to stdout before serving) or ``"http"`` (streamable
            HTTP at ``http://{host}:{port}{path}``).
        host, port, path: where the HTTP transport listens.
        name: the server name clients see.
        log_level: uvicorn's log level for HTTP.
        ready: called with no arguments once the HTTP server takes connections (its port bound and listening, the
            app started), to say so (``toolwire mcp serve`` prints "serving ... at URL" then: review 251 #3); not
            called for stdio. It must not raise.

    Raises:
        UserError: unknown transport, an HTTP ``host`` that is empty (it would listen on every interface) or not
            text, an HTTP ``path`` that does not start with ``/``, a bad ``port`` or one that cannot be bound (in use),
            missing SDK, no tools, or one tool rather than a list.
        SchemaError: see :func:`build_server`.
    """
    if transport not in ("stdio", "http"):
        raise UserError(f"Unknown MCP transport {transport!r}: use 'stdio' or 'http'.")
    if transport == "http" and (not isinstance(path, str) or not path.startswith("/")):
        raise UserError(f"The HTTP endpoint path must start with '/', as '/mcp' does, not {path!r}.")
    if transport == "http":
        check_host(host)
    if transport == "http" and (isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535):
        raise UserError(f"The HTTP port must be a whole number from 0 to 65535, not {port!r}.")
    server = build_server(tools, name=name)
    if transport == "stdio":
        await _serve_stdio(server)
        return
    import uvicorn

    app = _http_app(server, host, path)
    if (exposed := exposure_warning(host, port)) is not None:
        warn_user(exposed)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, lifespan="on",
                            timeout_graceful_shutdown=SHUTDOWN_SECONDS)  # (a client's open stream: cut, review 60)
    uvicorn_log = logging.getLogger("uvicorn.error")
    if _QUIET_CANCEL not in uvicorn_log.filters:  # (set up by Config: its dictConfig keeps a filter added after)
        uvicorn_log.addFilter(_QUIET_CANCEL)
    http = _ready_server(uvicorn.Server, config, ready, server)
    try:
        await http.serve()
    except SystemExit as exc:  # uvicorn exits the process when it cannot bind: the caller's program lives on
        raise UserError(f"Cannot serve MCP on {host}:{port}: the port is in use or cannot be bound here; pick "
                        "another port.") from exc
    except asyncio.CancelledError:  # cancelled inside uvicorn's main loop, its shutdown never runs: run it, so the
        http.should_exit = True  # port is free and no client reaches the tools once the task ends (review 58)
        if http.started:
            with contextlib.suppress(Exception, asyncio.TimeoutError):  # uvicorn cuts connections at the timeout
                await asyncio.wait_for(http.shutdown(), SHUTDOWN_SECONDS + 2)
        raise


def _ready_server(base: Any, config: Any, ready: Callable[[], None] | None, mcp_server: Any) -> Any:
    """A ``uvicorn.Server`` (``base``) for ``config`` that calls ``ready`` once it has started (listening, after the
    app's lifespan startup), and whose shutdown (a Ctrl-C, or the task cancelled) ends ``mcp_server``'s sessions
    first (:func:`_end_sessions`)."""

    class Server(base):  # type: ignore[misc, valid-type]
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started and not self.should_exit and ready is not None:  # (not when a Ctrl-C came)
                ready()

        async def shutdown(self, sockets: Any = None) -> None:
            for listener in getattr(self, "servers", ()):  # (uvicorn does this first too: no client opens a
                listener.close()  # session again meanwhile, and idle keep-alive connections close)
            for connection in list(getattr(getattr(self, "server_state", None), "connections", ())):
                connection.shutdown()
            with contextlib.suppress(Exception):
                await _end_sessions(mcp_server)
            await super().shutdown(sockets)

    return Server(config)


async def _end_sessions(mcp_server: Any) -> None:
    """End each MCP session the HTTP app of ``mcp_server`` holds, so uvicorn's shutdown finds no request running.

    A client's standing GET stream, and the stream of a call in flight, never end on their own: uvicorn waited
    :data:`SHUTDOWN_SECONDS`, then cancelled them and logged an error with a traceback for each (review 250 #2). A
    session's message loop is cancelled (mcp 2.x): each call in flight is answered with JSON-RPC's "Connection
    closed" error, then the SDK terminates the session, which ends its streams; mcp 1.x's sessions are terminated.
    """
    manager = getattr(mcp_server, "_session_manager", None) or getattr(mcp_server, "_toolwire_sessions", None)
    sessions = getattr(manager, "_server_instances", None)
    for transport in list(sessions.values()) if isinstance(sessions, dict) else ():
        loop_scope = getattr(transport, "idle_scope", None)
        if loop_scope is not None:
            loop_scope.cancel()
        else:
            await transport.terminate()


class _QuietCancelFilter(logging.Filter):
    """Drops uvicorn's error record of a start cut short by a cancellation (a Ctrl-C while the app's lifespan
    starts): the traceback of a ``CancelledError`` that Starlette hands uvicorn as the startup's failure message,
    which is no error (review 251 #3: 43 lines before the command's exit 130)."""

    _ENDS = ("CancelledError", "KeyboardInterrupt")

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt):
            return False
        text = record.msg if isinstance(record.msg, str) else ""
        last = text.rstrip().rsplit("\n", 1)[-1].strip()
        return not (text.startswith("Traceback") and last.rsplit(".", 1)[-1] in self._ENDS)


_QUIET_CANCEL = _QuietCancelFilter()


def serve(tools: Sequence[Any], **options: Any) -> None:
    """Sync :func:`serve_async`: serve ``tools`` and block until the server stops.

    Args:
        tools: the tools to serve, as for :func:`serve_async`.
        **options: :func:`serve_async`'s keyword options (``transport``, ``host``, ``port``, ``path``...).

    Raises:
        UserError, SchemaError: as :func:`serve_async`; UserError too for an option it does not take.
        RuntimeError: called inside a running event loop (an event loop cannot nest): await :func:`serve_async`
            there instead.
    """
    check_keywords("serve", options, keyword_names(serve_async)[1:])  # not ``tools``
    try:  # (before asyncio.Runner, which would replace this thread's event loop)
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError("serve() cannot run inside a running event loop: await serve_async(...) there instead.")
    with asyncio.Runner() as runner:  # asyncio.run, on toolwire's default executor: its end does not wait for the
        runner.get_loop().set_default_executor(loop_pool())  # thread work of a call given up at its timeout, which
        runner.run(serve_async(tools, **options))  # would hold the server up for good (review 243 #3)
