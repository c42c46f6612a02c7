"""An MCP server's tool list: every page of ``tools/list`` (:func:`list_all_tools`) and the toolwire tools made of
it (:func:`build_tools`), and the checks of the client options that shape them (:func:`prefix_problem`,
:func:`callback_problem`), for :class:`~toolwire.mcp.client.MCPClient`.

A name that is not a valid toolwire name is renamed (each character it cannot hold becomes ``_``, cut to 64); a
renamed tool whose new name is taken gets ``_2``, ``_3``..., never a tool that keeps its own.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from toolwire._warn_site import warn_user
from toolwire.errors import SchemaError, UserError
from toolwire.mcp._results import _wire
from toolwire.mcp.common import _free_name
from toolwire.tools import Tool

__all__ = ["MAX_PAGES", "build_tools", "callback_problem", "list_all_tools", "prefix_problem"]

MAX_PAGES = 1000  # pages of tools/list read at most (a server that never stops giving a cursor)
_MAX_PREFIX = 48  # characters of a tool-name prefix at most (a name holds 64)


def prefix_problem(prefix: str) -> str | None:
    """What is wrong with a ``prefix`` that leaves too little of a tool name's 64 characters for the name itself
    (review 114: a 70-character prefix cut every name down to the prefix alone), or None."""
    if len(prefix) <= _MAX_PREFIX:
        return None
    return (f"prefix is {len(prefix)} characters long, leaving too little of a tool name's 64 characters for the "
            f"name: give at most {_MAX_PREFIX}, such as 'github_'.")


def callback_problem(callback: Any) -> str | None:
    """What is wrong with ``on_tools_changed`` (called with the new list of tools), or None when it can be called so."""
    wanted = "on_tools_changed must be a function taking the new list of tools (an async function is fine too) or None"
    if callback is None:
        return None
    if not callable(callback):
        return f"{wanted}, not a value of type {type(callback).__name__}."
    try:
        inspect.signature(callback).bind([])
    except TypeError:
        return f"{wanted}; {getattr(callback, '__qualname__', 'the one given')} cannot be called with one argument."
    except ValueError:  # no signature to read (some builtins): it is tried when the list changes
        pass
    return None


async def _list_page(session: Any, cursor: str | None) -> dict[str, Any]:
    """One page of ``tools/list`` (the first for ``cursor`` None), as a plain dict."""
    if cursor is None:
        return _wire(await session.list_tools())
    try:
        from mcp.types import PaginatedRequestParams

        return _wire(await session.list_tools(params=PaginatedRequestParams(cursor=cursor)))
    except (ImportError, TypeError):  # mcp 1.x before PaginatedRequestParams
        return _wire(await session.list_tools(cursor=cursor))


async def list_all_tools(session: Any, label: str) -> list[dict[str, Any]]:
    """List the tools of an MCP session, every page of ``tools/list``.

    Args:
        session: the SDK's open ``ClientSession``.
        label: the server, as messages name it.

    Returns:
        The tools as the server describes them (``name``, ``description``, ``inputSchema``...), in its order.

    Raises:
        UserError: the server's pages loop (a cursor given twice) or never end (more than :data:`MAX_PAGES`); the
            session's own errors pass through.
    """
    listed: list[dict[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        page = await _list_page(session, cursor)
        listed.extend(page.get("tools") or ())
        cursor = page.get("nextCursor")
        if not cursor:
            return listed
        if cursor in seen:
            raise UserError(f"The MCP server {label!r} gave the same page cursor of its tool list "
                            "twice, so its pages loop: the server is at fault; ask its authors to fix tools/list.")
        seen.add(cursor)
    raise UserError(f"The MCP server {label!r} lists its tools on more than {MAX_PAGES} pages: "
                    "the server is at fault; ask its authors to fix tools/list.")


def _server_validator(params: Any, name: str) -> Callable[[Mapping[str, Any]], dict[str, Any]] | None:
    """The check of an MCP tool's arguments: JSON Schema's own, so an object schema without ``additionalProperties``
    takes the keys it does not name, as it does for ``jsonschema`` and the server, who decides (review 250 #1:
    toolwire refused them, and told of ``{"type": "object"}`` "It takes no arguments"); ``additionalProperties:
    false`` still refuses them. The published schema is unchanged. None (the default check) for a schema that already
    says what to do with other keys, or that is no dict (:meth:`Tool.from_schema` refuses it).

    Raises:
        SchemaError: ``params`` is not a valid object schema (as :meth:`Tool.from_schema` says).
    """
    from toolwire.interop.openai_tools import _OPEN_KEYWORDS, normalize_parameters, schema_validator

    if not isinstance(params, Mapping) or any(key in params for key in _OPEN_KEYWORDS if key != "$ref"):
        return None  # (a top-level $ref is read once inlined, below: review 259 #4)
    dialect = params.get("$schema") if isinstance(params.get("$schema"), str) else None  # (checked in its dialect)
    own = normalize_parameters(params, name, dialect_form=dialect is not None)
    if any(key in own for key in _OPEN_KEYWORDS):  # (after $ref inlining)
        return None
    return schema_validator({**own, "additionalProperties": True}, name, dialect=dialect)


def _text(value: Any) -> str:
    """``value`` stripped when it is text; "" for anything else (a server's blank or non-text title)."""
    return value.strip() if isinstance(value, str) else ""


def build_tools(listed: list[dict[str, Any]], *, prefix: str, label: str, timeout: float | None,
                function: Callable[[str, str], Callable[..., Any]]) -> list[Tool]:
    """Make toolwire tools of the MCP tools ``listed``; one whose schema toolwire cannot use is skipped with a warning,
    and so is a tool listed under a name an earlier one has (a call names the tool, so the server runs the first).

    Tools whose names are valid toolwire names go first: they keep them, and a renamed tool (``"a.b"`` ->
    ``"a_b"``) whose new name is taken gets ``_2``, ``_3``... instead of taking it from them.

    Args:
        listed: the tools as :func:`list_all_tools` returns them.
        prefix: put before every tool name.
        label: the server, as messages name it.
        timeout: seconds a call may take (None: no limit).
        function: ``function(mcp_name, tool_name)`` gives the async function that calls the tool on the server.

    Returns:
        The tools, in the server's order.
    """
    wanted = [prefix + str(item.get("name", "")) for item in listed]
    order = sorted(range(len(listed)), key=lambda i: _free_name(wanted[i], set()) != wanted[i])
    taken: set[str] = set()
    built: dict[int, Tool] = {}
    first = {}  # MCP name -> the index of the first tool listed under it
    for i, item in enumerate(listed):
        first.setdefault(str(item.get("name", "")), i)
    for i in order:
        item, mcp_name = listed[i], str(listed[i].get("name", ""))
        if first[mcp_name] != i:  # a call names the tool, and the server can only run the first (review 132 #4)
            warn_user(f"Skipping the second MCP tool named {mcp_name!r} of {label}: a call names the tool, so only "
                      "the first one listed can be called; the server is at fault, ask its authors to fix tools/list.")
            continue
        name = _free_name(wanted[i], taken)
        annotations = item.get("annotations") or {}
        desc = (_text(item.get("description")) or _text(item.get("title")) or _text(annotations.get("title"))
                or f"The '{mcp_name}' tool of the MCP server {label}.")
        params = item.get("inputSchema") or {"type": "object", "properties": {}}
        try:
            built[i] = Tool.from_schema(function(mcp_name, name), name, desc, params, _server_validator(params, name),
                                        timeout=timeout, response_format="content_and_artifact")
            built[i]._source = ("mcp", label)  # (pickling it says to load the tools in each worker: review 312 #4)
        except SchemaError as exc:  # a skipped tool keeps no name: a later tool may have it
            warn_user(f"Skipping the MCP tool {mcp_name!r} of {label}: {exc}")  # (at the user's load_tools line)
            continue
        taken.add(name)
    return [built[i] for i in sorted(built)]
