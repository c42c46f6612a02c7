"""Checks of the tools bound to a Gemini model, made when they are bound (``ChatGoogleGenAI.bind_tools``) and again
when a request is written (:mod:`toolwire.models.lowering.gemini`, which re-exports them): a ``tool_choice`` Gemini
cannot send for its server tools (review 146 #2), and a function tool's name Gemini refuses (review 294 #3: the name
was refused only when the first request was built, so an ``Agent`` on the model was made without complaint). Also
Gemini's own ``tool_choice`` forms (langchain-google-genai's), read as toolwire's neutral choice where it can say them
(:func:`gemini_choice`, :func:`check_allowed_names`; review 298 #4).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from toolwire.errors import SchemaError, UserError
from toolwire.models.base import ServerTool

__all__ = ["check_allowed_names", "check_tool_choice", "check_tool_name", "check_tool_names", "gemini_choice"]

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


_MODES = {"AUTO": "auto", "ANY": "required", "NONE": "none"}
_CONFIG_KEYS = ("function_calling_config", "functionCallingConfig")
_NAMES_KEYS = ("allowed_function_names", "allowedFunctionNames")
_MODE_WORDS = frozenset(("auto", "none", "required", "any"))
"""Tool names the neutral ``tool_choice`` would read as a mode (``toolwire.models._tool_choice``)."""


def gemini_choice(choice: Any) -> tuple[Any, list[str] | None]:
    """Read a ``tool_choice`` in Gemini's own forms (as langchain-google-genai takes them) as toolwire's.

    Args:
        choice: the ``tool_choice`` given to ``bind_tools``: a list of tool names, ``{"mode": "AUTO" | "ANY" |
            "NONE", "allowed_function_names"?: [...]}`` (any case; camelCase keys too), the same inside
            ``{"function_calling_config": {...}}`` (``None`` values left out, as a google-genai ``ToolConfig`` or
            ``FunctionCallingConfig``'s ``model_dump()`` holds them), or anything else (returned unchanged). One
            string as ``allowed_function_names`` is one name.

    Returns:
        ``(choice, None)`` for anything that is not one of Gemini's forms, and for those the neutral choice
        ``bind_tools`` reads and the names allowed (None for a mode): the mode (``"auto"``, ``"required"``,
        ``"none"``), the one name allowed, or ``"required"`` when the names are two or more or one spelled as a mode
        (``"none"``, ``"auto"``, ``"required"``, ``"any"``: a tool's name here, which the neutral choice would read
        as the mode; review 303 #1). Check the names against the bound tools with :func:`check_allowed_names`.

    Raises:
        UserError: a mode other than ``AUTO``, ``ANY`` or ``NONE``, allowed names with a mode other than ``ANY``,
            names that are not text or a list of text, or a ``ToolConfig`` dict holding more than its function
            calling config (a ``retrieval_config``: the message says it goes in ``model_kwargs``).
    """
    if isinstance(choice, dict):
        config = _set_keys(choice)  # (a dumped ToolConfig's None fields: review 303 #4)
        inner = next((config[k] for k in _CONFIG_KEYS if k in config), None)
        _refuse_other_keys(choice, config)
        if isinstance(inner, dict) and len(config) == 1:
            config = _set_keys(inner)
        if "mode" not in config and not any(k in config for k in _NAMES_KEYS):
            return choice, None
        mode = config.get("mode", "ANY")
        names = next((config[k] for k in _NAMES_KEYS if k in config), None)
        if isinstance(names, str):  # one name, not its letters (review 303 #4)
            names = [names]
        if not isinstance(mode, str) or mode.upper() not in _MODES:
            raise UserError(f"tool_choice {choice!r} has Gemini mode {mode!r}, which toolwire does not send: give "
                            "mode 'AUTO', 'ANY' or 'NONE' (or tool_choice='auto', 'required', 'none').")
        if names is not None and mode.upper() != "ANY":
            raise UserError(f"tool_choice {choice!r} gives allowed_function_names with mode {mode!r}, but Gemini "
                            "takes them with mode 'ANY' only: give mode 'ANY', or leave the names out.")
        if names is None:
            return _MODES[mode.upper()], None
    elif isinstance(choice, list | tuple):
        names = list(choice)
    else:
        return choice, None
    if not names or not all(isinstance(n, str) for n in names):
        raise UserError(f"tool_choice {choice!r} must name the tools allowed as a non-empty list of their names, "
                        "such as ['search'].")
    names = list(dict.fromkeys(names))
    if len(names) == 1 and names[0] not in _MODE_WORDS:
        return names[0], names
    return "required", names  # (a name spelled as a mode is a name here, never the mode: review 303 #1)


def _set_keys(config: dict[Any, Any]) -> dict[Any, Any]:
    """``config`` without its ``None`` values (the unset fields of a google-genai ``model_dump()``)."""
    return {key: value for key, value in config.items() if value is not None}


_LOCATION_KEYS = ("retrieval_config", "retrievalConfig")


def _refuse_other_keys(given: Any, config: dict[Any, Any]) -> None:
    """Refuse a ``ToolConfig`` dict given as ``tool_choice`` that holds more than its function calling config.

    Raises:
        UserError: ``config`` (``given`` without its ``None`` values) holds a ``retrieval_config`` (a location,
            which goes in ``model_kwargs``), or another key beside ``function_calling_config``.
    """
    if any(key in config for key in _LOCATION_KEYS):
        raise UserError(f"tool_choice {given!r} holds a retrieval_config, which is not a tool choice: pass it as "
                        "model_kwargs={'tool_config': {'retrieval_config': {...}}} (or as a call's tool_config "
                        "option), and give only the function calling config as tool_choice.")
    if any(key in config for key in _CONFIG_KEYS) and len(config) > 1:
        other = next(key for key in config if key not in _CONFIG_KEYS)
        raise UserError(f"tool_choice {given!r} holds {other!r} beside the function calling config, which toolwire "
                        "does not send: give only {'function_calling_config': {...}} as tool_choice.")


def check_allowed_names(given: Any, names: list[str], tools: Sequence[Any]) -> None:
    """Refuse Gemini's allowed function names (from :func:`gemini_choice`) that toolwire cannot send: toolwire's
    ``tool_choice`` forces one bound tool or any of them, so the names must be every bound function tool (then
    ``"required"`` forces them, or the one of them).

    Args:
        given: the ``tool_choice`` as given (shown in the message).
        names: the function names it allows (one or more).
        tools: the bound tools.

    Raises:
        UserError: a name is a server tool's or not a bound tool's, or the names are only some of them (for one
            name spelled as a mode, the sentence ``bind_tools`` gives ``{"type": "tool", "name": "none"}``: rename the
            tool).
    """
    for name in names:  # (a server tool's name: the sentence check_tool_choice gives it)
        check_tool_choice(name, tools)
    bound = [t.name for t in tools if not isinstance(t, ServerTool)]
    unknown = [n for n in names if n not in bound]
    if unknown:
        raise UserError(f"tool_choice {given!r} names {unknown[0]!r}, which is not a bound function tool "
                        f"({', '.join(bound)}): name bound function tools only.")
    if len(names) == 1 and names[0] in _MODE_WORDS and names != bound:  # (among other tools: review 303 #1)
        raise UserError(f"tool_choice {given!r} forces the tool named {names[0]!r}, a name that also means the "
                        f"tool_choice mode {names[0]!r}: rename the tool (name='{names[0]}_tool', say) to force it.")
    if len(names) > 1 and set(names) != set(bound):
        shown = ", ".join(repr(n) for n in names)
        raise UserError(f"tool_choice {given!r} allows only some of the bound tools ({shown}), which toolwire cannot "
                        "send to Gemini: bind only those tools (model.bind_tools([...], tool_choice='required')), or "
                        "name one tool.")
