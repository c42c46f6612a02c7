"""Copying and pickling tools (``copy``, ``pickle``, ``multiprocessing``, ``concurrent.futures`` process pools).

A :class:`~toolwire.tools.Tool` holds a validator built for its schema (a closure, which pickle cannot save),
so a tool is pickled by what makes it, not by its state, in the first of these ways that applies:

1. *By reference*: the tool is the module attribute its function's qualified name names (``@tool`` on a
   function at module level, or on a method of a class at module level). Unpickling imports the module
   and reads the attribute, as pickle does for functions and classes.
2. *A bound method's tool* (``Svc().add`` where ``add`` is a ``@tool`` method): read again from the pickled
   instance (or class), as pickle does for bound methods.

   Both carry the options (``timeout``, ``hide_error_details``... :data:`_OPTIONS`) that differ from a new tool's, for
   they may have been set after the tool was made (``slow.timeout = 0.5``): a worker whose tool differs (a spawn or
   forkserver worker imports the module again, as the module writes it) gets a copy of its tool with them (review
   312 #2); the same process gets the tool itself.
3. *Rebuilt*: a tool made by ``Tool.from_function`` (or ``tool(...)`` with options) or ``Tool.from_schema``
   (without a ``validate`` callable) is made again from its function, which pickle saves by reference, with
   the tool's current name, description and options. A function whose name now names a tool made of it (a copy of
   a module-level tool, ``tool(add.func, name="add_slowly", timeout=5)``) is saved as that tool's ``func``, read
   from it again on unpickling (review 312 #5). A ``functools.singledispatchmethod`` read from an instance
   (``tool(Svc().show)``) is saved as its instance (or class) and name, as pickle saves a bound method.

A pickler that saves functions by value (their code: cloudpickle, which joblib's loky, Ray, Dask and PySpark send
work with, and dill) gets a tool of the main script (``__main__``, or a module registered with cloudpickle's
``register_pickle_by_value``) and a tool of a function defined inside another (a closure, a lambda) the third way: its
function saved by value, for a worker whose ``__main__`` is not the script (review 312 #1), with the type hints its
string annotations (``from __future__ import annotations``) resolve to here, for its copy there keeps only the globals
its code uses (review 320 #1). A ``__main__`` tool over a function such a pickler saves by name anyway (``@tool`` over
``functools.lru_cache``) is saved by reference (review 320 #3). The standard pickle (even one run inside a cloudpickle
dump: review 320 #2) saves a ``__main__`` tool by reference (a spawn process pool's worker runs the script again, so it
is there), and refuses a closure in one sentence.

Anything else (a function defined inside another function or a lambda, or an ``args_schema`` class pickle cannot find
by its name, for the standard pickle; a tool built from a ready ``FunctionSchema`` or with its own ``validate``; an
MCP tool, which calls its server through this process's session) raises :class:`pickle.PicklingError` in one sentence
that says what to do (review 312 #4). Copies (``copy.copy``, ``copy.deepcopy``) copy the tool's attributes and need
none of this.
"""

from __future__ import annotations

import copy
import functools
import importlib
import inspect
import pickle
import sys
import types
from typing import TYPE_CHECKING, Any

from toolwire._tool_dispatch import dispatch_method_source, is_dispatch_method

if TYPE_CHECKING:
    from toolwire.tools import Tool

__all__ = ["copy_tool", "reduce_tool"]

# Tool options given again when a tool is rebuilt (their current values: they may have been set after creation)
_OPTIONS = ("return_direct", "timeout", "response_format", "handle_errors", "hide_error_details")


def _attributes(tool: Tool) -> dict[str, Any]:
    """Every attribute the tool has set: its slots (along the class hierarchy) and a subclass's ``__dict__``."""
    state: dict[str, Any] = dict(getattr(tool, "__dict__", {}))
    for klass in type(tool).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for slot in (slots,) if isinstance(slots, str) else slots:
            if slot not in ("__dict__", "__weakref__") and hasattr(tool, slot):
                state[slot] = getattr(tool, slot)
    return state


def copy_tool(tool: Tool, memo: dict[int, Any] | None = None) -> Tool:
    """A shallow copy of ``tool`` (``memo`` None), or a deep copy (``copy.deepcopy``'s ``memo``): the same
    class, every attribute copied; functions and validators are shared (``deepcopy`` keeps functions as they are)."""
    new = object.__new__(type(tool))
    if memo is not None:
        memo[id(tool)] = new
    for key, value in _attributes(tool).items():
        object.__setattr__(new, key, value if memo is None else copy.deepcopy(value, memo))
    return new


def _lookup(module: str, qualname: str) -> Any:
    """The object ``module.qualname`` names; class attributes are read from the class ``__dict__`` (so a tool
    method's descriptor is not applied), a ``staticmethod`` or ``classmethod`` there read as what it wraps (a tool
    under ``@staticmethod``: review 186 #2)."""
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = found.__dict__[part] if isinstance(found, type) else getattr(found, part)
        if isinstance(found, (staticmethod, classmethod)):
            found = found.__func__
    return found


@functools.cache
def _option_defaults() -> dict[str, Any]:
    """The options (:data:`_OPTIONS`) of a new tool: ``Tool``'s defaults."""
    from toolwire.tools import Tool

    parameters = inspect.signature(Tool.__init__).parameters
    return {key: parameters[key].default for key in _OPTIONS}


def _set_options(tool: Tool) -> dict[str, Any]:
    """The options of ``tool`` that differ from a new tool's (an empty dict, most often: the pickle stays small)."""
    defaults = _option_defaults()
    return {key: value for key in _OPTIONS if (value := getattr(tool, key)) != defaults[key]}


def _with_options(found: Tool, options: dict[str, Any]) -> Tool:
    """``found`` when its options are ``options`` (those left out: a new tool's), else a copy of it with them (the
    tool a module defines is left as it is)."""
    changed = {key: value for key, value in {**_option_defaults(), **options}.items() if getattr(found, key) != value}
    if not changed:
        return found
    made = copy.copy(found)
    for key, value in changed.items():
        setattr(made, key, value)
    return made


def tool_of(owner: Any, name: str, options: dict[str, Any]) -> Tool:
    """Unpickling, way 2: the tool ``owner.name`` (a tool method bound to ``owner``) with ``options``
    (:func:`_with_options`)."""
    return _with_options(getattr(owner, name), options)


def tool_at(module: str, qualname: str, options: dict[str, Any] | None = None) -> Any:
    """Unpickling, way 1: the tool stored at ``module.qualname``, with ``options`` (the options that differ from a new
    tool's, :func:`_with_options`; None, from earlier versions: as the module has it).

    Returns:
        That tool, or a copy of it with ``options`` when its own differ (a spawn worker's, as the module writes it).

    Raises:
        pickle.UnpicklingError: there is no tool there any more (the module changed since it was pickled).
    """
    from toolwire.tools import Tool

    try:
        found = _lookup(module, qualname)
    except (ImportError, AttributeError, KeyError) as exc:
        raise pickle.UnpicklingError(f"Cannot find the tool {module}.{qualname} ({exc}); unpickle it where "
                                     "the module that defines it can be imported.") from None
    if not isinstance(found, Tool):
        raise pickle.UnpicklingError(f"{module}.{qualname} is no longer a tool; unpickle with the code it was "
                                     "pickled with.")
    return found if options is None else _with_options(found, options)


def rebuild_tool(cls: type[Tool], how: str, func: Any, source: Any, name: str, description: str,
                 options: dict[str, Any], extra: dict[str, Any] | None = None,
                 hints: dict[str, Any] | None = None) -> Tool:
    """Unpickling, way 3: ``cls.from_function`` (``how`` "function"; ``source`` is ``(args_schema,
    parse_docstring, static)``, ``static`` left out by earlier versions: the function was a staticmethod's) or
    ``cls.from_schema`` (``how`` "schema"; ``source`` is the parameters' JSON Schema); ``extra``: the fields its tool
    dict's spec carried (``tool_from_schema``'s ``{"strict": True}``); ``hints``: the type hints the pickling process
    resolved from the function's string annotations (:func:`_resolved_hints`), used when they do not resolve here."""
    if how == "function":
        if hints:
            _restore_hints(func, hints)
        args_schema, parse_docstring, *static = source
        return cls.from_function(staticmethod(func) if any(static) else func, name, description,
                                 args_schema=args_schema, parse_docstring=parse_docstring, **options)
    made = cls.from_schema(func, name, description, source, **options)
    if extra:
        from toolwire.models._tool_conversion import ToolDictSpec

        made.spec = ToolDictSpec(made.spec.name, made.spec.description, made.spec.parameters, dict(extra))
    return made


def _resolved_hints(func: Any) -> dict[str, Any] | None:
    """The type hints of ``func`` when its annotations are text (``from __future__ import annotations``) and a
    by-value pickler saves its code (a ``__main__`` function, a closure, a lambda, a function of a module registered
    with ``register_pickle_by_value``), else None. Such a function keeps only the globals its code uses, so the names
    only its annotations use (``Literal``, a model class) are not there to resolve them in the worker (review 320 #1);
    None too when they do not resolve now (a class local to the code that made the tool)."""
    from toolwire._signature import hint_target, type_hints

    target = hint_target(func)
    annotations = getattr(target, "__annotations__", None) if type(target) is types.FunctionType else None
    if not (annotations and any(type(value) is str for value in annotations.values())):
        return None
    module = target.__module__
    if not (module == "__main__" or _defined_inside(target) is not None
            or (isinstance(module, str) and _registered_by_value(module))):
        return None  # (saved by reference: the worker imports its module, which has the names)
    try:
        return type_hints(target)
    except Exception:
        return None


def sent_hints(tool: Tool, func: Any) -> dict[str, Any] | None:
    """The type hints (:func:`_resolved_hints`) a tool's own ``__reduce_ex__`` (running now: the pickler is found from
    its frame) should send with its function ``func`` so that a by-value worker can resolve its string annotations
    (review 326 #2), else None (no string annotations, saved by reference, or the standard pickle)."""
    hints = _resolved_hints(func)
    return hints if hints is not None and _by_value_pickler(tool) is not None else None


def restore_hints(func: Any, hints: dict[str, Any] | None) -> None:
    """Unpickling: give ``func`` the type hints :func:`sent_hints` sent (None: nothing to do), when its own string
    annotations do not resolve here."""
    if hints:
        _restore_hints(func, hints)


def _restore_hints(func: Any, hints: dict[str, Any]) -> None:
    """Give the function ``func`` saved by value the type hints ``hints`` :func:`_resolved_hints` sent, as its
    annotations, when its own string annotations do not resolve here (its globals lack the names they use)."""
    from toolwire._signature import hint_target, type_hints

    target = hint_target(func)
    if type(target) is not types.FunctionType:
        return
    try:
        type_hints(target)
    except Exception:
        target.__annotations__ = dict(hints)


def _lost_class(cls: Any) -> str | None:
    """The qualified name of the class ``cls`` when pickle cannot find it by its name (a class defined inside a
    function, one made by ``create_model`` under a name its module does not give it), else None."""
    module, qualname = getattr(cls, "__module__", None), getattr(cls, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str) and "<locals>" not in qualname:
        try:
            found: Any = importlib.import_module(module)
            for part in qualname.split("."):  # (as pickle reads it)
                found = getattr(found, part)
        except (ImportError, AttributeError):
            found = None
        if found is cls:
            return None
    return qualname if isinstance(qualname, str) else repr(cls)


def _defined_inside(func: Any) -> str | None:
    """The qualified name of ``func`` (through ``functools.partial``) when pickle cannot find it by name."""
    while hasattr(func, "func") and hasattr(func, "keywords"):  # functools.partial
        func = func.func
    qualname = getattr(func, "__qualname__", None)
    if isinstance(qualname, str) and ("<locals>" in qualname or "<lambda>" in qualname):
        return qualname
    return None


_BY_VALUE = ("cloudpickle", "dill")  # the module names (a part of one) of picklers that save functions by value
# (the cloudpickle modules whose register_pickle_by_value registry is read: its own, and Ray's and PySpark's copies)
_CLOUDPICKLES = ("cloudpickle", "ray.cloudpickle", "pyspark.cloudpickle", "srsly.cloudpickle")
_REDUCERS = ("__reduce_ex__", "__reduce__")  # the names of the methods a pickler calls to save an object


def _by_value_pickler(tool: Tool) -> type | None:
    """The class of the pickler saving a tool now when it saves functions by value (cloudpickle, its copies in joblib,
    Ray, PySpark, and dill), else None (the standard pickle: ``pickle.dumps``, multiprocessing's ``ForkingPickler``).

    A pickler gives ``__reduce_ex__`` no reference to itself, so it is found on the call stack: the frame that called
    the tool's ``__reduce_ex__`` (cloudpickle's ``dump``, or the pure-Python ``save`` dill runs) is a method of a
    :class:`pickle.Pickler`. The standard C pickler runs no Python code, so a frame of anything else there (the
    ``__reduce__`` of an object that calls ``pickle.dumps`` inside a cloudpickle dump: review 320 #2) means it.
    Called only for a tool the two kinds save differently (a ``__main__`` tool, a closure), never on a tool call.
    """
    frame = sys._getframe(1)
    while frame is not None and not _reducing(frame, tool):  # up to the tool's __reduce_ex__
        frame = frame.f_back
    while frame is not None and _reducing(frame, tool):  # (a subclass's, calling super())
        frame = frame.f_back
    if frame is not None and frame.f_code.co_argcount and frame.f_code.co_varnames[0] == "self":
        owner = frame.f_locals.get("self")
        if isinstance(owner, (pickle.Pickler, pickle._Pickler)):  # type: ignore[attr-defined]
            kind = type(owner)
            by_value = any(part in _BY_VALUE for klass in kind.__mro__ for part in klass.__module__.split("."))
            return kind if by_value else None
    return None


def _reducing(frame: types.FrameType, tool: Tool) -> bool:
    """Whether ``frame`` runs the ``__reduce_ex__`` (or ``__reduce__``) of ``tool``."""
    return frame.f_code.co_name in _REDUCERS and frame.f_locals.get("self") is tool


def _registered_by_value(module: str) -> bool:
    """Whether ``module`` (or a package holding it) is registered with a loaded cloudpickle's
    ``register_pickle_by_value``: cloudpickle saves its functions by value, so its tools are (the workers may not
    have the module)."""
    for name in _CLOUDPICKLES:
        listed = getattr(sys.modules.get(name), "list_registry_pickle_by_value", None)
        if listed is not None and any(module == entry or module.startswith(entry + ".") for entry in listed()):
            return True
    return False


def _saved_by_name(func: Any) -> bool:
    """Whether every pickler saves ``func`` by its name, even one that saves functions by value: a C-level wrapper
    whose ``__reduce__`` gives its name (``functools.lru_cache``, ``functools.cache``), a builtin. Its tool is then
    saved by reference, as the standard pickle saves it (review 320 #3)."""
    if type(func) is types.FunctionType:
        return False
    try:
        return isinstance(type(func).__reduce__(func), str)
    except Exception:  # (an object its own __reduce__ refuses: saved otherwise, or refused by the pickler)
        return False


class _ToolFunction:
    """Pickled as the function of the tool at ``module.qualname``: a module-level function that a ``@tool`` of the same
    name replaced there, which pickle cannot save by name (review 312 #5)."""

    __slots__ = ("module", "qualname")

    def __init__(self, module: str, qualname: str) -> None:
        self.module, self.qualname = module, qualname

    def __reduce__(self) -> Any:
        return tool_function, (self.module, self.qualname)


def tool_function(module: str, qualname: str) -> Any:
    """Unpickling a :class:`_ToolFunction`: the ``func`` of the tool at ``module.qualname``.

    Raises:
        pickle.UnpicklingError: there is no tool there any more (as :func:`tool_at`).
    """
    return tool_at(module, qualname).func


class _Attribute:
    """Pickled as ``getattr(receiver, name)``: a ``singledispatchmethod`` read from an instance, whose function (a
    closure ``singledispatchmethod.__get__`` makes) pickle cannot save by name (review 222 #5)."""

    __slots__ = ("name", "receiver")

    def __init__(self, receiver: Any, name: str) -> None:
        self.receiver, self.name = receiver, name

    def __reduce__(self) -> Any:
        return getattr, (self.receiver, self.name)


def _inside_error(tool: Tool, inner: str) -> pickle.PicklingError:
    """The refusal of a tool whose function ``inner`` (its qualified name) pickle cannot find by name."""
    return pickle.PicklingError(
        f"Tool {tool.name!r} cannot be pickled: its function {inner} is defined inside another function or is a "
        "lambda; define the function at module level, or send the tool with cloudpickle (as joblib, Ray and Dask do).")


def _lost_error(tool: Tool, lost: str, args_schema: Any) -> pickle.PicklingError:
    """The refusal of a tool whose ``args_schema`` class (``lost``: its qualified name) pickle cannot find by name."""
    return pickle.PicklingError(
        f"Tool {tool.name!r} cannot be pickled: its args_schema class {lost} cannot be found by that name in "
        f"{getattr(args_schema, '__module__', 'its module')} (a class defined inside a function, or made with "
        "create_model under another name); define the class at module level, under the name it has.")


def pickled_function(tool: Tool, func: Any, args_schema: Any = None) -> Any:
    """What a tool's ``__reduce_ex__`` that gives its functions to pickle itself (a ``StructuredTool`` with ``func``
    and ``coroutine``) should give for ``func``, with the checks :func:`reduce_tool` makes (review 320 #4, #5).

    Args:
        tool: the tool being pickled (its ``__reduce_ex__`` must be running: the pickler is found from its frame).
        func: one of its functions (or None, given back as it is).
        args_schema: its ``args_schema`` class, checked too (None: none).

    Returns:
        ``func``, or, for a module-level function that a ``@tool`` replaced at its name, an object pickled as that
        tool's ``func`` (:class:`_ToolFunction`).

    Raises:
        pickle.PicklingError: for the standard pickle, ``func`` is defined inside another function or is a lambda, or
            ``args_schema`` is a class pickle cannot find by its name; the message says what to do. A pickler that
            saves functions by value (cloudpickle, dill) gets ``func`` as it is.
    """
    found_pickler: list[type | None] = []

    def by_value() -> bool:
        if not found_pickler:
            found_pickler.append(_by_value_pickler(tool))
        return found_pickler[0] is not None

    if args_schema is not None and (lost := _lost_class(args_schema)) is not None and not by_value():
        raise _lost_error(tool, lost, args_schema)
    if func is None:
        return None
    if (inner := _defined_inside(func)) is not None and not by_value():
        raise _inside_error(tool, inner)
    module, qualname = getattr(func, "__module__", None), getattr(func, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str) and "<" not in qualname:
        from toolwire.tools import Tool

        try:
            named = _lookup(module, qualname)
        except (ImportError, AttributeError, KeyError):
            named = None
        if isinstance(named, Tool) and named.func is func and (
                (module != "__main__" and not _registered_by_value(module)) or not by_value()
                or _saved_by_name(func)):
            return _ToolFunction(module, qualname)
    return func


def reduce_tool(tool: Tool) -> Any:
    """``tool.__reduce_ex__``: how pickle saves a tool (see the module docstring for the three ways, and for the
    picklers that save functions by value).

    Raises:
        pickle.PicklingError: the tool can be saved none of the three ways; the message says what to do.
    """
    func, source = tool.func, tool._source
    if source is not None and source[0] == "mcp":  # (review 312 #4: its function holds the live session)
        raise pickle.PicklingError(
            f"Tool {tool.name!r} cannot be pickled: it calls the MCP server {source[1]!r} through this process's "
            "open session; call load_tools(...) in each worker process to get the tools there.")
    if isinstance(func, types.MethodType):  # a tool method read from an instance (or a classmethod tool)
        owner, name = func.__self__, func.__func__.__name__
        attr = (owner if isinstance(owner, type) else type(owner)).__dict__.get(name)
        if attr is not None and getattr(attr, "func", None) is func.__func__:
            return tool_of, (owner, name, _set_options(tool))
    found_pickler: list[type | None] = []  # (looked for once, when a tool the two kinds save differently needs it)

    def by_value() -> bool:
        if not found_pickler:
            found_pickler.append(_by_value_pickler(tool))
        return found_pickler[0] is not None

    module, qualname = getattr(func, "__module__", None), getattr(func, "__qualname__", None)
    by_name = None  # how to save the function when pickle cannot find it by its name (another tool is there)
    if isinstance(module, str) and isinstance(qualname, str) and "<" not in qualname:
        from toolwire.tools import Tool

        try:
            named = _lookup(module, qualname)
        except (ImportError, AttributeError, KeyError):
            named = None
        if (named is tool or (isinstance(named, Tool) and named.func is func)) and (
                (module != "__main__" and not _registered_by_value(module)) or source is None or not by_value()
                or _saved_by_name(func)):
            if named is tool:  # (by value: the worker's __main__ is not the script, the function is saved so)
                return tool_at, (module, qualname, _set_options(tool))
            by_name = _ToolFunction(module, qualname)
    if source is None:
        raise pickle.PicklingError(
            f"Tool {tool.name!r} cannot be pickled: it was built from a ready FunctionSchema or with its own "
            "validate callable; build it with tool() or Tool.from_function() from a module-level function.")
    if (inner := _defined_inside(func)) is not None and not by_value():
        raise _inside_error(tool, inner)
    args_schema = source[1][0] if source[0] == "function" else None
    if args_schema is not None and (lost := _lost_class(args_schema)) is not None and not by_value():
        raise _lost_error(tool, lost, args_schema)
    if (found := dispatch_method_source(func)) is not None:  # (made again from its instance, as a bound method)
        func = _Attribute(*found)
    elif is_dispatch_method(func):
        raise pickle.PicklingError(
            f"Tool {tool.name!r} cannot be pickled: its functools.singledispatchmethod was not found on its "
            "instance's class; make the tool from a method the class defines.")
    elif by_name is not None:
        func = by_name
    options = {key: getattr(tool, key) for key in _OPTIONS}
    extra = getattr(tool.spec, "extra", None)  # (a tool_from_schema tool's "strict": review 118)
    hints = _resolved_hints(func) if source[0] == "function" and func is tool.func else None
    if hints is not None and by_value():  # (string annotations its by-value copy cannot resolve: review 320 #1)
        return rebuild_tool, (type(tool), source[0], func, source[1], tool.name, tool.description, options,
                              dict(extra) if extra else None, hints)
    return rebuild_tool, (type(tool), source[0], func, source[1], tool.name, tool.description, options,
                          *((dict(extra),) if extra else ()))
