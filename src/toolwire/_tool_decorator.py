"""The ``@tool`` decorator (:func:`tool`), exported by :mod:`toolwire.tools`.

Every documented form has a typed overload: ``@tool``, ``tool(func, name=..., ...)``, ``@tool("name", ...)`` and
``@tool(name=..., ...)`` (review 166 #4). ``Tool`` is not generic in the function's signature (``Tool[P, R]``): mypy
joins two such tools of different signatures to ``object``, so ``[get_weather, calculate]`` would lose ``Tool``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypedDict, overload

from pydantic import BaseModel
from typing_extensions import Unpack

from toolwire._keywords import check_keywords, keyword_names
from toolwire.errors import SchemaError
from toolwire.tools import ResponseFormat, Tool

__all__ = ["tool"]

_TOOL_OPTIONS = frozenset(keyword_names(Tool.from_function)[1:])  # what ``tool(...)`` passes on (not ``func``)


class _Options(TypedDict, total=False):
    """The options of :meth:`Tool.from_function` that ``tool`` passes on, but ``name`` (for type checkers)."""

    description: str | None
    args_schema: type[BaseModel] | None
    return_direct: bool
    timeout: float | None
    response_format: ResponseFormat
    parse_docstring: bool
    handle_errors: bool
    hide_error_details: bool


class _NamedOptions(_Options, total=False):
    """:class:`_Options` and ``name``."""

    name: str | None


@overload
def tool(func: Callable[..., Any] | classmethod[Any, Any, Any] | staticmethod[Any, Any], /,
         **options: Unpack[_NamedOptions]) -> Tool: ...
@overload
def tool(name: str, /, **options: Unpack[_Options]) -> Callable[[Callable[..., Any]], Tool]: ...
@overload
def tool(**options: Unpack[_NamedOptions]) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(*args: Any, **kwargs: Any) -> Any:
    """Make a :class:`Tool` from a function: ``@tool``, ``@tool("name")`` or ``@tool(name=..., ...)``.

    Args:
        *args: the function alone (``@tool``, or ``tool(func, name=...)``), or the tool's name alone
            (``@tool("name")``); or nothing (``@tool(...)``).
        **kwargs: the options of :meth:`Tool.from_function`: ``name``, ``description``, ``args_schema`` (a pydantic
            model class), ``return_direct``, ``timeout`` (seconds), ``response_format`` (``"content"`` |
            ``"content_and_artifact"``), ``parse_docstring``, ``handle_errors``, ``hide_error_details``.

    Returns:
        The :class:`Tool` for ``@tool`` and for ``tool(func, name=..., ...)``; for ``@tool("name")`` or
        ``@tool(...)``, a decorator returning one.

    Raises:
        SchemaError: at definition time, for a bad name, a missing description, a signature with no
            JSON Schema, or an option :meth:`Tool.from_function` refuses (``args_schema``, ``timeout``,
            ``response_format``, the bool flags), or a ``functools.singledispatchmethod`` in its class body.
        UserError: an option that is none of these (``timout=``: the message names the close match, ``timeout``).
        TypeError: more than one positional argument, or one that is neither a function nor a name.
    """
    if not _TOOL_OPTIONS.issuperset(kwargs):
        check_keywords("@tool", kwargs, keyword_names(Tool.from_function)[1:])
    if len(args) == 1 and (callable(args[0]) or isinstance(args[0], classmethod)) and not isinstance(args[0], str):
        return Tool.from_function(args[0], **kwargs)  # (tool(func, description=...): what its errors advise)
    if len(args) > 1:
        raise TypeError("Use @tool, @tool('name') or @tool(name=..., description=...).")
    if args:
        _not_dispatch_method(args[0])
    if args:
        if not isinstance(args[0], str):
            raise TypeError("Use @tool, @tool('name') or @tool(name=..., description=...).")
        kwargs.setdefault("name", args[0])

    def decorator(func: Callable[..., Any]) -> Tool:
        _not_dispatch_method(func)
        return Tool.from_function(func, **kwargs)

    return decorator


def _not_dispatch_method(func: Any) -> None:
    """Refuse a ``functools.singledispatchmethod`` given in its class body (not callable; review 212 #2).

    Raises:
        SchemaError: ``func`` is one.
    """
    if isinstance(func, functools.singledispatchmethod):
        name = getattr(getattr(func.func, "__func__", func.func), "__qualname__", "method")
        raise SchemaError(f"@tool cannot take the functools.singledispatchmethod {name} in its class body: make the "
                          "tool from an instance's method instead, tool(instance.method).")


tool.__module__ = "toolwire.tools"  # its public home (help(), pickling by reference, the API docs)
