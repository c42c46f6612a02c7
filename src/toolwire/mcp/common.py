"""What the MCP client and server share: server descriptions, the SDK's transports and errors, and the mapping of
MCP results (:func:`convert_call_result`, from :mod:`toolwire.mcp._results`).

Formats: MCP revision 2025-11-25 (https://modelcontextprotocol.io/specification), "Server features >
Tools > Tool Result" (content blocks ``text``, ``image``, ``audio``, ``resource_link``, ``resource``;
``structuredContent``; ``isError``), and the ``mcpServers`` configuration shape most MCP clients use
(``{"command", "args", "env", "cwd"}`` or ``{"url", "headers"}``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import json
import logging
import os
import re
import shlex
import sys
import urllib.parse
from collections.abc import Mapping, Sequence
from typing import Any

from toolwire._extras import install_hint
from toolwire._secrets import _RedactURLs, redact_http_logs, redact_url
from toolwire._tool_checks import valid_name
from toolwire.errors import UserError
from toolwire.mcp._masking import leading_env, masked_args, masked_mapping, scrubbed
from toolwire.mcp._results import convert_call_result

__all__ = ["HttpServer", "ServerLike", "StdioServer", "convert_call_result", "server_from", "server_gone"]


def _text_mapping(values: Any, what: str, example: str, *, header: bool = False) -> dict[str, str] | None:
    """``values`` (HTTP headers, environment variables) checked as a mapping of texts to texts.

    Args:
        values: what the caller gave (None: none).
        what: the option, for the message (``"HttpServer headers"``).
        example: a mapping to show in the message.
        header: the values are HTTP header values: the spaces and line end around one (a token read from a
            file) are dropped, as HTTP drops them, and one that still holds a line break is refused.

    Returns:
        A dict of the values, or None.

    Raises:
        UserError: not such a mapping, or a header value with a line break; the message never quotes a value.
    """
    if values is None:
        return None
    if not isinstance(values, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                  for k, v in values.items()):
        raise UserError(f"{what} must be a dict of names to text values, such as {example}.")
    if not header:
        return dict(values)
    out = {key: value.strip() for key, value in values.items()}
    if any(c in value for value in out.values() for c in "\r\n\0"):
        raise UserError(f"{what} must not hold a line break inside a value: give each value on one line.")
    return out


@dataclasses.dataclass(frozen=True, repr=False)
class StdioServer:
    """An MCP server started as a child process that speaks JSON-RPC on its stdin/stdout.

    The repr shows the names of ``env`` but hides their values (tokens such as ``GITHUB_TOKEN`` live
    there), and the repr and :attr:`label` hide the secrets of the command line (``--token X``,
    ``--header "Authorization: Bearer X"``, URL credentials), so a logged or printed server description or
    an error message leaks no secret.

    Attributes:
        command: the program (``"python"``, ``"npx"``...).
        args: its arguments, a list; one string is split as a shell would split it (``"server.py --verbose"``).
        env: extra environment variables (added to the SDK's safe default environment).
        cwd: working directory of the process.
        name: a label for messages (default: the command line).

    Raises:
        UserError: ``command`` is not text, ``args`` is neither text nor a list of texts, or ``env`` is not a dict
            of texts.
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
        elif not isinstance(args, Sequence) or isinstance(args, bytes) or not all(isinstance(a, str) for a in args):
            raise UserError("StdioServer args must be a list of texts, such as ['server.py', '--verbose'].")
        object.__setattr__(self, "args", tuple(args))
        object.__setattr__(self, "env", _text_mapping(self.env, "StdioServer env", "{'GITHUB_TOKEN': '...'}"))

    @property
    def label(self) -> str:
        """The name, or the command line with what looks like a secret masked
        (:func:`~toolwire.mcp._masking.masked_args`: URL credentials, ``--token X``, ``Authorization: Bearer X``)."""
        return self.name or shlex.join(masked_args([self.command, *self.args]))

    def __repr__(self) -> str:
        args = masked_args(self.args)
        return (f"StdioServer(command={redact_url(self.command)!r}, args={args!r}, env={masked_mapping(self.env)}, "
                f"cwd={self.cwd!r}, name={self.name!r})")


@dataclasses.dataclass(frozen=True, repr=False)
class HttpServer:
    """An MCP server reached over streamable HTTP (MCP 2025-03-26 and later).

    The repr shows the names of ``headers`` but hides their values (``Authorization: Bearer ...``).

    Attributes:
        url: the endpoint, e.g. ``"http://127.0.0.1:8000/mcp"``.
        headers: HTTP headers sent with every request (``Authorization`` ...).
        name: a label for messages (default: the URL).

    Raises:
        UserError: ``headers`` is not a dict of texts, or a header value holds a line break (the spaces and line end
            around a value are dropped).
    """

    url: str
    headers: Mapping[str, str] | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "headers", _text_mapping(self.headers, "HttpServer headers",
                                                          "{'Authorization': 'Bearer ...'}", header=True))
        if isinstance(self.url, str) and redact_url(self.url) != self.url:
            redact_http_logs()  # httpx logs each request's URL, credentials and all (review 26)
            for name in _SDK_URL_LOGGERS:  # and so does the SDK's transport, when it connects (review 46)
                if _url_filter not in logging.getLogger(name).filters:
                    logging.getLogger(name).addFilter(_url_filter)

    @property
    def label(self) -> str:
        """The name, or the URL with its credentials masked (what messages, logs and reprs show)."""
        return self.name or redact_url(self.url)

    def __repr__(self) -> str:
        return f"HttpServer(url={redact_url(self.url)!r}, headers={masked_mapping(self.headers)}, name={self.name!r})"


_SDK_URL_LOGGERS = ("mcp.client.streamable_http", "mcp.client.sse")
_url_filter = _RedactURLs()


class _StdoutJunk(logging.Filter):
    """The mcp SDK logs each line a stdio server writes to stdout that is not a valid JSON-RPC message as an error
    with its parser's traceback, eleven lines that look like a crash (review 132 #2), although the line is only
    skipped and the session goes on. This filter makes each such record one warning line that quotes the line and
    says what it means: a line that is not JSON at all is the server's own output (a banner, a print), which belongs
    on stderr; JSON that is not a valid JSON-RPC message is the server breaking the protocol (a call it answered so
    waits until its timeout). Every such line is still reported (review 133 #1); the SDK's other records pass
    unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage() != "Failed to parse JSONRPC message from server" or not record.exc_info:
            return True
        errors = getattr(record.exc_info[1], "errors", None)
        first = errors()[0] if callable(errors) and errors() else {}
        line = first.get("input")
        if line is not None and not isinstance(line, str):
            line = json.dumps(line, default=str)
        quoted = f" ({line[:120]!r})" if line is not None else ""
        if first.get("type") == "json_invalid":
            said = ("wrote a line to stdout that is not JSON; it was skipped: a stdio server must write its logs to "
                    "stderr")
        else:
            said = ("sent a message that is not valid JSON-RPC; it was skipped, so a call it answered waits until its "
                    "timeout: the server is at fault, ask its authors to fix it")
        record.msg, record.args = f"An MCP server {said}{quoted}.", ()
        record.exc_info, record.exc_text = None, None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


logging.getLogger("mcp.client.stdio").addFilter(_StdoutJunk())

ServerLike = StdioServer | HttpServer | str | Mapping[str, Any] | Sequence[str]


def server_from(spec: ServerLike) -> StdioServer | HttpServer:
    """Read a server description.

    Args:
        spec: a :class:`StdioServer` / :class:`HttpServer`; a string, either an ``http(s)://`` URL (the scheme
            in any letter case, ``HTTPS://`` too) or a
            command line (``"python server.py --flag"``, split like a shell would, and ``NAME=value`` words
            before the command set in its environment, as a shell sets them), or JSON (after a BOM and whitespace:
            text starting with ``{``, read as the dict below, as one server's entry pasted from an ``mcpServers``
            config; ``"name": {...}``, the entry copied with its name, read as its value; ``[``, a list of
            command-line words), never split as a command line; a list
            of command-line words; or a dict in the common ``mcpServers`` config shape, ``{"command", "args"?,
            "env"?, "cwd"?}`` or ``{"url", "headers"?}``.

    Returns:
        ``spec`` itself when it is a :class:`StdioServer` or :class:`HttpServer`, else a new one.

    Raises:
        UserError: the description is empty or of another kind, a dict has both ``command`` and ``url`` or either
            is not text, text that is clearly JSON (above) cannot be read, or a command line cannot be split into
            words (an unclosed quote, a trailing backslash). The message names a dict's keys, never its values
            (``headers`` and ``env`` hold tokens).
    """
    if isinstance(spec, StdioServer | HttpServer):
        return spec
    if isinstance(spec, str):
        text = spec.strip().lstrip("\ufeff").strip()  # (a BOM from an editor's saved file: review 305 #1)
        if text.startswith(("{", "[")) or _NAMED_ENTRY.match(text):  # pasted JSON (review 301 #2, review 305 #1)
            return server_from(_json_entry(text))
        if re.match(r"^https?://", text, re.IGNORECASE):  # a scheme is case-insensitive (RFC 3986 3.1; review 149)
            return HttpServer(text)
        if (scheme := re.match(r"^([a-zA-Z][\w+.-]*)://", text)) is not None:  # (review 116: run as a command)
            raise UserError(f"An MCP server URL must start with http:// or https://, not {scheme.group(1)}://: give "
                            "the server's HTTP endpoint (often ending in /mcp), or a command line to start it.")
        try:
            words = shlex.split(text)
        except ValueError as exc:  # "No closing quotation", "No escaped character"
            raise UserError(
                f"Cannot split the MCP server command {' '.join(masked_args(text.split()))!r} into words ({exc}): "
                "close the quote "
                "or escape the backslash, or give the command as a list of words."
            ) from None
        if not words:
            raise UserError("An MCP server command is empty: give 'command args...' or an http(s):// URL.")
        env, words = leading_env(words)
        return StdioServer(words[0], tuple(words[1:]), env or None)
    if isinstance(spec, Mapping):
        _check_dict(spec)
        if spec.get("url"):
            return HttpServer(spec["url"], spec.get("headers"), spec.get("name"))
        if spec.get("command"):
            return StdioServer(spec["command"], spec.get("args") or (), spec.get("env"), spec.get("cwd"),
                               spec.get("name"))
    elif isinstance(spec, Sequence) and spec and all(isinstance(w, str) for w in spec):
        env, words = leading_env(spec)
        return StdioServer(words[0], tuple(words[1:]), env or None)
    raise UserError(
        f"Cannot read {_what(spec)} as an MCP server: give 'command args...', an http(s):// URL, "
        "or a dict with 'command' or 'url'."
    )


_NAMED_ENTRY = re.compile(r'^"[^"\\]*"\s*:\s*[{\[]')  # '"github": {...}', an entry copied with its name key


def _json_entry(text: str) -> Any:
    """``text`` (that starts with ``{`` or ``[``, or is an entry copied with its name, ``"github": {...}``, a
    trailing comma allowed) read as JSON: one server's entry of an ``mcpServers`` config (the named entry's value),
    or a list of command-line words.

    Raises:
        UserError: it is not JSON, or holds more than one named entry, or a named entry that is no object; the
            message gives where reading stopped, never the text (``env`` holds tokens).
    """
    named = text[0] == '"'
    try:
        value = json.loads("{" + text.rstrip().removesuffix(",") + "}" if named else text)
    except ValueError as exc:  # (a command line never starts with "{": it must not be split and run, review 301 #2)
        where = f" ({exc.msg} at character {exc.pos - named})" if isinstance(exc, json.JSONDecodeError) else ""
        starts = "is one named entry" if named else f"starts with {text[0]!r}"
        raise UserError(f"The MCP server text {starts} but is not valid JSON{where}: give one server's entry "
                        """of an mcpServers config in JSON, such as '{"command": "npx", "args": ["-y", "server"], """
                        """"env": {"TOKEN": "..."}}' or '{"url": "https://host/mcp"}', or a command line.""") from None
    if not named:
        return value
    if len(value) != 1 or not isinstance(entry := next(iter(value.values())), dict):
        raise UserError("The MCP server text is not one named entry whose value is a JSON object: give one server's "
                        "entry of an mcpServers config, such as '\"github\": {\"command\": \"npx\", ...}', or just "
                        "its value.")
    return entry


SSE_REFUSED = ("toolwire speaks streamable HTTP only and cannot reach an MCP server over SSE ('type': 'sse'): give "
               "the server's streamable HTTP endpoint (often ending in /mcp) as 'url', or a command to start it.")


def _check_dict(spec: Mapping[str, Any]) -> None:
    """Refuse a server dict with both ``command`` and ``url`` (None counts as not given), either not text, or
    ``"type"`` / ``"transport"`` ``"sse"`` (the older HTTP+SSE transport, which toolwire does not speak); the message
    names the keys and types, never a value."""
    if "mcpServers" in spec and not {"command", "url"} & spec.keys():  # (review 116: the whole config file)
        names = ", ".join(map(repr, list(spec["mcpServers"])[:3])) if isinstance(spec["mcpServers"], Mapping) else ""
        raise UserError("That is a whole MCP config ({'mcpServers': {...}}): pass one server's entry, such as "
                        f"config['mcpServers'][name]{f' (its servers: {names})' if names else ''}.")
    if any(isinstance(spec.get(key), str) and spec[key].strip().lower() == "sse" for key in ("type", "transport")):
        raise UserError(SSE_REFUSED)  # (not dropped to connect over the wrong transport, review 305 #2)
    if spec.get("command") is not None and spec.get("url") is not None:
        raise UserError("An MCP server dict has both 'command' and 'url': give 'command' (with 'args') for a server to "
                        "start here, or 'url' for one to reach over HTTP, not both.")
    for key, example in (("url", "http://127.0.0.1:8000/mcp"), ("command", "python")):
        if spec.get(key) is not None and not isinstance(spec[key], str):
            raise UserError(f"An MCP server dict's {key!r} must be text, such as {example!r}, not a value of type "
                            f"{type(spec[key]).__name__}.")


def _what(spec: Any) -> str:
    """A server description that could not be read, for an error message, without any of its values."""
    if isinstance(spec, Mapping):
        keys = ", ".join(repr(k) for k in spec)
        return f"a dict with the keys {keys}" if keys else "an empty dict"
    if isinstance(spec, Sequence):
        return f"a {type(spec).__name__} of {len(spec)} items that are not all strings" if spec \
            else f"an empty {type(spec).__name__}"
    return f"a value of type {type(spec).__name__}"


def _free_name(wanted: str, taken: set[str]) -> str:
    """The toolwire tool name for an MCP tool named ``wanted`` (prefix included), not one in ``taken``.

    A valid name (``^[a-zA-Z0-9_-]{1,64}$``) is kept; otherwise it is made one by
    :func:`~toolwire._tool_checks.valid_name` (accents dropped, each run of other characters ``_``; empty:
    ``"tool"``). A name in ``taken`` gets ``_2``, ``_3``... (still within 64 characters). ``taken`` is not changed.
    """
    base = valid_name(wanted, "tool")
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
        raise UserError(f"MCP support needs the mcp SDK, {install_hint('mcp')}.") from None
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


async def _open_transport(server: StdioServer | HttpServer, stack: contextlib.AsyncExitStack,
                          statuses: list[int] | None = None, forgotten: list[str] | None = None) -> tuple[Any, Any]:
    """Start a stdio server (its stderr goes to ours) or reach an HTTP one, with the SDK's transports
    entered on ``stack``; returns the session's ``(read, write)`` streams. The HTTP error statuses the
    server answers (401, 404...) are appended to ``statuses``: mcp 2.x reports most of them only as
    "Server returned an error response". The session id of a request the server answered 404 (it forgot the
    session: MCP 2025-06-18, Streamable HTTP, Session Management) is appended to ``forgotten``, with ``statuses``
    given (mcp >= 1.24 and 2.x)."""
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
    if statuses is not None:
        async def note_status(response: Any) -> None:
            if response.status_code >= 400 and response.request.method == "POST":  # not the optional GET stream
                statuses.append(response.status_code)
                session_id = response.request.headers.get("mcp-session-id")
                if response.status_code == 404 and session_id and forgotten is not None:
                    forgotten.append(session_id)

        http.event_hooks["response"].append(note_status)
    options: dict[str, Any] = {}
    if "max_sse_event_size" in inspect.signature(streamable_http_client).parameters:  # (mcp 2.x: 1 MiB by default)
        options["max_sse_event_size"] = MAX_MESSAGE_BYTES
    streams = await stack.enter_async_context(streamable_http_client(server.url, http_client=http, **options))
    return streams[0], streams[1]


MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""The most bytes one message from an HTTP server may take (a tool's result, in one server-sent event): mcp 2.x's
client refuses more than 1 MiB by default, where a stdio server's results have no such limit (review 114: a 1.1 MB
result failed over HTTP only). Results are cut to ``max_result_chars`` after they arrive."""


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _invalid_answer(exc: BaseException) -> str | None:
    """For a pydantic ValidationError (the SDK refusing an answer that breaks the protocol), a one-line
    summary: the model, where the first problem is and what it is, and how many more there are; else None."""
    exc = _leaf(exc)
    try:
        from pydantic import ValidationError

        if not isinstance(exc, ValidationError):
            return None
        problems = exc.errors(include_url=False, include_input=False)
    except Exception:  # no pydantic, or an error that cannot list its problems
        return None
    if not problems:
        return exc.title
    where = ".".join(str(part) for part in problems[0].get("loc", ())) or "the answer"
    more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
    return f"{exc.title}: {where}: {problems[0].get('msg', 'invalid')}{more}"


def _describe(exc: BaseException) -> str:
    """``exc`` (the first leaf of an exception group) as one line: its type and text, URL credentials masked,
    a pydantic ValidationError summed up by :func:`_invalid_answer` rather than dumped over many lines."""
    exc = _leaf(exc)
    detail = _invalid_answer(exc) or " ".join(str(exc).split())
    detail = redact_url(detail)  # an HTTP error may quote the URL, token and all
    if len(detail) > _DETAIL:  # (review 114: an SDK error quoting pydantic's dump of a whole answer)
        detail = detail[:_DETAIL].rstrip() + " ..."
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


_DETAIL = 300  # characters of an error's own text quoted in a message


def _call_error(label: str, exc: BaseException, gone: bool | None = None) -> str:
    """The message of a ``tools/call`` that failed with ``exc``: the server did not answer (it stopped, the
    connection broke: ``gone``, by default :func:`server_gone`; or a timeout), or answered with an error or with a
    result the SDK refuses as against the protocol or against the tool's own output schema."""
    if _invalid_answer(exc) is not None:
        return f"the MCP server {label!r} answered with a result that breaks the MCP protocol ({_describe(exc)})."
    refusal = schema_refusal(exc)
    if refusal is not None:  # (review 149 #2: it was said to have stopped)
        broke = " with a result that breaks the output schema it declares for this tool" if refusal == "result" \
            else ", but the output schema it declares for this tool cannot be used to check the result"
        first = str(_leaf(exc)).strip().splitlines()[0]  # (jsonschema's dump of the schema follows)
        return (f"the MCP server {label!r} answered{broke} ({_describe(RuntimeError(first))}), so the MCP client "
                "refused the result: the server needs fixing, so tell its maintainers.")
    text = _transport_text(exc)
    if text is not None and (size := _TOO_LARGE.search(text)):  # (review 114: blamed on the server)
        return (f"the answer of the MCP server {label!r} was larger than the {int(size.group(1)):,} bytes the client "
                "takes in one message, so it was refused, although the tool ran: ask for a smaller result.")
    gone = server_gone(exc) if gone is None else gone
    if gone:  # (review 114: later calls said only "did not answer")
        return (f"the MCP server {label!r} did not answer: it has stopped, or the connection to it broke "
                f"({_describe(exc)}), and its tools cannot be called until the program starts it again.")
    code = _rpc_code(exc)
    sdk_own = text is not None and text != "Connection closed"  # (a server may send that text itself: review 65)
    if isinstance(code, int) and code != -32001 and not sdk_own:  # -32001: the SDK's "timed out"
        return f"the MCP server {label!r} answered the call with an error ({_describe(exc)})."
    return f"the MCP server {label!r} did not answer ({_describe(exc)})."


_TOO_LARGE = re.compile(r"exceeded the (\d+) byte limit")  # the SDK's SSE reader refusing a large event


def _transport_text(exc: BaseException) -> str | None:
    """The SDK's own text for a call its transport gave up on, as a JSON-RPC error of code -32000 it makes up
    itself: ``"Connection closed"``, or (over HTTP, mcp 2.x) ``"SSE stream failed: ..."`` and ``"SSE stream ended
    without a response"`` (review 114: taken for the server's answer); None for any other error."""
    error = getattr(_leaf(exc), "error", None)
    message = getattr(error, "message", None)
    if getattr(error, "code", None) == -32000 and isinstance(message, str) and (
            message == "Connection closed" or message.startswith("SSE stream ")):
        return message
    return None


_SCHEMA_REFUSED = re.compile(r"Tool .* has an output schema but did not return structured content"
                             r"|Invalid structured content returned by tool |(Invalid schema for tool )", re.DOTALL)


def schema_refusal(exc: BaseException) -> str | None:
    """What the SDK refused when a ``tools/call`` failed with ``exc`` because the server's answer did not fit the
    tool's declared ``outputSchema`` (mcp 1.x and 2.x check it and raise a ``RuntimeError``): ``"result"`` (no
    ``structuredContent``, or one that breaks the schema), ``"schema"`` (a schema that cannot be used), or None
    for any other error. The server answered, so it is not gone."""
    leaf = _leaf(exc)
    if not isinstance(leaf, RuntimeError) or _rpc_code(leaf) is not None:
        return None
    match = _SCHEMA_REFUSED.match(str(leaf))
    return None if match is None else "schema" if match.group(1) else "result"


def _rpc_code(exc: BaseException) -> Any:
    """The JSON-RPC error code of an SDK ``McpError``/``MCPError`` (None for any other error)."""
    return getattr(getattr(_leaf(exc), "error", None), "code", None)


def server_gone(exc: BaseException) -> bool:
    """Return whether a ``tools/call`` that failed with ``exc`` may have found the server gone: a transport error, or
    the SDK's "connection closed" (JSON-RPC code -32000 with the SDK's text, ``"Connection closed"``), rather than an
    error answer, an answer against the protocol or against the tool's declared output schema (:func:`schema_refusal`),
    or a timeout (the server may only be slow).

    A server may answer -32000 itself (the generic server error: "busy, try again") and stay up: only the SDK's own
    text counts (review 65), and as a server (a gateway whose upstream went away) may send that text too, the client
    asks the server whether it still answers before it says the server is gone (``_renewal.probe_gone``).

    Args:
        exc: the exception the call raised (an ``ExceptionGroup`` is read through to its first leaf).
    """
    if _invalid_answer(exc) is not None or schema_refusal(exc) is not None or isinstance(_leaf(exc), TimeoutError):
        return False
    code = _rpc_code(exc)
    if not isinstance(code, int):
        return True
    text = _transport_text(exc)
    return text is not None and _TOO_LARGE.search(text) is None  # (an answer too large: the server is up)


HEADER_ADVICE = "given as HttpServer(url, headers={'Authorization': 'Bearer ...'}) or in the URL"
"""How a 401/403 MCP server's message says to give it a token (the command line, which sends no headers, says it in
its own words: :func:`toolwire._cli_errors.error_text`, review 227 #6)."""


def _connect_error(server: StdioServer | HttpServer, cause: BaseException, statuses: Sequence[int]) -> UserError:
    """The UserError of an opening that failed with ``cause`` (not a timeout), saying what to check: a server
    that answered against the protocol, refused credentials (HTTP 401/403, the last of ``statuses``), an HTTP
    server that cannot be reached, or a command that does not start an MCP server."""
    label = server.label
    detail = "the connection was closed" if isinstance(cause, asyncio.CancelledError) else _describe(cause)
    if isinstance(server, StdioServer):
        detail = scrubbed(detail, [server.command, *server.args])
    if _invalid_answer(cause) is not None:
        return UserError(f"The MCP server {label!r} answered, but not as the MCP protocol says ({detail}): "
                         "the server needs fixing, so tell its maintainers.")
    if isinstance(server, StdioServer):
        return UserError(f"Could not connect to the MCP server {label!r} ({detail}): "
                         "check that the command exists and starts an MCP server on stdio.")
    status = statuses[-1] if statuses else None
    if "Failed to parse JSON response" in detail:  # (review 114: the SDK's text holds pydantic's whole dump)
        return UserError(f"The server at {label!r} answered with JSON that is not an MCP message: check the URL (an "
                         "MCP server's endpoint often ends in /mcp).")
    if status in (401, 403):
        return UserError(f"The MCP server {label!r} refused the credentials (HTTP {status}, {detail}): check the "
                         f"token it needs, {HEADER_ADVICE}.")
    if status == 405 or urllib.parse.urlsplit(server.url).path.rstrip("/").endswith("/sse"):  # (review 305 #2)
        return UserError(f"Could not connect to the MCP server {label!r} ({f'HTTP {status}, ' if status else ''}"
                         f"{detail}): toolwire speaks streamable HTTP only, so if this is an SSE server (its URL often "
                         "ends in /sse), give its streamable HTTP endpoint (often ending in /mcp); else check the URL "
                         "and that the server is running.")
    detail = f"HTTP {status}, {detail}" if status else detail
    return UserError(f"Could not connect to the MCP server {label!r} ({detail}): "
                     "check the URL and that the server is running.")
