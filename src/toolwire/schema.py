"""Function signature + docstring -> JSON Schema of the arguments, and the validator that checks them.

Knows no provider: providers lower the schema made here into their own dialect
(:mod:`toolwire.models.lowering`). All of the work happens once, when a tool is defined; the result,
:class:`FunctionSchema`, is frozen and reused for every call.

Rules (issue [1] of the project, and the cases S1-S2 of ``shared/cases``):

* Types come from the type hints through pydantic v2 (str, int, float, bool, list/dict/tuple/set
  generics, ``Optional``/``X | None``, Union, Literal, Enum, nested pydantic models, dataclasses,
  TypedDict with Required/NotRequired, ``Annotated[T, "description"]``, ``Annotated[T, Field(...)]``).
  A parameter without a hint accepts any JSON value.
* ``*args`` and ``**kwargs`` are left out (with a :class:`~toolwire.errors.ToolDefinitionWarning`: the model
  cannot pass them), but for ``**kwargs: Unpack[TD]`` (PEP 692), whose TypedDict's keys are parameters (required
  or not as ``TD`` says) passed as keyword arguments; and so is the first parameter of a function written in a
  class body when it is named ``self`` or ``cls`` (a plain function keeps a parameter of that name). A docstring
  entry for a parameter the function does not have (a typo) is a ``ToolDefinitionWarning`` too.
* Descriptions come from the docstring through ``docstring_parser`` (Google, NumPy, Sphinx/reST and
  Epydoc styles are detected): the tool description is the summary plus the following paragraphs,
  never the ``Args``/``Returns``/``Raises`` sections; each parameter takes its own description (Google
  ``Keyword Args:`` sections included). A callable object's ``__call__`` docstring describes the parameters
  its class docstring leaves out. A description given in ``Annotated``/``Field`` (on the whole annotation
  or on a member of ``Optional``/a union) wins over the docstring's.
* ``$ref``/``$defs`` are inlined so every provider gets a self-contained schema; a recursive type
  cannot be inlined and raises :class:`~toolwire.errors.SchemaError`. ``title`` keywords are dropped
  (``title`` keys inside ``enum``/``const``/``default``/``examples`` values are data and stay).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, get_args, get_origin

import typing_extensions
from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError, with_config
from pydantic.errors import PydanticSchemaGenerationError, PydanticUserError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined
from pydantic_core import SchemaError as CoreSchemaError

from toolwire._json_type_errors import no_json_schema_error
from toolwire._schema_compat import _annotation_description, _compat, _field_copy, resolved_adapter
from toolwire._schema_defaults import (
    _NO_JSON,
    _SHOWN,
    _default_json,
    _DefaultsAsData,
    _drop_non_finite,
    _renamed_keys,
)
from toolwire._schema_fast import (  # noqa: F401  (fast_default: benchmarks/check_schema_fastpath.py reads it here)
    Unsupported,
    fast_default,
    fast_function_schema,
    sorted_inline,
)
from toolwire._schema_json import reader
from toolwire._schema_params import (
    OMIT,
    annotated_default,
    injected_key,
    injected_keys_guard,
    model_class_error,
    unpacked_kwargs,
    unresolved_hint_error,
    with_class_texts,
)
from toolwire._schema_patterns import regex_build_error
from toolwire._schema_refs import (
    _object_schema,
    _object_shape,
    drop_defaulted_nulls,
    inline_refs,
    null_plan,
    validation_message,
)
from toolwire._schema_strict import strict_validator, validator_config
from toolwire._signature import (
    _parse_docstring,
    _parse_docstring_fields,  # noqa: F401  (benchmarks/check_schema_fastpath.py checks it)
    call_doc,
    defined_in_class,
    docstring_error,
    function_doc,
    hint_target,
    partial_keywords,
    partial_positionals,
    signature_params,
    type_hints,
    type_hints_in_callers,
)
from toolwire._tool_checks import (
    langchain_filled,
    warn_dropped_params,
    warn_undocumented,
    warn_unknown_documented,
    warn_unreadable_docstring,
)
from toolwire.errors import SchemaError, ToolValidationError

__all__ = [
    "FunctionSchema",
    "drop_defaulted_nulls",
    "function_schema",
    "inline_refs",
    "model_schema",
    "null_plan",
    "validation_message",
]

_SKIPPED_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
_FORBID = ConfigDict(extra="forbid")


@dataclasses.dataclass(frozen=True, slots=True)
class FunctionSchema:
    """What a tool needs to describe and check its arguments, built once.

    Attributes:
        description: the tool description (docstring summary and body), possibly empty.
        parameters: the JSON Schema of the arguments: ``{"type": "object", "properties": {...},
            "required": [...]}``, self-contained (no ``$ref``).
        validate: ``validate(args: dict) -> dict`` of keyword arguments for the function; raises
            :class:`~toolwire.errors.ToolValidationError` naming each bad field.
        positional_only: names of positional-only parameters, passed by position.
        defaulted_non_nullable: parameters that have a default but do not accept ``None``, by their key in
            ``parameters`` (an aliased parameter by its alias): a ``null`` received for one is dropped, so the
            Python default applies (OpenAI strict mode sends ``null`` for parameters the model leaves out).
        null_plan: the same rule for every level of the arguments (see :func:`null_plan`): where a
            ``null`` may be dropped, top-level parameters (``defaulted_non_nullable``) and optional
            fields of nested objects alike; ``None`` when there is nowhere to drop one.
    """

    description: str
    parameters: dict[str, Any]
    validate: Callable[[Mapping[str, Any]], dict[str, Any]]
    positional_only: tuple[str, ...] = ()
    defaulted_non_nullable: frozenset[str] = frozenset()
    null_plan: dict[str, Any] | None = None


def _accepts_none(annotation: Any, depth: int = 0) -> bool:
    """Whether ``annotation`` takes None (so a null the model sends is a value, not a left-out argument)."""
    if annotation is Any or annotation is None or annotation is type(None) or annotation is object:
        return True
    if depth > 32:
        return False
    if type(annotation).__name__ == "TypeAliasType" and hasattr(annotation, "__value__"):  # `type X = int | None`
        return _accepts_none(annotation.__value__, depth + 1)
    if hasattr(annotation, "__supertype__"):  # typing.NewType
        return _accepts_none(annotation.__supertype__, depth + 1)
    origin = get_origin(annotation)
    if origin is Annotated:
        return _accepts_none(get_args(annotation)[0], depth + 1)
    if origin in (typing.Union, types.UnionType):
        return any(_accepts_none(a, depth + 1) for a in get_args(annotation))
    if origin is typing.Literal:
        return None in get_args(annotation)
    return False


# -- builders -------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class _Factory:
    """A parameter's ``Field(default_factory=...)``: its value is made afresh for each call that leaves it out."""

    factory: Callable[[], Any]


def _field_default(info: FieldInfo) -> Any:
    """The default a ``Field`` gives a parameter: its value, a :class:`_Factory` of its ``default_factory`` (called
    for each call that leaves the argument out, as pydantic does: a uuid, a timestamp, a fresh list), or none."""
    if info.default is not PydanticUndefined:
        return info.default
    if info.default_factory is not None:
        return _Factory(info.default_factory)
    return inspect.Parameter.empty


_ANNOTATED = type(Annotated[int, 0])
_CLASS_OR_PARTIAL = (type, functools.partial)  # (a tuple made once, not a union per call)


def _validator(validate_python: Callable[[Any], Any], tool_name: str, parameters: dict[str, Any],
               fill: dict[str, Any] | None = None) -> Callable[..., dict]:
    """Wrap pydantic's ``validate_python``; its errors are worded by :func:`validation_message` against
    ``parameters`` (the JSON Schema the model sees). ``fill`` gives values for parameters left out whose
    Python default cannot stand (``x: int = Field(3, ge=0)``: the default in the signature is the FieldInfo)."""
    names = list(parameters.get("properties", {}))
    if fill:
        def validate_and_fill(args: Mapping[str, Any]) -> dict[str, Any]:
            try:
                out = validate_python(args)
            except ValidationError as exc:
                raise ToolValidationError(validation_message(exc, tool_name, names, parameters), tool_name) from None
            except TypeError as exc:
                raise _unchecked(exc, tool_name) from exc
            for key, value in fill.items():
                if key not in out and (got := value.factory() if isinstance(value, _Factory)
                                       else copy.deepcopy(value)) is not OMIT:
                    out[key] = got
            return out  # type: ignore[no-any-return]

        return validate_and_fill

    def validate(args: Mapping[str, Any]) -> dict[str, Any]:
        try:
            return validate_python(args)  # type: ignore[no-any-return]
        except ValidationError as exc:
            raise ToolValidationError(validation_message(exc, tool_name, names, parameters), tool_name) from None
        except TypeError as exc:
            raise _unchecked(exc, tool_name) from exc

    return validate


def _unchecked(exc: TypeError, tool_name: str) -> ToolValidationError:
    """The error for arguments whose validation raised ``exc`` rather than a ValidationError (pydantic checking a
    ``date`` against pandas' ``NaT``; a field validator's own TypeError): the tool did not run, so it is no error of
    the tool's (review 272: "tool 'on_day' raised TypeError"). It gives no advice on the arguments: the TypeError
    may be a validator's own bug, with arguments sent right (review 284 #7)."""
    return ToolValidationError(f"Tool {tool_name!r} did not run: checking its arguments failed with TypeError "
                               f"({exc}).", tool_name)


def _model_validate(model: type[BaseModel], tool_name: str, parameters: dict[str, Any],
                    validate_python: Callable[[Any], Any]) -> Callable[..., dict]:
    names = list(model.model_fields)

    def validate(args: Mapping[str, Any]) -> dict[str, Any]:
        try:
            instance = validate_python(args)
        except ValidationError as exc:
            shown = list(parameters.get("properties", {}))  # the names the model sees (aliases), read now: an
            # args_schema's injected fields are taken out of them after this is made (review 144 #8)
            raise ToolValidationError(validation_message(exc, tool_name, shown, parameters), tool_name) from None
        except TypeError as exc:
            raise _unchecked(exc, tool_name) from exc
        out = {name: getattr(instance, name) for name in names}
        if instance.model_extra:  # a model with extra="allow": the extra arguments are passed on too
            out.update(instance.model_extra)
        return out

    return validate


def _pydantic_json_schema(make: Callable[..., dict[str, Any]], what: str,
                          params: Iterable[tuple[str | None, Any]] = ()) -> dict[str, Any]:
    """``make(schema_generator=...)`` as a SchemaError naming ``what`` (and which of ``params`` to blame) on failure."""
    try:
        return _renamed_keys(make(schema_generator=_DefaultsAsData), _SHOWN)  # type: ignore[no-any-return]
    except (PydanticSchemaGenerationError, PydanticUserError, TypeError) as exc:
        raise no_json_schema_error(what, exc, params) from None
    except (KeyError, AttributeError) as exc:  # (pydantic's reference walk, on examples or json_schema_extra)
        raise SchemaError(f"Cannot build a JSON Schema for {what}: pydantic read a \"$ref\" or \"$defs\" key in "
                          f"its examples or extra schema data as a reference ({type(exc).__name__}: {exc}), so "
                          "rename that key.") from None


def model_schema(model: type[BaseModel], tool_name: str, description: str | None = None) -> FunctionSchema:
    """Build a :class:`FunctionSchema` from a pydantic model class used as ``args_schema``.

    Field descriptions come from the model's ``Field(description=...)``, else from an ``Attributes:`` (or
    ``Args:``) section of its docstring; the tool description, when not given, from the docstring's summary
    and body (its sections left out), as for a function. Validation keeps the model's own ``extra`` setting but
    unknown keys are rejected unless the model explicitly allows them (``extra="allow"``: they are then
    passed on to the function).

    Args:
        model: the pydantic model class (``BaseModel`` subclass) whose fields are the tool's arguments.
        tool_name: the tool's name, used in error messages.
        description: the tool's description (None: the model's docstring).

    Returns:
        The :class:`FunctionSchema`: the JSON Schema of the arguments, the description, and the validator.

    Raises:
        SchemaError: the model is a ``RootModel``, its JSON Schema cannot be produced or is recursive, or holds
            ``inf``/``nan`` elsewhere than in a default (which is dropped).
    """
    if issubclass(model, RootModel):  # its value is not an object of named fields (review 54)
        raise SchemaError(f"{model.__name__} is a RootModel, whose value is not an object with named fields, as a "
                          "tool's arguments are: use a model with a field that holds the value.")
    if model.model_config.get("extra") is None:
        model = type(model.__name__, (model,), {"model_config": {**model.model_config, "extra": "forbid"},
                                                 "__module__": model.__module__, "__doc__": model.__doc__})
    raw = _pydantic_json_schema(model.model_json_schema, model.__name__, [(None, model)])  # (builds it if not yet)
    core = model.__pydantic_core_schema__
    validator = strict_validator(core, validator_config(core), model.__pydantic_validator__)  # type: ignore[arg-type]
    parameters = _object_schema(raw)
    _drop_non_finite(parameters, tool_name)
    # the model's docstring as a function's is read: its summary and body describe the tool, and an
    # ``Attributes:`` (or ``Args:``) section describes the fields that have no Field(description=...)
    summary, documented = _parse_docstring(parameters.pop("description", ""))
    if description is None:
        description = summary
    properties = parameters.get("properties", {})
    for name, info in model.model_fields.items():
        prop = properties.get(info.alias or name)
        text = documented.get(name) or documented.get(info.alias or name)
        if text and isinstance(prop, dict) and "description" not in prop:
            prop["description"] = text
    keys = _schema_keys(core, properties)  # (an aliased field's null is sent under its alias: review 124 #2)
    defaulted = frozenset(
        keys.get(name, name) for name, f in model.model_fields.items()
        if not f.is_required() and not _accepts_none(f.annotation)
    )
    validate = _model_validate(model, tool_name, parameters, reader(validator, core, validator_config(core)))
    return FunctionSchema(description, parameters, validate, defaulted_non_nullable=defaulted,
                          null_plan=null_plan(parameters, defaulted))


def _schema_keys(core: Any, shown: Mapping[str, Any]) -> dict[str, str]:
    """``{Python name: key in the JSON Schema}`` of the fields of a TypedDict or model core schema whose key
    differs (an alias), read as pydantic's JSON Schema reads it (a ``validation_alias`` string, else the
    first one-step path of its choices); only keys ``shown`` holds count (``validate_by_alias=False``)."""
    for _ in range(16):  # definitions / model / before-after-wrap validators around the fields
        if not isinstance(core, dict) or core.get("type") in ("typed-dict", "model-fields"):
            break
        core = core.get("schema")
    fields = core.get("fields") if isinstance(core, dict) else None
    keys: dict[str, str] = {}
    for name, field in (fields or {}).items():
        alias = field.get("validation_alias", name) if isinstance(field, dict) else name
        if isinstance(alias, list):
            paths = alias if alias and isinstance(alias[0], list) else [alias]  # (a lone AliasPath: one path)
            alias = next((path[0] for path in paths
                          if isinstance(path, list) and len(path) == 1 and isinstance(path[0], str)), name)
        if isinstance(alias, str) and alias != name and alias in shown:
            keys[name] = alias
    return keys


def _pydantic_function_schema(
    specs: list[tuple[str, Any, str | None, bool]], model_name: str, tool_name: str
) -> tuple[dict[str, Any], Callable[[Any], Any], dict[str, str]]:
    """The general path: the arguments as a TypedDict, through pydantic's TypeAdapter; with the schema keys of
    the parameters published under an alias (see :func:`_schema_keys`)."""
    fields: dict[str, Any] = {}
    for name, annotation, desc, required in specs:
        metadata = [Field(description=desc)] if desc else []
        typed = Annotated[(annotation, *metadata)] if metadata else annotation  # type: ignore[valid-type]
        fields[name] = typing_extensions.Required[typed] if required else typing_extensions.NotRequired[typed]
    try:
        td = typing_extensions.TypedDict(model_name, fields)  # type: ignore[operator]
        td = with_config(_FORBID)(td)
        adapter = resolved_adapter(td, f"tool {tool_name!r}")  # (a local class in a dataclass's fields: review 94)
    except (PydanticSchemaGenerationError, PydanticUserError, TypeError) as exc:
        raise no_json_schema_error(f"tool {tool_name!r}", exc, [spec[:2] for spec in specs]) from None
    except CoreSchemaError as exc:  # a lookaround pattern: toolwire's one sentence, not Rust's (review 198 #6)
        raise (regex_build_error(tool_name, exc) or exc) from None
    raw = _pydantic_json_schema(adapter.json_schema, f"tool {tool_name!r}", [spec[:2] for spec in specs])
    # (the JSON Schema above is the one of this validator's schema, see _DefaultsAsData)
    validator = strict_validator(adapter.core_schema, None, adapter.validator)  # type: ignore[arg-type]
    keys = _schema_keys(adapter.core_schema, raw.get("properties") or {})
    return raw, reader(validator, adapter.core_schema), keys  # (JSON-mode rules where they differ: review 94)


def function_schema(
    func: Callable[..., Any],
    tool_name: str,
    *,
    description: str | None = None,
    parse_docstring: bool = True,
    static: bool = False,
) -> FunctionSchema:
    """Build a :class:`FunctionSchema` from a Python function (sync or async).

    Args:
        func: the function; methods, ``functools.partial`` (the keywords it fixes are not parameters;
            its description comes from the wrapped function) and callables are accepted.
        tool_name: the tool's name (used in messages).
        description: the tool description; when None it comes from the docstring.
        parse_docstring: read parameter descriptions from the docstring (default True).
        static: ``func`` is a staticmethod's function, so its first parameter is an argument even when it is named
            ``self`` or ``cls`` (a function written in a class body otherwise receives the instance or class there).

    Returns:
        The frozen :class:`FunctionSchema`.

    Raises:
        SchemaError: a type hint cannot be resolved (a name defined after the function, or nowhere) or has no JSON
            Schema, the type is recursive, a default holds itself (``cyc.append(cyc)``), a parameter's ``pattern`` is
            one pydantic's Rust regex engine cannot build (the message names the piece it refused, a lookaround,
            a backreference or Python's ``\\Z``, and the fix) or no regular expression at all, or ``func`` is a
            pydantic model class (pass it as ``args_schema`` too; a ``pydantic.v1`` one: use
            :func:`toolwire.interop.tool_from_schema` with its ``.schema()``), or ``**kwargs`` is typed
            ``Unpack[...]`` of something else than a TypedDict or of one whose key is another parameter's name.

    Warns:
        ToolDefinitionWarning: the function takes ``*args``/``**kwargs`` (left out of the schema), or its docstring
            describes a parameter it does not have.
    """
    if isinstance(func, _CLASS_OR_PARTIAL) and (refused := model_class_error(tool_name, func)) is not None:
        raise refused  # (a pydantic model class: its __init__ takes **data, so no field had a type: review 175 #4)
    try:
        params = signature_params(func)
    except (TypeError, ValueError) as exc:
        raise SchemaError(f"Cannot read the signature of {func!r}: {exc}") from None
    try:
        try:
            hints = type_hints(hint_target(func))
        except NameError as exc:  # a class local to the code that makes the tool, under future annotations
            hints = type_hints_in_callers(hint_target(func), exc)
    except Exception as exc:  # NameError for unresolved forward references (defined later: review 175 #8), ...
        raise unresolved_hint_error(tool_name, exc, hint_target(func)) from None
    unpacked = None  # the keys of **kwargs: Unpack[TD] (PEP 692), as parameters (review 237 #2)
    if params and params[-1][1] is inspect.Parameter.VAR_KEYWORD and params[-1][0] in hints:
        unpacked = unpacked_kwargs(tool_name, params[-1][0], hints[params[-1][0]],
                                   [name for name, kind, _ in params if kind not in _SKIPPED_KINDS])
    doc_desc, doc_params, typo = "", {}, False
    extra = call_doc(func) if parse_docstring else None  # (read once: the three uses below)
    if parse_docstring or description is None:
        own = function_doc(func)
        doc_desc, doc_params = _parse_docstring(own)
        if extra and extra != own:  # a callable object: its __call__'s Args fill what its class docstring lacks
            doc_params = {**_parse_docstring(extra)[1], **doc_params}
    if not parse_docstring:
        doc_params = {}
    elif not doc_params and params and (why := docstring_error(own)):
        warn_unreadable_docstring(tool_name, why)
    elif extra is None:  # (a callable object's class docstring may well describe its __init__)
        bound = partial_positionals(func)  # described by the function's docstring, filled by the partial
        typo = warn_unknown_documented(tool_name, {k: v for k, v in doc_params.items() if k not in bound},
                                       [name for name, _, _ in params] + [key for key, _, _ in unpacked or ()])
    warn_dropped_params(tool_name, [("*" if kind is inspect.Parameter.VAR_POSITIONAL else "**") + name
                                    for name, kind, _ in params if kind in _SKIPPED_KINDS
                                    and not (unpacked is not None and kind is inspect.Parameter.VAR_KEYWORD)])

    specs: list[tuple[str, Any, str | None, bool]] = []  # (name, annotation, description, required)
    positional_only: list[str] = []
    defaulted: set[str] = set()
    defaults: dict[str, Any] = {}
    fill: dict[str, Any] = {}
    fixed = partial_keywords(func)
    receiver = params[0][0] if (params and params[0][0] in ("self", "cls") and not static
                                and defined_in_class(func)) else None
    if receiver is not None and isinstance(func, functools.partial) and receiver not in fixed:  # review 78
        owner, _, method = getattr(hint_target(func), "__qualname__", "TheClass.method").rpartition(".")
        raise SchemaError(f"Tool {tool_name!r} is a partial of the method {owner}.{method} with no instance for "
                          f"{receiver!r}: make it from an instance's method, functools.partial({owner}().{method}, "
                          "...).")
    for name, kind, default in params:
        if kind in _SKIPPED_KINDS or name in fixed or name == receiver:
            continue
        annotation = hints.get(name, Any)
        plain = type(annotation) is type  # str, int, a plain class: not LangChain's, no TypedDict, Annotated or union
        if not plain and (filled := langchain_filled(tool_name, name, annotation, default)) is not None:
            fill[name] = _Factory(filled)  # left out of the schema: LangChain's to fill, not the model's
            continue
        if default is inspect.Parameter.empty and type(annotation) is _ANNOTATED and \
                (found := annotated_default(annotation)) is not None:  # n: Annotated[int, Field(default=3)] (review
            annotation, default = found[0], _field_default(found[1])  # 175 #2): the parameter's default, as below
            fill[name] = default
        elif isinstance(default, FieldInfo):  # def f(n: int = Field(3, ge=0, description=...))
            info = default
            default = _field_default(info)
            if default is not inspect.Parameter.empty:
                fill[name] = default
            # toolwire writes the default itself: pydantic would read a "$ref"/"$defs" key in it as a reference
            annotation = Annotated[annotation, _field_copy(info, default=PydanticUndefined, default_factory=None)]
            plain = False
        if default is Ellipsis:  # def f(city: str = ...): required, as pydantic's Field(...) and LangChain read it
            default = inspect.Parameter.empty  # (review 148 #2: Ellipsis was the schema's default, no JSON value)
        if plain:
            ann_desc = None  # (no TypedDict, Annotated or union to read)
        else:
            annotation, ann_desc = _annotation_description(_compat(annotation))
        desc = ann_desc or doc_params.get(name)
        required = default is inspect.Parameter.empty
        if not required:
            defaults[name] = default
            if not _accepts_none(annotation):
                defaulted.add(name)
        if kind is inspect.Parameter.POSITIONAL_ONLY:
            positional_only.append(name)
        specs.append((name, annotation, desc, required))
    hidden: dict[str, str] = {}  # injected keys of the Unpack: {key: what fills it} (review 242 #8)
    for name, annotation, required in unpacked or ():  # (no default: a key left out is not passed)
        if name in fixed:
            continue
        if (found := injected_key(tool_name, params[-1][0], name, annotation, required)) is not None:
            hidden[name] = found[0]  # left out of the schema, as an injected parameter is
            if found[1] is not None:
                fill[name] = _Factory(found[1])
        else:
            annotation, ann_desc = _annotation_description(_compat(annotation))
            specs.append((name, annotation, ann_desc or doc_params.get(name), required))
            if not required and not _accepts_none(annotation):
                defaulted.add(name)
    if doc_params and extra is None and not typo:  # an Args section leaving a parameter out (review 109)
        warn_undocumented(tool_name, [name for name, _, desc, _ in specs if not desc and name not in doc_params])

    model_name = "".join([p.capitalize() for p in tool_name.replace("-", "_").split("_")]) + "Args"
    try:
        raw, validate_python = fast_function_schema(specs, model_name)
        parameters = _object_shape(sorted_inline(with_class_texts(raw)))
        fast, keys = True, {}  # (the fast path takes no Field(alias=...): an Annotated hint is Unsupported)
    except Unsupported:
        raw, validate_python, keys = _pydantic_function_schema(specs, model_name, tool_name)
        parameters = _object_schema(with_class_texts(raw))
        fast = False
    parameters.pop("description", None)
    if keys:  # a parameter published under an alias: its default and its null are the alias's (review 124 #2)
        defaulted = {keys.get(name, name) for name in defaulted}
    for name, value in defaults.items():
        prop = parameters["properties"].get(keys.get(name, name))
        if prop is not None and "default" not in prop and not isinstance(value, _Factory):  # (no fixed value)
            try:
                prop_default = _default_json(value)
            except RecursionError:  # (review 83: cyc = []; cyc.append(cyc) gave a bare RecursionError)
                raise SchemaError(f"The default of parameter {name!r} of tool {tool_name!r} holds itself (a circular "
                                  "reference) or is nested too deeply for JSON: use None as the default and build "
                                  "the value inside the tool.") from None
            if prop_default is not _NO_JSON:  # a default with no JSON form is simply not advertised
                prop["default"] = prop_default
    if not fast:  # the fast path builds every dict and list afresh, and writes no inf/nan (_schema_fast._finite)
        parameters = copy.deepcopy(parameters)
        _drop_non_finite(parameters, tool_name)
    return FunctionSchema(
        description=description if description is not None else doc_desc,
        parameters=parameters,
        validate=injected_keys_guard(_validator(validate_python, tool_name, parameters, fill), hidden, tool_name)
        if hidden else _validator(validate_python, tool_name, parameters, fill),
        positional_only=tuple(positional_only),
        defaulted_non_nullable=frozenset(defaulted),
        null_plan=null_plan(parameters, frozenset(defaulted)),
    )
