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
* sync: ``load_tools(server)`` runs the session on a background event-loop thread and returns a list of tools usable
  from any thread or loop of that process (calls are marshalled with ``asyncio.run_coroutine_threadsafe``; a child of
  ``os.fork()`` is refused: it loads its own); close it with ``tools.close()`` / ``with load_tools(...)``, or it is
  closed at interpreter exit. :func:`aload_tools` does the same from async code.

Each MCP tool keeps its name, description and input schema (validated with ``jsonschema`` before the
call). A name that is not a valid toolwire name is renamed (each character it cannot hold becomes ``_``,
cut to 64); a renamed tool whose new name is taken gets ``_2``, ``_3``..., never a tool that keeps its own.
A call result maps to a ToolMessage: text blocks become the text content, image/audio blocks
``{"type": "image"|"audio", "base64", "mime_type"}`` blocks, and the artifact is
``{"structured_content": ..., "content": [raw MCP blocks]}``.
``isError`` results and transport failures become ``status="error"`` ToolMessages. A session its HTTP server forgot
(HTTP 404 for the session id) is opened again and the call sent once more (:mod:`toolwire.mcp._renewal`); a server
that declares no ``tools`` capability offers no tools.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import contextvars
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, overload

from toolwire._tool_run import bad_timeout
from toolwire._warn_site import remember_call_site
from toolwire.errors import ToolExecutionError, UserError
from toolwire.mcp._listing import build_tools, callback_problem, list_all_tools, prefix_problem
from toolwire.mcp._renewal import Forgotten, forgot_message, lost_message, probe_gone, renew, serve, watch_refusal
from toolwire.mcp._renewal import reporter as _reporter
from toolwire.mcp._results import _wire
from toolwire.mcp._sdk_logs import toolwire_reports
from toolwire.mcp.common import (
    HttpServer,
    ServerLike,
    StdioServer,
    _call_error,
    _check_jsonschema,
    _connect_error,
    _describe,
    _leaf,
    _mcp,
    _open_transport,
    convert_call_result,
    schema_refusal,
    server_from,
)
from toolwire.results import valid_strings
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
_BACKGROUND: set[asyncio.Task[None]] = set()


# -- the client -----------------------------------------------------------------------------------


_CONNECT_ADVICE = ", or give a larger connect_timeout"  # (api_advice: the CLI has no such option)


class MCPClient(Sequence[Tool]):
    """One MCP session and the toolwire tools of its server.

    Use ``async with MCPClient(server) as client`` (or :func:`connect`), or ``client.start()`` /
    ``client.close()`` (or :func:`load_tools`) for a session on a background thread. The client is a
    sequence of its current tools; :attr:`tools` gives them as a list.

    Args:
        server: what :func:`server_from` accepts.
        prefix: put before every tool name (``"github_"``), to keep tools of several servers apart.
        timeout: seconds a tool call may take (None: no limit; the call is cancelled past it).
        on_tools_changed: a function (or async function) called with the new list of tools after the server
            announced a change (``notifications/tools/list_changed``) and the list was fetched again; runs on the
            session's event loop.
        connect_timeout: seconds the whole opening may take (starting the server, the handshake and
            the first tool list); past it, opening raises at once and the server is stopped afterwards.

    Raises:
        UserError: bad server description (a command line with an unclosed quote, too), a ``prefix`` that is not
            text or is longer than 48 characters, an ``on_tools_changed`` that cannot be called with one argument, a
            ``timeout`` or ``connect_timeout`` that is not a positive number of seconds, or (on open) the mcp SDK or
            ``jsonschema`` cannot be imported, the server cannot be started or reached, or it did not answer within
            ``connect_timeout``.
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
        problem = bad_timeout(timeout) or bad_timeout(connect_timeout, "connect_timeout", optional=False) or (
            None if isinstance(prefix, str) else f"prefix must be text put before each tool name, not {prefix!r}.") \
            or prefix_problem(prefix) or callback_problem(on_tools_changed)
        if problem is not None:
            raise UserError(f"The MCP option {problem}")  # (load_tools, connect and MCPClient take them: review 116)
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
        self._holder: asyncio.Task[None] | None = None
        self._deadline = 0.0  # time.monotonic() by which an opening must be done
        self._statuses: list[int] = []  # the HTTP error statuses of the opening
        self._lost = False  # a call found the server gone (it stopped, the connection broke): see __repr__
        self._pid = 0  # the process whose start() opened the session (a child of os.fork() has no session thread)
        self._forgotten: list[str] = []  # the session ids the HTTP server answered 404 for (it forgot the session)
        self._renewals: asyncio.Queue[asyncio.Future[None]] | None = None  # (the holder's: _renewal.serve)
        self._renewing: asyncio.Future[None] | None = None  # a new session being opened (_renewal.renew)

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
        state = "closed" if self._session is None else "server gone (close it, then start it again)" if self._lost \
            else "open"
        return f"MCPClient({self.server.label!r}, {state}, tools={[t.name for t in self._tools]})"

    # -- opening and closing ----------------------------------------------------------------------

    def _preflight(self) -> None:
        """Start the ``connect_timeout`` clock (importing the SDK counts: it can take a second), and raise
        UserError before anything starts when the SDK or ``jsonschema`` cannot be imported."""
        self._deadline = time.monotonic() + self.connect_timeout
        _mcp()
        _check_jsonschema()

    async def _enter(self, stack: contextlib.AsyncExitStack) -> None:
        """Start the transport, shake hands and list the tools by the deadline :meth:`_preflight` set
        (``connect_timeout`` seconds after the opening began). Raises TimeoutError past it."""
        mcp = _mcp()
        from toolwire import __version__

        def left() -> float:
            return max(self._deadline - time.monotonic(), 0.0)

        self._statuses, forgotten = [], Forgotten()
        self._lost = False  # a new session: whether the last one lost its server no longer matters
        read, write = await _open_transport(self.server, stack, self._statuses, forgotten)
        info = mcp.types.Implementation(name="toolwire", version=__version__)
        session = await stack.enter_async_context(
            mcp.ClientSession(read, write, message_handler=self._on_message, client_info=info))
        init = await asyncio.wait_for(session.initialize(), left())
        self._session, self._forgotten = session, forgotten
        self._loop = asyncio.get_running_loop()
        self.server_info = _wire(init)
        await asyncio.wait_for(self._refresh(), left())

    def _timeout_error(self) -> UserError:
        return UserError(f"The MCP server {self.server.label!r} did not answer within {self.connect_timeout:g} "
                         f"seconds: check that it is an MCP server and is up{_CONNECT_ADVICE}.",
                         api_advice=_CONNECT_ADVICE)

    async def _failure(self, exc: BaseException, stack: contextlib.AsyncExitStack) -> UserError:
        """Close what was opened before ``exc`` stopped the opening, and return the UserError that says
        why; a cancellation from outside and KeyboardInterrupt are raised again instead."""
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
            raise exc
        if isinstance(_leaf(cause), TimeoutError):
            return self._timeout_error()
        return _connect_error(self.server, cause, self._statuses)

    async def _hold(self, report: Callable[[BaseException | None], None]) -> None:
        """The whole life of a session, in one task (anyio's scopes must be left by the task that entered
        them): open it, ``report(None)`` or ``report(error)``, keep it until ``self._closing`` is set,
        close it. A server that did not answer within ``connect_timeout`` is reported at once and stopped
        afterwards (the SDK gives a stdio server seconds to exit), so the caller waits no longer."""
        stack = contextlib.AsyncExitStack()
        try:
            with toolwire_reports():  # (the SDK's transport tasks, started here, keep it: review 199 #1)
                await self._enter(stack)
        except BaseException as exc:
            self._session = None
            if not isinstance(exc, TimeoutError):
                report(await self._failure(exc, stack))
                return
            report(self._timeout_error())
            try:
                await stack.aclose()
            except Exception as close_exc:
                log.debug("stopping the MCP server %s: %s", self.server.label, _describe(close_exc))
            return
        self._stack = stack
        report(None)
        try:
            if self._closing is not None:
                await serve(self)  # (a session its HTTP server forgot is opened again: review 224 #1)
        finally:
            await self._close()

    async def _close(self) -> None:
        refresher, self._refresher = self._refresher, None
        if refresher is not None and not refresher.done():
            refresher.cancel()
            with contextlib.suppress(BaseException):
                await refresher
        stack, self._stack = self._stack, None
        self._session, self._lost = None, False
        if stack is not None:
            try:
                with toolwire_reports():  # (a forgotten session's DELETE gets 404: not printed, review 224 #1)
                    await stack.aclose()
            except Exception as exc:  # a server that already died: nothing left to close
                log.debug("closing the MCP session of %s: %s", self.server.label, _describe(exc))

    async def __aenter__(self) -> MCPClient:
        self._check_closed()
        self._preflight()
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        self._closing = asyncio.Event()
        with remember_call_site():  # (the task keeps the context it is made in: see start)
            holder = loop.create_task(self._hold(_reporter(ready)), name=f"toolwire-mcp {self.server.label}")
        _BACKGROUND.add(holder)  # a task the loop holds only weakly: kept until it ends
        holder.add_done_callback(_BACKGROUND.discard)
        try:
            await asyncio.wait({ready, holder}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # cancelled while connecting: stop what was started first
            holder.cancel()
            await asyncio.wait({holder})
            raise
        if not ready.done():  # the holder failed before it could say why: its own error does
            holder.result()
        ready.result()  # raises the connection's UserError; the holder may still be stopping the server
        self._holder = holder
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the session (same as leaving ``async with``; for a :meth:`start` session, :meth:`close`
        runs on a worker thread). Idempotent."""
        holder, self._holder = self._holder, None
        if holder is None:
            if self._thread is not None:
                await asyncio.to_thread(self.close)
            return
        if self._closing is not None:
            self._closing.set()
        await asyncio.wait({holder})
        self._log_end(holder)

    def _log_end(self, holder: asyncio.Task[None]) -> None:
        """Log (debug) the error an ended ``async with`` session's task ended with, which also marks it as read."""
        if not holder.cancelled() and holder.exception() is not None:
            log.debug("closing the MCP session of %s: %s", self.server.label, _describe(holder.exception()))

    def _check_closed(self) -> None:
        """Raise UserError("This MCP client is already open.") unless the client is closed, for :meth:`__aenter__`
        and :meth:`start`. A session that ended on its own (its HTTP server died: the SDK ends the session then) is
        closed, as the repr says: its ended task or thread is forgotten, so the client can be opened again."""
        holder, thread = self._holder, self._thread
        if self._session is not None or (holder is not None and not holder.done()) or (thread and thread.is_alive()):
            raise UserError("This MCP client is already open.")
        if holder is not None:
            self._holder = None
            self._log_end(holder)
        self.close()  # a thread that ended: only forgotten (and no longer closed at exit)

    def start(self) -> MCPClient:
        """Open the session on a background event-loop thread and wait until the tools are listed.

        Returns:
            This client; its tools can then be called from any thread or event loop.

        Raises:
            UserError: the client is already open, the ``mcp`` SDK or ``jsonschema`` cannot be imported
                (install toolwire's ``mcp`` extra), the server cannot be started or reached, or it did not answer
                within ``connect_timeout`` seconds (raised then; the server is stopped in the background).
        """
        self._check_closed()
        self._preflight()
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        loop = asyncio.new_event_loop()
        self._loop = loop
        closing = self._closing = asyncio.Event()  # bound to no loop until awaited: set from here at will

        async def main() -> None:
            report = _reporter(ready)
            try:
                await self._hold(report)
            except BaseException as exc:
                report(exc)

        def run() -> None:
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(main())
                if pending := asyncio.all_tasks(loop):  # calls still giving their answer (review 224 #1)
                    loop.run_until_complete(asyncio.wait(pending, timeout=5.0))
            finally:
                loop.close()

        with remember_call_site():  # warnings while opening (a skipped tool) point at the user's line (review 114)
            context = contextvars.copy_context()
        thread = threading.Thread(target=context.run, args=(run,), name=f"toolwire-mcp {self.server.label}",
                                  daemon=True)
        self._thread, self._pid = thread, os.getpid()
        thread.start()
        try:
            ready.result()
        except BaseException:
            self._thread = None
            if thread.is_alive():  # stopping a server that did not answer, or still opening (Ctrl-C here):
                with contextlib.suppress(RuntimeError):  # have it stopped, by the exit at the latest
                    loop.call_soon_threadsafe(closing.set)
                atexit.register(thread.join, 10.0)
            raise
        atexit.register(self.close)
        return self

    def close(self, timeout: float = 30.0) -> None:
        """Close a session opened with :meth:`start` (the server process is stopped); idempotent.

        Args:
            timeout: seconds to wait at most for the session's thread to end.
        """
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

    async def _refresh(self) -> list[Tool]:
        """List the tools (every page of ``tools/list``: :func:`~toolwire.mcp._listing.list_all_tools`, which refuses
        pages that loop or never end, review 51) and build them."""
        if "tools" not in (self.server_info.get("capabilities") or {}):  # (it has none to list: review 224 #2)
            log.info("The MCP server %s declares no tools capability, so it offers no tools", self.server.label)
            self._tools = []
            return []
        with toolwire_reports():  # (a listing that fails is raised: the SDK's record of it is not printed too)
            self._tools = self._build(await list_all_tools(self._session, self.server.label))
        return self.tools

    async def _relist(self) -> list[Tool]:
        """:meth:`_refresh` within ``connect_timeout`` seconds (as the listing at the opening is)."""
        try:
            return await asyncio.wait_for(self._refresh(), self.connect_timeout)
        except TimeoutError:
            raise UserError(f"The MCP server {self.server.label!r} did not list its tools within "
                            f"{self.connect_timeout:g} seconds: check that it is up{_CONNECT_ADVICE}.",
                            api_advice=_CONNECT_ADVICE) from None

    async def list_tools(self, *, refresh: bool = False) -> list[Tool]:
        """Return the server's tools: cached, or fetched again (``tools/list``, every page) with ``refresh``.

        Must be awaited on the session's loop (async mode); in background-thread mode it is marshalled.

        Args:
            refresh: ask the server again instead of returning the tools listed when the session opened.

        Returns:
            The tools, toolwire :class:`~toolwire.tools.Tool` objects that call the server.

        Raises:
            UserError: the session is not open, or (``async with`` mode) it is awaited on another event loop
                than the session's; or the server's pages of tools loop, or its listing takes more than
                ``connect_timeout`` seconds.
        """
        self._check_open()
        if not refresh:
            return self.tools
        return await self._on_session_loop(self._relist())

    def refresh(self) -> list[Tool]:
        """Sync :meth:`list_tools` with ``refresh=True``, for a session opened with :meth:`start`.

        Returns:
            The server's tools, listed again (every page of ``tools/list``).

        Raises:
            UserError: the session is not open, or was opened with ``async with`` (await
                ``list_tools(refresh=True)`` there) or in the process this one was forked from (:meth:`_check_process`);
                or the listing failed as :meth:`list_tools` says.
        """
        self._check_open()
        if self._thread is None or self._loop is None:
            raise UserError("refresh() is for sessions opened with start()/load_tools; await list_tools(refresh=True).")
        self._check_process()
        return asyncio.run_coroutine_threadsafe(self._relist(), self._loop).result()

    def _build(self, listed: list[dict[str, Any]]) -> list[Tool]:
        return build_tools(listed, prefix=self.prefix, label=self.server.label, timeout=self.timeout,
                           function=self._tool_function)

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
                await self._relist()
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

    def _check_process(self) -> None:
        """Raise UserError in a child made by ``os.fork()`` of the process whose :meth:`start` opened the session: its
        thread and event loop stayed there, so a call handed to them would wait forever (review 207 #2)."""
        if self._pid != os.getpid():
            raise UserError(f"The MCP session of {self.server.label!r} was opened in the process this one was forked "
                            "from (gunicorn --preload, a 'fork' multiprocessing pool), and it cannot be used here: "
                            "call load_tools(...) in each worker process, after the fork.")

    async def _on_session_loop(self, coro: Any) -> Any:
        loop = asyncio.get_running_loop()
        if loop is self._loop:
            return await coro
        if self._thread is not None and self._loop is not None and self._pid == os.getpid():
            return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))
        coro.close()
        if self._thread is not None:
            self._check_process()
        raise UserError(
            f"The MCP session of {self.server.label!r} was opened with 'async with' on another event loop: "
            "call its tools on that loop (await agent.ainvoke / tool.ainvoke), or use "
            "toolwire.mcp.load_tools(...) for sync code."
        )

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Call an MCP tool by its *MCP* name (``name``), without local validation.

        Args:
            name: the tool's name on the server (without the client's ``prefix``).
            arguments: the arguments, sent as they are (None sends ``{}``) but for a lone surrogate in a string,
                which becomes U+FFFD as toolwire's model replies make it (the SDK's transport cannot encode one,
                and its failure closed the whole session: review 149 #3).

        Returns:
            ``(content, artifact)`` as :func:`convert_call_result` makes them.

        Raises:
            ToolExecutionError: the result has ``isError`` (the message is the server's text), or the
                session or transport failed (server gone, connection lost).
        """
        if self._session is None:
            raise ToolExecutionError(f"the MCP session of {self.server.label!r} is closed.", name)
        try:
            return await self._on_session_loop(self._call(name, valid_strings(dict(arguments or {}))))
        except UserError as exc:
            raise ToolExecutionError(str(exc), name) from None

    async def _call(self, name: str, arguments: dict[str, Any], again: bool = True) -> tuple[Any, dict[str, Any]]:
        """Send the call; when the HTTP server answered this call's own request 404 for the session id (it forgot the
        session, so it did not run the call), open a new session and send it once more (``again``; review 224 #1). A
        call that failed because another request got the 404 while it ran is never sent again: the server accepted
        it, so the tool may have run, and its error says so (review 232 #1)."""
        session, forgotten = self._session, self._forgotten
        if session is None:
            raise ToolExecutionError(f"the MCP session of {self.server.label!r} is closed.", name)
        try:
            # (mcp 2.x handles a request in its sender's context: review 199 #1; so the 404 is seen as this call's)
            with toolwire_reports(), watch_refusal() as refused:
                result = await session.call_tool(name, arguments)
        except Exception as exc:
            if refused and again:
                try:
                    await renew(self, session)
                except UserError as error:
                    raise ToolExecutionError(forgot_message(self.server.label, error), name) from exc
                return await self._call(name, arguments, again=False)
            if forgotten and not refused:  # (the server forgot the session while it ran this call)
                with contextlib.suppress(UserError):  # (a new session for the next calls; failing, it is closed)
                    await renew(self, session)
                raise ToolExecutionError(lost_message(self.server.label, _describe(exc)), name) from exc
            gone = await probe_gone(session, exc)
            answered = schema_refusal(exc) is not None  # (its result broke the tool's output schema: review 149 #2)
            self._lost = not answered and (self._lost or gone)
            raise ToolExecutionError(_call_error(self.server.label, exc, gone), name) from exc
        self._lost = False
        content, artifact, is_error = convert_call_result(result)
        if is_error:
            text = content if isinstance(content, str) else "\n".join(
                b.get("text", "") for b in content if b.get("type") == "text")
            raise ToolExecutionError(text or "the MCP server reported an error.", name, artifact=artifact)
        return content, artifact

    def _tool_function(self, mcp_name: str, tool_name: str) -> Callable[..., Any]:
        async def call_mcp_tool(**arguments: Any) -> tuple[Any, dict[str, Any]]:
            return await self.call_tool(mcp_name, arguments)

        call_mcp_tool.__name__ = tool_name.replace("-", "_")
        call_mcp_tool.__qualname__ = f"mcp:{mcp_name}"
        call_mcp_tool.runs_remotely = True  # type: ignore[attr-defined]  # (a timeout's words: _tool_run.REMOTE)
        return call_mcp_tool


# where they lived before mcp/loading.py (imports of them from here keep working); loading imports MCPClient
from toolwire.mcp.loading import MCPToolList, aload_tools, connect, load_tools  # noqa: E402
