"""Checks made when a tool is defined, so that a mistake shows at decoration time rather than on every call.

Errors (:class:`~toolwire.errors.SchemaError`) for what cannot work; warnings
(:class:`~toolwire.errors.ToolDefinitionWarning`, once, pointing at the user's code) for what works in Python but
that the model or a provider cannot use as written (review 24, finding 5).
"""

from __future__ import annotations

import functools
import inspect
import re
import types
import typing
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from toolwire._json_type_errors import tool_runtime
from toolwire._warn_site import warn_user
from toolwire.errors import SchemaError, ToolDefinitionWarning, UserError

__all__ = [
    "NAME_RE",
    "SET_CHECKED",
    "ascii_name",
    "check_fields_taken",
    "check_name",
    "check_subclass",
    "check_tool",
    "checked_attribute",
    "explain_injected",
    "injected_guard",
    "injected_kinds",
    "langchain_filled",
    "langchain_marker",
    "marker_name",
    "unbound_method_error",
    "valid_name",
    "warn_dropped_params",
    "warn_provider_name",
    "warn_undocumented",
    "warn_unknown_documented",
]

NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""The tool names toolwire accepts: the rule of the OpenAI and Anthropic APIs."""


def check_description(name: str, description: Any, *, required: bool = False) -> None:
    """Refuse a ``description=`` given empty or blank (only whitespace), or not text (``description=5``), for the
    tool ``name``, the same way for :meth:`Tool.from_function <toolwire.tools.Tool.from_function>` (``@tool``) and
    :meth:`Tool.from_schema <toolwire.tools.Tool.from_schema>`, naming ``description=`` and not a docstring (review
    157 #4; a number or a list went to the provider as the description: review 170 #2).

    Args:
        name: the tool's name, for the message.
        description: the value given; None (left out) passes unless ``required``.
        required: True where there is no docstring to fall back on (``from_schema``): None is refused too.

    Raises:
        SchemaError: the description is blank or not text, or (``required``) None.
    """
    if isinstance(description, str):
        if description.strip():
            return
        what = "is empty (only whitespace)" if description else "is empty"
    elif description is not None:
        raise SchemaError(f"The description of tool {name!r} must be text, not {type(description).__name__}: pass "
                          "description='...', a sentence saying what the tool does.")
    elif required:
        what = "is None, not text"
    else:  # None: the docstring's summary is used
        return
    advice = "" if required else ", or leave it out to use the docstring's summary"
    raise SchemaError(f"Tool {name!r} has no description: description= {what}; pass a sentence saying what the tool "
                      f"does{advice}.")


def check_name(name: str, taken: Collection[str] = ()) -> str:
    """Return ``name`` if it is a valid tool name (:data:`NAME_RE`), else raise :class:`SchemaError` saying how to
    fix it; for a name with letters beyond ASCII, the ASCII name suggested is not one of ``taken`` (the names of the
    other tools of the same set, where known: ``preco_2`` when ``preco`` is one; review 286 #7)."""
    if name == "<lambda>":  # a lambda's __name__ (review 52)
        raise SchemaError("A lambda has no name or docstring to make a tool from: use Tool.from_function(func, "
                          "name=\"...\", description=\"...\"), or write a def with a docstring.")
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):  # fullmatch: "$" would allow a final "\n"
        raise SchemaError(
            f"Tool name {name!r} is not allowed: use 1 to 64 ASCII letters, digits, '_' or '-' "
            f"(the rule of the OpenAI and Anthropic APIs){_ascii_advice(name, taken)}."
        )
    return name


def _ascii_advice(name: Any, taken: Collection[str] = ()) -> str:
    """The end of :func:`check_name`'s message for a name with letters beyond ASCII (``calcular_preço``, legal in
    Python): the ASCII name to give, not one of ``taken`` (:func:`free_name`), and how a function keeps its own
    (review 282 #3); "" for any other name."""
    if not isinstance(name, str) or name.isascii() or len(name) > 64:
        return ""
    plain = free_name(ascii_name(name), taken)
    if not plain:  # (no letter has an ASCII form: 天気)
        return "; a function keeps its Python name with @tool(name=\"...\") given such a name"
    return f", such as {plain!r} (a function keeps its Python name with @tool(name=\"{plain}\"))"


def ascii_name(name: str) -> str:
    """An ASCII form of ``name`` to suggest as a tool name: its accents dropped (``calcular_preço`` ->
    ``calcular_preco``, full-width ``ｘ`` -> ``x``), each run of other characters it cannot hold written ``_``
    (``Straße`` -> ``Stra_e``), without ``_`` or ``-`` at its ends, cut to 64 characters.

    Returns:
        The name (valid by :data:`NAME_RE`), or "" when none of its characters has an ASCII form (``天気``).
    """
    plain = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    return _BAD_RUNS.sub("_", plain).strip("_-")[:64]


def free_name(plain: str, taken: Collection[str]) -> str:
    """``plain`` (a valid tool name, or "") when it is not one of ``taken``, else the first of ``plain_2``,
    ``plain_3``... that is not (``plain`` cut so that the name stays within 64 characters); "" for ""."""
    number = 1
    name = plain
    while name and name in taken:
        number += 1
        name = f"{plain[:64 - len(str(number)) - 1]}_{number}"
    return name


def valid_name(name: str, fallback: str) -> str:
    """A tool name made from a name toolwire did not choose (an MCP tool's, a structured output's class or title).

    Args:
        name: the name wanted.
        fallback: the name to use when none of ``name``'s characters can stay (a valid tool name itself).

    Returns:
        ``name`` itself when it is valid (:data:`NAME_RE`); else ``name`` with its accents dropped (``Città`` ->
        ``Citta``) and each run of other characters a name cannot hold written ``_`` (``Page[Item]`` ->
        ``Page_Item``), without ``_`` at its ends, cut to 64 characters; ``fallback`` when nothing is left.
    """
    if NAME_RE.fullmatch(name):
        return name
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return _BAD_RUNS.sub("_", plain).strip("_")[:64] or fallback


_BAD_RUNS = re.compile(r"[^a-zA-Z0-9_-]+")


def _warn(message: str) -> None:
    """Issue a :class:`ToolDefinitionWarning` attributed to the first caller outside toolwire (the ``@tool`` line)."""
    warn_user(message, ToolDefinitionWarning)


def warn_provider_name(name: str, from_mcp: bool = False) -> None:
    """Warn when ``name`` (valid for toolwire, :func:`check_name`) is one Gemini refuses: Gemini's function names
    start with a letter or ``_`` (``^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$``), so ``1abc`` or ``-x`` fail there.
    ``from_mcp``: the tool is an MCP server's, which the user cannot rename: the fix named is a ``prefix``."""
    if name and not (name[0].isascii() and (name[0].isalpha() or name[0] == "_")):
        fix = ("the MCP server names it, so to use it with Gemini load the server's tools with a prefix that starts "
               "with a letter, such as load_tools(server, prefix='x_'), or leave the tool out") if from_mcp \
            else "rename the tool if it may be used with Gemini"  # (review 224 #5)
        _warn(f"Tool name {name!r} does not start with a letter or '_', so Gemini refuses it (OpenAI and Anthropic "
              f"accept it): {fix}.")


def warn_dropped_params(tool_name: str, names: Collection[str]) -> None:
    """Warn that the ``*args``/``**kwargs`` parameters ``names`` are not in the tool's schema: the model only
    sends the named arguments the schema lists, so they always stay empty."""
    if names:
        shown = " and ".join(names)
        _warn(f"Tool {tool_name!r} takes {shown}, which are left out of its schema, so the model can never pass "
              "them: give the function a named parameter for each value the model should send.")


def warn_unknown_documented(tool_name: str, documented: Iterable[str], params: Collection[str]) -> bool:
    """Warn about docstring parameter entries (``Args:``, ``:param:``...) naming no parameter of the function
    (a typo such as ``dayz`` for ``days``): their description never reaches the model. ``*args`` and
    ``**kwargs`` match their entries written with or without the stars.

    Returns:
        Whether it warned (then the parameters left without a description are not warned about again).
    """
    unknown = [name for name in documented if name.lstrip("*") not in params]
    if unknown:
        which = ", ".join(repr(name) for name in unknown)
        _warn(f"The docstring of tool {tool_name!r} describes {which}, which the function does not take "
              f"(its parameters: {', '.join(params) or 'none'}): fix the name so the model gets the description.")
    return bool(unknown)


def warn_unreadable_docstring(tool_name: str, why: str) -> None:
    """Warn that no docstring style could read the parameter section of tool ``tool_name``'s docstring (``why``:
    the parser's error, such as ``Expected a colon in 'q - the query text'``): its parameters reach the model with
    no description, and its description holds the whole docstring (review 147 #1)."""
    _warn(f"The docstring of tool {tool_name!r} could not be read ({why.rstrip('.')}), so its parameters get no "
          "description and the whole docstring is the tool's description: write each parameter entry as "
          "'name: text' (Google style) or ':param name: text'.")


def warn_undocumented(tool_name: str, names: Collection[str]) -> None:
    """Warn about parameters a docstring's parameter section (``Args:``, ``:param:``...) leaves out, when it
    describes others: they reach the model with no description, which smolagents refuses and LangChain's
    ``parse_docstring=True`` does too (review 109). A description from ``Annotated`` or ``Field`` counts."""
    if names:
        which = ", ".join(repr(name) for name in names)
        _warn(f"The docstring of tool {tool_name!r} describes some parameters but not {which}: add "
              f"{'an entry' if len(names) == 1 else 'entries'} for {'it' if len(names) == 1 else 'them'} to its "
              "parameter section (Args:, Parameters or :param:) so that the model gets a description.")


def unbound_method_error(tool_name: str, func: Any) -> UserError:
    """The error for a tool made from a method (``self`` first) called on its class rather than an instance."""
    owner = getattr(func, "__qualname__", "").rpartition(".")[0].rpartition(".")[2] or "TheClass"
    return UserError(f"Tool {tool_name!r} is a method of {owner}: call it on an instance, such as "
                     f"{owner}().{tool_name}.invoke(...), or give the Agent or executor the instance's tool.")


def check_fields_taken(func: Callable[..., Any], model: type[BaseModel], tool_name: str) -> None:
    """Refuse an ``args_schema`` whose fields ``func`` cannot take as keyword arguments, or that leaves out one
    of its required parameters: every call would fail with a TypeError the model cannot fix.

    Raises:
        SchemaError: the fields and the parameters do not match.
    """
    check_params_taken(func, set(model.model_fields), f"args_schema {model.__name__}", tool_name,
                       "give the model one field per keyword parameter of the function")


def check_params_taken(func: Callable[..., Any], fields: set[str], source: str, tool_name: str, advice: str) -> None:
    """Refuse argument names ``fields`` (from ``source``, named in the message) that ``func`` cannot take as keyword
    arguments, or that leave out one of its required parameters; ``advice`` ends the message.

    Raises:
        SchemaError: the fields and the parameters do not match.
    """
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):  # no signature to compare (some builtins): the call will tell
        return
    if params and params[0].name in ("self", "cls"):
        params = params[1:]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    taken = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    needed = {p.name for p in params if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    extra, missing = sorted(fields - taken), sorted(needed - fields)
    if extra or missing:
        what = "; ".join(filter(None, (f"fields it does not take: {', '.join(extra)}" if extra else "",
                                       f"required parameters it lacks: {', '.join(missing)}" if missing else "")))
        raise SchemaError(f"{source} does not match the function of tool '{tool_name}' ({what}); {advice}.")


def langchain_marker(marker: Any) -> str | None:
    """``"call_id"`` for LangChain's ``InjectedToolCallId`` (the class or an instance), ``"injected"`` for its
    ``InjectedToolArg`` and subclasses (LangGraph's ``InjectedState``, ``InjectedStore``), else None; read by class
    names and modules, so that langchain need not be imported."""
    cls = marker if isinstance(marker, type) else type(marker)
    kinds = [c.__name__ for c in getattr(cls, "__mro__", ()) if c.__module__.startswith("langchain_core")]
    return "call_id" if "InjectedToolCallId" in kinds else "injected" if "InjectedToolArg" in kinds else None


def marker_name(marker: Any) -> str:
    """How an error names a LangChain injection marker (the class or an instance): ``"InjectedToolArg"``,
    ``"LangGraph's InjectedState"`` (a marker of LangGraph's is named so)."""
    cls = marker if isinstance(marker, type) else type(marker)
    return ("LangGraph's " if cls.__module__.startswith("langgraph") else "") + cls.__name__


def _runnable_config(annotation: Any) -> bool:
    """Whether ``annotation`` is LangChain's ``RunnableConfig``, alone or in a union (``RunnableConfig | None``), or
    in a union LangChain v1's ``ToolRuntime`` (``ToolRuntime | None = None`` keeps its default: review 275 #7)."""
    if getattr(annotation, "__name__", None) == "RunnableConfig" and str(
            getattr(annotation, "__module__", "")).startswith("langchain_core"):
        return True
    if tool_runtime(annotation):
        return True
    # (attribute checks, not get_origin: this runs for every parameter of every @tool, which B3 times)
    return (type(annotation) is types.UnionType or getattr(annotation, "__origin__", None) is typing.Union) and any(
        map(_runnable_config, annotation.__args__))


def _call_id(tool_name: str, default: Any, key: str | None = None) -> Any:
    """The id of the call being run, for an ``InjectedToolCallId`` parameter (or ``key`` of ``**kwargs:
    Unpack[TD]``); outside a call (``tool.invoke(args)``) its default, and without one a :class:`UserError` (as
    LangChain refuses it: the parameter wants a text id), which tells a required key to be ``NotRequired`` (a key
    has no default: review 247 #6)."""
    from toolwire._tool_run import _CURRENT_CALL, current_call_id

    if _CURRENT_CALL.get() is not None:
        return current_call_id()
    if default is not inspect.Parameter.empty:
        return default
    fix = ("give that parameter a default" if key is None else
           f"make its key {key!r} NotRequired[...] in the TypedDict (it is then not passed outside a tool call)")
    raise UserError(f"Tool {tool_name!r} takes the id of its tool call (InjectedToolCallId): invoke it with a tool "
                    "call, {\"name\", \"args\", \"id\", \"type\": \"tool_call\"}, not with its arguments alone, or "
                    f"{fix}.")


def langchain_filled(tool_name: str, name: str, annotation: Any, default: Any) -> Callable[[], Any] | None:
    """How toolwire fills a parameter LangChain fills rather than the model, which the schema leaves out.

    A LangChain migrant's function may take ``tool_call_id: Annotated[str, InjectedToolCallId]`` (filled here with
    the id of the call being run, :func:`toolwire.current_tool_call`), an argument the application injects
    (``Annotated[T, InjectedToolArg]``, LangGraph's ``InjectedState``/``InjectedStore``) or ``config:
    RunnableConfig``; the last two have no source in toolwire, so they keep their default, and without one the tool
    is refused (review 74: the model was shown LangChain's whole ``RunnableConfig`` as a required argument).

    Args:
        tool_name: the tool's name, for the error. name: the parameter's name.
        annotation: its type hint (``Annotated`` kept). default: its default (``inspect.Parameter.empty``: none).

    Returns:
        None for a parameter the model fills (the usual case); else a function of no arguments giving its value
        for each call.

    Raises:
        SchemaError: an injected argument or ``RunnableConfig`` without a default.
    """
    if type(annotation) is type:  # str, int, a plain class: the usual case (RunnableConfig is a TypedDict)
        return None
    metadata = getattr(annotation, "__metadata__", None)  # Annotated[T, ...] (cheaper than get_origin)
    if metadata is not None:
        kinds = {langchain_marker(marker) for marker in metadata}
        if "call_id" in kinds:
            return functools.partial(_call_id, tool_name, default)
        injected = next((marker_name(m) for m in metadata if langchain_marker(m) == "injected"), "")
        annotation = annotation.__origin__
    else:
        injected = ""
    if not (injected or _runnable_config(annotation)):
        return None
    if default is not inspect.Parameter.empty:
        return lambda: default
    # (review 93: an InjectedState parameter was called "InjectedToolArg")
    runtime = any(map(tool_runtime, (annotation, *getattr(annotation, "__args__", ()))))
    what = ("LangChain's ToolRuntime" if not injected and runtime else
            "LangChain's RunnableConfig" if not injected else f"injected by LangGraph ({injected[12:]})"
            if injected.startswith("LangGraph's ") else f"injected by the application in LangChain ({injected})")
    raise SchemaError(f"Tool {tool_name!r}: parameter {name!r} is {what}, which toolwire has no value for: give it a "
                      f"default, or fix its value with functools.partial(func, {name}=...) before making the tool "
                      "(toolwire.current_tool_call() gives the call being run).")



def injected_kinds(func: Callable[..., Any], names: Iterable[str]) -> dict[str, str]:
    """``{name: what fills it}`` for the parameters of ``func`` among ``names`` that LangChain fills rather than the
    model (``"InjectedToolCallId"``, ``"InjectedToolArg"``, ``"LangGraph's InjectedState"``..., ``"RunnableConfig"``);
    read from its type hints, only when an error needs them (``{}`` when they cannot be read)."""
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception:  # a hint that cannot be resolved: no explanation, the original error stands
        return {}
    found: dict[str, str] = {}
    for name in names:
        hint = hints.get(name)
        for marker in getattr(hint, "__metadata__", ()):
            if langchain_marker(marker) is not None:
                found[name] = marker_name(marker)
                break
        else:
            if hint is not None and _runnable_config(hint.__origin__ if hasattr(hint, "__metadata__") else hint):
                found[name] = "RunnableConfig"
    return found


def explain_injected(message: str, kinds: dict[str, str], fix: Callable[[str, str], str]) -> str:
    """``message`` (a :class:`~toolwire.errors.ToolValidationError`'s, refusing arguments the call set) with each
    injected argument in ``kinds`` (``{name: what fills it}``) no longer called "not a parameter", and a sentence
    saying how toolwire fills it (``fix(name, kind)``), for a LangChain habit: setting an injected argument in
    ``tool_call["args"]`` (review 93)."""
    for name in kinds:
        message = message.replace(f"'{name}' is not a parameter of this tool",
                                  f"'{name}' is not an argument a call may set")
    return message + "".join(" " + fix(name, kind) for name, kind in kinds.items())


def _injected_fix(name: str, kind: str) -> str:
    if kind == "InjectedToolCallId":
        return f"'{name}' is the call's id (InjectedToolCallId), which toolwire fills from the tool call's \"id\"."
    what = "LangChain's RunnableConfig" if kind == "RunnableConfig" else f"injected ({kind})"
    return (f"'{name}' is {what}, which toolwire never reads from a call's arguments (it keeps its default): to give "
            f"it a value, make the tool from functools.partial(func, {name}=...), one tool per value.")


def injected_guard(func: Callable[..., Any], validate: Callable[[Any], dict[str, Any]], parameters: dict[str, Any],
                   tool_name: str) -> Callable[[Any], dict[str, Any]]:
    """``validate``, or, for a function with parameters its schema leaves out (LangChain's injected arguments), a
    ``validate`` whose error for arguments setting one of them says how toolwire fills it instead of calling it "not a
    parameter" (review 93: ``tool_call["args"]["user_id"] = ...``, LangChain's way to pass a run-time value).

    The check made when the tool is defined is only a comparison of names; the type hints are read when such an
    error happens.

    Raises:
        ToolValidationError: (the returned function) as ``validate`` does, with the explanation added.
    """
    from toolwire.errors import ToolValidationError

    code = getattr(func, "__code__", None)
    properties = parameters.get("properties")
    if not isinstance(properties, dict):
        return validate
    if parameters.get("additionalProperties") is not False or parameters.get("patternProperties"):
        validate = _keys_guard(func, validate, properties, tool_name)  # (an open schema: review 250 #1)
    if code is None:
        return validate
    hidden = tuple(n for n in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
                   if n not in properties and n not in ("self", "cls"))
    if not hidden:
        return validate

    def checked(args: Any) -> dict[str, Any]:
        try:
            return validate(args)
        except ToolValidationError as exc:
            given = [n for n in hidden if n in args] if isinstance(args, Mapping) else []
            if not given or not (kinds := injected_kinds(func, given)):
                raise
            raise ToolValidationError(explain_injected(str(exc), kinds, _injected_fix), tool_name) from None

    return checked


def _keys_guard(func: Callable[..., Any], validate: Callable[[Any], dict[str, Any]], properties: dict[str, Any],
                tool_name: str) -> Callable[[Any], dict[str, Any]]:
    """``validate``, or, for a schema that may let through keys it does not name (open: no ``additionalProperties:
    false``) and a function without ``**kwargs``, one that refuses before the call, as "not a parameter", such a key the
    function cannot take or must not get from a call (bound by ``functools.partial``; injected, which
    :func:`injected_guard` then explains): the function's limit, not the schema's (review 250 #1).

    Raises:
        ToolValidationError: (the returned function) as ``validate`` does, or naming each such key.
    """
    from toolwire.errors import ToolValidationError

    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):  # no signature to read (some builtins): the call will tell
        return validate
    if params and params[0].name in ("self", "cls") and not isinstance(func, types.MethodType | functools.partial):
        params = params[1:]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return validate
    bound = set(func.keywords) if isinstance(func, functools.partial) else set()
    taken = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in bound]

    def checked(args: Any) -> dict[str, Any]:
        out = validate(args)
        other = [key for key in out if key not in properties]
        if not other:
            return out
        kinds = injected_kinds(func, [key for key in other if key in taken])
        refused = [key for key in other if key not in taken or key in kinds]
        if not refused:
            return out
        from toolwire._schema_refs import _short

        text = f"Invalid arguments for tool '{tool_name}': " + "; ".join(
            f"'{key}' is not a parameter of this tool (got {_short(out[key])})" for key in refused) + "."
        names = list(properties) or [name for name in taken if name not in injected_kinds(func, taken)]
        raise ToolValidationError(text + (f" Its parameters are: {', '.join(names)}." if names else ""), tool_name)

    return checked


def check_subclass(cls: type) -> None:
    """Refuse a class written as a smolagents ``Tool`` (a ``forward`` method, or the class attributes ``inputs`` and
    ``output_type``): a subclass of :class:`~toolwire.tools.Tool` (it would fail later with a ``TypeError`` about
    ``func`` and ``schema``: review 109), or any class or instance of one given as a tool (smolagents' own base:
    it became a tool of no arguments whose result was a new instance, review 141 #1). toolwire makes a tool of a
    function.

    Raises:
        UserError: at the class statement, saying how to write it as a toolwire tool.
    """
    if callable(getattr(cls, "forward", None)) or (hasattr(cls, "inputs") and hasattr(cls, "output_type")):
        raise UserError(f"toolwire makes tools of functions, not of Tool subclasses like {cls.__name__}: write forward "
                        "as a function with type hints and an Args: docstring and decorate it with @tool; for a tool "
                        "with state, make an object that holds it and pass its bound method, tool(obj.forward).")


def check_tool(func: Callable[..., Any], name: str, description: str, response_format: Any, timeout: Any,
               **flags: Any) -> None:
    """The checks of :class:`~toolwire.tools.Tool`'s constructor: its name (and the Gemini warning), its description,
    ``response_format``, ``timeout`` and the yes/no options ``flags``.

    Raises:
        SchemaError: what :meth:`Tool.from_function <toolwire.tools.Tool.from_function>` documents for them.
    """
    from toolwire._signature import function_doc
    from toolwire._tool_run import bad_flags, bad_timeout

    if isinstance(func, type):  # a class written for smolagents (its own Tool base): refused as toolwire's subclasses
        check_subclass(func)  # are (review 141 #1: it became a tool of no arguments whose result was a new instance)
    elif hasattr(func, "inputs") and hasattr(func, "output_type") and not inspect.isroutine(func):
        check_subclass(type(func))  # an instance of one, callable as smolagents' are (review 144 #4)
    check_name(name)
    warn_provider_name(name, str(getattr(func, "__qualname__", "")).startswith("mcp:"))  # (Gemini refuses "1abc")
    if description is not None and not isinstance(description, str):  # (a number or a list: review 170 #2)
        check_description(name, description)
    if not (description or "").strip():  # (blank too: review 157 #4)
        if (function_doc(func) or "").strip():  # a docstring of sections only (``Args:``...): no summary
            raise SchemaError(f"Tool {name!r} has no description: its docstring has sections but no summary; "
                              "put a first line saying what the tool does, or pass description='...'.")
        raise SchemaError(
            f"Tool {name!r} has no description: add a docstring to the function or pass "
            "description=... so the model knows when to use it."
        )
    if (problem := _bad_response_format(response_format) or bad_timeout(timeout) or bad_flags(**flags)) is not None:
        raise SchemaError(problem)


def _bad_response_format(value: Any) -> str | None:
    """The error of a ``response_format`` other than ``"content"`` and ``"content_and_artifact"``; None for those."""
    if value in ("content", "content_and_artifact"):
        return None
    return f"response_format must be 'content' or 'content_and_artifact', not {value!r}."


# -- attributes set after a tool is made (review 143 #8) -------------------------------------------------------------

_SPEC_FIELDS = ("name", "description")
_OPTION_FIELDS = ("return_direct", "handle_errors", "hide_error_details", "timeout", "response_format")
_NO_ATTRIBUTE = {
    "coroutine": "a tool's async function is given when it is made: use "
                 "toolwire.StructuredTool.from_function(func=..., coroutine=...), or make the tool of the async "
                 "function itself",
}
SET_CHECKED = frozenset((*_SPEC_FIELDS, *_OPTION_FIELDS, *_NO_ATTRIBUTE, "handle_tool_error",
                         "handle_validation_error", "callbacks", "callback_manager", "verbose", "tags", "metadata",
                         "extras"))
"""The attributes :meth:`Tool.__setattr__ <toolwire.tools.Tool.__setattr__>` hands to :func:`checked_attribute`."""


def checked_attribute(tool: Any, key: str, value: Any) -> Any:
    """What ``tool.<key> = value`` stores, for ``key`` in :data:`SET_CHECKED`, once the tool is made (while it is being
    made, ``value`` as it is: its constructor checks it).

    A new ``name`` or ``description`` is refused once the tool is made (LangChain's ``tool.name = ...``): the models
    bound, executors, Agents, copies and pickles made from it know it by them, and a rename reached some and not
    others (review 144: a process pool got the old name, a copy renamed the original's async side, a method tool's
    rename was lost; before review 143 the model was never sent it at all). The option
    fields (``return_direct``, ``timeout``...) are checked as ``Tool.from_function`` checks them. LangChain's
    ``BaseTool`` fields that toolwire has no part for (``handle_tool_error``, ``verbose``, ``tags``...) are refused in
    the sentence ``StructuredTool.from_function`` refuses them with, rather than taken and never read.

    Args:
        tool: the :class:`~toolwire.tools.Tool`. key: the attribute's name. value: the value assigned.

    Returns:
        ``value``, to be stored.

    Raises:
        SchemaError: an option value its ``from_function`` keyword refuses.
        UserError: a new ``name`` or ``description``, a LangChain field toolwire has no part for, or ``coroutine``
            (one sentence each, saying what to do instead). (``args_schema`` is a read-only property: Python's
            ``AttributeError``.)
    """
    spec = getattr(tool, "spec", None)
    if spec is None:  # (the constructor's own assignments)
        return value
    from toolwire._keywords import ADVICE

    advice = _NO_ATTRIBUTE.get(key) or ADVICE.get(key)
    if advice is not None:
        raise UserError(f"Cannot set {key} on tool {tool.name!r}: {advice}.")
    if key in _OPTION_FIELDS:
        from toolwire._tool_run import bad_flags, bad_timeout

        problem = bad_timeout(value) if key == "timeout" else _bad_response_format(value) \
            if key == "response_format" else bad_flags(**{key: value})
        if problem is not None:
            raise SchemaError(problem)
        return value
    if value == getattr(tool, key, None):  # (the same name or description again: nothing changes)
        return value
    raise UserError(f"Cannot set the {key} of tool {tool.name!r} after it is made, since the models, executors, copies "
                    f"and pickles made from it know it by what it was made with: make the tool with it, "
                    f"tool(func, name=..., description=...) (for a LangChain tool, set lc_tool.{key} before "
                    f"converting it).")
