"""A new MCP session in place of one its HTTP server forgot, for :class:`~toolwire.mcp.client.MCPClient`.

MCP 2025-06-18, Transports > Streamable HTTP > Session Management, item 4: "When a client receives HTTP 404 in
response to a request containing an ``Mcp-Session-Id``, it MUST start a new session by sending a new
``InitializeRequest`` without a session ID attached." A server answers so when it restarted (a redeploy) or dropped
an idle session; it did not run that request, so the call whose own request got the 404 is sent once more on the
new session (review 224 #1). A call whose request the server accepted, and that failed because another request got the
404 (the server restarted while it ran: its answer was lost), is never sent again, as the tool may have run
(:class:`Forgotten`, :func:`watch_refusal`; review 232 #1).

The session lives in one task (anyio's scopes must be left by the task that entered them), the client's holder: a
call that met the 404 asks it (:func:`renew`) to close the forgotten session and open a new one (:func:`serve`). When
that fails, the session ends itself, as one whose server died does: the client then says ``closed``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

from toolwire.errors import UserError
from toolwire.mcp._sdk_logs import _REPORTING, toolwire_reports
from toolwire.mcp.common import _describe, _rpc_code, server_gone

__all__ = ["Forgotten", "forgot_message", "lost_message", "probe_gone", "renew", "reporter", "serve",
           "watch_refusal"]

log = logging.getLogger("toolwire.mcp")

_PROBE_SECONDS = 2.0  # how long a server that sent "Connection closed" has to answer a ping (then: not gone)

_REFUSED: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("toolwire_mcp_refused", default=None)
"""The session ids the server answered 404 for on the requests the running call sent (:func:`watch_refusal`)."""


class Forgotten(list[str]):
    """The session ids the HTTP server answered 404 for, on any request of one session (the transport's hook appends
    them). Each is also noted for the call whose request got it: mcp 2.x sends each request in its sender's context,
    so the hook runs in the context of the call that sent the refused request (:func:`watch_refusal`); a call never
    counts another request's 404 as its own (review 232 #1)."""

    def append(self, session_id: str) -> None:
        """Note ``session_id`` for the session and for the call whose request got the 404 (when one watches)."""
        super().append(session_id)
        refused = _REFUSED.get()
        if refused is not None:
            refused.append(session_id)


@contextlib.contextmanager
def watch_refusal() -> Iterator[list[str]]:
    """Within the block, the session ids a server answered 404 for on requests sent from it (this call's own) are
    appended to the list it yields; a 404 on another call's request is not. Raises nothing of its own."""
    refused: list[str] = []
    token = _REFUSED.set(refused)
    try:
        yield refused
    finally:
        _REFUSED.reset(token)


def reporter(ready: asyncio.Future[None] | concurrent.futures.Future[None]) -> Callable[[BaseException | None], None]:
    """``report(None)`` resolves ``ready``, ``report(error)`` fails it; only the first report counts."""
    def report(error: BaseException | None) -> None:
        if ready.done():
            return
        if error is None:
            ready.set_result(None)
        else:
            ready.set_exception(error)

    return report


class _Forgotten(logging.Filter):
    """Drop the SDK's "Session termination failed: 404" warning when a toolwire session closes (within
    :func:`toolwire_reports`): the DELETE of a session its server forgot gets 404, as there is nothing left to end,
    and Python's last-resort handler printed it with no logging set up (review 224 #1); any other record passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not _REPORTING.get():
            return True
        try:
            return record.getMessage() != "Session termination failed: 404"
        except Exception:  # (a record whose arguments do not fit its format: not this one)
            return True


_filter = _Forgotten()
if not any(isinstance(f, _Forgotten) for f in logging.getLogger("mcp.client.streamable_http").filters):
    logging.getLogger("mcp.client.streamable_http").addFilter(_filter)


async def serve(client: Any) -> None:
    """Keep ``client``'s open session until ``client._closing`` is set, opening a new one each time a call asks
    (:func:`renew`). Returns when the client is closing, or when a new session could not be opened (the session
    ended itself: ``client._session`` is None); the caller closes what is left. Raises nothing of its own."""
    queue: asyncio.Queue[asyncio.Future[None]] = asyncio.Queue()
    client._renewals = queue
    closing = asyncio.ensure_future(client._closing.wait())
    getter: asyncio.Future[asyncio.Future[None]] | None = None
    try:
        while True:
            getter = asyncio.ensure_future(queue.get())
            await asyncio.wait({closing, getter}, return_when=asyncio.FIRST_COMPLETED)
            if not getter.done():
                return
            done = getter.result()
            try:
                if closing.done():
                    raise UserError(f"the MCP session of {client.server.label!r} is closed.")
                await _reopen(client)
            except UserError as exc:
                client._renewing = None
                if not done.done():
                    done.set_exception(exc)
                return
            client._renewing = None
            if not done.done():
                done.set_result(None)
    finally:
        client._renewals = None
        waits = [task for task in (closing, getter) if task is not None and not task.done()]
        for task in waits:
            task.cancel()
        if waits:  # (left pending, they would be destroyed with the loop)
            await asyncio.wait(waits)


async def _reopen(client: Any) -> None:
    """Close ``client``'s forgotten session and open a new one (handshake and tool list, within ``connect_timeout``).

    Raises:
        UserError: the new session could not be opened (``client._session`` is then None; what was opened is closed).
    """
    old, client._stack = client._stack, None
    if old is not None:
        try:
            with toolwire_reports():
                await old.aclose()
        except Exception as exc:  # the forgotten session's transport: nothing of it is needed
            log.debug("closing the forgotten MCP session of %s: %s", client.server.label, _describe(exc))
    log.info("The MCP server %s forgot the session (HTTP 404): opening a new one", client.server.label)
    stack = contextlib.AsyncExitStack()
    client._deadline = time.monotonic() + client.connect_timeout
    try:
        with toolwire_reports():
            await client._enter(stack)
    except BaseException as exc:
        client._session = None
        if not isinstance(exc, TimeoutError):
            raise await client._failure(exc, stack) from None
        with contextlib.suppress(Exception):
            await stack.aclose()
        raise client._timeout_error() from None
    client._stack = stack


async def renew(client: Any, session: Any) -> None:
    """Have ``client``'s holder open a new session in place of ``session``, which its HTTP server forgot (HTTP 404
    for its session id); returns once it is open, at once when another call already had it renewed.

    Args:
        client: the :class:`~toolwire.mcp.client.MCPClient`, on whose event loop this runs.
        session: the SDK session the failed call used.

    Raises:
        UserError: the new session could not be opened, or the client is closed or closing; the message says why.
    """
    if client._session is not session and client._session is not None:
        return  # (already renewed by another call)
    pending = client._renewing
    if pending is None:
        queue = client._renewals
        if queue is None or client._session is None:
            raise UserError(f"the MCP session of {client.server.label!r} is closed.")
        pending = client._renewing = asyncio.get_running_loop().create_future()
        queue.put_nowait(pending)
    await asyncio.shield(pending)


def forgot_message(label: str, error: UserError) -> str:
    """The message of a call whose session its server forgot (HTTP 404) when no new session could be opened."""
    return (f"the MCP server {label!r} no longer knew the session (HTTP 404: it restarted, or dropped the session), "
            f"so the tool did not run, and a new session could not be opened, so the session is closed: {error}")


def lost_message(label: str, detail: str) -> str:
    """The message of a call whose request the server accepted but whose answer was lost when the server forgot the
    session (HTTP 404 for another request on it) while the call ran: the tool may have run, so it is not sent again."""
    return (f"the MCP server {label!r} forgot the session while the call ran (HTTP 404 for another request: it "
            f"restarted, or dropped the session), so the call's answer was lost and the tool may have run; it was not "
            f"sent again, so check whether it took effect before calling it again ({detail}).")


async def probe_gone(session: Any, exc: Exception) -> bool:
    """Whether the call that failed with ``exc`` found the server gone (:func:`~toolwire.mcp.common.server_gone`): for
    the SDK's "connection closed", only when the server does not answer a ``ping`` either (within ``_PROBE_SECONDS``;
    no answer in time is a slow server, not a gone one), as a server may send that error itself and stay up."""
    if not server_gone(exc) or not isinstance(_rpc_code(exc), int):  # (no code: the transport's own error)
        return server_gone(exc)
    try:
        with toolwire_reports():
            await asyncio.wait_for(session.send_ping(), _PROBE_SECONDS)
    except Exception as probe:
        return server_gone(probe)
    return False
