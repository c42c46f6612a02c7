"""What the MCP server (:mod:`toolwire.mcp.server`) answers as the protocol says, beyond running tools.

* A ``tools/call`` naming a tool the server does not have is a protocol error, JSON-RPC ``-32602`` (MCP 2025-06-18 and
  2025-11-25, "Server features > Tools > Error Handling": "Unknown tools" are listed under "Protocol Errors", the
  example being ``{"code": -32602, "message": "Unknown tool: invalid_tool_name"}``), not an ``isError`` result, which
  is for a tool that ran and failed (review 190 #3). :func:`unknown_tool_error` builds it for either SDK; with mcp 1.x,
  whose ``call_tool`` decorator turns every exception into an ``isError`` result, :func:`refuse_unknown_tools` checks
  the name before that handler runs.
"""

from __future__ import annotations

from typing import Any

__all__ = ["refuse_unknown_tools", "unknown_tool_error"]

_NAMES_SHOWN = 20  # tool names written into the unknown-tool message (all are in its data)


def unknown_tool_error(name: Any, names: list[str]) -> Exception:
    """The SDK's protocol error for a ``tools/call`` of a tool the server does not serve: JSON-RPC ``-32602``
    (invalid params), the message ``Unknown tool: NAME.`` and the tools to call instead, ``data``
    ``{"tool": NAME, "available": [...]}``.

    Args:
        name: the tool name the client sent.
        names: the names of the tools served.

    Returns:
        An ``mcp.shared.exceptions.MCPError`` (mcp 2.x) or ``McpError`` (mcp 1.x) to raise from a request handler,
        which the SDK answers as a JSON-RPC error.
    """
    import mcp.types as types
    from mcp.shared import exceptions

    shown = ", ".join(names[:_NAMES_SHOWN]) + (f" and {len(names) - _NAMES_SHOWN} more" if len(names) > _NAMES_SHOWN
                                               else "")
    message = f"Unknown tool: {name}. Call one of the tools that tools/list gives: {shown}."
    data = {"tool": name, "available": list(names)}
    if hasattr(exceptions, "MCPError"):  # mcp 2.x
        return exceptions.MCPError(code=types.INVALID_PARAMS, message=message, data=data)  # type: ignore[no-any-return]
    return exceptions.McpError(  # type: ignore[attr-defined,no-any-return]
        types.ErrorData(code=types.INVALID_PARAMS, message=message, data=data))


def refuse_unknown_tools(server: Any, names: list[str]) -> None:
    """Make an mcp 1.x low-level ``server`` (its ``call_tool`` handler already registered) answer a ``tools/call`` of
    a name not in ``names`` with :func:`unknown_tool_error`, before its handler runs (which would answer it as an
    ``isError`` result).

    Args:
        server: the mcp 1.x ``mcp.server.lowlevel.Server``; changed in place.
        names: the names of the tools served.
    """
    import mcp.types as types

    handler = server.request_handlers[types.CallToolRequest]

    async def guarded(request: Any) -> Any:
        name = request.params.name
        if name not in names:
            raise unknown_tool_error(name, names)
        return await handler(request)

    server.request_handlers[types.CallToolRequest] = guarded
