"""Telling a staticmethod's function from a method's when it reaches :meth:`Tool.from_function` unwrapped (review
186 #2).

``@tool`` above ``@staticmethod`` hands over the ``staticmethod`` object itself. In three other ways the bare
function arrives, and it looks just like a method written in a class body, whose first parameter (named ``self`` or
``cls``) receives the instance or class: ``@staticmethod`` written *above* ``@tool``, and ``tool(K.run)`` or
``StructuredTool.from_function(K.run)`` with ``K.run`` a staticmethod read from its class (the class gives its bare
function). Its first parameter is then an argument the model gives, so :func:`written_static` tells them apart:

1. When the owner class exists (``tool(K.run)``), by what the class holds under the function's name
   (``vars(K)["run"]``, found through the function's ``__qualname__`` in its module): a ``staticmethod`` whose
   function is this one, or not.
2. Else (``@staticmethod`` above ``@tool``: the class body is still running; a class local to a function), by the
   decorators written above the function's ``def``: one of them ``@staticmethod`` on a line of its own. They are
   read from the running class body's bytecode (the decorators it loads before the function's code object), which
   is always the code being run, and holds even without a source file (``exec`` of a string, ``python -c``, stdin,
   a plain REPL: review 191 #3); else from the source, its cached lines checked against the file first so that a
   module edited and reloaded (Jupyter's ``%autoreload``) is read as it now is (review 191 #2).

Only functions written in a class body whose first parameter is named ``self`` or ``cls`` are looked at (a rare
path: plain functions, B3's, never reach it); with neither the class, the running class body nor source to read,
the function stays a method's.
"""

from __future__ import annotations

import dis
import inspect
import linecache
import re
import sys
from typing import Any

__all__ = ["written_static"]

_STATIC_LINE = re.compile(r"@\s*(?:builtins\s*\.\s*)?staticmethod\s*(?:#.*)?$")  # ``@staticmethod`` on its own line
_DEF_LINE = re.compile(r"(?:async\s+)?def\s")
_MOST_DECORATOR_LINES = 200  # (a bound on the lines read above a ``def``)
_MOST_FRAMES = 60  # (a bound on the frames walked up to the running class body)
_NO_OPS = frozenset({"NOP", "CACHE", "PUSH_NULL", "EXTENDED_ARG", "RESUME"})


def _innermost(func: Any) -> Any:
    """``func`` through decorators' ``__wrapped__`` (not through a bound method or a ``functools.partial``)."""
    for _ in range(100):
        wrapped = getattr(func, "__wrapped__", None)
        if wrapped is None or inspect.ismethod(func) or not callable(wrapped):
            break
        func = wrapped
    return func


def _reaches(obj: Any, target: Any) -> bool:
    """Whether ``obj`` is ``target`` or wraps it (through ``__wrapped__``, or a tool's ``func``)."""
    for _ in range(100):
        if obj is target:
            return True
        try:  # (what a class holds may be anything: its attributes may raise)
            following = getattr(obj, "__wrapped__", None)
            if following is None:
                following = getattr(obj, "func", None)
        except Exception:
            return False
        if following is None or following is obj:
            return False
        obj = following
    return False


def _held_by_owner(target: Any, owner: str, name: str) -> bool | None:
    """Whether the class ``owner`` (a dotted path in ``target``'s module) holds ``target`` under ``name`` as a
    staticmethod (True) or otherwise (False); None when that class, or ``target`` in it, is not there (yet)."""
    if "<" in owner:  # (a class local to a function: not reachable by name)
        return None
    found: Any = sys.modules.get(getattr(target, "__module__", None) or "")
    for part in owner.split("."):
        space = getattr(found, "__dict__", None)
        found = space.get(part) if isinstance(space, dict) else None
        if found is None:
            return None
    if not isinstance(found, type):
        return None
    attr = found.__dict__.get(name)
    inner = getattr(attr, "__func__", attr) if isinstance(attr, (staticmethod, classmethod)) else attr
    if attr is None or not _reaches(inner, target):
        return None
    return isinstance(attr, staticmethod)


def _static_in_bytecode(target: Any) -> bool | None:
    """Whether a decorator of ``target`` is ``@staticmethod`` on a line of its own, read from the bytecode of the
    class body now running it (the frame whose code holds ``target``'s code object and stands at its definition):
    the instructions loading its decorators come before that code object's, on the lines from its first decorator's
    up to its ``def``; None when no such frame is found (the source is then read)."""
    code = target.__code__
    frame = sys._getframe(1)
    for _ in range(_MOST_FRAMES):
        frame = frame.f_back  # type: ignore[assignment]
        if frame is None:
            return None
        if any(const is code for const in frame.f_code.co_consts):
            break
    else:
        return None
    global _last_body
    body = frame.f_code
    cached = _last_body
    if cached is None or cached[0] is not body:  # (read once per class body, not once per method)
        cached = _last_body = (body, _read_body(body))
    found = cached[1].get(id(code))
    if found is None or frame.f_lasti < found[0]:
        return None
    return found[1]


_last_body: tuple[Any, dict[int, tuple[int, bool | None]]] | None = None  # (the class body read last, its reading)


def _read_body(body: Any) -> dict[int, tuple[int, bool | None]]:
    """For each function code object ``body`` (a class body's code) defines, by ``id``: the offset of the instruction
    loading it and whether a decorator line above its ``def`` is a bare ``staticmethod`` (``builtins.staticmethod``)
    load, alone on its line."""
    instructions = list(dis.get_instructions(body))
    out: dict[int, tuple[int, bool | None]] = {}
    for at, ins in enumerate(instructions):
        if ins.opname != "LOAD_CONST" or not inspect.iscode(ins.argval) or ins.positions is None:
            continue
        first, def_line = ins.argval.co_firstlineno, ins.positions.lineno
        if def_line is None:  # (no line to read the decorators by: the source is read)
            out[id(ins.argval)] = (ins.offset, None)
            continue
        by_line: dict[int, list[tuple[str, Any]]] = {}
        for before in reversed(instructions[:at]):
            line = before.positions.lineno if before.positions else None
            if line is None or before.opname in _NO_OPS:
                continue
            if line < first:
                break
            if line < def_line:
                by_line.setdefault(line, []).insert(0, (before.opname, before.argval))
        out[id(ins.argval)] = (ins.offset, any(_bare_static(loads) for loads in by_line.values()))
    return out


def _bare_static(loads: list[tuple[str, Any]]) -> bool:
    """Whether the instructions of one decorator line, ``loads``, are ``@staticmethod`` alone (or
    ``@builtins.staticmethod``)."""
    names = [value for opname, value in loads if opname != "LOAD_CONST" and opname.startswith("LOAD_")]
    if len(names) != len(loads):
        return False
    return (names == ["staticmethod"] and loads[0][0] != "LOAD_ATTR") or names == ["builtins", "staticmethod"]


def _decorated_static(target: Any) -> bool:
    """Whether one of the decorators written above ``target``'s ``def`` is ``@staticmethod``: read from the running
    class body's bytecode (:func:`_static_in_bytecode`), else from its source (False when it cannot be read, or the
    lines there are not this function's)."""
    try:
        found = _static_in_bytecode(target)
    except Exception:  # (an interpreter whose frames or bytecode read otherwise: the source is read)
        found = None
    if found is not None:
        return found
    code = target.__code__
    try:
        linecache.checkcache(code.co_filename)  # (a file edited since it was cached: review 191 #2)
        lines = linecache.getlines(code.co_filename, getattr(target, "__globals__", None))
    except Exception:  # (a loader that fails: no source to read)
        return False
    start = code.co_firstlineno - 1  # (a decorated function's first line is its first decorator's)
    if not 0 <= start < len(lines) or not lines[start].lstrip().startswith("@"):
        return False
    static = False
    for line in lines[start:start + _MOST_DECORATOR_LINES]:
        text = line.strip()
        if _DEF_LINE.match(text):  # (its own ``def``, else the lines are not this function's)
            return static and re.match(rf"(?:async\s+)?def\s+{re.escape(code.co_name)}\b", text) is not None
        static = static or _STATIC_LINE.match(text) is not None
    return False


def written_static(func: Any) -> bool:
    """Whether ``func``, a function written in a class body (through decorators' ``__wrapped__``), is a
    staticmethod's, so that its first parameter is an argument even when named ``self`` or ``cls`` (see the module).

    Args:
        func: the function :meth:`Tool.from_function` was given (not a ``staticmethod`` object: that one says so).

    Returns:
        True when the owner class holds it as a staticmethod, or (the class not there yet) when ``@staticmethod`` is
        written above its ``def``; False otherwise, a function outside a class body included.
    """
    target = _innermost(func)
    if not inspect.isfunction(target):
        return False
    owner, _, name = target.__qualname__.rpartition(".")
    if not owner or owner.endswith("<locals>"):
        return False
    held = _held_by_owner(target, owner, name)
    return held if held is not None else _decorated_static(target)
