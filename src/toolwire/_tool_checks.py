"""Checks made when a tool is defined, so that a mistake shows at decoration time rather than on every call."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from toolwire.errors import SchemaError

__all__ = ["check_fields_taken"]


def check_fields_taken(func: Callable[..., Any], model: type[BaseModel], tool_name: str) -> None:
    """Refuse an ``args_schema`` whose fields ``func`` cannot take as keyword arguments, or that leaves out one
    of its required parameters: every call would fail with a TypeError the model cannot fix.

    Raises:
        SchemaError: the fields and the parameters do not match.
    """
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):  # no signature to compare (some builtins): the call will tell
        return
    if params and params[0].name in ("self", "cls"):
        params = params[1:]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    fields = set(model.model_fields)
    taken = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    needed = {p.name for p in params if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    extra, missing = sorted(fields - taken), sorted(needed - fields)
    if extra or missing:
        what = "; ".join(filter(None, (f"fields it does not take: {', '.join(extra)}" if extra else "",
                                       f"required parameters it lacks: {', '.join(missing)}" if missing else "")))
        raise SchemaError(f"args_schema {model.__name__} does not match the function of tool '{tool_name}' ({what}); "
                          "give the model one field per keyword parameter of the function.")
