"""How :func:`toolwire.interop.langchain.from_langchain_tool` checks a model's arguments for a LangChain tool before
handing them to it (split from :mod:`toolwire.interop.langchain`, review 180).

The check follows what LangChain's own tool would do with the same arguments, so that toolwire never refuses a call
LangChain's tool runs, and adds toolwire's clear error text (naming each bad field, and the tool's parameters) where
LangChain's would refuse:

* it is made from the tool's real ``args_schema`` (its ``mode="before"``/``"after"`` field and model validators and
  its config, which LangChain's ``tool_call_schema`` copy drops) when that model has validators or a config of its
  own, or when ``injected=`` gives values (checked with the arguments), less the injected arguments (given their
  values for the check, never quoted in its errors); else from ``tool_call_schema``;
* a key no field declares (after the model's own ``mode="before"`` validator) is refused, as for toolwire's own tools,
  unless the model sets ``extra="allow"`` or ``extra="ignore"``; an injected argument's name always is;
* when the LangChain tool has a ``handle_validation_error`` (``True``, a text, a callable), arguments the check
  refuses that LangChain's own ``args_schema`` refuses too are handed to the tool as they are, so LangChain's handler
  answers them, as LangChain runs the tool; arguments only toolwire refuses (a key no field declares, which LangChain
  would drop without a word, a boolean for a number) keep toolwire's error (review 181 #1: the tool ran with its
  default for a misspelled key).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolwire.errors import ToolValidationError

_KEPT_CONFIG = {"arbitrary_types_allowed", "title"}  # what LangChain's own copy (tool_call_schema) sets too


def pydantic_validator(model: Any, name: str, fields: list[str] | None = None, extra: str = "forbid",
                       hidden: Mapping[str, Any] | None = None,
                       schema: Mapping[str, Any] | None = None) -> Callable[[Any], dict[str, Any]] | None:
    """Build ``validate(args) -> dict`` (the arguments as given, as a new dict) from a pydantic model.

    pydantic ignores unknown keys by default, so the arguments are checked with a subclass set to ``extra`` (by
    default ``"forbid"``): a key the model does not declare is an error naming the tool's parameters (``fields``, by
    default the model's), which the model can correct. The check follows toolwire's own rules as well
    (:mod:`toolwire._schema_strict`: no boolean for a number, no NaN). Returns ``None`` when ``model`` cannot be
    subclassed (the caller then checks with ``jsonschema``, which also refuses undeclared keys). ``hidden``: the
    arguments put in for the check that the model is not sent (``{key: value}``, the injected ones): an error never
    quotes their values (review 217 #1: the whole arguments, an injected secret included, were quoted back to the
    model for an error of a model-level validator). ``schema``: the JSON Schema of the arguments the model is shown
    (``$ref`` inlined), which words the errors as a toolwire tool's are (a path the model wrote, without pydantic's
    union member labels; a union told apart by a tag gets only the errors of the member its tag picks: review 242
    #1); None: pydantic's paths as they are.

    Raises:
        ToolValidationError: (when validating) one message naming each bad field, e.g. ``"Invalid
            arguments for tool 'add': 'user_id' is not a parameter of this tool (got 'x'). Its
            parameters are: a, b."``
    """
    from pydantic import ValidationError

    from toolwire._schema_strict import strict_validator, validator_config
    from toolwire.schema import validation_message

    named = list(getattr(model, "model_fields", {}) or {}) if fields is None else fields
    config = dict(getattr(model, "model_config", {}) or {})
    try:
        checked = type(model.__name__, (model,), {"model_config": {**config, "extra": extra},
                                                  "__module__": model.__module__})
    except Exception:  # a model that cannot be subclassed: the caller checks with jsonschema instead
        return None
    core = checked.__pydantic_core_schema__  # toolwire's rules too (a boolean refused for a number: review 63)
    validate_python = strict_validator(core, validator_config(core), checked.__pydantic_validator__).validate_python

    masked = dict(hidden or {})

    def validate(args: Any) -> dict[str, Any]:
        args = dict(args)
        try:
            validate_python(args)
        except ValidationError as exc:
            if not masked:
                raise ToolValidationError(validation_message(exc, name, named, schema), name) from None
            from toolwire._tool_args import hide_values

            text = validation_message(_Masked(exc, set(masked)), name, named, schema)  # type: ignore[arg-type]
            raise ToolValidationError(hide_values(text, masked), name) from None
        return args

    return validate


class _Masked:
    """A pydantic ``ValidationError`` whose ``errors()`` never hold the values of the ``hidden`` keys: an error at
    such a key shows ``<hidden>``, and the whole arguments (a model-level error) are shown without them."""

    def __init__(self, exc: Any, hidden: set[str]) -> None:
        self._exc, self._hidden = exc, hidden

    def errors(self, **options: Any) -> list[dict[str, Any]]:
        from toolwire._tool_args import HIDDEN_TEXT

        out = []
        for error in self._exc.errors(**options):
            error = dict(error)
            loc, given = tuple(error.get("loc", ())), error.get("input")
            if loc and loc[0] in self._hidden:
                error["input"] = _Shown(HIDDEN_TEXT)
            elif isinstance(given, Mapping) and self._hidden.intersection(given):
                error["input"] = {key: value for key, value in given.items() if key not in self._hidden}
            out.append(error)
        return out


class _Shown(str):
    """A text whose ``repr`` is itself (``<hidden>``, not ``'<hidden>'``)."""

    def __repr__(self) -> str:
        return str(self)


def _own_behaviour(model: Any) -> bool:
    """Whether a pydantic ``args_schema`` validates otherwise than LangChain's ``tool_call_schema`` copy of its
    fields: it has validators (a field's ``Annotated`` ones are copied) or a config of its own."""
    decorators = getattr(model, "__pydantic_decorators__", None)
    if decorators is not None and any(getattr(decorators, kind, None) for kind in (
            "validators", "field_validators", "root_validators", "model_validators")):
        return True
    return bool(set(dict(getattr(model, "model_config", {}) or {})) - _KEPT_CONFIG)


def _real_model_check(lc_tool: Any, visible: set[str], fixed: Mapping[str, Any], name: str,
                      schema: Mapping[str, Any] | None) -> Callable[[Any], dict[str, Any]] | None:
    """The check of the arguments against the tool's own ``args_schema`` (its validators and config, its top-level
    aliases, which ``tool_call_schema`` drops, when ``schema`` shows them: review 296 #2), the injected arguments given
    their values (``fixed``, the call's id); None when that model behaves as ``tool_call_schema`` does and no injected
    value is given, or is not a pydantic v2 model whose other fields are the ones the model
    sees. ``schema``: the arguments' JSON Schema the model is shown (see :func:`pydantic_validator`)."""
    from pydantic import BaseModel

    from toolwire._tool_checks import langchain_marker
    from toolwire.interop._langchain_schema import field_keys

    model = getattr(lc_tool, "args_schema", None)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return None
    fields = dict(getattr(model, "model_fields", {}) or {})
    hidden = {key: field for key, field in fields.items() if key not in visible}
    keys = field_keys(model)
    shown = (schema or {}).get("properties") or {}
    aliased = any(keys[key] != key and keys[key] in shown for key in visible if key in keys)
    if not _own_behaviour(model) and not set(fixed) & set(hidden) and not aliased:  # (an injected value is checked
        return None  # here, where an error hides it; LangChain's tool would quote it in its ValidationError: review
        # 217 #1; a top-level alias published, which LangChain's tool_call_schema copy drops: review 296 #2)
    if set(fields) - set(hidden) != visible:
        return None
    extra = dict(model.model_config).get("extra")
    call_ids = [key for key, field in hidden.items() if "call_id" in {langchain_marker(m) for m in field.metadata}]
    filled = {key: value for key, value in fixed.items() if key in hidden}
    validate = pydantic_validator(model, name, [keys[key] for key in fields if key in visible],
                                  extra if extra in ("allow", "ignore") else "forbid",  # (the keys it validates by)
                                  {**dict.fromkeys(call_ids), **filled},  # (never quoted to the model: review 217 #1)
                                  schema)
    if validate is None:
        return None

    def check(args: Any) -> dict[str, Any]:
        from toolwire._tool_run import current_call_id

        own = current_call_id() or "call_id"  # (LangChain fills InjectedToolCallId from the call's id itself)
        validate({**dict(args), **filled, **dict.fromkeys(call_ids, own)})
        return dict(args)

    return check


def langchain_check(validate: Callable[[Any], dict[str, Any]], lc_tool: Any, visible: set[str],
                    fixed: Mapping[str, Any], name: str,
                    schema: Mapping[str, Any] | None = None) -> Callable[[Any], dict[str, Any]]:
    """``validate`` (the check against ``tool_call_schema``, or ``jsonschema``), made to follow the LangChain tool's
    own validation as the module docstring says. ``schema``: the arguments' JSON Schema the model is shown, which
    words the errors of the check against the tool's own ``args_schema`` (see :func:`pydantic_validator`).

    Returns:
        ``check(args) -> dict``: the arguments as given, to hand to the LangChain tool.

    Raises:
        ToolValidationError: (the returned function) the arguments are refused: toolwire's text for them (``validate``'s
            for an injected argument's name, which the caller explains).
    """
    declared = getattr(getattr(lc_tool, "args_schema", None), "model_fields", None)
    hidden = {key for key in declared if key not in visible} if isinstance(declared, dict) else set()
    refused_by_langchain = _langchain_refusal(lc_tool, visible, fixed)
    real = _real_model_check(lc_tool, visible, fixed, name, schema)
    handled = getattr(lc_tool, "handle_validation_error", False) not in (False, None)
    if real is None and not handled:
        return validate

    def check(args: Any) -> dict[str, Any]:
        if isinstance(args, Mapping) and hidden.intersection(args):  # an injected argument given: always refused
            return validate(args)
        try:
            return (real or validate)(args)
        except ToolValidationError:
            if not handled or not isinstance(args, Mapping) or not refused_by_langchain(args):
                raise
        # LangChain's tool answers them with its handle_validation_error (as it runs them itself)
        return dict(args)

    return check


def _langchain_refusal(lc_tool: Any, visible: set[str],
                       fixed: Mapping[str, Any]) -> Callable[[Mapping[str, Any]], bool]:
    """``refuses(args)``: whether the LangChain tool's own ``args_schema`` refuses ``args`` (so its
    ``handle_validation_error`` would answer them), its injected arguments given their values (``fixed``; the call's
    id for ``InjectedToolCallId``) and errors about an injected argument left without a value not counted. Always True
    for a schema that is not a pydantic model (LangChain then decides); a ``pydantic.v1`` one is asked too."""
    from pydantic import BaseModel, ValidationError

    from toolwire._schema_params import is_v1_model

    model = getattr(lc_tool, "args_schema", None)
    if isinstance(model, type) and is_v1_model(model):
        return _v1_refusal(model, visible, fixed)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return lambda args: True
    fields = dict(getattr(model, "model_fields", {}) or {})
    hidden = {key: field for key, field in fields.items() if key not in visible}
    names = {key: field.alias or key for key, field in hidden.items()}
    filled = {names[key]: value for key, value in fixed.items() if key in hidden}
    from toolwire._tool_checks import langchain_marker

    call_ids = [names[key] for key, field in hidden.items()
                if "call_id" in {langchain_marker(m) for m in field.metadata}]
    unfilled = set(names.values()) - set(filled) - set(call_ids)

    def refuses(args: Mapping[str, Any]) -> bool:
        from toolwire._tool_run import current_call_id

        try:
            model.model_validate({**dict(args), **filled, **dict.fromkeys(call_ids, current_call_id() or "call_id")})
        except ValidationError as exc:
            return any(not error["loc"] or error["loc"][0] not in unfilled for error in exc.errors())
        except Exception:  # a validator of the tool's own that fails otherwise: LangChain's tool meets it too
            return True
        return False

    return refuses


def v1_validator(lc_tool: Any, parameters: Mapping[str, Any], fixed: Mapping[str, Any],
                 name: str) -> Callable[[Any], dict[str, Any]] | None:
    """The check of the arguments of a LangChain tool whose ``args_schema`` is a ``pydantic.v1`` model, against that
    model as LangChain's tool checks them (its lax coercion, ``"3"`` for an ``int``, and its validators; review 217
    #3: they were checked with ``jsonschema``), plus toolwire's own rules: a key no field declares is refused unless
    the model's ``Config`` sets ``extra`` to ``"allow"`` or ``"ignore"``, and a boolean for a number is refused.
    The keys are judged by the model itself (review 225 #4): its ``pre`` root validators run first (one that maps a
    legacy key to a field takes it), a field's own name counts under ``allow_population_by_field_name``, and only
    what is left over after that is refused (checked by a subclass whose ``Config.extra`` is ``"forbid"`` when the
    model sets no ``extra`` of its own). A key of an injected argument is always refused. None when the
    ``args_schema`` is no ``pydantic.v1`` model.

    Returns:
        ``validate(args) -> dict``: the arguments as given (LangChain's tool validates them again).

    Raises:
        ToolValidationError: (the returned function) one message naming each bad field; it never quotes an
            injected argument's value (``fixed``).
    """
    from toolwire._schema_params import is_v1_model
    from toolwire._tool_args import hide_values

    model = getattr(lc_tool, "args_schema", None)
    if not (isinstance(model, type) and is_v1_model(model)):
        return None
    from pydantic.v1 import ValidationError as V1ValidationError

    from toolwire._printing import safe_text

    props = parameters.get("properties") or {}
    shown = list(props)
    fields = dict(model.__fields__)
    hidden = {field.alias for key, field in fields.items() if field.alias not in props and key not in props}
    filled = {fields[key].alias: value for key, value in fixed.items() if key in fields}
    injected = hidden | {key for key, field in fields.items() if field.alias in hidden}
    checked = _v1_forbidding(model)
    numbers = {key for key, prop in props.items() if isinstance(prop, Mapping) and prop.get("type") in (
        "integer", "number")}

    def unknown_key(key: str, args: Mapping[str, Any]) -> str:
        got = f" (got {safe_text(args[key])[:80]})" if key in args else ""
        return f"'{key}' is not a parameter of this tool{got}"

    def validate(args: Any) -> dict[str, Any]:
        args = dict(args)
        problems, unknown = [], False
        for key, value in args.items():
            if key in injected:  # the application's to give, never the model's
                unknown = True
                problems.append(unknown_key(key, args))
            elif key in numbers and isinstance(value, bool):
                problems.append(f"'{key}': Input should be a number, not a boolean (got {value})")
        if not problems:
            try:
                checked.parse_obj({**args, **filled})
            except V1ValidationError as exc:
                for error in exc.errors():
                    loc = tuple(error.get("loc") or ())
                    if loc and loc[0] in hidden and loc[0] not in filled:  # (LangChain's to fill, not the model's)
                        continue
                    if len(loc) == 1 and error.get("type") == "value_error.extra":  # left over after the model
                        unknown = True
                        problems.append(unknown_key(str(loc[0]), args))
                        continue
                    problems.append(f"'{'.'.join(map(str, loc)) or '(arguments)'}': {error.get('msg')}")
        if not problems:
            return args
        text = f"Invalid arguments for tool '{name}': " + "; ".join(problems) + "."
        if unknown and shown:
            text += f" Its parameters are: {', '.join(shown)}."
        raise ToolValidationError(hide_values(text, filled), name)

    return validate


def _v1_forbidding(model: Any) -> Any:
    """``model`` (a ``pydantic.v1`` model class) with ``Config.extra = "forbid"`` when it sets no ``extra`` of its
    own (a subclass; the model itself when it cannot be subclassed), so that a key left over after its ``pre`` root
    validators and its fields (by alias, or by name under ``allow_population_by_field_name``) is an error."""
    from pydantic.v1 import BaseConfig, Extra

    # (the model's __config__ is merged from its own Config and its bases', so the setting is looked for in each)
    if any("extra" in vars(config) for config in model.__config__.__mro__ if config not in (BaseConfig, object)):
        return model

    try:
        return type(model.__name__, (model,), {"__module__": model.__module__,
                                               "Config": type("Config", (), {"extra": Extra.forbid})})
    except Exception:  # a model that cannot be subclassed: its own judgement alone
        return model


def _v1_refusal(model: Any, visible: set[str], fixed: Mapping[str, Any]) -> Callable[[Mapping[str, Any]], bool]:
    """:func:`_langchain_refusal` for a ``pydantic.v1`` ``args_schema``."""
    from pydantic.v1 import ValidationError as V1ValidationError

    fields = dict(model.__fields__)
    filled = {fields[key].alias: value for key, value in fixed.items() if key in fields}
    unfilled = {field.alias for key, field in fields.items() if key not in visible and field.alias not in visible
                } - set(filled)

    def refuses(args: Mapping[str, Any]) -> bool:
        try:
            model.parse_obj({**dict(args), **filled})
        except V1ValidationError as exc:
            return any(not error["loc"] or error["loc"][0] not in unfilled for error in exc.errors())
        except Exception:  # a validator of the tool's own that fails otherwise: LangChain's tool meets it too
            return True
        return False

    return refuses
