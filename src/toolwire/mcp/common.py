"""What the MCP client and server share: server descriptions and the mapping of MCP results.

Formats: MCP revision 2025-11-25 (https://modelcontextprotocol.io/specification), "Server features >
Tools > Tool Result" (content blocks ``text``, ``image``, ``audio``, ``resource_link``, ``resource``;
``structuredContent``; ``isError``), and the ``mcpServers`` configuration shape most MCP clients use
(``{"command", "args", "env", "cwd"}`` or ``{"url", "headers"}``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import shlex
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from toolwire._secrets import redact_http_logs, redact_url
from toolwire.errors import UserError

__all__ = ["HttpServer", "ServerLike", "StdioServer", "convert_call_result", "server_from"]


def _masked(values: Mapping[str, Any] | None) -> str:
    """A mapping of secrets (HTTP headers, environment variables) for a repr: the keys, each value hidden."""
    if values is None:
        return "None"
    try:
        return "{" + ", ".join(f"{key!r}: '***'" for key in values) + "}"
    except Exception:  # not iterable: still nothing of it shown
        return "'***'"


@dataclasses.dataclass(frozen=True, repr=False)
class StdioServer:
    """An MCP server started as a child process that speaks JSON-RPC on its stdin/stdout.

    The repr shows the names of ``env`` but hides their values (tokens such as ``GITHUB_TOKEN`` live
    there), so a logged or printed server description leaks no secret.

    Attributes:
        command: the program (``"python"``, ``"npx"``...).
        args: its arguments, a list; one string is split as a shell would split it (``"server.py --verbose"``).
        env: extra environment variables (added to the SDK's safe default environment).
        cwd: working directory of the process.
        name: a label for messages (default: the command line).

    Raises:
        UserError: ``command`` is not text, or ``args`` is neither text nor a list of texts.
    """

    command: str
    args: Sequence[str] = ()
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.command, str) or not self.command.strip():
            raise UserError("StdioServer needs the command as text, such as StdioServer('python', ['server.py']).")
        args = self.args
        if isinstance(args, str):  # a string is a sequence of characters: it would start `python s e r v e r . p y`
            args = shlex.split(args)
        elif isinstance(args, bytes) or not all(isinstance(a, str) for a in args):
            raise UserError("StdioServer args must be a list of texts, such as ['server.py', '--verbose'].")
        object.__setattr__(self, "args", tuple(args))

    @property
    def label(self) -> str:
        """The name, or the command line (URL credentials in it masked: ``mcp-remote https://...?api_key=...``)."""
        return self.name or redact_url(shlex.join([self.command, *self.args]))

    def __repr__(self) -> str:
        args = [redact_url(str(a)) for a in self.args]
        return (f"StdioServer(command={redact_url(self.command)!r}, args={args!r}, env={_masked(self.env)}, "
                f"cwd={self.cwd!r}, name={self.name!r})")


@dataclasses.dataclass(frozen=True, repr=False)
class HttpServer:
    """An MCP server reached over streamable HTTP (MCP 2025-03-26 and later).

    The repr shows the names of ``headers`` but hides their values (``Authorization: Bearer ...``).

    Attributes:
        url: the endpoint, e.g. ``"http://127.0.0.1:8000/mcp"``.
        headers: HTTP headers sent with every request (``Authorization`` ...).
        name: a label for messages (default: the URL).
    """

    url: str
    headers: Mapping[str, str] | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.url, str) and redact_url(self.url) != self.url:
            redact_http_logs()  # httpx logs each request's URL, credentials and all (review 26)

    @property
    def label(self) -> str:
        """The name, or the URL with its credentials masked (what messages, logs and reprs show)."""
        return self.name or redact_url(self.url)

    def __repr__(self) -> str:
        return f"HttpServer(url={redact_url(self.url)!r}, headers={_masked(self.headers)}, name={self.name!r})"


ServerLike = StdioServer | HttpServer | str | Mapping[str, Any] | Sequence[str]


def server_from(spec: ServerLike) -> StdioServer | HttpServer:
    """Read a server description.

    Args:
        spec: a :class:`StdioServer` / :class:`HttpServer`; a string, either an ``http(s)://`` URL or a
            command line (``"python server.py --flag"``, split like a shell would); a list of
            command-line words; or a dict in the common ``mcpServers`` config shape,
            ``{"command", "args"?, "env"?, "cwd"?}`` or ``{"url", "headers"?}``.

    Returns:
        ``spec`` itself when it is a :class:`StdioServer` or :class:`HttpServer`, else a new one.

    Raises:
        UserError: the description is empty or of another kind, or a command line cannot be split into
            words (an unclosed quote, a trailing backslash). The message names a dict's keys, never its
            values (``headers`` and ``env`` hold tokens).
    """
    if isinstance(spec, StdioServer | HttpServer):
        return spec
    if isinstance(spec, str):
        text = spec.strip()
        if re.match(r"^https?://", text):
            return HttpServer(text)
        try:
            words = shlex.split(text)
        except ValueError as exc:  # "No closing quotation", "No escaped character"
            raise UserError(
                f"Cannot split the MCP server command {redact_url(text)!r} into words ({exc}): close the quote "
                "or escape the backslash, or give the command as a list of words."
            ) from None
        if not words:
            raise UserError("An MCP server command is empty: give 'command args...' or an http(s):// URL.")
        return StdioServer(words[0], tuple(words[1:]))
    if isinstance(spec, Mapping):
        if spec.get("url"):
            return HttpServer(str(spec["url"]), spec.get("headers"), spec.get("name"))
        if spec.get("command"):
            return StdioServer(str(spec["command"]), tuple(spec.get("args") or ()), spec.get("env"),
                               spec.get("cwd"), spec.get("name"))
    elif isinstance(spec, Sequence) and spec and all(isinstance(w, str) for w in spec):
        return StdioServer(spec[0], tuple(spec[1:]))
    raise UserError(
        f"Cannot read {_what(spec)} as an MCP server: give 'command args...', an http(s):// URL, "
        "or a dict with 'command' or 'url'."
    )


def _what(spec: Any) -> str:
    """A server description that could not be read, for an error message, without any of its values."""
    if isinstance(spec, Mapping):
        keys = ", ".join(repr(k) for k in spec)
        return f"a dict with the keys {keys}" if keys else "an empty dict"
    if isinstance(spec, Sequence):
        return f"a {type(spec).__name__} of {len(spec)} items that are not all strings" if spec \
            else f"an empty {type(spec).__name__}"
    return f"a value of type {type(spec).__name__}"


_BAD_NAME_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


def _free_name(wanted: str, taken: set[str]) -> str:
    """The toolwire tool name for an MCP tool named ``wanted`` (prefix included), not one in ``taken``.

    A valid name (``^[a-zA-Z0-9_-]{1,64}$``) is kept; otherwise each character a name cannot hold becomes
    ``_`` and the name is cut to 64 characters (empty: ``"tool"``). A name in ``taken`` gets ``_2``,
    ``_3``... (still within 64 characters). ``taken`` is not changed.
    """
    base = _BAD_NAME_CHARS.sub("_", wanted)[:64] or "tool"
    name, n = base, 2
    while name in taken:
        suffix = f"_{n}"
        name, n = base[: 64 - len(suffix)] + suffix, n + 1
    return name


def _errlog() -> Any:
    """Where a stdio server's stderr goes: ours, when it is a real file (not a test runner's buffer)."""
    for stream in (sys.stderr, sys.__stderr__):
        try:
            if stream is not None:
                stream.fileno()
                return stream
        except (AttributeError, OSError, ValueError):
            continue
    return open(os.devnull, "w")  # lives as long as the process it serves


def _mcp() -> Any:
    try:
        import mcp
    except ImportError:
        raise UserError("MCP support needs the mcp SDK: pip install 'toolwire[mcp]'.") from None
    return mcp


def _check_jsonschema() -> None:
    """Check that ``jsonschema`` (which validates the arguments of every MCP tool) can be imported.

    Raises:
        UserError: it is not installed (the message gives the ``pip install`` line), or importing it failed
            for another reason, such as a broken dependency (the message quotes that import error).
    """
    try:
        import jsonschema  # noqa: F401
    except Exception as exc:
        if isinstance(exc, ModuleNotFoundError) and exc.name == "jsonschema":
            raise UserError("MCP tools need the jsonschema package to check their arguments: "
                            "pip install 'jsonschema>=4'.") from None
        # a broken install (a dependency of it missing or too old): say what failed, not that it is missing
        raise UserError(f"Importing jsonschema failed ({_describe(exc)}): reinstall it and what it needs "
                        "with pip install --force-reinstall 'jsonschema>=4'.") from None


async def _open_transport(server: StdioServer | HttpServer, stack: contextlib.AsyncExitStack) -> tuple[Any, Any]:
    """Start a stdio server (its stderr goes to ours) or reach an HTTP one, with the SDK's transports
    entered on ``stack``; returns the session's ``(read, write)`` streams."""
    if isinstance(server, StdioServer):
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(command=server.command, args=list(server.args),
                                       env=dict(server.env) if server.env is not None else None,
                                       cwd=server.cwd)
        streams = await stack.enter_async_context(stdio_client(params, errlog=_errlog()))
        return streams[0], streams[1]
    headers = dict(server.headers or {}) or None
    try:  # mcp >= 1.24 and 2.x: the transport takes a configured HTTP client
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client
    except ImportError:  # older 1.x
        from mcp.client.streamable_http import streamablehttp_client

        streams = await stack.enter_async_context(streamablehttp_client(server.url, headers=headers))
        return streams[0], streams[1]
    http = await stack.enter_async_context(create_mcp_http_client(headers=headers))
    streams = await stack.enter_async_context(streamable_http_client(server.url, http_client=http))
    return streams[0], streams[1]


def _wire(model: Any) -> dict[str, Any]:
    """An SDK pydantic model as its JSON-RPC wire dict (camelCase keys in mcp 1.x and 2.x alike)."""
    if isinstance(model, dict):
        return model
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)  # type: ignore[no-any-return]


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _describe(exc: BaseException) -> str:
    exc = _leaf(exc)
    detail = redact_url(str(exc).strip())  # an HTTP error may quote the URL, token and all
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


# -- results --------------------------------------------------------------------------------------


def _block(raw: Mapping[str, Any]) -> dict[str, Any]:
    kind = raw.get("type")
    if kind == "text":
        return {"type": "text", "text": str(raw.get("text", ""))}
    if kind in ("image", "audio"):
        return {"type": kind, "base64": raw.get("data", ""), "mime_type": raw.get("mimeType")}
    if kind == "resource":
        res = raw.get("resource") or {}
        if "text" in res:
            return {"type": "text", "text": str(res["text"])}
        mime = res.get("mimeType") or "application/octet-stream"
        return {"type": "image" if mime.startswith("image/") else "file", "base64": res.get("blob", ""),
                "mime_type": mime}
    if kind == "resource_link":
        words = [raw.get("name") or raw.get("title") or "", f"<{raw.get('uri')}>", raw.get("description") or ""]
        return {"type": "text", "text": "Resource: " + " ".join(w for w in words if w)}
    return {"type": "text", "text": json.dumps(raw, ensure_ascii=False)}


def convert_call_result(result: Any) -> tuple[str | list[dict[str, Any]], dict[str, Any], bool]:
    """Map an MCP ``CallToolResult`` (an SDK model or its wire dict) to toolwire message parts.

    Returns:
        ``(content, artifact, is_error)``: ``content`` is the text when every block is text (joined by
        newlines), else a list of content blocks (``text``; ``image``/``audio`` with ``base64`` and
        ``mime_type``; embedded binary resources as ``file`` blocks; resource links as text); when the
        result has no blocks, the JSON text of ``structuredContent``. ``artifact`` is
        ``{"structured_content": dict | None, "content": [raw MCP blocks]}`` (plus ``"meta"`` when the
        result has ``_meta``).
    """
    data = _wire(result)
    raw_blocks = list(data.get("content") or [])
    structured = data.get("structuredContent")
    blocks = [_block(b) for b in raw_blocks]
    content: str | list[dict[str, Any]]
    if not blocks:
        content = json.dumps(structured, ensure_ascii=False) if structured is not None else ""
    elif all(b["type"] == "text" for b in blocks):
        content = "\n".join(b["text"] for b in blocks)
    else:
        content = blocks
    artifact: dict[str, Any] = {"structured_content": structured, "content": raw_blocks}
    if data.get("_meta"):
        artifact["meta"] = data["_meta"]
    return content, artifact, bool(data.get("isError"))
