"""Use the tools of an MCP server as toolwire tools, on the official ``mcp`` SDK (1.x and 2.x).

Protocol: Model Context Protocol, revision 2025-11-25 (https://modelcontextprotocol.io/specification),
"Server features > Tools": ``tools/list`` (paginated by ``nextCursor``), ``tools/call`` returning
``{"content": [...], "structuredContent"?: {...}, "isError"?: bool}``, and the
``notifications/tools/list_changed`` notification. The session is opened with the SDK's
``ClientSession.initialize()`` handshake.

Two ways to hold a session:

* async: ``async with connect(server) as client:`` opens the session on the running event loop and
  closes it on exit; ``client`` is a sequence of :class:`~toolwire.tools.Tool` (``Agent(model, client)``
  works) whose calls must be awaited on that loop (``agent.ainvoke``, ``tool.ainvoke``).
* sync: ``load_tools(server)`` runs the session on a background event-loop thread and returns a
  list of tools usable from any thread or loop (calls are marshalled with
  ``asyncio.run_coroutine_threadsafe``); close it with ``tools.close()`` / ``with load_tools(...)``, or
  it is closed at interpreter exit. :func:`aload_tools` does the same from async code.

Each MCP tool keeps its name (characters a toolwire name cannot hold become ``_``), description and
input schema (validated with ``jsonschema`` before the call). A call result maps to a ToolMessage:
text blocks become the text content, image/audio blocks ``{"type": "image"|"audio", "base64",
"mime_type"}`` blocks, and the artifact is ``{"structured_content": ..., "content": [raw MCP blocks]}``.
``isError`` results and transport failures become ``status="error"`` ToolMessages.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import logging
import os
import re
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, overload

from toolwire._tool_run import bad_timeout
from toolwire.errors import SchemaError, ToolExecutionError, UserError
from toolwire.mcp.common import (
    HttpServer,
    ServerLike,
    StdioServer,
    _describe,
    _leaf,
    _mcp,
    _wire,
    convert_call_result,
    server_from,
)
from toolwire.tools import Tool

__all__ = [
    "HttpServer",
    "MCPClient",
    "MCPToolList",
    "StdioServer",
    "aload_tools",
    "connect",
    "convert_call_result",
    "load_tools",
    "server_from",
]

log = logging.getLogger("toolwire.mcp")

CONNECT_TIMEOUT = 60.0
_BAD_NAME_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


def _errlog() -> Any:
    """Where a stdio server's stderr goes: ours, when it is a real file (not a test runner's buffer)."""
    for stream in (sys.stderr, sys.__stderr__):
        try:
            if stream is not None:
                stream.fileno()
                return stream
        except (AttributeError, OSError, ValueError):
            continue
    return open(os.devnull, "w")  # lives as long as the process it serves


# -- the client -----------------------------------------------------------------------------------


class MCPClient(Sequence[Tool]):
    """One MCP session and the toolwire tools of its server.

    Use ``async with MCPClient(server) as client`` (or :func:`connect`), or ``client.start()`` /
    ``client.close()`` (or :func:`load_tools`) for a session on a background thread. The client is a
    sequence of its current tools; :attr:`tools` gives them as a list.

    Args:
        server: what :func:`server_from` accepts.
        prefix: put before every tool name (``"github_"``), to keep tools of several servers apart.
        timeout: seconds a tool call may take (None: no limit; the call is cancelled past it).
        on_tools_changed: called with the new list of tools after the server announced a change
            (``notifications/tools/list_changed``) and the list was fetched again; runs on the session's
            event loop.
        connect_timeout: seconds to wait for the handshake and the first tool list.

    Raises:
        UserError: bad server description, a ``timeout`` or ``connect_timeout`` that is not a positive number of
            seconds, or (on open) the server cannot be started or reached.
    """

    def __init__(
        self,
        server: ServerLike,
        *,
        prefix: str = "",
        timeout: float | None = None,
        on_tools_changed: Callable[[list[Tool]], Any] | None = None,
        connect_timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        problem = bad_timeout(timeout) or bad_timeout(connect_timeout, "connect_timeout", optional=False)
        if problem is not None:
            raise UserError(f"MCPClient's {problem}")
        self.server = server_from(server)
        self.prefix = prefix
        self.timeout = timeout
        self.on_tools_changed = on_tools_changed
        self.connect_timeout = connect_timeout
        self.server_info: dict[str, Any] = {}
        self._tools: list[Tool] = []
        self._session: Any = None
        self._stack: contextlib.AsyncExitStack | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closing: asyncio.Event | None = None
        self._stale = False
        self._refresher: asyncio.Task[None] | None = None

    # -- sequence of tools ------------------------------------------------------------------------

    @property
    def tools(self) -> list[Tool]:
        """The server's tools as last listed (a new list each time)."""
        return list(self._tools)

    @overload
    def __getitem__(self, index: int) -> Tool: ...
    @overload
    def __getitem__(self, index: slice) -> list[Tool]: ...

    def __getitem__(self, index: Any) -> Any:
        return self._tools[index]

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools))

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        state = "open" if self._session is not None else "closed"
        return f"MCPClient({self.server.label!r}, {state}, tools={[t.name for t in self._tools]})"

    # -- opening and closing ----------------------------------------------------------------------

    async def _transport(self, stack: contextlib.AsyncExitStack) -> tuple[Any, Any]:
        server = self.server
        if isinstance(server, StdioServer):
            from mcp.client.stdio import StdioServerParameters, stdio_client

            params = StdioServerParameters(command=server.command, args=list(server.args),
                                           env=dict(server.env) if server.env is not None else None,
                                           cwd=server.cwd)
            streams = await stack.enter_async_context(stdio_client(params, errlog=_errlog()))
            return streams[0], streams[1]
        headers = dict(server.headers or {}) or None
        try:  # mcp >= 1.24 and 2.x: the transport takes a configured HTTP client
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client
        except ImportError:  # older 1.x
            from mcp.client.streamable_http import streamablehttp_client

            streams = await stack.enter_async_context(streamablehttp_client(server.url, headers=headers))
            return streams[0], streams[1]
        http = await stack.enter_async_context(create_mcp_http_client(headers=headers))
        streams = await stack.enter_async_context(streamable_http_client(server.url, http_client=http))
        return streams[0], streams[1]

    async def _open(self) -> None:
        mcp = _mcp()
        from toolwire import __version__

        stack = contextlib.AsyncExitStack()
        try:
            read, write = await self._transport(stack)
            info = mcp.types.Implementation(name="toolwire", version=__version__)
            session = await stack.enter_async_context(
                mcp.ClientSession(read, write, message_handler=self._on_message, client_info=info))
            init = await asyncio.wait_for(session.initialize(), self.connect_timeout)
            self._session = session
            self._loop = asyncio.get_running_loop()
            self.server_info = _wire(init)
            await asyncio.wait_for(self._refresh(), self.connect_timeout)
        except BaseException as exc:
            self._session = None
            cause: BaseException = exc
            try:  # a transport's task group cancels us when it fails, and raises the real error on exit
                await stack.aclose()
            except BaseException as close_exc:
                if not isinstance(_leaf(close_exc), asyncio.CancelledError):
                    cause = close_exc
            task = asyncio.current_task()
            if isinstance(exc, KeyboardInterrupt) or (
                isinstance(cause, asyncio.CancelledError) and task is not None and task.cancelling()
            ):
                raise
            if isinstance(_leaf(cause), TimeoutError):
                raise UserError(f"The MCP server {self.server.label!r} did not answer within "
                                f"{self.connect_timeout:g} seconds: is it an MCP server?") from None
            detail = "the connection was closed" if isinstance(cause, asyncio.CancelledError) else _describe(cause)
            raise UserError(f"Could not connect to the MCP server {self.server.label!r}: {detail}") from None
        self._stack = stack

    async def _close(self) -> None:
        refresher, self._refresher = self._refresher, None
        if refresher is not None and not refresher.done():
            refresher.cancel()
            with contextlib.suppress(BaseException):
                await refresher
        stack, self._stack = self._stack, None
        self._session = None
        if stack is not None:
            try:
                await stack.aclose()
            except Exception as exc:  # a server that already died: nothing left to close
                log.debug("closing the MCP session of %s: %s", self.server.label, _describe(exc))

    async def __aenter__(self) -> MCPClient:
        if self._session is not None:
            raise UserError("This MCP client is already open.")
        await self._open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._close()

    async def aclose(self) -> None:
        """Close an async session (same as leaving ``async with``)."""
        await self._close()

    def start(self) -> MCPClient:
        """Open the session on a background event-loop thread and wait until the tools are listed.

        Returns:
            This client; its tools can then be called from any thread or event loop.

        Raises:
            UserError: the server cannot be started or reached.
        """
        if self._thread is not None or self._session is not None:
            raise UserError("This MCP client is already open.")
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        loop = asyncio.new_event_loop()
        self._loop = loop

        async def main() -> None:
            self._closing = asyncio.Event()
            try:
                await self._open()
            except BaseException as exc:
                ready.set_exception(exc)
                return
            ready.set_result(None)
            await self._closing.wait()
            await self._close()

        def run() -> None:
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(main())
            finally:
                loop.close()

        self._thread = threading.Thread(target=run, name=f"toolwire-mcp {self.server.label}", daemon=True)
        self._thread.start()
        try:
            ready.result()
        except BaseException:
            self._thread.join()
            self._thread = None
            raise
        atexit.register(self.close)
        return self

    def close(self, timeout: float = 30.0) -> None:
        """Close a session opened with :meth:`start` (the server process is stopped); idempotent."""
        thread, loop, closing = self._thread, self._loop, self._closing
        if thread is None or loop is None or closing is None:
            return
        atexit.unregister(self.close)
        if thread.is_alive():
            with contextlib.suppress(RuntimeError):  # the loop already stopped
                loop.call_soon_threadsafe(closing.set)
            thread.join(timeout)
        self._thread = None

    def __enter__(self) -> MCPClient:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- tool lists -------------------------------------------------------------------------------

    async def _list_page(self, cursor: str | None) -> dict[str, Any]:
        if cursor is None:
            return _wire(await self._session.list_tools())
        try:
            from mcp.types import PaginatedRequestParams

            return _wire(await self._session.list_tools(params=PaginatedRequestParams(cursor=cursor)))
        except (ImportError, TypeError):  # mcp 1.x before PaginatedRequestParams
            return _wire(await self._session.list_tools(cursor=cursor))

    async def _refresh(self) -> list[Tool]:
        listed: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            page = await self._list_page(cursor)
            listed.extend(page.get("tools") or ())
            cursor = page.get("nextCursor")
            if not cursor:
                break
        self._tools = self._build(listed)
        return self.tools

    async def list_tools(self, *, refresh: bool = False) -> list[Tool]:
        """The server's tools: cached, or fetched again (``tools/list``, every page) with ``refresh``.

        Must be awaited on the session's loop (async mode); in background-thread mode it is marshalled.
        """
        self._check_open()
        if not refresh:
            return self.tools
        return await self._on_session_loop(self._refresh())

    def refresh(self) -> list[Tool]:
        """Sync :meth:`list_tools` with ``refresh=True``, for a session opened with :meth:`start`."""
        self._check_open()
        if self._thread is None or self._loop is None:
            raise UserError("refresh() is for sessions opened with start()/load_tools; await list_tools(refresh=True).")
        return asyncio.run_coroutine_threadsafe(self._refresh(), self._loop).result()

    def _tool_name(self, mcp_name: str, taken: set[str]) -> str:
        base = _BAD_NAME_CHARS.sub("_", self.prefix + mcp_name)[:64] or "tool"
        name, n = base, 2
        while name in taken:
            suffix = f"_{n}"
            name, n = base[: 64 - len(suffix)] + suffix, n + 1
        taken.add(name)
        return name

    def _build(self, listed: list[dict[str, Any]]) -> list[Tool]:
        tools: list[Tool] = []
        taken: set[str] = set()
        for item in listed:
            mcp_name = str(item.get("name", ""))
            name = self._tool_name(mcp_name, taken)
            annotations = item.get("annotations") or {}
            desc = (item.get("description") or item.get("title") or annotations.get("title")
                    or f"The '{mcp_name}' tool of the MCP server {self.server.label}.")
            params = item.get("inputSchema") or {"type": "object", "properties": {}}
            try:
                tools.append(Tool.from_schema(self._tool_function(mcp_name, name), name, desc, params,
                                              timeout=self.timeout, response_format="content_and_artifact"))
            except SchemaError as exc:
                taken.discard(name)  # a skipped tool keeps no name: a later tool may have it
                warnings.warn(f"Skipping the MCP tool {mcp_name!r} of {self.server.label}: {exc}", stacklevel=2)
        return tools

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            log.debug("MCP transport error from %s: %s", self.server.label, _describe(message))
            return
        root = getattr(message, "root", message)  # mcp 1.x wraps notifications in a RootModel
        if getattr(root, "method", None) != "notifications/tools/list_changed":
            return
        self._stale = True
        if self._refresher is None or self._refresher.done():
            self._refresher = asyncio.get_running_loop().create_task(self._refresh_changed())

    async def _refresh_changed(self) -> None:
        # not awaited inline: mcp 1.x calls the message handler from its receive loop
        while self._stale and self._session is not None:
            self._stale = False
            try:
                await self._refresh()
            except Exception as exc:
                log.warning("Could not list the tools of %s again: %s", self.server.label, _describe(exc))
                return
        if self.on_tools_changed is not None:
            try:
                result = self.on_tools_changed(self.tools)
                if asyncio.iscoroutine(result):
                    await result
            except Exception:
                log.exception("on_tools_changed failed")

    # -- calls ------------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._session is None:
            raise UserError(f"The MCP session of {self.server.label!r} is not open.")

    async def _on_session_loop(self, coro: Any) -> Any:
        loop = asyncio.get_running_loop()
        if loop is self._loop:
            return await coro
        if self._thread is not None and self._loop is not None:
            return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))
        coro.close()
        raise UserError(
            f"The MCP session of {self.server.label!r} was opened with 'async with' on another event loop: "
            "call its tools on that loop (await agent.ainvoke / tool.ainvoke), or use "
            "toolwire.mcp.load_tools(...) for sync code."
        )

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Call an MCP tool by its *MCP* name, without local validation.

        Returns:
            ``(content, artifact)`` as :func:`convert_call_result` makes them.

        Raises:
            ToolExecutionError: the result has ``isError`` (the message is the server's text), or the
                session or transport failed (server gone, connection lost).
        """
        if self._session is None:
            raise ToolExecutionError(f"the MCP session of {self.server.label!r} is closed.", name)
        try:
            return await self._on_session_loop(self._call(name, dict(arguments or {})))
        except UserError as exc:
            raise ToolExecutionError(str(exc), name) from None

    async def _call(self, name: str, arguments: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        session = self._session
        if session is None:
            raise ToolExecutionError(f"the MCP session of {self.server.label!r} is closed.", name)
        try:
            result = await session.call_tool(name, arguments)
        except Exception as exc:
            raise ToolExecutionError(
                f"the MCP server {self.server.label!r} did not answer ({_describe(exc)}).", name) from exc
        content, artifact, is_error = convert_call_result(result)
        if is_error:
            text = content if isinstance(content, str) else "\n".join(
                b.get("text", "") for b in content if b.get("type") == "text")
            raise ToolExecutionError(text or "the MCP server reported an error.", name)
        return content, artifact

    def _tool_function(self, mcp_name: str, tool_name: str) -> Callable[..., Any]:
        async def call_mcp_tool(**arguments: Any) -> tuple[Any, dict[str, Any]]:
            return await self.call_tool(mcp_name, arguments)

        call_mcp_tool.__name__ = tool_name.replace("-", "_")
        call_mcp_tool.__qualname__ = f"mcp:{mcp_name}"
        return call_mcp_tool


def connect(server: ServerLike, **options: Any) -> MCPClient:
    """An :class:`MCPClient` to use as ``async with connect(server) as client:`` (``client`` is the
    sequence of tools; ``options`` as for :class:`MCPClient`)."""
    return MCPClient(server, **options)


class MCPToolList(list[Tool]):
    """The tools :func:`load_tools` returns: a plain list, plus the :attr:`client` that owns the
    background session, :meth:`close`, and ``with`` support (closes on exit)."""

    def __init__(self, client: MCPClient) -> None:
        super().__init__(client.tools)
        self.client = client

    def close(self) -> None:
        """Close the session and stop the server process (idempotent)."""
        self.client.close()

    def __enter__(self) -> MCPToolList:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def load_tools(server: ServerLike, **options: Any) -> MCPToolList:
    """Start (or reach) an MCP server and return its tools, for sync code.

    The session runs on a background event-loop thread until ``tools.close()`` (or the end of a
    ``with load_tools(...) as tools:`` block, or interpreter exit). The tools work from any thread or
    event loop: ``tool.invoke``, ``ToolExecutor.execute``, ``Agent.invoke`` and their async forms.

    Args:
        server: ``"command args..."``, an ``http(s)://`` URL, a dict, :class:`StdioServer` or
            :class:`HttpServer` (see :func:`server_from`).
        **options: ``prefix``, ``timeout``, ``on_tools_changed``, ``connect_timeout`` (:class:`MCPClient`).

    Returns:
        An :class:`MCPToolList` (a list of :class:`~toolwire.tools.Tool`); the list is a snapshot,
        ``tools.client.tools`` follows the server's later changes.

    Raises:
        UserError: the mcp SDK is missing, or the server cannot be started or reached.
    """
    return MCPToolList(MCPClient(server, **options).start())


async def aload_tools(server: ServerLike, **options: Any) -> MCPToolList:
    """:func:`load_tools` for async code: the background session is opened without blocking the loop."""
    return await asyncio.to_thread(load_tools, server, **options)
