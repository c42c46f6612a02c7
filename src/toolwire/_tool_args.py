"""Checking a tool call's arguments: the steps :class:`~toolwire.tools.Tool` runs before it calls the function.

Kept apart from :mod:`toolwire.tools` so that the module stays short; :class:`ToolArguments` is a mixin of
:class:`~toolwire.tools.Tool` (no state of its own), and its methods are documented as ``Tool``'s.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from toolwire._call_records import _copy_containers
from toolwire._tool_calls import ArgumentTextError
from toolwire._tool_checks import unbound_method_error
from toolwire.errors import ToolCallParseError, ToolValidationError, UserError
from toolwire.parsing.arguments import JsonStringPlan, decode_json_strings, json_string_plan
from toolwire.schema import drop_defaulted_nulls

__all__ = ["ToolArguments", "hide_injected_fields"]

_CONTAINERS = (dict, list)


class ToolArguments:
    """How a :class:`~toolwire.tools.Tool` checks arguments (:meth:`validate_args`, :meth:`call_args`)."""

    __slots__ = ()

    # set by Tool.__init__ (its __slots__)
    name: str
    func: Callable[..., Any]
    parameters: dict[str, Any]
    _json_plan: JsonStringPlan | bool | None
    _method: str | None
    _null_plan: Any
    _positional_only: tuple[str, ...]
    _source: tuple[str, Any] | None
    _validate: Callable[[Mapping[str, Any]], dict[str, Any]]

    # -- the shared steps of a call (no I/O) --------------------------------------------------------

    def validate_args(self, args: Mapping[str, Any] | str | None) -> dict[str, Any]:
        """Check ``args`` against the schema and return the keyword arguments for the function.

        A single string is taken as the value of the tool's first parameter when its other parameters are optional
        (they keep their defaults), then checked as usual, as LangChain's ``BaseTool._parse_input`` takes it; for a
        tool with no parameter, or with another required one, the error says to pass a dict of arguments (and names
        the required ones). A ``null`` for a parameter
        (or a field of a nested object) that has a default but does not accept None is dropped, so the
        default applies.

        Raises:
            ToolValidationError: the message names each bad field, what was expected and what came.
            UserError: the tool is a method (``self`` first) read from its class, not from an instance
                (``Svc.m`` rather than ``Svc().m``): the message says to call it on an instance; or it takes
                LangChain's ``InjectedToolCallId`` without a default and is validated outside a tool call (with
                its arguments alone), so there is no call id to fill in.
        """
        if self._method == "self" and "self" not in self.parameters.get("properties", ()):
            raise unbound_method_error(self.name, self.func)
        if args is None:
            args = {}
        elif type(args) is not dict and not isinstance(args, Mapping):  # (the type test skips the ABC check)
            props = self.parameters.get("properties", {})
            if isinstance(args, str) and props and set(self.parameters.get("required") or ()) <= {next(iter(props))}:
                args = {next(iter(props)): args}  # LangChain's BaseTool._parse_input: the first parameter, the others
                # left to their defaults (a required one would fail there too)
            elif isinstance(args, str):
                raise ToolValidationError(_bare_string_error(self.name, self.parameters), self.name)
            else:
                raise ToolValidationError(f"Invalid arguments for tool '{self.name}': expected a JSON object of named "
                                          f"arguments, got {type(args).__name__}.", self.name)
        if self._null_plan is not None:
            args = drop_defaulted_nulls(args, self._null_plan)
        return self._validate(args)

    def call_args(self, args: Any) -> dict[str, Any]:
        """Check the ``args`` of a tool call (as a model sent them) and return the keyword arguments.

        Unlike :meth:`validate_args`, a string is always read as the argument JSON text (with
        :func:`toolwire.parsing.arguments.normalize_arguments`), never as the value of a lone parameter:
        ``"[1, 2]"`` is an error, not the string ``"[1, 2]"``.

        In a dict of arguments, a string value whose schema wants an object or an array (and not a
        string) is decoded when it holds JSON of that kind, as ``normalize_arguments`` does for argument
        text: providers that send arguments as an object (Anthropic's ``input``) sometimes JSON-encode a
        nested one, ``{"addr": "{\"street\": \"Main\"}"}``
        (:func:`toolwire.parsing.arguments.decode_json_strings`).

        Raises:
            ToolValidationError: the arguments are not a JSON object (text, or a Python list or number:
                :class:`~toolwire._tool_calls.ArgumentTextError`), or do not match the schema, or nest too deeply.
            UserError: the tool is a method read from its class (see :meth:`validate_args`).
        """
        try:
            if type(args) is dict:
                plan = self._json_plan
                if plan is False:  # not at decoration time: most tools are made far more often than called
                    plan = self._json_plan = json_string_plan(self.parameters)
                if isinstance(plan, dict):  # None: no parameter wants an object or array
                    try:
                        args = decode_json_strings(args, plan, refuse_repeated_keys=True)
                    except ToolCallParseError as exc:  # a key given twice in an object sent as JSON text
                        raise ToolValidationError(f"Invalid arguments for tool '{self.name}': {exc}",
                                                  self.name) from None
                for value in args.values():  # pydantic passes an Any (or dict[str, Any]) value on as it is: a tool
                    if type(value) in _CONTAINERS:  # changing it would rewrite the model's recorded call (review 31)
                        args = _copy_containers(args)
                        break
            elif isinstance(args, str | bytes | bytearray):
                from toolwire.parsing.arguments import EXAMPLE, normalize_arguments

                try:
                    args = normalize_arguments(args, self.parameters, tool_name=self.name)
                except ToolCallParseError as exc:  # the error's example object is this tool's (review 61)
                    text = str(exc).replace(EXAMPLE, argument_example(self.parameters))
                    text = f"Invalid arguments for tool '{self.name}': {text}"
                    if isinstance(exc.raw, dict):  # an object read, then refused (a call of another tool): as it is
                        raise ToolValidationError(text, self.name) from None
                    raise ArgumentTextError(text, self.name, raw=args) from None  # (answered as ToolExecutor: 262 #3)
            elif args is not None and not isinstance(args, Mapping):  # a Python list or number: as text (r. 269 #3)
                raise ArgumentTextError(f"Invalid arguments for tool '{self.name}': expected a JSON object of named "
                                        f"arguments, got {type(args).__name__}.", self.name, raw=args)
            return self.validate_args(args)
        except RecursionError:  # arguments built deeper than Python recurses (review 76: "tool raised RecursionError")
            raise ToolValidationError(f"Invalid arguments for tool '{self.name}': they are nested too deeply to read; "
                                      f"send a flatter JSON object such as {argument_example(self.parameters)}.",
                                      self.name) from None

    # -- LangChain's schema accessors ----------------------------------------------------------------

    @property
    def args(self) -> dict[str, Any]:
        """The parameters' schemas by name (the ``properties`` of :attr:`parameters`)."""
        return self.parameters.get("properties", {})  # type: ignore[no-any-return]

    @property
    def args_schema(self) -> type[BaseModel] | None:
        """The pydantic model class given as ``args_schema`` (``@tool(args_schema=Model)``), as LangChain's
        ``BaseTool.args_schema`` gives it; read-only.

        None for a tool made from a function's signature (toolwire validates its arguments without a model
        class) or from a JSON Schema (:meth:`from_schema`, MCP and LangChain tools): :attr:`parameters` is
        every tool's JSON Schema.
        """
        source = self._source
        return source[1][0] if source is not None and source[0] == "function" else None  # type: ignore[no-any-return]

    @property
    def tool_call_schema(self) -> type[BaseModel]:
        """The pydantic model class of the arguments a model sends, as LangChain's ``BaseTool.tool_call_schema``
        (``langchain_core/tools/base.py``): a class named after the tool, whose ``model_json_schema()`` describes the
        arguments of :attr:`parameters` with the tool's name as ``title`` and its description as ``description``, and
        whose ``model_validate(args)`` checks them. Made on first use and kept (see :mod:`toolwire._tool_model`);
        injected arguments (``InjectedToolCallId``), which toolwire fills itself, are not fields, as in LangChain.

        Returns:
            A subclass of the ``args_schema`` model given to the tool (its fields and validators) when its fields are
            the tool's parameters, else a model made from the tool's JSON Schema that checks arguments as
            ``invoke(args)`` does (every tool has one: ``Tool.from_schema``, MCP and LangChain tools too; LangChain
            gives a dict ``args_schema`` back as the dict with the description, toolwire a model of it).
        """
        from toolwire._tool_model import input_model

        return input_model(self)  # type: ignore[arg-type]

    def get_input_schema(self, config: Any = None) -> type[BaseModel]:
        """The pydantic model class of the tool's input, as LangChain's ``BaseTool.get_input_schema(config)``.

        Args:
            config: LangChain's ``RunnableConfig``, which ``BaseTool.get_input_schema`` does not read either:
                ignored.

        Returns:
            The ``args_schema`` model itself when the tool was given one (a pydantic class), as LangChain returns it;
            else the same class as :attr:`tool_call_schema` (a toolwire tool's input is the arguments a model sends:
            an injected argument is filled by toolwire, never passed in). LangChain makes a model of the function's
            whole signature there, injected arguments included.
        """
        given = getattr(self, "args_schema", None)
        if isinstance(given, type) and issubclass(given, BaseModel):
            return given
        return self.tool_call_schema

    # -- LangChain's older entry points -------------------------------------------------------------------

    def run(self, tool_input: Any, verbose: bool | None = None, start_color: str | None = None,
            color: str | None = None, callbacks: Any = None, *, tool_call_id: str | None = None,
            **kwargs: Any) -> Any:
        """LangChain's ``BaseTool.run`` (older tutorials call it): run the tool on ``tool_input``, a dict of
        arguments or a bare string (see ``invoke``).

        Args:
            tool_input: the arguments.
            tool_call_id: when given, the result comes back as a :class:`~toolwire.messages.ToolMessage` answering
                that call, as LangChain's ``run`` gives one.
            verbose, start_color, color: LangChain's console printing (in its positions), which toolwire has not:
                taken and not used (they change no result).
            callbacks, kwargs: LangChain's tracing (``callbacks``, ``tags``, ``metadata``, ``run_name``, ``run_id``,
                ``config``), which toolwire has none of: a value that is not empty (None, False, ``{}``, ``[]``) is
                refused; so is any other keyword given a value (a misspelled ``tool_call_id``: the close match is
                named).

        Returns:
            What ``invoke(tool_input)`` returns; with ``tool_call_id``, what ``invoke`` returns for that tool call.

        Raises:
            UserError: a LangChain-only option, or an unknown keyword, was given a value.
            ToolValidationError, the tool's own exception: as ``invoke`` raises them.
        """
        _refuse_run_options("run", {"callbacks": callbacks, **kwargs})
        if tool_call_id is not None:
            call = {"name": self.name, "args": tool_input, "id": tool_call_id, "type": "tool_call"}  # type: ignore[attr-defined]
            return self.invoke(call)  # type: ignore[attr-defined]
        return self.invoke(tool_input)  # type: ignore[attr-defined]

    async def arun(self, tool_input: Any, verbose: bool | None = None, start_color: str | None = None,
                   color: str | None = None, callbacks: Any = None, *, tool_call_id: str | None = None,
                   **kwargs: Any) -> Any:
        """Async :meth:`run` (LangChain's ``BaseTool.arun``), through ``ainvoke``; the same arguments."""
        _refuse_run_options("arun", {"callbacks": callbacks, **kwargs})
        if tool_call_id is not None:
            call = {"name": self.name, "args": tool_input, "id": tool_call_id, "type": "tool_call"}  # type: ignore[attr-defined]
            return await self.ainvoke(call)  # type: ignore[attr-defined]
        return await self.ainvoke(tool_input)  # type: ignore[attr-defined]

    def _positional(self, kwargs: dict[str, Any]) -> list[Any]:
        """The positional-only arguments, in order, taken out of ``kwargs``: one left out before one given gets
        its default from the signature (``f(a=1, b=2, /)`` called with ``b`` alone is ``f(1, b)``)."""
        names = self._positional_only
        last = max((i for i, n in enumerate(names) if n in kwargs), default=-1)
        if last < 0:
            return []
        if any(n not in kwargs for n in names[:last]):
            parameters = inspect.signature(self.func).parameters
            return [kwargs.pop(n) if n in kwargs else parameters[n].default for n in names[:last + 1]]
        return [kwargs.pop(n) for n in names[:last + 1]]

    def _arguments(self, given: Any) -> dict[str, Any]:
        """:meth:`validate_args` for :meth:`invoke` and :meth:`ainvoke` given arguments, whose error says how to pass
        a tool call when ``given`` looks like one without its ``"type"`` (review 52)."""
        try:
            return self.validate_args(given)
        except ToolValidationError as exc:
            if (hinted := _untyped_call_hint(exc, given, self.parameters)) is None:
                raise
            raise hinted from exc.__cause__


_PLACEHOLDERS = {"string": "<text>", "integer": "<integer>", "number": "<number>", "boolean": "<true or false>",
                 "array": "[...]", "object": "{...}", "null": "null"}


def argument_example(parameters: Mapping[str, Any], most: int = 3) -> str:
    """The shape of a tool's arguments object for an error message: its required parameters (else its first ones),
    at most ``most``, each with a placeholder of its JSON type, ``{"a": <integer>, "b": <integer>}``; ``{}`` for a
    tool without parameters. Placeholders rather than values: a small model copies an example's values (review 61:
    every tool's errors showed ``{"city": "Paris"}``)."""
    props = parameters.get("properties") or {}
    if not isinstance(props, Mapping) or not props:
        return "{}"
    required = [n for n in parameters.get("required") or () if n in props]
    names = (required or list(props))[:most]
    parts = []
    for name in names:
        kind = props[name].get("type") if isinstance(props[name], Mapping) else None
        kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
        parts.append(f"{json.dumps(name)}: {_PLACEHOLDERS.get(kind, '...') if isinstance(kind, str) else '...'}")
    more = ", ..." if len(props) > len(names) and not required else ""
    return "{" + ", ".join(parts) + more + "}"


_LANGCHAIN_RUN = frozenset({"callbacks", "callback_manager", "tags", "metadata", "run_name", "run_id", "config"})
"""The tracing options of LangChain's ``BaseTool.run``/``arun`` (``langchain_core/tools/base.py``), which toolwire has
no part for."""
_RUN_OWN = ("tool_call_id", "tool_input", "verbose", "start_color", "color")  # what run/arun take by keyword


def _refuse_run_options(method: str, options: dict[str, Any]) -> None:
    """Refuse, in one sentence, a keyword ``run``/``arun`` does not know (``tool_call_di="c1"``: its close match is
    named, review 234 #1), or a LangChain ``run``/``arun`` tracing option given a value (``callbacks=[...]``,
    ``tags=[...]``): toolwire has no callbacks or run metadata, and ignoring them would hide that. An empty value
    (None, False, ``{}``, ``[]``: what LangChain's own defaults pass) is taken and ignored."""
    given = sorted(k for k, v in options.items() if v is not None and v is not False and v != {} and v != [])
    if not given:
        return
    if unknown := [k for k in given if k not in _LANGCHAIN_RUN]:
        import difflib

        from toolwire._keywords import CLOSE

        close = difflib.get_close_matches(str(unknown[0]), _RUN_OWN, n=1, cutoff=CLOSE)
        hint = f"did you mean {close[0]!r}?" if close else (
            f"leave it out ({method} takes the input, and tool_call_id= for a ToolMessage answering that call).")
        raise UserError(f"Unknown Tool.{method}() option {unknown[0]!r}: {hint}")
    raise UserError(f"Tool.{method}() takes the input (and tool_call_id); {', '.join(given)} "
                    f"{'is' if len(given) == 1 else 'are'} LangChain's, which toolwire has no part for: leave "
                    f"{'it' if len(given) == 1 else 'them'} out.")


def _bare_string_error(name: str, parameters: Mapping[str, Any]) -> str:
    """The error for a bare string given as the arguments of a tool with no parameter, or with a required one besides
    its first: LangChain's ``BaseTool._parse_input`` puts a string in a tool's first parameter, which leaves the
    others to their defaults, so toolwire takes one only when the others have defaults."""
    props = list(parameters.get("properties") or ())
    start = (f"Invalid arguments for tool '{name}': a bare string fills a tool's first parameter only when its other "
             "parameters are optional")
    if not props:
        return f"{start}, and this one has no parameter: pass an empty dict of arguments, {{}}."
    required = [p for p in props[1:] if p in (parameters.get("required") or ())]
    listed = ", ".join(required[:5]) + (", ..." if len(required) > 5 else "")
    return f"{start}, and this one also requires {listed}: pass a dict of arguments, {argument_example(parameters)}."


def _untyped_call_hint(exc: ToolValidationError, given: Any,
                       parameters: Mapping[str, Any]) -> ToolValidationError | None:
    """``exc`` with a last sentence saying how to pass a tool call, when ``given`` has a call's keys (``name``,
    ``args``, ``id``) but not ``"type": "tool_call"`` and so was read as the tool's arguments (review 52); else None
    (also for a tool whose own parameters include ``name`` or ``args``: then they are its arguments)."""
    if not (isinstance(given, Mapping) and "type" not in given and {"name", "args"} <= given.keys()
            <= {"name", "args", "id"}):
        return None
    if {"name", "args"} & set(parameters.get("properties") or ()):
        return None
    return ToolValidationError(f"{exc} To pass a tool call rather than arguments, add \"type\": \"tool_call\" to "
                               "it.", exc.tool_name, exc.tool_call_id)


_Path = tuple[str | int, ...]


def _accepted_paths(name: str, info: Any, config: Mapping[str, Any]) -> list[_Path]:
    """Every way pydantic takes a value for the field ``name`` of a model with ``config``: its name (when it has no
    alias, or population by name is on), its ``validation_alias`` (else ``alias``) or each of its ``AliasChoices``,
    a ``(key, key or index, ...)`` path for an ``AliasPath`` (review 144 #7: the Python name was not checked)."""
    from pydantic import AliasChoices, AliasPath

    alias = info.validation_alias if info.validation_alias is not None else info.alias
    by_alias = config.get("validate_by_alias") is not False
    paths: list[_Path] = []
    if alias is not None and by_alias:
        for choice in alias.choices if isinstance(alias, AliasChoices) else [alias]:
            path = tuple(choice.path) if isinstance(choice, AliasPath) else (choice,)
            if path and path not in paths:
                paths.append(path)
    if (alias is None or not by_alias or config.get("validate_by_name") or config.get("populate_by_name")) and (
            (name,) not in paths):
        paths.append((name,))
    return paths


def _found(args: Mapping[str, Any], path: _Path) -> bool:
    """Whether ``args`` holds a value at ``path`` (keys of objects, indexes of arrays), as pydantic reads it."""
    value: Any = args
    for step in path:
        key = isinstance(step, str) and isinstance(value, Mapping) and step in value
        index = isinstance(step, int) and isinstance(value, list | tuple) and -len(value) <= step < len(value)
        if not (key or index):
            return False
        value = value[step]
    return True


def hide_injected_fields(schema: Any, model: type[BaseModel], tool_name: str, func: Any = None) -> Any:
    """``schema`` (the :class:`~toolwire.schema.FunctionSchema` of an ``args_schema`` model) without the fields
    LangChain fills rather than the model, treated as :func:`langchain_filled` treats such a parameter of a function
    (review 143 #3): a field ``Annotated[str, InjectedToolCallId]`` gets the id of the call being run, an
    ``Annotated[T, InjectedToolArg]`` one (LangGraph's ``InjectedState``...) keeps its default; neither is in the JSON
    Schema the model is sent under any key pydantic takes for it (its alias, each ``validation_alias`` choice, its
    name when population by name is on), nor in the parameters an error lists, and a call that sets one under any
    of those keys (or its Python name) is refused, saying how toolwire fills it (review 144 #7, #8). A field whose
    value ``func`` (a ``functools.partial``) binds by keyword, injected or not, is treated so too, and the partial's
    value is used: it is validated with the arguments, and left out of what the function is called with (review 217
    #2: the schema's default replaced it); an error never quotes it.

    Args:
        schema: what :func:`toolwire.schema.model_schema` made of ``model`` (its ``parameters`` are edited in place,
            so that its validator's errors list only what the model is shown). model: the ``args_schema`` class.
        tool_name: the tool's name, for the errors. func: the tool's function (read for a partial's keywords).

    Returns:
        ``schema`` itself when no field is injected or bound, else a copy with those fields out of its
        ``parameters`` and a ``validate`` that refuses them and fills them in.

    Raises:
        SchemaError: an injected field without a default (nor a value from the partial), other than
            ``InjectedToolCallId`` (as for a parameter); an injected or bound field one of whose keys also sets
            another field; an ``InjectedToolCallId`` or bound field taken through an ``AliasPath`` only.
    """
    import dataclasses
    import typing

    from toolwire._tool_checks import langchain_filled, langchain_marker, marker_name
    from toolwire.errors import SchemaError

    config = model.model_config
    fields = model.model_fields
    bound = {key: value for key, value in _bound_keywords(func).items() if key in fields}
    injected: dict[str, list[Any]] = {}
    for name, info in fields.items():
        markers = [m for m in info.metadata if langchain_marker(m) is not None]
        if markers or name in bound:
            injected[name] = markers
    if not injected:
        return schema
    others = {path: name for name, info in fields.items() if name not in injected
              for path in _accepted_paths(name, info, config)}
    shown_by_others = {path[0] for path in others if len(path) == 1} | {
        name for name, info in fields.items() if name not in injected
        and not any(len(p) == 1 for p in _accepted_paths(name, info, config))}
    refused: dict[_Path, str] = {}  # a path a call may not set -> the injected field's name
    fillers: dict[str, Callable[[], Any]] = {}  # the key the call's id is given under -> its filler
    given: dict[str, Any] = {}  # the key a bound field is validated under -> the partial's value
    fix: dict[str, str] = {}
    for name, markers in injected.items():
        info = fields[name]
        paths = _accepted_paths(name, info, config)
        for path in paths:
            clash = next((other for p, other in others.items() if p[:len(path)] == path), None)
            if clash is not None:
                raise SchemaError(f"Tool {tool_name!r}: field {name!r} of {model.__name__} is injected, but the key "
                                  f"{'.'.join(map(str, path))!r} it is set through also sets field {clash!r}, so the "
                                  "model could set it: give the two fields different keys.")
        for path in _accepted_paths(name, info, {"validate_by_name": True}):  # (also its name and aliases where
            if not any(p[:len(path)] == path for p in others):  # pydantic would not take them: extra="allow"
                refused.setdefault(path, name)  # would pass them on to the function, or the schema show them)
        if name in bound:  # the partial's value, validated with the arguments and passed by the partial itself
            key = next((p[0] for p in paths if len(p) == 1 and isinstance(p[0], str)), None)
            if key is None:
                raise SchemaError(f"Tool {tool_name!r}: field {name!r} of {model.__name__} is fixed by the tool's "
                                  "functools.partial but taken through an AliasPath only, where toolwire cannot put "
                                  "its value: give it a plain alias or validation_alias.")
            given[key] = bound[name]
            fix[name] = "is fixed by the tool's functools.partial."
            continue
        default = inspect.Parameter.empty if info.is_required() else info.get_default(call_default_factory=True)
        filled = langchain_filled(tool_name, name, typing.Annotated[(info.annotation, *markers)],  # type: ignore[misc]
                                  default)
        kind = marker_name(markers[0])
        if langchain_marker(markers[0]) == "call_id":
            key = next((p[0] for p in paths if len(p) == 1 and isinstance(p[0], str)), None)
            if key is None or filled is None:  # (filled is never None for InjectedToolCallId)
                raise SchemaError(f"Tool {tool_name!r}: the InjectedToolCallId field {name!r} of {model.__name__} is "
                                  "taken through an AliasPath only, where toolwire cannot put the call's id: give it "
                                  "a plain alias or validation_alias.")
            fillers[key] = filled
            fix[name] = "is the call's id (InjectedToolCallId), which toolwire fills from the tool call's \"id\"."
        else:
            fix[name] = (f"is injected ({kind}), which toolwire never reads from a call's arguments: it keeps its "
                         f"default in {model.__name__}.")
    hidden = {path[0] for path in refused if len(path) == 1 and path[0] not in shown_by_others}
    parameters = schema.parameters  # edited in place: model_schema's validator lists what it holds (review 144 #8)
    parameters["properties"] = {k: v for k, v in parameters.get("properties", {}).items() if k not in hidden}
    if "required" in parameters:
        parameters["required"] = [k for k in parameters["required"] if k not in hidden]
    inner = schema.validate

    def validate(args: Any) -> dict[str, Any]:
        if isinstance(args, Mapping):
            for path, name in refused.items():
                if _found(args, path):
                    key = ".".join(map(str, path))
                    raise ToolValidationError(f"Invalid arguments for tool '{tool_name}': '{key}' is not an argument "
                                              f"a call may set. '{key}' {fix[name]}", tool_name)
            args = {**args, **{key: fill() for key, fill in fillers.items()}, **given}
        if not bound:
            return inner(args)
        try:
            out = inner(args)
        except ToolValidationError as exc:  # (the partial's values never quoted to the model)
            raise ToolValidationError(hide_values(str(exc), {**given, **bound}), tool_name) from None
        return {key: value for key, value in out.items() if key not in bound}  # (the partial passes its own)

    return dataclasses.replace(schema, validate=validate)


def _bound_keywords(func: Any) -> dict[str, Any]:
    """The keyword arguments a ``functools.partial`` (or a chain of them) fixes, with their values (the outer
    partial's winning, as Python calls it)."""
    import functools

    chain = []
    while isinstance(func, functools.partial):
        chain.append(func)
        func = func.func
    out: dict[str, Any] = {}
    for part in reversed(chain):
        out.update(part.keywords)
    return out


HIDDEN_TEXT = "<hidden>"  # what an error shows in place of a value the model was not sent


def hide_values(text: str, hidden: Mapping[str, Any]) -> str:
    """``text`` (an error message going to the model) with the values of ``hidden`` (``{argument: value}``, arguments
    the model does not see: injected ones, a ``functools.partial``'s) written as ``<hidden>`` wherever quoted: an
    argument shown with its name (``'user_id': 42``); a text value as its ``repr``, and as itself when 8 or more
    characters long (a key or token, even inside a word, and its first or last 16 or more characters where it is
    shown cut short), or as a whole word when 4 to 7 long (``orders`` is
    hidden in "table orders", not in the tool name ``count_orders``: review 230 #1); a container's text values (the
    first 2,000), and its ``repr`` (for one of at most 200 values). A number, bool or ``None`` alone is left (it
    cannot be told from other text). Never raises an exception.

    Returns:
        The text, with those values hidden.
    """
    from toolwire._printing import safe_text

    found: list[str] = []  # quoted forms, replaced wherever they are
    bare: list[str] = []  # a short text value as itself: only as a whole word (not "count_orders" for "orders")

    def collect(value: Any, depth: int) -> None:
        if len(found) >= _MOST_HIDDEN:  # (a partial binding a huge catalog: review 230 #3)
            return
        if isinstance(value, str):
            found.append(repr(value))
            if len(value) >= 8:  # (a key or token, wherever it is: f"key_{api_key}" too)
                found.append(value)
            elif len(value) >= 4:
                bare.append(value)
        elif value is None or isinstance(value, (bool, int, float)) or depth > 3:
            return
        else:
            text = safe_text(value) if _small(value) else ""  # (a huge one's repr is never quoted whole)
            found.append("" if text == f"<{type(value).__name__}>" else text)
            for item in list(_items(value))[:100]:
                collect(item, depth + 1)

    pairs = {f"{key!r}: {safe_text(value)}": f"{key!r}: {HIDDEN_TEXT}" for key, value in hidden.items()
             if _small(value)}
    for pair, shown in pairs.items():
        text = text.replace(pair, shown)
    for value in hidden.values():
        collect(value, 0)
    longest_first = sorted({q for q in found if q}, key=lambda q: (-len(q), q))  # (one order whatever the hashes)
    for quoted in longest_first:
        text = text.replace(quoted, HIDDEN_TEXT)
    for long in [q for q in longest_first if len(q) >= _CUT_SHOWN and (q[:_CUT_SHOWN] in text
                                                                    or q[-_CUT_SHOWN:] in text)]:
        text = _hide_cut(text, long)
    words = sorted({w for w in bare if w in text}, key=len, reverse=True)
    if words:
        import re

        text = re.sub("|".join(rf"(?<!\w){re.escape(w)}(?!\w)" for w in words), HIDDEN_TEXT, text)
    return text


_CUT_SHOWN = 16
"""How many leading characters of a long hidden value, shown cut short (pydantic's and toolwire's ``(got '...')``
quote a value's first 80 characters), are hidden as the value: review 232 #4."""


def _hide_cut(text: str, value: str) -> str:
    """``text`` with every run of ``value``'s first, or last, :data:`_CUT_SHOWN` or more characters written
    ``<hidden>`` (pydantic cuts a long value in its middle: ``'eyJhbG...NTY3ODkw'``, review 233 #1)."""
    out, at = [], 0
    while (start := text.find(value[:_CUT_SHOWN], at)) >= 0:
        end, k = start + _CUT_SHOWN, _CUT_SHOWN
        while end < len(text) and k < len(value) and text[end] == value[k]:
            end, k = end + 1, k + 1
        out.append(text[at:start] + HIDDEN_TEXT)
        at = end
    text = "".join(out) + text[at:]
    out, at = [], 0
    while (start := text.find(value[-_CUT_SHOWN:], at)) >= 0:
        end, first, k = start + _CUT_SHOWN, start, len(value) - _CUT_SHOWN
        while first > at and k > 0 and text[first - 1] == value[k - 1]:
            first, k = first - 1, k - 1
        out.append(text[at:first] + HIDDEN_TEXT)
        at = end
    return "".join(out) + text[at:]


def _items(value: Any) -> Any:
    """A container's values: a mapping's values, a list's or tuple's items; nothing for anything else."""
    return value.values() if isinstance(value, Mapping) else value if isinstance(value, (list, tuple)) else ()


def _small(value: Any, budget: int = 200) -> bool:
    """Whether ``value`` holds at most ``budget`` values, its nested containers' included (counted without
    building its ``repr``, which for a huge bound catalog takes seconds: review 230 #3)."""
    todo = [value]
    while todo:
        budget -= 1
        if budget < 0:
            return False
        item = todo.pop()
        if isinstance(item, Mapping | list | tuple):
            if len(item) > budget:
                return False
            todo.extend(_items(item))
    return True


_MOST_HIDDEN = 2000
"""The most values :func:`hide_values` collects from one set of hidden arguments (a container's items included):
past it, a huge bound value's deeper items are not searched for, so a failing call costs milliseconds, not seconds."""
