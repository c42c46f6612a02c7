"""Answers, over stdio, to lines the mcp SDK's ``stdio_server`` skips silently, for ``toolwire mcp serve``.

The SDK reads each line of stdin as one JSON-RPC message and drops one it cannot read, answering nothing, so a
client waited until its own timeout (review 224 #4). JSON-RPC 2.0 asks for an error with ``"id": null``: -32700
(Parse error) for a line that is not JSON, -32600 (Invalid Request) for JSON that is no message object, such as a
batch (an array; toolwire's server takes one message per line, as MCP 2025-06-18 on says, and refuses batches as
its HTTP transport does). :class:`LineCheck` wraps the stdin given to ``stdio_server`` to send those answers.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

__all__ = ["LineCheck"]

log = logging.getLogger("toolwire.mcp")


def _answer(line: str) -> Any:
    """The SDK ``SessionMessage`` of the JSON-RPC error that answers ``line``, or None for a line left to the SDK (a
    message object, a blank line; or any line when the SDK cannot make an error with a null id, as mcp 1.x may not).
    A line that cannot be read at all, one nested deeper than Python's recursion limit included, gets the -32700
    answer; raises nothing of its own (review 232 #3)."""
    text = line.strip()
    if not text:
        return None
    try:
        value = json.loads(text)
    except RecursionError:  # (nested deeper than Python can read: it must not end the server, review 232 #3)
        value, code, message = None, -32700, "Parse error: the line nests too deeply to be read; send less nested JSON"
    except Exception:  # (ValueError, or any other failure to read it: answered, never ending the server)
        value, code, message = None, -32700, "Parse error: the line is not JSON; send one JSON-RPC message per line"
    else:
        if isinstance(value, dict):
            return None
        code, message = -32600, ("Invalid Request: batches are not supported; send each JSON-RPC message on its "
                                 "own line" if isinstance(value, list) else "Invalid Request: not a JSON-RPC message")
    try:
        import mcp.types as mcp_types
        from mcp.shared.message import SessionMessage

        error: Any = mcp_types.JSONRPCError(jsonrpc="2.0", id=None,
                                            error=mcp_types.ErrorData(code=code, message=message))
        root = getattr(mcp_types, "JSONRPCMessage", None)
        if isinstance(root, type) and "root" in getattr(root, "model_fields", {}):  # mcp 1.x: a RootModel
            error = root(error)
        answer = SessionMessage(error)
    except Exception as exc:  # (an SDK whose JSONRPCError needs an id: the line is skipped, as before)
        log.debug("cannot answer a line that is no JSON-RPC message: %s", exc)
        return None
    what = ("too deeply nested" if "nests" in message else "not JSON" if code == -32700 else
            "a batch" if isinstance(value, list) else "not a JSON-RPC message")
    log.warning("The MCP client sent a line that is %s; it was answered with error %d (%r).", what, code, text[:80])
    return answer


class LineCheck:
    """The stdin of ``stdio_server``: each line passes on, but a line that is not JSON, or JSON that is no message
    object (a batch), is answered with a JSON-RPC error through :attr:`write` (the transport's write stream, set once
    it is open) instead. Before :attr:`write` is set, and whatever cannot be answered, lines pass on as they are.

    Args:
        stdin: the anyio text file of the protocol's input.
    """

    def __init__(self, stdin: Any) -> None:
        self._stdin = stdin
        self.write: Any = None

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async for line in self._stdin:
            try:
                answer = _answer(line) if self.write is not None else None
            except Exception as exc:  # (whatever fails here, the line is left to the SDK: the server goes on)
                log.debug("cannot check a line from the MCP client: %s", exc)
                answer = None
            if answer is None:
                yield line
                continue
            try:
                await self.write.send(answer)
            except Exception as exc:  # the transport is closing: the line is left to the SDK
                log.debug("cannot answer a line that is no JSON-RPC message: %s", exc)
                yield line

    def __getattr__(self, name: str) -> Any:  # (anything else the SDK asks of the file)
        return getattr(self._stdin, name)
