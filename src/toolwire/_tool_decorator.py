"""The ``@tool`` decorator (:func:`tool`), exported by :mod:`toolwire.tools`.

Every documented form has a typed overload: ``@tool``, ``tool(func, name=..., ...)``, ``@tool("name", ...)`` and
``@tool(name=..., ...)`` (review 166 #4). ``Tool`` is not generic in the function's signature (``Tool[P, R]``): mypy
joins two such tools of different signatures to ``object``, so ``[get_weather, calculate]`` would lose ``Tool``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, overload

from pydantic import BaseModel

from toolwire._keywords import check_keywords, keyword_names
from toolwire.tools import ResponseFormat, Tool

__all__ = ["tool"]

_TOOL_OPTIONS = frozenset(keyword_names(Tool.from_function)[1:])  # what ``tool(...)`` passes on (not ``func``)


@overload
def tool(
    func: Callable[..., Any],
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    args_schema: type[BaseModel] | None = None,
    return_direct: bool = False,
    timeout: float | None = None,
    response_format: ResponseFormat = "content",
    parse_docstring: bool = True,
    handle_errors: bool = True,
    hide_error_details: bool = False,
) -> Tool: ...
@overload
def tool(
    func: classmethod[Any, Any, Any] | staticmethod[Any, Any],
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    args_schema: type[BaseModel] | None = None,
    return_direct: bool = False,
    timeout: float | None = None,
    response_format: ResponseFormat = "content",
    parse_docstring: bool = True,
    handle_errors: bool = True,
    hide_error_details: bool = False,
) -> Tool: ...
@overload
def tool(
    name: str,
    /,
    *,
    description: str | None = None,
    args_schema: type[BaseModel] | None = None,
    return_direct: bool = False,
    timeout: float | None = None,
    response_format: ResponseFormat = "content",
    parse_docstring: bool = True,
    handle_errors: bool = True,
    hide_error_details: bool = False,
) -> Callable[[Callable[..., Any]], Tool]: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    args_schema: type[BaseModel] | None = None,
    return_direct: bool = False,
    timeout: float | None = None,
    response_format: ResponseFormat = "content",
    parse_docstring: bool = True,
    handle_errors: bool = True,
    hide_error_details: bool = False,
) -> Callable[[Callable[..., Any]], Tool]: ...


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
            ``response_format``, the bool flags).
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
        if not isinstance(args[0], str):
            raise TypeError("Use @tool, @tool('name') or @tool(name=..., description=...).")
        kwargs.setdefault("name", args[0])

    def decorator(func: Callable[..., Any]) -> Tool:
        return Tool.from_function(func, **kwargs)

    return decorator


tool.__module__ = "toolwire.tools"  # its public home (help(), pickling by reference, the API docs)
