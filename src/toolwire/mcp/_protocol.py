"""What the MCP server (:mod:`toolwire.mcp.server`) answers as the protocol says, beyond running tools.

* A ``tools/call`` naming a tool the server does not have is a protocol error, JSON-RPC ``-32602`` (MCP 2025-06-18 and
  2025-11-25, "Server features > Tools > Error Handling": "Unknown tools" are listed under "Protocol Errors", the
  example being ``{"code": -32602, "message": "Unknown tool: invalid_tool_name"}``), not an ``isError`` result, which
  is for a tool that ran and failed (review 190 #3). :func:`unknown_tool_error` builds it for either SDK; with mcp 1.x,
  whose ``call_tool`` decorator turns every exception into an ``isError`` result, :func:`refuse_unknown_tools` checks
  the name before that handler runs.
* The content blocks of a result are those of the revision the client negotiated ("Lifecycle > Version
  Negotiation": after it both sides use that revision; review 190 #4). ``audio`` blocks came in 2025-03-26 and
  ``resource_link`` blocks in 2025-06-18, so a client that agreed to an older revision, whose
  ``CallToolResult.content`` has only ``text``, ``image`` and ``resource``, gets audio as an embedded resource
  (``blob`` + ``mimeType``, the data kept, as binary file blocks are sent) and a resource link as the text
  ``Resource: name <uri> description`` (as toolwire's own client shows one) (:func:`for_version`). Newer clients get
  the blocks as they are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["AUDIO_SINCE", "LINKS_SINCE", "for_version", "negotiated_v1", "refuse_unknown_tools", "unknown_tool_error"]

AUDIO_SINCE = "2025-03-26"
"""The first MCP revision with ``audio`` content blocks."""
LINKS_SINCE = "2025-06-18"
"""The first MCP revision with ``resource_link`` content blocks."""

_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}$")  # (MCP revisions are dates, so they sort as text)
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


def negotiated_v1(server: Any) -> str | None:
    """The protocol revision the client of the current request agreed to, on an mcp 1.x low-level ``server``: the one
    it asked for when the SDK supports it, else the SDK's latest (as its ``initialize`` answer says); ``None`` when
    it cannot be told (outside a request, no ``initialize`` seen)."""
    try:
        import mcp.types as types
        from mcp.shared.version import SUPPORTED_PROTOCOL_VERSIONS

        params = server.request_context.session.client_params
        asked = params.protocolVersion if params is not None else None
    except Exception:  # (LookupError outside a request, an SDK without these names): the newest blocks
        return None
    if asked is None:
        return None
    return str(asked) if asked in SUPPORTED_PROTOCOL_VERSIONS else str(types.LATEST_PROTOCOL_VERSION)


def _older(version: Any, since: str) -> bool:
    return isinstance(version, str) and bool(_VERSION.match(version)) and version < since


def for_version(content: list[Any], version: str | None) -> list[Any]:
    """``content`` (MCP content blocks, wire dicts) as the MCP revision ``version`` can carry them (module doc):
    before 2025-03-26 an ``audio`` block becomes an embedded resource (``attachment:///audio-N``, ``blob``,
    ``mimeType``); before 2025-06-18 a ``resource_link`` block becomes the text ``Resource: name <uri>
    description``. Other blocks are kept.

    Args:
        content: the result's content blocks.
        version: the negotiated revision (``"2024-11-05"``...); ``None`` or one that is not a date: the newest, so
            every block is kept.

    Returns:
        ``content`` itself when nothing changes, else a new list.
    """
    if not (_older(version, AUDIO_SINCE) or _older(version, LINKS_SINCE)):
        return content
    out: list[Any] = []
    sounds = 0
    for block in content:
        kind = block.get("type") if isinstance(block, Mapping) else None
        if kind == "audio" and _older(version, AUDIO_SINCE):
            sounds += 1
            out.append({"type": "resource", "resource": {"uri": f"attachment:///audio-{sounds}",
                                                         "blob": block.get("data", ""),
                                                         "mimeType": block.get("mimeType") or "audio/wav"}})
        elif kind == "resource_link" and _older(version, LINKS_SINCE):
            words = [block.get("name") or block.get("title") or "", f"<{block.get('uri')}>",
                     block.get("description") or ""]
            out.append({"type": "text", "text": "Resource: " + " ".join(str(w) for w in words if w)})
        else:
            out.append(block)
    return out
