"""Checks of the tools bound to a Gemini model, made when they are bound (``ChatGoogleGenAI.bind_tools``) and again
when a request is written (:mod:`toolwire.models.lowering.gemini`, which re-exports them): a ``tool_choice`` Gemini
cannot send for its server tools (review 146 #2), and a function tool's name Gemini refuses (review 294 #3: the name
was refused only when the first request was built, so an ``Agent`` on the model was made without complaint).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from toolwire.errors import SchemaError, UserError
from toolwire.models.base import ServerTool

__all__ = ["check_tool_choice", "check_tool_name", "check_tool_names"]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$")


def check_tool_name(name: str) -> None:
    """Refuse a function tool's name Gemini refuses.

    Args:
        name: the tool's name.

    Raises:
        SchemaError: ``name`` does not start with a letter or ``_``, or holds other characters than letters, digits,
            ``_ . : -``, or is longer than 64 characters.
    """
    if not _NAME.match(name):
        raise SchemaError(f"Tool name {name!r} is not valid for Gemini: start with a letter or '_' "
                          "and use at most 64 letters, digits, '_', '.', ':' or '-' (for an MCP server's tools, "
                          "which cannot be renamed, give a prefix: load_tools(server, prefix='x_')).")


def check_tool_names(tools: Sequence[Any]) -> None:
    """Refuse a bound function tool whose name Gemini refuses (:func:`check_tool_name`), with the error a request
    would give; server tools are left alone (their dict is sent as it is).

    Args:
        tools: the bound tools (toolwire tools, server tools).

    Raises:
        SchemaError: the first function tool whose name Gemini refuses.
    """
    for item in tools:
        name = getattr(item, "name", None)
        if not isinstance(item, ServerTool) and isinstance(name, str):
            check_tool_name(name)


def check_tool_choice(choice: str | None, tools: Sequence[Any]) -> None:
    """Refuse a ``tool_choice`` Gemini cannot send for the bound server tools (review 146 #2).

    Gemini's ``functionCallingConfig`` governs function declarations only: ``allowedFunctionNames`` "should match
    ``FunctionDeclaration.name``", and a request that sets the config without any declaration is refused (400
    "Function calling config is set without function_declarations"). So a server tool (``{"google_search": {}}``)
    cannot be forced, by its name or, when only server tools are bound, by ``"required"``. (``"none"`` with only
    server tools cannot be sent either; :func:`lower_request` logs a warning then, since an Agent binds it for its
    last answer.)

    Args:
        choice: the neutral ``tool_choice`` (a mode or a bound tool's name), or None.
        tools: the bound tools.

    Raises:
        UserError: ``choice`` names a server tool, or is ``"required"`` with only server tools bound.
    """
    servers = [t.name for t in tools if isinstance(t, ServerTool)]
    if choice in servers:
        raise UserError(f"Gemini cannot force its server tool {choice!r} (tool_choice names function tools only): "
                        "pass tool_choice='auto' and ask for it in the prompt.")
    if choice == "required" and servers and len(servers) == len(tools):
        raise UserError("Gemini cannot force a call of its server tools (tool_choice='required' applies to function "
                        "tools only): pass tool_choice='auto', or bind a function tool with them.")
