"""MCP (Model Context Protocol) support, on the official ``mcp`` SDK (toolwire's ``mcp`` extra: ``pip install
'mcp>=1.12'``).

* Client: :func:`load_tools` (sync, background session), :func:`aload_tools`, and
  ``async with connect(server) as tools:`` turn an MCP server's tools into toolwire tools
  (:mod:`toolwire.mcp.client`).
* Server: :func:`serve` publishes toolwire tools as an MCP server over stdio or streamable HTTP
  (:mod:`toolwire.mcp.server`; on the command line, ``toolwire mcp serve --tools my_tools.py``).

Importing this package does not import the SDK; using it without the SDK raises
:class:`~toolwire.errors.UserError` with the ``pip install`` line.
"""

from __future__ import annotations

from toolwire.mcp.client import HttpServer, MCPClient, StdioServer, convert_call_result, server_from
from toolwire.mcp.loading import MCPToolList, aload_tools, connect, load_tools
from toolwire.mcp.server import build_server, serve, serve_async

__all__ = [
    "HttpServer",
    "MCPClient",
    "MCPToolList",
    "StdioServer",
    "aload_tools",
    "build_server",
    "connect",
    "convert_call_result",
    "load_tools",
    "serve",
    "serve_async",
    "server_from",
]
