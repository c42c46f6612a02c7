"""Readings of a function's parameters for :func:`toolwire.schema.function_schema` that run only off its common path
(review 175): a default written in ``Annotated[..., Field(default=...)]``, the error for a type hint that names a class
defined later in the module, the refusal of a pydantic model class made into a tool, the description of a
documented parameter whose type is a class with a docstring of its own, the keys of ``**kwargs: Unpack[TD]`` (its
injected keys hidden and filled), and
the texts a non-finite ``Decimal`` in a default is written as.

Private to :mod:`toolwire.schema`.
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any, get_args, get_origin

import typing_extensions
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from toolwire._schema_compat import _field_copy
from toolwire.errors import SchemaError

__all__ = ["OMIT", "annotated_default", "has_non_finite_text", "injected_key", "injected_keys_guard",
           "model_class_error", "unpacked_kwargs", "unresolved_hint_error", "with_class_texts"]


def annotated_default(annotation: Any) -> tuple[Any, FieldInfo] | None:
    """For ``Annotated[T, ..., Field(default=...)]`` (or ``default_factory=``), the annotation with that default taken
    out of its ``Field`` and the ``Field`` that held it (the last one, which pydantic's merge keeps), so the default is
    the parameter's, as ``x: T = Field(default=...)``'s is; None when no ``Field`` in it has a default.

    Args:
        annotation: a parameter's type hint, ``Annotated`` (its ``__metadata__`` is read).
    """
    metadata = getattr(annotation, "__metadata__", ())
    found = None
    for item in metadata:
        if isinstance(item, FieldInfo) and (item.default is not PydanticUndefined or item.default_factory is not None):
            found = item
    if found is None:
        return None
    kept = tuple(_field_copy(item, default=PydanticUndefined, default_factory=None)
                 if isinstance(item, FieldInfo) and (item.default is not PydanticUndefined
                                                     or item.default_factory is not None) else item
                 for item in metadata)
    return Annotated[(get_args(annotation)[0], *kept)], found  # type: ignore[valid-type]


def _module_names(module: str) -> frozenset[str]:
    """The names the module ``module``'s source binds at its top level (classes, functions, assignments, imports),
    read from its file; empty when it has none to read."""
    try:
        source = inspect.getsource(sys.modules[module])
        tree = ast.parse(source)
    except Exception:  # (no such module, no source file, a syntax the parser does not read)
        return frozenset()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif type(node).__name__ == "TypeAlias":  # `type X = ...` (Python 3.12)
            names.add(getattr(node.name, "id", ""))
    return frozenset(names)


def unresolved_hint_error(tool_name: str, exc: Exception, target: Any) -> SchemaError:
    """The error for type hints of ``target`` (the function whose annotations describe tool ``tool_name``) that
    could not be resolved (``exc``): a name its module defines or imports further down (the schema is built when
    ``@tool`` runs, before that line) is told to move up; any other keeps the advice to import it at module level."""
    name = getattr(exc, "name", None)
    holder = inspect.unwrap(target) if callable(target) else target
    module = getattr(holder, "__module__", None)
    if isinstance(exc, NameError) and isinstance(name, str) and isinstance(module, str) \
            and name in _module_names(module):
        return SchemaError(f"Cannot resolve the type hints of {tool_name!r} ({exc}): {name} is defined or imported "
                           f"after the function, but the schema is built when @tool runs, so define or import {name} "
                           "before the function that uses it.")
    return SchemaError(f"Cannot resolve the type hints of {tool_name!r} ({exc}); "
                       "import every type the signature names at module level.")


def is_v1_model(cls: type) -> bool:
    """Whether ``cls`` is a ``pydantic.v1`` model class (``langchain_core.pydantic_v1``'s too); False without
    importing ``pydantic.v1`` when nothing has (then no class can be one)."""
    v1 = sys.modules.get("pydantic.v1")
    model = getattr(v1, "BaseModel", None) if v1 is not None else None
    return isinstance(model, type) and issubclass(cls, model)


def model_class_error(tool_name: str, func: Any) -> SchemaError | None:
    """The refusal of a pydantic model class (through ``functools.partial``), v2 or ``pydantic.v1``, made into a
    tool, else None: its ``__init__`` takes ``**data``, so its fields would be published without their types, bounds
    or descriptions. A v2 model is told to be passed as ``args_schema`` too; a v1 model, which ``args_schema``
    refuses, to be made a tool with ``tool_from_schema`` (its JSON Schema and the class) or ported to pydantic 2."""
    while isinstance(func, functools.partial):
        func = func.func
    if not isinstance(func, type):
        return None
    name = func.__name__
    if is_v1_model(func):  # (args_schema takes pydantic 2 models only: review 182 #3)
        return SchemaError(f"Tool {tool_name!r} is made of the pydantic.v1 model class {name}, whose fields toolwire "
                           "does not read (and args_schema takes pydantic 2 models only): make it with "
                           f"toolwire.interop.tool_from_schema({name}.schema(), {name}), which validates the "
                           "arguments against the model's JSON Schema, or port it to pydantic.BaseModel and pass it "
                           "as args_schema too.")
    if not issubclass(func, BaseModel):
        return None
    return SchemaError(f"Tool {tool_name!r} is made of the pydantic model class {name}, whose fields toolwire does "
                       f"not read from its __init__: pass the model as args_schema too (tool({name}, "
                       f"args_schema={name})), or make the tool of a function that takes the fields or the model.")


def with_class_texts(raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` (the arguments' JSON Schema before its ``$ref`` entries are inlined, changed in place) with the
    description of each parameter that refers to a class (a model, an Enum, a dataclass...) and has a description of
    its own (its ``Args:`` entry) followed by the class's (its docstring), which inlining would otherwise replace by
    the parameter's (review 175 #6); the parameter's alone when the class has none or says the same (but for a full
    stop). The two are joined by a blank line, the parameter's text ending with a full stop when it has no closing
    punctuation of its own (:func:`_as_sentence`)."""
    defs = raw.get("$defs")
    properties = raw.get("properties")
    if not defs or type(properties) is not dict:
        return raw
    for prop in properties.values():
        ref = prop.get("$ref") if type(prop) is dict else None
        own = prop.get("description") if ref is not None else None
        if type(own) is not str or type(ref) is not str or not ref.startswith("#/$defs/"):
            continue
        target = defs.get(ref[len("#/$defs/"):])
        text = target.get("description") if type(target) is dict else None
        if type(text) is str and text.strip() and text.strip() not in (sentence := _as_sentence(own)):
            prop["description"] = f"{sentence}\n\n{text}"
    return raw


_CLOSERS = ")]}\"'\u2019\u201d\u00bb"  # (brackets and quotes a sentence's full stop may stand before)
_STOPS = (".", "!", "?", ":", ";", "\u2026")


def _as_sentence(text: str) -> str:
    """``text`` (a parameter's description) ending with a full stop when it has no closing punctuation (``where it
    starts``, ``in km (metric)``), so that the class's text after it reads as another sentence in every rendering,
    the prompts that write the description on one line included (review 182, the closing note)."""
    text = text.rstrip()
    if not text or text.rstrip(_CLOSERS).endswith(_STOPS):
        return text
    return f"{text}."


_UNPACKS = frozenset((typing.Unpack, typing_extensions.Unpack))  # (typing_extensions' own before Python 3.12)
_KEY_WRAPPERS = frozenset((typing.Required, typing.NotRequired, typing_extensions.Required,
                           typing_extensions.NotRequired, typing_extensions.ReadOnly))


def unpacked_kwargs(tool_name: str, name: str, hint: Any,
                    taken: list[str]) -> list[tuple[str, Any, bool]] | None:
    """The keys of ``**name: Unpack[TD]`` (PEP 692), which a call passes as keyword arguments, as parameters
    ``(key, annotation, required)`` in ``TD``'s order (``Required``/``NotRequired``/``ReadOnly`` taken off the
    annotation, ``total=False`` read), as pydantic's ``validate_call`` reads them (review 237 #2); None when ``hint``
    (the ``**`` parameter's type hint, or None) is no ``Unpack[...]``.

    Args:
        tool_name: the tool's name, for messages.
        name: the ``**`` parameter's name.
        hint: its type hint.
        taken: the names of the function's other parameters.

    Raises:
        SchemaError: ``Unpack`` of something else than a TypedDict (a parametrised generic one, ``G[int]``, is read
            with its type variables bound), a key that is also the name of another
            parameter, or type hints of the TypedDict that cannot be resolved.
    """
    if get_origin(hint) not in _UNPACKS:
        return None
    args = get_args(hint)
    target = args[0] if len(args) == 1 else None
    bound: dict[Any, Any] = {}  # a generic TypedDict's type variables -> what Unpack[G[int]] gives them (242 #9)
    if (origin := get_origin(target)) is not None and typing_extensions.is_typeddict(origin):
        bound = dict(zip(getattr(origin, "__parameters__", ()), get_args(target), strict=False))
        target = origin
    if not typing_extensions.is_typeddict(target):
        raise SchemaError(f"Tool {tool_name!r} types **{name} as {hint!r}, and toolwire reads Unpack[...] there of a "
                          "TypedDict only (PEP 692): name a TypedDict class, or give the function a named parameter "
                          "for each value the model should send.")
    try:
        hints = typing.get_type_hints(target, include_extras=True)
    except Exception as exc:  # (a forward reference that does not resolve)
        raise unresolved_hint_error(tool_name, exc, target) from None
    required_keys = getattr(target, "__required_keys__", frozenset(hints))
    clash = [key for key in hints if key in taken]
    if clash:
        raise SchemaError(f"Tool {tool_name!r} takes **{name}: Unpack[{target.__name__}], whose key {clash[0]!r} is "
                          f"also a parameter of the function, so a call could not pass both: rename one of them.")
    out = []
    for key, annotation in hints.items():
        if bound:
            annotation = _bound(annotation, bound)
        required = key in required_keys  # (which misses a Required[...] written as text: the hint tells)
        while (origin := get_origin(annotation)) in _KEY_WRAPPERS:
            if origin is not typing_extensions.ReadOnly:
                required = origin in (typing.Required, typing_extensions.Required)
            annotation = get_args(annotation)[0]
        out.append((key, annotation, required))
    return out


OMIT: Any = object()  # what a filler gives for a key not to pass (a NotRequired InjectedToolCallId key, no call)


def injected_key(tool_name: str, name: str, key: str, annotation: Any,
                 required: bool) -> tuple[str, Callable[[], Any] | None] | None:
    """For a key of ``**name: Unpack[TD]`` marked LangChain's way (``Annotated[str, InjectedToolCallId]``,
    ``InjectedToolArg`` and LangGraph's markers, ``RunnableConfig``), which, as such a named parameter, the model is
    neither shown nor may set (review 242 #8): what fills it and how.

    Args:
        tool_name: the tool's name, for the error. name: the ``**`` parameter's name. key: the TypedDict key.
        annotation: the key's type hint (``Required``/``NotRequired`` taken off). required: whether ``TD`` requires it.

    Returns:
        None for a key the model fills (the usual case); else ``(what fills it, for errors: "InjectedToolCallId",
        "InjectedToolArg"..., filler)``: ``filler`` gives the call's id for an ``InjectedToolCallId`` key (:data:`OMIT`
        outside a call when the key is not required), None for any other injected key, which is not passed.

    Raises:
        SchemaError: a required injected key other than ``InjectedToolCallId``: toolwire has no value for it.
    """
    from toolwire._tool_checks import _call_id, _runnable_config, langchain_marker, marker_name

    if type(annotation) is type:  # str, int, a plain class: not marked
        return None
    kind = None
    for marker in getattr(annotation, "__metadata__", ()):
        if (found := langchain_marker(marker)) is not None:
            kind = "InjectedToolCallId" if found == "call_id" else marker_name(marker)
            break
    if kind is None and _runnable_config(getattr(annotation, "__origin__", annotation)
                                         if hasattr(annotation, "__metadata__") else annotation):
        kind = "RunnableConfig"
    if kind is None:
        return None
    if kind == "InjectedToolCallId":
        return kind, functools.partial(_call_id, tool_name, inspect.Parameter.empty if required else OMIT, key)
    if required:
        raise SchemaError(f"Tool {tool_name!r} takes **{name}: Unpack[...] whose key {key!r} is injected ({kind}), "
                          "which toolwire has no value for and never takes from the model: make the key NotRequired "
                          f"(then it is not passed), or fix its value with functools.partial(func, {key}=...) before "
                          "making the tool.")
    return kind, None


def injected_keys_guard(validate: Callable[[Any], dict[str, Any]], kinds: dict[str, str],
                        tool_name: str) -> Callable[[Any], dict[str, Any]]:
    """``validate`` whose error for arguments setting an injected key of ``**kwargs: Unpack[TD]`` (``kinds``:
    ``{key: what fills it}``, keys left out of the schema, so refused as unknown) says how toolwire fills it, as for
    an injected named parameter (:func:`toolwire._tool_checks.injected_guard`; review 242 #8).

    Raises:
        ToolValidationError: (the returned function) as ``validate`` does, with the explanation added.
    """
    from toolwire._tool_checks import _injected_fix, explain_injected
    from toolwire.errors import ToolValidationError

    def checked(args: Any) -> dict[str, Any]:
        try:
            return validate(args)
        except ToolValidationError as exc:
            given = {k: v for k, v in kinds.items() if k in args} if isinstance(args, Mapping) else {}
            if not given:
                raise
            raise ToolValidationError(explain_injected(str(exc), given, _key_fix), tool_name) from None

    def _key_fix(key: str, kind: str) -> str:  # (a key has no default: left out, it is not passed)
        return _injected_fix(key, kind).replace("(it keeps its default)", "(the key is not passed)")

    return checked


def _bound(annotation: Any, bound: dict[Any, Any]) -> Any:
    """``annotation`` with the type variables of ``bound`` replaced (``list[T]`` -> ``list[int]``); one left unbound
    stays, as pydantic reads it."""
    if isinstance(annotation, typing.TypeVar):
        return bound.get(annotation, annotation)
    names = getattr(annotation, "__parameters__", None)
    if names and isinstance(names, tuple):
        try:
            return annotation[tuple(bound.get(name, name) for name in names)]
        except TypeError:  # (a form that takes no subscript)
            return annotation
    return annotation


_NON_FINITE_TEXTS = frozenset(("NaN", "-NaN", "sNaN", "-sNaN", "Infinity", "-Infinity"))  # (str(Decimal(...)))


def has_non_finite_text(value: Any) -> bool:
    """Whether JSON data ``value`` (a default's JSON form) holds a string a non-finite ``Decimal`` is written as
    (``"NaN"``, ``"Infinity"``...) as a value, not a key: then the default's Python value is worth a look (review 237
    #3)."""
    if isinstance(value, str):
        return value in _NON_FINITE_TEXTS
    if isinstance(value, dict):
        return any(has_non_finite_text(v) for v in value.values())
    if isinstance(value, list):
        return any(has_non_finite_text(v) for v in value)
    return False
