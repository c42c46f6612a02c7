"""The SDK's high-level server class under both of its names, and how to run it.

mcp 1.x calls it ``FastMCP`` (``mcp.server.fastmcp``); mcp 2.x renamed it ``MCPServer``
(``mcp.server.mcpserver``). The test servers are written once against this shim.
"""

from __future__ import annotations

import sys
from typing import Any

try:  # mcp >= 2
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    MCP2 = True
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import Context  # type: ignore[no-redef]
    from mcp.server.fastmcp import FastMCP as MCPServer  # type: ignore[no-redef]
    from mcp.server.fastmcp.exceptions import ToolError  # type: ignore[no-redef]

    MCP2 = False

__all__ = ["Context", "MCPServer", "ToolError", "make_server", "run"]


def make_server(name: str) -> Any:
    """A server named ``name`` that logs warnings only (``host``/``port`` are given at run time)."""
    return MCPServer(name, log_level="WARNING")


def run(server: Any, argv: list[str] | None = None) -> None:
    """Run over stdio, or over streamable HTTP on 127.0.0.1 with ``--http PORT``."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--http"]:
        port = int(argv[1])
        if MCP2:
            server.run("streamable-http", host="127.0.0.1", port=port)
        else:
            server.settings.host = "127.0.0.1"
            server.settings.port = port
            server.settings.log_level = "WARNING"
            server.run("streamable-http")
    else:
        server.run("stdio")
