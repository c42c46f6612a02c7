"""Answers, over stdio, to lines the mcp SDK's ``stdio_server`` skips silently, for ``toolwire mcp serve``.

The SDK reads each line of stdin as one JSON-RPC message and drops one it cannot read, answering nothing, so a
client waited until its own timeout (review 224 #4). JSON-RPC 2.0 asks for an error with ``"id": null``: -32700
(Parse error) for a line that is not JSON, -32600 (Invalid Request) for JSON that is no message object, such as a
batch (an array; toolwire's server takes one message per line, as MCP 2025-06-18 on says, and refuses batches as
its HTTP transport does). The SDK drops a request object it cannot read too (``"params": 5``, an id that is no
string or integer, a string escaping a lone surrogate as JavaScript's ``JSON.stringify`` writes one): such a request
is answered -32600 or -32602 with its id, and a lone surrogate is read as U+FFFD so that the request runs (review 301
#1). :class:`LineCheck` wraps the stdin given to ``stdio_server`` to send those answers.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

__all__ = ["LineCheck"]

log = logging.getLogger("toolwire.mcp")


def _answer(line: str) -> Any:
    """The SDK ``SessionMessage`` of the JSON-RPC error that answers ``line``, or None for a line passed on to the SDK
    (see :func:`_check`, which also says what is logged)."""
    checked = _check(line)
    return None if isinstance(checked, str) else checked


def _check(line: str) -> Any:
    """What :class:`LineCheck` does with ``line``: a str is the line to pass on to the SDK (``line`` itself, or the
    same message with each lone surrogate read as U+FFFD), anything else the SDK ``SessionMessage`` of the JSON-RPC
    error that answers it.

    Answered, each with one warning logged: a line that is not JSON (-32700, ``"id": null``; also one nested deeper
    than Python's recursion limit, review 232 #3), a batch or other JSON that is no object (-32600, null id), and a
    request object the SDK cannot read, which it would drop without a word (review 301 #1): -32600 with the request's
    id for a wrong ``jsonrpc``, ``method`` or no ``method``, with a null id for an id that is no string or integer;
    -32602 with its id for ``params`` that are not an object; -32600 for a string id holding a lone surrogate, with
    that id escaped as it was written (run with U+FFFD, its answer would match no request; review 305 #4), and for
    one holding an integer of more than 4,300 digits, with its id (review 305 #3). A
    notification or an answer from the client that the SDK cannot read is logged and passed on (JSON-RPC answers
    neither). Passed on unchanged: a valid message, a blank
    line, and any line when the SDK cannot make the error (mcp 1.x may not make one with a null id). Raises nothing
    of its own.
    """
    text = line.strip()
    if not text:
        return line
    read = _reader()
    if read is not None:
        try:
            message = read(text)
        except Exception:  # (the SDK would drop it: found out below)
            pass
        else:  # (an id of another type, 1.5 or true, makes the SDK read a request as a notification: never answered)
            if type(message).__name__ != "JSONRPCNotification" or not _has_id(text):
                return line
    long_ints = False
    try:
        value = json.loads(text)
    except ValueError as exc:  # (JSON, maybe, with an integer past Python's 4,300 digits: read it, review 305 #3)
        value = None if isinstance(exc, json.JSONDecodeError) else _with_long_ints(text)
        if value is None:
            return _error_or(line, None, -32700, "Parse error: the line is not JSON; send one JSON-RPC message per "
                             "line", "The MCP client sent a line that is not JSON", text)
        long_ints = True
    except RecursionError:  # (nested deeper than Python can read: it must not end the server, review 232 #3)
        return _error_or(line, None, -32700, "Parse error: the line nests too deeply to be read; send less nested "
                         "JSON", "The MCP client sent a line that is too deeply nested", text)
    except Exception:  # (ValueError, or any other failure to read it: answered, never ending the server)
        return _error_or(line, None, -32700, "Parse error: the line is not JSON; send one JSON-RPC message per line",
                         "The MCP client sent a line that is not JSON", text)
    if isinstance(value, list):
        return _error_or(line, None, -32600, "Invalid Request: batches are not supported; send each JSON-RPC "
                         "message on its own line", "The MCP client sent a line that is a batch", text)
    if not isinstance(value, dict):
        return _error_or(line, None, -32600, "Invalid Request: not a JSON-RPC message",
                         "The MCP client sent a line that is not a JSON-RPC message", text)
    if long_ints:
        return _long(line, value)
    if read is None:  # (no SDK to check against: left to it, as before)
        return line
    return _object(line, value, read)


class _LongInt:
    """An integer of more than Python's 4,300 digits (``sys.get_int_max_str_digits``), read as its text."""

    def __init__(self, digits: str) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"<an integer of {len(self.digits)} digits>"


def _with_long_ints(text: str) -> Any:
    """``text`` read as JSON with each integer too long for Python as a :class:`_LongInt`, or None when it is not
    JSON even so (or nests too deeply)."""
    def parse_int(digits: str) -> Any:
        try:
            return int(digits)
        except ValueError:
            return _LongInt(digits)

    try:
        return json.loads(text, parse_int=parse_int)
    except Exception:
        return None


def _long(line: str, value: dict[str, Any]) -> Any:
    """:func:`_check` for a JSON object holding an integer too long to read (the SDK cannot read it either): a
    request is answered -32600 with its id (null when the id is that integer); anything else is logged and passed
    on (review 305 #3)."""
    kind, fault = _fault(value)
    name = _named(kind, value)
    if kind != "request":
        log.warning("The MCP client sent %s holding an integer too long to read; it was skipped.", name)
        return line
    request_id = value.get("id") if _valid_id(value.get("id")) else None
    limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
    message = (f"Invalid Request: {fault}" if fault else f"Invalid Request: it holds an integer of more than {limit:,} "
               "digits, which the server cannot read; send such a number as a string")
    return _error_or(line, request_id, -32600, message, f"The MCP client sent {name} that the server cannot read")


def _object(line: str, value: dict[str, Any], read: Callable[[str], Any]) -> Any:
    """:func:`_check` for a JSON object the SDK cannot read as it is (``value``, read from ``line``)."""
    written_id = value.get("id")  # (kept as read: an id with a lone surrogate is answered as written, review 305 #4)
    odd_id = isinstance(written_id, str) and _SURROGATE.search(written_id) is not None
    dumped = json.dumps(value, ensure_ascii=False)
    fixed = _SURROGATE.sub("\ufffd", dumped) if _SURROGATE.search(dumped) else None
    if fixed is not None:  # (JavaScript's JSON.stringify writes a lone surrogate as \ud800; pydantic refuses it)
        value = json.loads(fixed)
    kind, fault = _fault(value)
    name = _named(kind, {**value, "id": written_id} if "id" in value else value)
    if fault is None and odd_id and kind == "request":  # (run with U+FFFD, its answer would match no request)
        fault = ("its id holds a lone surrogate (half of a UTF-16 pair, such as \\ud800), which is no Unicode "
                 "character; send an id of Unicode text")
    if fault is None and fixed is not None:
        try:
            read(fixed)
        except Exception:
            pass
        else:
            log.warning("The MCP client sent %s holding a lone surrogate (half of a UTF-16 pair, such as \\ud800), "
                        "which is no Unicode character; it was read as U+FFFD, the replacement character.", name)
            return fixed + "\n"
    if kind != "request":  # (a notification or an answer is never answered: JSON-RPC 2.0 section 4.1)
        log.warning("The MCP client sent %s that the server cannot read (%s); it was skipped.", name,
                    fault or "it is no valid JSON-RPC message")
        return line
    code, said = (-32602, "Invalid params") if fault and "params" in fault else (-32600, "Invalid Request")
    request_id = written_id if _valid_id(written_id) else None
    message = f"{said}: {fault or 'the server cannot read it as a JSON-RPC request'}"
    return _error_or(line, request_id, code, message, f"The MCP client sent {name} that the server cannot read")


def _has_id(text: str) -> bool:
    """Whether the JSON object ``text`` (that the SDK read as a notification) has a top-level ``id`` member, as a
    request with an id of another type (1.5, true) has; ``"id"`` inside its params does not count (review 305 #5)."""
    if '"id"' not in text:  # (the cheap common case: no parse)
        return False
    try:
        value = json.loads(text)
    except Exception:  # (the SDK read it; whatever Python cannot is checked below as before)
        return True
    return isinstance(value, dict) and "id" in value


_SURROGATE = re.compile("[\ud800-\udfff]")  # (in text read from JSON, only a lone one is left: a pair is one character)


def _valid_id(request_id: Any) -> bool:
    return isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool))


def _fault(value: dict[str, Any]) -> tuple[str, str | None]:
    """``(kind, fault)`` of a JSON-RPC object: its kind (``"request"``, ``"notification"``, ``"answer"``), and what
    makes it no valid MCP message, in words, or None when nothing is found."""
    if "method" not in value and ("result" in value or "error" in value):
        return "answer", None
    kind = "notification" if "method" in value and "id" not in value else "request"
    if value.get("jsonrpc") != "2.0":
        return kind, "its 'jsonrpc' must be \"2.0\""
    if kind == "request" and not _valid_id(value.get("id")):
        return kind, "its id must be a string or an integer"
    if "method" not in value:
        return kind, "it has no 'method'"
    if not isinstance(value["method"], str):
        return kind, "its 'method' must be text"
    if value.get("params") is not None and not isinstance(value["params"], dict):
        return kind, "its 'params' must be an object of named values"
    return kind, None


def _named(kind: str, value: dict[str, Any]) -> str:
    """``kind`` with the message's id and method, for a log line (never its params: they may hold secrets)."""
    parts = [f"id {value['id']!r}"[:40]] if "id" in value else []
    if isinstance(value.get("method"), str):
        parts.append(f"method {value['method'][:60]!r}")
    return f"{'an' if kind == 'answer' else 'a'} {kind}" + (f" ({', '.join(parts)})" if parts else "")


def _error_or(line: str, request_id: Any, code: int, message: str, what: str, text: str | None = None) -> Any:
    """The SDK ``SessionMessage`` of the JSON-RPC error ``code`` with ``message`` and ``request_id``, logged as one
    warning (``what``, then ``text[:80]`` quoted when given), or ``line`` when the SDK cannot make it."""
    try:
        import mcp.types as mcp_types
        from mcp.shared.message import SessionMessage

        error: Any = mcp_types.JSONRPCError(jsonrpc="2.0", id=request_id,
                                            error=mcp_types.ErrorData(code=code, message=message))
        root = getattr(mcp_types, "JSONRPCMessage", None)
        if isinstance(root, type) and "root" in getattr(root, "model_fields", {}):  # mcp 1.x: a RootModel
            error = root(error)
        if isinstance(request_id, str) and _SURROGATE.search(request_id):  # (review 305 #4)
            error = _Written(request_id, code, message)
        answer = SessionMessage(error)
    except Exception as exc:  # (an SDK whose JSONRPCError needs an id: the line is left to it, as before)
        log.debug("cannot answer a line that is no JSON-RPC message: %s", exc)
        return line
    quoted = f" ({text[:80]!r})" if text is not None else ""
    log.warning("%s%s; it was answered with error %d (%s).", what, quoted, code, message)
    return answer


class _Written:
    """An SDK JSON-RPC error whose id is a string holding a lone surrogate, which pydantic cannot write as JSON: it
    is written with that id escaped as the client wrote it (``"req-\\ud800"``), so the answer matches the request
    (JSON-RPC 2.0 section 5). Only ``model_dump_json`` is asked of it, by the SDK's stdout writer."""

    def __init__(self, request_id: str, code: int, message: str) -> None:
        self.id, self.code, self.message = request_id, code, message

    def model_dump_json(self, **_: Any) -> str:
        return json.dumps({"jsonrpc": "2.0", "id": self.id, "error": {"code": self.code, "message": self.message}},
                          separators=(",", ":"))


@functools.lru_cache(maxsize=1)
def _reader() -> Callable[[str], Any] | None:
    """How the SDK's ``stdio_server`` reads a line into a message (it raises for one it drops), or None."""
    try:
        import mcp.types as mcp_types
    except Exception:
        return None
    adapter = getattr(mcp_types, "jsonrpc_message_adapter", None)  # mcp 2.x
    if adapter is not None:
        return lambda text: adapter.validate_json(text, by_name=False)
    root = getattr(mcp_types, "JSONRPCMessage", None)  # mcp 1.x: a RootModel
    if root is not None and hasattr(root, "model_validate_json"):
        return lambda text: root.model_validate_json(text).root
    return None


class LineCheck:
    """The stdin of ``stdio_server``: each line passes on, but a line that is not JSON, JSON that is no message
    object (a batch), or a request the SDK cannot read is answered with a JSON-RPC error through :attr:`write` (the
    transport's write stream, set once it is open) instead, and a message with a lone surrogate passes on with U+FFFD
    in its place (:func:`_check`). Before :attr:`write` is set, and whatever cannot be answered, lines pass on as they
    are.

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
                answer = _check(line) if self.write is not None else line
            except Exception as exc:  # (whatever fails here, the line is left to the SDK: the server goes on)
                log.debug("cannot check a line from the MCP client: %s", exc)
                answer = line
            if isinstance(answer, str):
                yield answer
                continue
            try:
                await self.write.send(answer)
            except Exception as exc:  # the transport is closing: the line is left to the SDK
                log.debug("cannot answer a line that is no JSON-RPC message: %s", exc)
                yield line

    def __getattr__(self, name: str) -> Any:  # (anything else the SDK asks of the file)
        return getattr(self._stdin, name)
