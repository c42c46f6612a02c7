"""Telling, at decoration, a sync wrapper that runs its ``async def`` itself (a "bridge") from one that hands it back.

A sync ``functools.wraps`` wrapper of an ``async def`` either returns the coroutine (a logging or ContextVar
decorator: it must be called on the event loop's thread, review 275 #1) or runs it to its end and returns its value
(``asyncio.run``, ``loop.run_until_complete``, asgiref's ``async_to_sync``, asyncer's ``syncify``, anyio's
``from_thread``/``run``): such a bridge refuses or breaks a running loop, so toolwire must call it on a worker thread,
once, as LangChain runs any sync function (review 295 #1: a wrapper that did work before ``asyncio.run`` did it
twice, called on the loop's thread, refused, then called again; #2: ``new_event_loop().run_until_complete`` failed
on every call). Only its code can tell which it is before it is called: :func:`runs_coroutine_itself` reads the
names it uses. A "sync or async" wrapper, which runs its coroutine only when no loop runs and hands it back when one
does, is called on the loop's thread (review 313 #1: on a worker thread it ran the tool on a private loop): it is told
by a check for a running loop in its own code (or a helper it calls) together with a ``return`` that gives the
coroutine back unawaited, read with ``dis`` (:func:`_hands_back`). A bridge that only names a check (in a nested
``async def``, in an ``assert``, before a refusal of its own, before running the coroutine on another thread) stays a
bridge (review 315 #1-#3).
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
# What asks whether an event loop runs on the thread (a "sync or async" wrapper's test: review 313 #1, 315 #1-#3).
_LOOP_CHECKS = frozenset({"get_running_loop", "_get_running_loop", "is_running", "current_async_library"})
_TASKS = frozenset({"ensure_future", "create_task"})  # what hands the coroutine back as a task of the running loop
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
    may return a task or future for the caller's loop (review 300 #2). Nor is a layer that bridges by these names a
    bridge when it hands its coroutine back (a "sync or async" wrapper, whose coroutine the caller's loop must await:
    review 313 #1), which takes both of: (i) its own code, not the code nested in it, names a running-loop check
    (``get_running_loop``, ``_get_running_loop``, a loop's ``is_running``, sniffio's ``current_async_library``), or it
    calls a plain function (a module global or closure variable) whose own code does; and (ii) its own code has a
    ``return`` of the coroutine unawaited: of a local that is also passed to a bridge call or was set from a call of
    the wrapped function (``coro = fn(...)``, ``return asyncio.run(coro)`` ... ``return coro``), of the direct result of
    calling the wrapped function (``return fn(*args, **kwargs)``: a closure variable or global holding it or another
    ``async def``, ``.__wrapped__``, ``self.<attribute holding it>`` in a decorator class) or of
    ``ensure_future``/``create_task``, or of a plain function it calls that meets (i) and (ii) itself (read one level
    down: ``return maybe_run(fn(...))``). A check alone (in a nested ``async def main``, an ``assert``, before a
    refusal, before running the coroutine on another thread) keeps a bridge a bridge (review 315 #1-#3); what cannot
    be read is a bridge. A bridge hidden deeper (a helper two calls down, a method of an object) is not seen: the tool
    then calls the wrapper on the loop's thread and, when the bridge refuses that loop, again on a worker thread
    (:func:`toolwire._signature.loop_refused`).

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
    """Whether one sync layer (a function, or a callable object) runs the coroutine itself, and does not hand it back
    (:func:`_hands_back`: read only for a layer that bridges)."""
    wrapped, owner = getattr(layer, "__wrapped__", None), None
    if type(layer) is not types.FunctionType:  # a callable object: asgiref's bridge, known by its class name, or
        owner = layer
        if type(layer).__name__ == "AsyncToSync":  # a class-based decorator (functools.update_wrapper(self, fn)),
            return True  # whose __call__ is its code (review 300 #1)
        layer = inspect.getattr_static(type(layer), "__call__", None)
        if type(layer) is not types.FunctionType or layer.__code__.co_flags & _ASYNC_FLAGS:
            return False
    if _code_bridges(layer):
        return not _hands_back(layer, wrapped, owner)
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
            return not _hands_back(layer, wrapped, owner)
        if loaded is None:
            loaded = _global_loads(layer)
        if name in loaded:
            return not _hands_back(layer, wrapped, owner)
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


def _hands_back(func: types.FunctionType, wrapped: Any, owner: Any) -> bool:
    """Whether the layer ``func`` (a bridge by its names) is a "sync or async" wrapper that hands its coroutine back
    when a loop runs (review 313 #1), read in its own code only, not in the code nested in it (an inner ``async def
    main`` that reads the loop checks nothing: review 315 #1). Both must hold:

    - it checks for a running loop: its own code names ``get_running_loop``, ``_get_running_loop``, ``is_running`` or
      ``current_async_library`` (:data:`_LOOP_CHECKS`), or it calls a plain function (a module global or closure
      variable) whose own code does (review 315 #3);
    - it has a path that returns the coroutine unawaited (:func:`_returns_coroutine`).

    ``wrapped`` is the layer's ``__wrapped__``, ``owner`` the callable object whose ``__call__`` ``func`` is (or None).
    Whatever cannot be read is no hand-back: the layer stays a bridge (as before review 313 #1). Read once, at
    decoration, and only for a layer that bridges.
    """
    try:
        flow = _Flow(func.__code__, func)
        if not (_LOOP_CHECKS & set(func.__code__.co_names) or any(
                helper is not None and _LOOP_CHECKS & set(helper.__code__.co_names)
                for helper in (_callee_helper(func, tag) for tag in flow.callees))):
            return False
        return _returns_coroutine(func, flow, wrapped, owner, helpers=True)
    except Exception:  # (code this reader does not know: a bridge, when unsure)
        return False


def _returns_coroutine(func: types.FunctionType, flow: _Flow, wrapped: Any, owner: Any, helpers: bool) -> bool:
    """Whether a ``return`` of ``func``'s own code gives back the coroutine unawaited: a local that is also passed to a
    bridge call or was set from a call of the wrapped function (``coro = fn(...)``; ``return asyncio.run(coro)`` ...
    ``return coro``); the direct result of calling the wrapped function (``return fn(*args, **kwargs)``: a closure
    variable or module global holding it or another ``async def``, ``.__wrapped__``, or an attribute of the decorator
    object holding it, ``self.func``), or of ``asyncio.ensure_future``/``create_task``; or, when ``helpers``, the
    direct result of a plain function it calls that itself checks for a running loop and returns its coroutine
    (``return maybe_run(fn(...))``, read one level down)."""
    for tags in flow.returns:
        for tag in tags:
            if tag[0] == "local":
                name = tag[1]
                if name in flow.bridged_locals or any(
                        _calls_wrapped(func, callee, wrapped, owner)
                        for stored in flow.stores.get(name, ()) if stored[0] == "call" for callee in stored[1]):
                    return True
                continue
            if tag[0] != "call":
                continue
            for callee in tag[1]:
                if _calls_wrapped(func, callee, wrapped, owner) or (callee[0] != "call" and callee[1] in _TASKS):
                    return True
                helper = _callee_helper(func, callee) if helpers else None
                if helper is not None and _LOOP_CHECKS & set(helper.__code__.co_names) and _returns_coroutine(
                        helper, _Flow(helper.__code__, helper), None, None, helpers=False):
                    return True
    return False


def _calls_wrapped(func: types.FunctionType, callee: tuple[Any, ...], wrapped: Any, owner: Any) -> bool:
    """Whether ``callee`` (a tag of :class:`_Flow`) is the wrapped function, or another ``async def``."""
    kind, name = callee[0], callee[1]
    if kind == "attr":
        if name == "__wrapped__":
            return True
        code = func.__code__
        if owner is None or not code.co_argcount or ("local", code.co_varnames[0]) not in {
                base[:2] for base in callee[2]}:  # (an attribute of ``self``, the decorator object)
            return False
        value = inspect.getattr_static(owner, name, None)
    elif kind == "free":
        value = _closure(func).get(name)
    elif kind == "global":
        value = func.__globals__.get(name)
    else:
        return False
    if value is None:
        return False
    if value is wrapped:
        return True
    while isinstance(value, functools.partial):
        value = value.func
    return type(value) is types.FunctionType and bool(value.__code__.co_flags & inspect.CO_COROUTINE)


def _callee_helper(func: types.FunctionType, callee: tuple[Any, ...]) -> types.FunctionType | None:
    """The plain sync function ``callee`` (a closure variable or module global called by ``func``) names, or None."""
    if callee[0] == "free":
        return _helper(_closure(func).get(callee[1]))
    if callee[0] == "global":
        return _helper(func.__globals__.get(callee[1]))
    return None


# Instructions that leave the stack as it is; those that end a block (nothing falls through to the next one).
_STILL = frozenset({"NOP", "RESUME", "KW_NAMES", "EXTENDED_ARG", "COPY_FREE_VARS", "MAKE_CELL", "CACHE", "NOT_TAKEN",
                    "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP", "JUMP_NO_INTERRUPT",
                    "PRECALL"})  # (3.11's PRECALL: its stack effect is counted here by CALL)
_ENDS = frozenset({"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE", "JUMP_FORWARD", "JUMP_BACKWARD",
                   "JUMP_BACKWARD_NO_INTERRUPT", "JUMP", "JUMP_NO_INTERRUPT", "JUMP_ABSOLUTE"})
_JUMPS = frozenset(getattr(dis, "hasjump", ())) | frozenset(dis.hasjrel) | frozenset(dis.hasjabs)
_Slot = frozenset  # what one stack entry may hold: tags ("local", name), ("global", name), ("free", name),
# ("attr", name, base slot), ("call", callee slot); empty when unknown (a constant, NULL, anything else)


class _Flow:
    """What one code object (not the code nested in it) returns, calls and stores, read with ``dis`` by following its
    value stack: each entry holds the tags of what may be there (the branches of a conditional are joined). Read as
    CPython 3.11 writes it (``PRECALL``/``CALL n``, ``LOAD_METHOD``, ``NULL + name`` in ``LOAD_GLOBAL``), tolerating
    3.12's ``RETURN_CONST``, ``LOAD_FAST_CHECK``, ``LOAD_FAST_AND_CLEAR`` and method ``LOAD_ATTR``, 3.13's
    ``LOAD_FAST_LOAD_FAST``/``STORE_FAST_LOAD_FAST``/``STORE_FAST_STORE_FAST``, ``CALL_KW`` and its callable-then-NULL
    order, and 3.14's ``LOAD_FAST_BORROW`` forms. Unknown instructions move the stack by ``dis.stack_effect``."""

    def __init__(self, code: types.CodeType, func: types.FunctionType | None = None) -> None:
        self.returns: list[_Slot] = []  # what each ``return`` gives
        self.callees: list[tuple[Any, ...]] = []  # the callee tags of every call
        self.stores: dict[str, set[tuple[Any, ...]]] = {}  # local -> the tags stored in it
        self.bridged_locals: set[str] = set()  # locals passed to a bridge call
        self._func = func
        self._calls: list[tuple[_Slot, list[_Slot]]] = []
        self._read(code)
        for callee, args in self._calls:
            if any(self._bridge_call(tag) for tag in callee):
                self.bridged_locals.update(tag[1] for arg in args for tag in arg if tag[0] == "local")

    def _bridge_call(self, callee: tuple[Any, ...]) -> bool:
        if callee[0] not in ("attr", "global", "free"):
            return False
        if callee[1] in _BRIDGE_NAMES or callee[1] in _RUN_NAMES:
            return True
        helper = _callee_helper(self._func, callee) if self._func is not None else None
        return helper is not None and _code_bridges(helper)

    def _read(self, code: types.CodeType) -> None:
        saved: dict[int, list[_Slot]] = {}
        for entry in getattr(dis.Bytecode(code), "exception_entries", ()):  # a handler starts with the exception
            saved.setdefault(entry.target, [_Slot()] * (entry.depth + int(entry.lasti) + 1))
        stack: list[_Slot] = []
        falls = True
        for ins in dis.get_instructions(code):
            at = saved.get(ins.offset)
            if at is not None:
                if not falls:
                    stack = list(at)
                elif len(at) == len(stack):
                    stack = [a | b for a, b in zip(stack, at, strict=True)]
            elif not falls:
                stack = []
            falls = ins.opname not in _ENDS
            if ins.opcode in _JUMPS:
                target = ins.argval if type(ins.argval) is int else None
                if target is not None and target > ins.offset:  # (a loop's jump back adds nothing to read)
                    branch = list(stack)
                    self._move(branch, dis.stack_effect(ins.opcode, ins.arg, jump=True))
                    saved.setdefault(target, branch)
                if ins.opname in _STILL:
                    continue
                self._move(stack, dis.stack_effect(ins.opcode, ins.arg, jump=False))
                continue
            self._step(ins, stack)

    @staticmethod
    def _pop(stack: list[_Slot], count: int) -> list[_Slot]:
        """The top ``count`` entries, bottom first (unknown below what was read)."""
        if count <= 0:
            return []
        taken = stack[-count:]
        del stack[-count:]
        return [_Slot()] * (count - len(taken)) + taken

    def _move(self, stack: list[_Slot], effect: int) -> None:
        if effect < 0:
            self._pop(stack, -effect)
        else:
            stack.extend([_Slot()] * effect)

    def _step(self, ins: dis.Instruction, stack: list[_Slot]) -> None:
        name, value = ins.opname, ins.argval
        if name in _STILL:
            return
        if name in ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW", "LOAD_FAST_AND_CLEAR"):
            stack.append(_Slot({("local", value)}))
        elif name in ("LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW_LOAD_FAST_BORROW"):
            stack.extend(_Slot({("local", part)}) for part in value)
        elif name in ("STORE_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"):
            names = value if type(value) is tuple else (value,)
            self.stores.setdefault(names[0], set()).update(self._pop(stack, 1)[0])
            if name == "STORE_FAST_LOAD_FAST":
                stack.append(_Slot({("local", names[1])}))
            elif name == "STORE_FAST_STORE_FAST":
                self.stores.setdefault(names[1], set()).update(self._pop(stack, 1)[0])
        elif name in _GLOBAL_LOADS or name in ("LOAD_DEREF", "LOAD_CLASSDEREF"):
            self._move(stack, dis.stack_effect(ins.opcode, ins.arg) - 1)  # (3.11/3.12 ``NULL + name``: NULL first)
            stack.append(_Slot({("global" if name in _GLOBAL_LOADS else "free", value)}))
        elif name in _ATTRIBUTE_LOADS:
            base = self._pop(stack, 1)[0]
            stack.extend([_Slot({("attr", value, base)})] * (1 + dis.stack_effect(ins.opcode, ins.arg)))
        elif name in ("CALL", "CALL_KW", "CALL_FUNCTION_EX"):
            if name == "CALL_FUNCTION_EX":
                taken = self._pop(stack, 1 - dis.stack_effect(ins.opcode, ins.arg))
                args = taken[2:]
            else:
                taken = self._pop(stack, ins.arg + 2 + (name == "CALL_KW"))
                args = taken[2:2 + ins.arg]
            callee = taken[0] or taken[1]  # (the callable and NULL/self, in the order of the Python version)
            self.callees.extend(callee)
            self._calls.append((callee, args))
            stack.append(_Slot({("call", callee)}))
        elif name == "RETURN_VALUE":
            self.returns.append(self._pop(stack, 1)[0])
        elif name == "SWAP":
            stack[:0] = [_Slot()] * max(0, value - len(stack))
            stack[-1], stack[-value] = stack[-value], stack[-1]
        elif name == "COPY":
            stack[:0] = [_Slot()] * max(0, value - len(stack))
            stack.append(stack[-value])
        elif name == "PUSH_NULL":
            stack.append(_Slot())
        else:  # what this reader does not follow: its values are unknown
            effect = dis.stack_effect(ins.opcode, ins.arg)
            self._pop(stack, max(1, -effect) if effect <= 0 else 0)
            stack.extend([_Slot()] * (max(1, -effect) + effect if effect <= 0 else effect))


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
        return (name[-1] if type(name) is tuple else name) in local
    if opname not in _NAME_LOADS:
        return False
    return name in local or _library(closure[name] if name in closure else namespace.get(name))


def _instructions(code: types.CodeType) -> Iterator[tuple[str, Any]]:
    """``(opname, argval)`` of each instruction of ``code``, as ``dis`` reads them (about 1 ms for a wrapper on this
    project's 2-core machine: paid once, at decoration, and only by a sync wrapper of an ``async def``)."""
    return ((instruction.opname, instruction.argval) for instruction in dis.get_instructions(code))
