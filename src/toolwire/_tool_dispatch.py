"""Tools made from ``functools.singledispatch`` functions and ``singledispatchmethod`` methods (review 212 #2).

Private to :mod:`toolwire.tools`. A tool passes its arguments by keyword, but a dispatcher chooses its function
from the class of its first positional argument, and with none it raises ``TypeError: f requires at least 1
positional argument``: every call failed. The parameter it dispatches on is therefore passed by position, as a
positional-only parameter is, decided once when the tool is made (an ordinary function costs one type check).
"""

from __future__ import annotations

import functools
import inspect
import types
from typing import Any

from toolwire.errors import SchemaError

__all__ = ["bound_dispatch_method", "dispatch_method_source", "dispatch_positional", "is_dispatch_method"]

_METHOD_GET = "singledispatchmethod.__get__.<locals>._method"  # (the function singledispatchmethod.__get__ returns)


def _closure(func: types.FunctionType) -> dict[str, Any]:
    """The free variables of ``func`` and their values (those not yet set left out)."""
    out = {}
    for name, cell in zip(func.__code__.co_freevars, func.__closure__ or (), strict=False):
        try:
            out[name] = cell.cell_contents
        except ValueError:  # (an empty cell)
            continue
    return out


def is_dispatch_method(func: Any) -> bool:
    """Whether ``func`` is the function ``functools.singledispatchmethod.__get__`` returns (bound or not)."""
    return type(func) is types.FunctionType and getattr(func.__code__, "co_qualname", "") == _METHOD_GET


def bound_dispatch_method(func: Any) -> bool:
    """Whether ``func`` is a ``functools.singledispatchmethod`` read from an instance, or a class or static one
    (the function its ``__get__`` returns, already bound to its receiver, though its ``__wrapped__`` takes ``self``
    first)."""
    if not is_dispatch_method(func):
        return False
    found = _closure(func)
    return found.get("obj") is not None or isinstance(getattr(found.get("self"), "func", None),
                                                      classmethod | staticmethod)


def dispatch_method_source(func: Any) -> tuple[Any, str] | None:
    """``(receiver, name)`` such that ``getattr(receiver, name)`` gives ``func`` again (an equal function), when
    ``func`` is a bound ``singledispatchmethod`` (:func:`bound_dispatch_method`): the instance it was read from (else
    its class) and the name its class holds the ``singledispatchmethod`` under; None for any other ``func``, or when
    no class along the receiver's MRO holds it. Pickle saves such a tool's method this way, as it saves a bound
    method (review 222 #5)."""
    if not bound_dispatch_method(func):
        return None
    found = _closure(func)
    descriptor, obj, cls = found.get("self"), found.get("obj"), found.get("cls")
    receiver = obj if obj is not None else cls
    owner = receiver if isinstance(receiver, type) else type(receiver)
    for klass in getattr(owner, "__mro__", ()):
        for name, value in klass.__dict__.items():
            if value is descriptor:
                return receiver, name
    return None


def dispatch_positional(func: Any, positional_only: tuple[str, ...], tool_name: str) -> tuple[str, ...]:
    """``positional_only`` (the names a tool passes by position), with the parameter ``func`` dispatches on added
    when ``func`` is a ``functools.singledispatch`` function or a bound ``singledispatchmethod``, or a
    ``functools.partial`` of one that binds arguments by keyword only (one binding an argument by position gives the
    dispatched parameter itself).

    Raises:
        SchemaError: that parameter has a default (a call leaving it out could not dispatch), a partial binds it by
            keyword, or ``func`` is a ``singledispatchmethod`` read from its class (with no instance to call it on).
    """
    if type(func) is types.FunctionType and not func.__dict__:  # a plain function (the common case)
        return positional_only
    keywords: set[str] = set()
    while isinstance(func, functools.partial):  # (a partial of a dispatcher: review 222 #6)
        if func.args:  # the dispatched parameter is given by the partial, by position
            return positional_only
        keywords.update(func.keywords)
        func = func.func
    if callable(getattr(func, "dispatch", None)) and isinstance(getattr(func, "registry", None),
                                                                types.MappingProxyType):
        skip = 0
    elif bound_dispatch_method(func):
        skip = 0 if isinstance(getattr(func, "__wrapped__", None), staticmethod) else 1  # (self or cls)
    elif is_dispatch_method(func):  # read from its class: no instance to call it on
        name = getattr(func, "__qualname__", "the method")
        raise SchemaError(f"Tool {tool_name!r} is the functools.singledispatchmethod {name} read from its class: "
                          "make the tool from an instance's method instead, tool(instance.method).")
    else:
        return positional_only
    wrapped = getattr(func, "__wrapped__", None)
    wrapped = getattr(wrapped, "__func__", wrapped)  # (a classmethod or staticmethod's function)
    try:
        params = list(inspect.signature(wrapped).parameters.values())[skip:]
    except (TypeError, ValueError):
        return positional_only
    if not params or params[0].kind not in (inspect.Parameter.POSITIONAL_ONLY,
                                            inspect.Parameter.POSITIONAL_OR_KEYWORD):
        return positional_only
    first = params[0]
    if first.name in keywords:
        raise SchemaError(f"Tool {tool_name!r} is a functools.partial of a functools.singledispatch function that "
                          f"gives its first parameter {first.name!r} by keyword, which the dispatcher cannot choose "
                          f"by: give it by position instead, functools.partial(function, {first.name}_value).")
    if first.default is not inspect.Parameter.empty:
        raise SchemaError(f"Tool {tool_name!r} is a functools.singledispatch function, which needs its first "
                          f"parameter {first.name!r} on every call to choose its function: remove that "
                          "parameter's default.")
    return positional_only if first.name in positional_only else (first.name, *positional_only)
