"""Opening MCP sessions for use: :func:`connect` (``async with``), :func:`load_tools` and :func:`aload_tools` (a
background session and its tools as a list, :class:`MCPToolList`). The session itself is
:class:`~toolwire.mcp.client.MCPClient`'s."""

from __future__ import annotations

import asyncio
import copy
import pickle
import threading
from typing import Any

from toolwire._keywords import check_keywords, keyword_names
from toolwire._printing import type_label
from toolwire._warn_site import remember_call_site
from toolwire.mcp.client import MCPClient
from toolwire.mcp.common import ServerLike
from toolwire.tools import Tool

__all__ = ["MCPToolList", "aload_tools", "connect", "load_tools"]


def connect(server: ServerLike, **options: Any) -> MCPClient:
    """Return a new :class:`MCPClient` to use as ``async with connect(server) as client:``, in async code: the session
    opens on entering the block (on the running event loop) and closes on leaving it; ``client`` is the sequence of
    the server's tools (``Agent(model, client)``). For sync code, :func:`load_tools`.

    Args:
        server: ``"command args..."`` (started over stdio), an ``http(s)://`` URL (streamable HTTP), a dict in the
            ``mcpServers`` shape, :class:`StdioServer` or :class:`HttpServer` (see :func:`server_from`).
        **options: ``prefix`` (put before every tool name), ``timeout`` (seconds a tool call may take),
            ``on_tools_changed`` (called with the new tool list), ``connect_timeout`` (seconds the opening may take):
            see :class:`MCPClient`.

    Returns:
        The client, not yet connected: ``async with`` opens it (or ``client.start()``, for a session on a background
        thread).

    Raises:
        UserError: now, for an option it does not take (with the close match), a server description that cannot be
            read, or a ``timeout``/``connect_timeout`` that is not a positive number of seconds; on entering the
            block, for the mcp SDK or ``jsonschema`` that cannot be imported, a server that cannot be started or
            reached (an HTTP server refusing the credentials says so), or one that did not answer within
            ``connect_timeout`` seconds.
    """
    check_keywords("connect", options, keyword_names(MCPClient.__init__)[1:])  # not ``server``
    return MCPClient(server, **options)


class MCPToolList(list[Tool]):
    """The tools :func:`load_tools` returns: a plain list, plus the :attr:`client` that owns the
    background session, :meth:`close`, and ``with`` support (closes on exit).

    Args:
        client: an :class:`~toolwire.mcp.client.MCPClient` whose session is open (``client.start()`` returned it);
            the list holds a snapshot of ``client.tools`` (a client not yet open gives an empty list).

    Attributes:
        client: that client; ``tools.client.tools`` follows the server's later changes to its tool list.

    ``copy.copy`` and ``copy.deepcopy`` give a new list (of copies of the tools, for a deep copy) that shares this
    list's client, so its tools call the server through the same open session and closing either list closes it (a
    session cannot be copied). Pickling raises :class:`pickle.PicklingError`, as pickling one of the tools does: the
    session lives in this process, so call :func:`load_tools` in each worker process instead (review 312 #4).

    Raises:
        TypeError: ``client`` is not an :class:`~toolwire.mcp.client.MCPClient`.
    """

    def __init__(self, client: MCPClient) -> None:
        if not isinstance(client, MCPClient):
            raise TypeError(f"MCPToolList takes an MCPClient, not {type_label(client)}; use load_tools(server) to get "
                            "the tools of an MCP server.")
        super().__init__(client.tools)
        self.client = client

    def close(self) -> None:
        """Close the session and stop the server process; idempotent (closing a closed list does nothing).

        Waits at most 30 seconds for the session's thread to end (:meth:`MCPClient.close`), then returns None; it
        raises nothing. A later call of one of the tools fails with a ``ToolExecutionError`` ("the MCP session of
        ... is closed"; an error ToolMessage when it was a tool call).
        """
        self.client.close()

    def __copy__(self) -> MCPToolList:
        made = type(self).__new__(type(self))
        made.extend(self)
        made.client = self.client
        return made

    def __deepcopy__(self, memo: dict[int, Any]) -> MCPToolList:
        made = type(self).__new__(type(self))
        memo[id(self)] = made
        made.client = self.client  # (shared: its session and server process cannot be copied)
        made.extend(copy.deepcopy(item, memo) for item in self)
        return made

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise pickle.PicklingError(
            f"The tools of the MCP server {self.client.server.label!r} cannot be pickled: they call it through this "
            "process's open session; call load_tools(...) in each worker process to get the tools there.")

    def __enter__(self) -> MCPToolList:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def load_tools(server: ServerLike, **options: Any) -> MCPToolList:
    """Start (or reach) an MCP server and return its tools, for sync code.

    The session runs on a background event-loop thread until ``tools.close()`` (or the end of a
    ``with load_tools(...) as tools:`` block, or interpreter exit). The tools work from any thread or
    event loop of this process: ``tool.invoke``, ``ToolExecutor.execute``, ``Agent.invoke`` and their async forms
    (a child made by ``os.fork()``, such as a gunicorn ``--preload`` worker, is refused: call ``load_tools`` in each
    worker, after the fork).

    Args:
        server: ``"command args..."``, an ``http(s)://`` URL, a dict, :class:`StdioServer` or
            :class:`HttpServer` (see :func:`server_from`).
        **options: ``prefix``, ``timeout``, ``on_tools_changed``, ``connect_timeout`` (:class:`MCPClient`).

    Returns:
        An :class:`MCPToolList` (a list of :class:`~toolwire.tools.Tool`); the list is a snapshot,
        ``tools.client.tools`` follows the server's later changes.

    Raises:
        UserError: an option it does not take (with the close match), the mcp SDK or ``jsonschema`` cannot be
            imported (the message quotes the import error),
            the server description cannot be read, the server cannot be started or reached, or it did not
            answer within ``connect_timeout`` seconds (raised then; the server is stopped in the background).
    """
    check_keywords("load_tools", options, keyword_names(MCPClient.__init__)[1:])  # not ``server``
    return MCPToolList(MCPClient(server, **options).start())


async def aload_tools(server: ServerLike, **options: Any) -> MCPToolList:
    """Async :func:`load_tools`: the background session is opened in a worker thread, without blocking the loop.

    Args:
        server, options: as for :func:`load_tools`.

    Returns:
        An :class:`MCPToolList`, as :func:`load_tools` returns it.

    Cancelled (``asyncio.wait_for`` timing out, a task cancelled) while the session opens, it returns at once, and
    the session is closed (its server stopped) as soon as the opening ends, for nothing will ever use it (review 114:
    each timed-out attempt left a server process running until the interpreter exited).

    Raises:
        UserError: as :func:`load_tools`.
    """
    check_keywords("aload_tools", options, keyword_names(MCPClient.__init__)[1:])
    client = MCPClient(server, **options)  # (bad options raise here, not in the thread)
    lock = threading.Lock()
    state: dict[str, Any] = {"cancelled": False, "tools": None}

    def load() -> MCPToolList:
        tools = MCPToolList(client.start())
        with lock:
            if not state["cancelled"]:
                state["tools"] = tools
                return tools
        tools.close()  # the caller gave up while it opened (what this returns reaches no one)
        return tools

    try:
        with remember_call_site():  # (the worker thread's warnings, a skipped tool, point at the caller: review 115)
            return await asyncio.to_thread(load)
    except asyncio.CancelledError:
        with lock:
            state["cancelled"] = True
            opened = state["tools"]  # opened, but not handed over before the cancellation
        if opened is not None:
            threading.Thread(target=opened.close, name="toolwire-mcp close", daemon=True).start()
        raise
