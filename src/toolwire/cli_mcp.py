"""Command line of the MCP server: ``toolwire mcp serve ...`` (this module's ``app`` is mounted as ``mcp``).

Examples::

    toolwire mcp serve --tools my_tools.py                      # stdio: an MCP client starts this command
    toolwire mcp serve --tools my_tools.py --transport http --port 8000   # http://127.0.0.1:8000/mcp

With stdio, standard output carries the protocol: errors go to standard error (one line, exit code 1), and
so does whatever the tools print (when the tools file is imported, during calls, and after serving).
``--tools`` imports the named file or module: it is the user's own code and runs with the user's rights.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from toolwire._cli_errors import whole_number
from toolwire._printing import terminal_text
from toolwire.errors import ToolwireError

__all__ = ["app", "serve"]

app = typer.Typer(help="Publish toolwire tools as an MCP (Model Context Protocol) server.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def _given(ctx: typer.Context, option: str) -> bool:
    """Whether the command line (or the environment) set ``option``, rather than its default. The source is read
    by its name: typer 0.2x has its own copy of click's ``ParameterSource``, older typers use click's."""
    source = ctx.get_parameter_source(option)
    return getattr(source, "name", "DEFAULT") not in ("DEFAULT", "DEFAULT_MAP")


@app.callback()
def _group() -> None:
    """MCP (Model Context Protocol) commands."""


@app.command()
def serve(
    ctx: typer.Context,
    tools: Annotated[list[str], typer.Option("--tools", "-t", help=(
        "A .py file or module with tools (repeatable): its TOOLS list, else its @tool objects (not those named "
        "_x), else its public functions with docstrings. Its folder and the current one are on the import path."))],
    transport: Annotated[str, typer.Option(help="stdio | http")] = "stdio",
    host: Annotated[str, typer.Option(help="HTTP address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="HTTP port (1-65535).",
                                      parser=whole_number("port number", 1, 8000, 65535))] = 8000,
    path: Annotated[str, typer.Option(help="HTTP endpoint path.")] = "/mcp",
    name: Annotated[str, typer.Option(help="The server name MCP clients see.")] = "toolwire",
) -> None:
    """Serve the tools of --tools over MCP (stdio by default, or streamable HTTP).

    With stdio, stdout carries the protocol: what the tools print goes to stderr. Exits with 2 on a bad option
    (click's usage error), and with 1 after a one-line error (tools that do not load, a port in use,
    --host/--port/--path given without --transport http, where they would be ignored, or stdio with standard input
    closed).
    """
    from toolwire.cli import _loaded
    from toolwire.mcp.server import check_host
    from toolwire.mcp.server import serve as run_server

    try:
        if transport not in ("stdio", "http"):
            raise typer.BadParameter("use 'stdio' or 'http'.", param_hint="--transport")
        if transport == "stdio" and sys.stdin is None:  # (started with <&-: a traceback, review 227 #7)
            raise ToolwireError("standard input is closed: mcp serve reads its client's messages from it on stdio; "
                                "let an MCP client start it, or serve with --transport http.")
        if transport == "stdio":  # (review 145 #4: --port 8767 served stdio without a word, nothing on the port)
            given = [f"--{option}" for option in ("host", "port", "path") if _given(ctx, option)]
            if given:
                named = given[0] if len(given) == 1 else f"{', '.join(given[:-1])} and {given[-1]}"
                raise ToolwireError(f"{named} {'applies' if len(given) == 1 else 'apply'} to "
                                    "--transport http only, not to stdio: add --transport http to serve over HTTP, "
                                    f"or leave {'it' if len(given) == 1 else 'them'} out.")
        # with stdio, stdout carries the protocol: what the tools file prints on import goes to stderr
        with contextlib.redirect_stdout(sys.stderr) if transport == "stdio" else contextlib.nullcontext():
            loaded = _loaded(tools, server_tools=False)  # two tools of one name: both files named, as ask
        options: dict[str, Any] = {}
        if transport == "http":
            import socket

            check_host(host, "--host")  # "" would listen on every interface, and the URL shown be http://:PORT
            if not path.startswith("/"):  # before the port is tried and "serving" is claimed
                raise ToolwireError(f"--path must start with '/', as /mcp does, not {path!r}: try --path /{path}.")

            shown = f"[{host}]" if ":" in host else host  # an IPv6 address in a URL (RFC 3986) (review 32)
            try:  # say so at once when the port cannot be had, rather than after claiming to serve
                family = socket.AF_INET6 if ":" in host else socket.AF_INET
                with socket.create_server((host, port), family=family):
                    pass
            except OSError as exc:
                raise ToolwireError(f"Cannot listen on {shown}:{port} ({exc.strerror or exc}): "
                                    "choose another --port or --host.") from None
            tools = "tool" if len(loaded) == 1 else "tools"
            serving = f"[dim]serving {len(loaded)} {tools} at http://{shown}:{port}{path}[/dim]"
            # said once the port takes connections, not before (review 251 #3: a client started on it was refused)
            options["ready"] = lambda: err.print(serving)
        run_server(loaded, transport=transport, host=host, port=port, path=path, name=name,  # type: ignore[arg-type]
                   **options)
        if transport == "stdio":  # a tool thread still running prints to stderr too, until the process ends
            sys.stdout = sys.stderr
    except ToolwireError as exc:
        err.print(f"[red]error:[/red] {escape(terminal_text(str(exc)))}")
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
