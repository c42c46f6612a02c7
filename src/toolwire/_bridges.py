"""Telling, at decoration, a sync wrapper that runs its ``async def`` itself (a "bridge") from one that hands it back.

A sync ``functools.wraps`` wrapper of an ``async def`` either returns the coroutine (a logging or ContextVar
decorator: it must be called on the event loop's thread, review 275 #1) or runs it to its end and returns its value
(``asyncio.run``, ``loop.run_until_complete``, asgiref's ``async_to_sync``, asyncer's ``syncify``, anyio's
``from_thread``/``run``): such a bridge refuses or breaks a running loop, so toolwire must call it on a worker thread,
once, as LangChain runs any sync function (review 295 #1: a wrapper that did work before ``asyncio.run`` did it
twice, called on the loop's thread, refused, then called again; #2: ``new_event_loop().run_until_complete`` failed
on every call). Only its code can tell which it is before it is called: :func:`runs_coroutine_itself` reads the
names it uses.
"""

from __future__ import annotations

import contextlib
import dis
import functools
import inspect
import types
from collections.abc import Iterator
from typing import Any

__all__ = ["BRIDGE", "runs_coroutine_itself"]

BRIDGE = "bridge"
"""What :func:`toolwire._signature.sync_wrapper` returns (truthy) for a wrapper :func:`runs_coroutine_itself` says
runs its coroutine itself: the tool calls it on a worker thread only (:func:`toolwire._tool_run.guarded`)."""

# Names that only a bridge uses: what runs a loop to its end, and the sync-from-async helpers of asgiref, asyncer and
# anyio. Not ``new_event_loop`` (a "get or create a loop" helper hands back a task on the running loop) nor
# ``run_coroutine_threadsafe`` alone (``wrap_future(run_coroutine_threadsafe(...))`` is awaited there: review 300 #2).
_BRIDGE_NAMES = frozenset({
    "run_until_complete", "async_to_sync", "AsyncToSync", "syncify", "start_blocking_portal", "from_thread",
})
_WAITED = frozenset({"run_coroutine_threadsafe", "result"})  # ``run_coroutine_threadsafe(...).result()``, in one code
# Names that are a bridge only when taken from an event-loop library (``asyncio.run``, ``anyio.run``, ``trio.run``,
# ``asyncio.Runner``; not ``contextvars.copy_context().run`` nor ``subprocess.run``).
_RUN_NAMES = frozenset({"run", "Runner"})
_LOOP_LIBRARIES = frozenset({"asyncio", "anyio", "trio", "uvloop", "asyncer", "asgiref"})
_LOOP_ATTRIBUTES = frozenset({"runners", "from_thread"})  # ``asyncio.runners.run``, ``trio.from_thread.run``
_GLOBAL_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "LOAD_FROM_DICT_OR_GLOBALS"})  # a name read from the module
_NAME_LOADS = _GLOBAL_LOADS | {"LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF"}
# A local read; the pairs (3.13's ``LOAD_FAST_LOAD_FAST``, ``STORE_FAST_LOAD_FAST``, 3.14's
# ``LOAD_FAST_BORROW_LOAD_FAST_BORROW``: the ``dis`` docs, "Added in version 3.13"/"3.14") load their second name last.
_FAST_LOADS = frozenset({"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW", "LOAD_FAST_LOAD_FAST",
                         "STORE_FAST_LOAD_FAST", "LOAD_FAST_BORROW_LOAD_FAST_BORROW"})
_ATTRIBUTE_LOADS = frozenset({"LOAD_ATTR", "LOAD_METHOD"})
_ASYNC_FLAGS = inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_MAX_LAYERS = 100  # decorators followed through ``__wrapped__``
_MAX_HELPERS = 64  # plain functions a layer names, read one level down


def runs_coroutine_itself(func: Any) -> bool:
    """Whether ``func``, a sync callable that is async only through its ``__wrapped__``
    (:func:`toolwire._signature.sync_wrapper`), visibly runs the coroutine itself rather than handing it back.

    Each sync layer from ``func`` down its ``__wrapped__`` chain (through ``functools.partial`` and bound methods) is
    read: the names its code and the code nested in it (inner functions, lambdas, comprehensions) use, and those of
    the plain functions it loads from its module globals or its closure, one level down. A layer is a bridge when it
    names ``run_until_complete``, ``async_to_sync``/``AsyncToSync``, ``syncify``, ``start_blocking_portal`` or
    ``from_thread``, names ``run_coroutine_threadsafe`` and ``result`` in one function (it waits for the future), or
    takes ``run``/``Runner`` from asyncio, anyio, trio, uvloop, asyncer or asgiref (``asyncio.run``, ``import asyncio
    as aio; aio.run``, ``from asyncio import run``). A callable object (a class-based decorator made with
    ``functools.update_wrapper(self, fn)``) is read through its class's ``__call__`` (review 300 #1); one of a class
    named ``AsyncToSync`` (asgiref's) is a bridge.
    Naming ``new_event_loop``, or handing back ``run_coroutine_threadsafe``'s future, makes no bridge: such a wrapper
    may return a task or future for the caller's loop (review 300 #2). A bridge hidden deeper (a helper two calls
    down, a method of an object) is not seen: the tool then calls the wrapper on the loop's thread and, when the
    bridge refuses that loop, again on a worker thread (:func:`toolwire._signature.loop_refused`).

    Args:
        func: the tool's function.

    Returns:
        True for a bridge. Raises nothing (what cannot be read is no bridge).
    """
    try:
        return any(_layer_bridges(layer) for layer in _sync_layers(func))
    except Exception:  # (an odd object: a __wrapped__ property that raises, code that dis cannot read)
        return False


def _sync_layers(func: Any) -> Iterator[Any]:
    """The sync layers of ``func`` down to its ``async def``: plain functions and other callables, partials and bound
    methods opened."""
    for _ in range(_MAX_LAYERS):
        if isinstance(func, functools.partial):
            func = func.func
            continue
        if isinstance(func, types.MethodType):
            func = func.__func__
        if type(func) is types.FunctionType and func.__code__.co_flags & _ASYNC_FLAGS:
            return
        yield func
        func = getattr(func, "__wrapped__", None)
        if func is None:
            return


def _layer_bridges(layer: Any) -> bool:
    """Whether one sync layer (a function, or a callable object) runs the coroutine itself."""
    if type(layer) is not types.FunctionType:  # a callable object: asgiref's bridge, known by its class name, or
        if type(layer).__name__ == "AsyncToSync":  # a class-based decorator (functools.update_wrapper(self, fn)),
            return True  # whose __call__ is its code (review 300 #1)
        layer = inspect.getattr_static(type(layer), "__call__", None)
        if type(layer) is not types.FunctionType or layer.__code__.co_flags & _ASYNC_FLAGS:
            return False
    if _code_bridges(layer):
        return True
    read: dict[int, bool] = {id(layer): False}  # helper -> whether it bridges (one read per helper)
    loaded: set[str] | None = None  # the names the layer loads as globals: read with dis only when a bridge is named
    for count, (name, helper) in enumerate(_named_functions(layer)):
        if count >= _MAX_HELPERS:
            return False
        if id(helper) not in read:
            read[id(helper)] = _code_bridges(helper)
        if not read[id(helper)]:
            continue
        if name is None:  # (a closure variable: there because its code loads it)
            return True
        if loaded is None:
            loaded = _global_loads(layer)
        if name in loaded:
            return True
    return False


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and the code objects nested in it (inner functions, lambdas, comprehensions)."""
    stack = [code]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(const for const in current.co_consts if type(const) is types.CodeType)


def _closure(func: types.FunctionType) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, cell in zip(func.__code__.co_freevars, func.__closure__ or (), strict=False):
        with contextlib.suppress(ValueError):  # (an empty cell)
            values[name] = cell.cell_contents
    return values


def _named_functions(func: types.FunctionType) -> Iterator[tuple[str | None, types.FunctionType]]:
    """The plain sync functions ``func``'s code may call: ``(None, function)`` for its closure variables, ``(name,
    function)`` for the module globals its code names (``co_names``, which also holds the attribute names it reads:
    :func:`_global_loads` tells them apart)."""
    for value in _closure(func).values():
        helper = _helper(value)
        if helper is not None:
            yield None, helper
    namespace = func.__globals__
    names: dict[str, None] = {}
    for code in _codes(func.__code__):
        names.update(dict.fromkeys(code.co_names))
    for name in names:
        helper = _helper(namespace.get(name))
        if helper is not None:
            yield name, helper


def _global_loads(func: types.FunctionType) -> set[str]:
    """The names ``func``'s code (nested code included) loads as globals. A name it reads only as an attribute
    (``subprocess.run``, ``self.run``) is none, even when the module binds it (``from asyncio import run``, a ``def
    run()`` entry point), so that global is no helper of the wrapper (review 300 #3)."""
    return {argval for code in _codes(func.__code__) for opname, argval in _instructions(code)
            if opname in _GLOBAL_LOADS}


def _helper(value: Any) -> types.FunctionType | None:
    """``value`` (through a ``functools.partial``) when it is a plain sync function, else None."""
    if isinstance(value, functools.partial):
        value = value.func
    if type(value) is types.FunctionType and not value.__code__.co_flags & _ASYNC_FLAGS:
        return value
    return None


def _code_bridges(func: types.FunctionType) -> bool:
    """Whether ``func``'s own code (nested code included) uses a bridge's name."""
    codes = list(_codes(func.__code__))
    names: set[str] = set()
    for code in codes:
        names.update(code.co_names)
        if _WAITED.issubset(code.co_names):
            return True
    if names & _BRIDGE_NAMES:
        return True
    if not names & _RUN_NAMES:
        return False
    closure = _closure(func)
    return any(_runs_from_library(code, func.__globals__, closure) for code in codes if _RUN_NAMES & set(code.co_names))


def _library(value: Any) -> bool:
    """Whether ``value`` (a module, or a function or class) belongs to an event-loop library."""
    module = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
    return isinstance(module, str) and module.partition(".")[0] in _LOOP_LIBRARIES


def _runs_from_library(code: types.CodeType, namespace: dict[str, Any], closure: dict[str, Any]) -> bool:
    """Whether ``code`` loads ``run``/``Runner`` from an event-loop library: as an attribute of a name bound to one
    (``asyncio.run``, ``aio.run``, ``asyncio.runners.run``), or as a name bound to one of its functions (``from asyncio
    import run``), at module level, in the closure or imported in the function itself."""
    local: set[str] = set()  # names the function binds to an event-loop library by importing it
    importing = False  # an import from an event-loop library is being read
    previous: tuple[str, Any] = ("", None)
    for instruction in _instructions(code):
        opname, argval = instruction
        if opname == "IMPORT_NAME":
            importing = argval.partition(".")[0] in _LOOP_LIBRARIES
        elif opname.startswith("STORE_") and importing:
            local.add(argval[0] if type(argval) is tuple else argval)  # (STORE_FAST_LOAD_FAST: the first is stored)
        elif opname != "IMPORT_FROM":
            importing = False
        if type(argval) is str and argval in _RUN_NAMES:
            if opname in _ATTRIBUTE_LOADS:
                if previous[0] in _ATTRIBUTE_LOADS and previous[1] in _LOOP_ATTRIBUTES:
                    return True
                if _loads_library(previous, namespace, closure, local):
                    return True
            elif _loads_library(instruction, namespace, closure, local):
                return True
        previous = instruction
    return False


def _loads_library(instruction: tuple[str, Any], namespace: dict[str, Any], closure: dict[str, Any],
                   local: set[str]) -> bool:
    """Whether ``instruction`` (``(opname, name)``) loads a name bound to an event-loop library or one of its
    functions."""
    opname, name = instruction
    if opname in _FAST_LOADS:
        return (name[-1] if type(name) is tuple else name) in local  # (a pair: its second name is loaded last)
    if opname not in _NAME_LOADS:
        return False
    return name in local or _library(closure[name] if name in closure else namespace.get(name))


def _instructions(code: types.CodeType) -> Iterator[tuple[str, Any]]:
    """``(opname, argval)`` of each instruction of ``code``, as ``dis`` reads them (about 1 ms for a wrapper on this
    project's 2-core machine: paid once, at decoration, and only by a sync wrapper of an ``async def``)."""
    return ((instruction.opname, instruction.argval) for instruction in dis.get_instructions(code))
