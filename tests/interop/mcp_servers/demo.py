"""A small MCP server for the tests, written with the SDK's own server API.

Tools: ``add`` (text), ``divide`` (raises -> ``isError``), ``weather`` (structured content),
``picture`` (text + image blocks), ``echo_env`` (reads an environment variable), ``crash``
(the process exits mid-call), ``dotted.name`` (a name toolwire must rename), ``enable_extra``
(adds the tool ``extra`` and sends ``notifications/tools/list_changed``), ``request_header`` (an HTTP
header of the call).

Run: ``python demo.py`` (stdio) or ``python demo.py --http PORT`` (streamable HTTP on 127.0.0.1).
"""


import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _compat import Context, ToolError, make_server, run
from mcp import types
from pydantic import BaseModel

server = make_server("demo")

# a 1x1 PNG
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


class Weather(BaseModel):
    city: str
    celsius: float
    sky: str


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@server.tool()
def divide(a: float, b: float) -> str:
    """Divide a by b."""
    if b == 0:
        raise ToolError("division by zero is not allowed")
    return str(a / b)


@server.tool()
def weather(city: str) -> Weather:
    """Current weather of a city, as structured data."""
    return Weather(city=city, celsius=21.5, sky="clear")


@server.tool()
def picture(label: str) -> list[types.TextContent | types.ImageContent]:
    """A tiny picture with a caption."""
    return [types.TextContent(type="text", text=f"a picture of {label}"),
            types.ImageContent(type="image", data=PNG, mimeType="image/png")]


@server.tool()
def echo_env(name: str) -> str:
    """The value of an environment variable of the server process."""
    return os.environ.get(name, "<unset>")


@server.tool()
def crash() -> str:
    """Exit the server process in the middle of the call."""
    os._exit(3)


@server.tool(name="dotted.name")
def dotted(text: str) -> str:
    """A tool whose name has a dot, which toolwire tool names do not allow."""
    return text.upper()


def extra(word: str) -> str:
    """Repeat a word twice."""
    return f"{word} {word}"


@server.tool()
async def enable_extra(ctx: Context) -> str:
    """Add the tool 'extra' and tell the client the tool list changed."""
    server.add_tool(extra)
    await ctx.session.send_tool_list_changed()
    return "extra enabled"


@server.tool()
def request_header(name: str, ctx: Context) -> str:
    """The value of an HTTP header of the current request (streamable HTTP only)."""
    headers = getattr(ctx, "headers", None)  # mcp 2.x
    if headers is None:  # mcp 1.x: the Starlette request
        headers = getattr(getattr(ctx.request_context, "request", None), "headers", None) or {}
    return headers.get(name.lower()) or headers.get(name) or "<none>"


if __name__ == "__main__":
    run(server)
