"""A failed tool call's error: where it was raised (by toolwire about the call, or inside the tool's own code), the
text the model reads of it, and the values kept out of that text.

Toolwire raises its own errors about a call: its arguments are invalid (:class:`~toolwire.errors.ToolValidationError`),
it timed out, its result cannot be sent, it names another tool. The text the model gets for them is a verdict on the
call it made (:func:`error_wording`). The same classes can also come out of the tool's own function: a
tool that calls another tool (``lookup_user.invoke({"user_id": row["user_id"]})``) with a value of its own gets that
tool's ``ToolValidationError``, and a tool may raise ``ToolExecutionError`` itself. That is the tool's failure like any
other exception. Worded as a verdict, it told the model that its call had invalid arguments it never sent, and
``hide_error_details`` let its message through, internal values and all (review 213 #1). The same holds for the
function of a LangChain tool that toolwire runs (review 218 #3).

:func:`raised_in_tool_code` tells them apart by the error's traceback, read only when a call failed. So does
:func:`hide_unsent_values`, which finds the tools whose code the error came through and hides from the text the
values they were given that the model was not sent (a ``from_langchain_tool(..., injected={...})`` value, a value a
``functools.partial`` binds: review 217 #1; the value of a parameter LangChain or the application fills, such as an
``InjectedToolArg`` default: review 273 #1).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from toolwire._result_json import _str
from toolwire._tool_run import WrongToolCallError
from toolwire.errors import ToolExecutionError, ToolResultError, ToolTimeoutError, ToolValidationError

__all__ = ["UNSENT_VALUES", "error_wording", "hide_unsent_values", "raised_in_tool_code"]

# the frames that call a tool's function: Tool._call (a sync tool's function, or an async one's coroutine made) and
# toolwire._tool_run.guarded (an async tool's coroutine awaited); a frame after one of them ran inside the function.
# The name of the frame's local that holds the tool is kept with each.
_RUNNERS = {("toolwire.tools", "Tool._call"): "self", ("toolwire._tool_run", "guarded"): "tool"}

# toolwire's own tool functions, which forward a call elsewhere and raise their errors as written for the model: an
# MCP server's (toolwire.mcp.client), a LangChain tool's (toolwire.interop.langchain)
_ADAPTERS = ("toolwire.mcp.", "toolwire.interop.")

# the libraries such a function runs the call through (and Python's own modules): a frame of them after an adapter's
# is still not the tool's code; the first frame of any other module is (a LangChain tool's function, review 218 #3)
_LIBRARIES = frozenset({"toolwire", "langchain", "langchain_core", "langgraph", "mcp", "anyio", "sniffio", "httpx",
                        "httpcore", "pydantic", "pydantic_core", "typing_extensions"}) | frozenset(
    sys.stdlib_module_names)

UNSENT_VALUES = "_toolwire_unsent_values"
"""The attribute of a tool's function holding ``{argument: value}`` for the values it is given that the model is not
sent (what :func:`~toolwire.interop.langchain.from_langchain_tool` makes, for its ``injected=``); read by
:func:`hide_unsent_values`."""


def _module(frame: Any) -> str:
    module = frame.f_globals.get("__name__")
    return module if isinstance(module, str) else ""


def raised_in_tool_code(exc: BaseException) -> bool:
    """Whether ``exc`` was raised inside a tool's own code (its function, or code that function called) rather than
    by toolwire about the call.

    Its traceback is read from the outermost frame in: after the frame that called the tool's function, the first
    frame outside toolwire's own modules is the tool's code. Toolwire's frames in between (draining a generator
    tool, another tool's ``invoke`` that the tool called) are passed over. A tool function toolwire made to forward
    the call (an MCP or LangChain tool) counts as toolwire's, and so do the frames of the libraries it calls
    through (``langchain_core``, ``mcp``, Python's own modules): the errors it raises about the call keep their
    wording, while one raised in a frame of the LangChain tool's own function (or code it called) is the tool's.

    Args:
        exc: the exception a call ended with.

    Returns:
        True when a frame of the tool's own code is on the way to where ``exc`` was raised; False for an error
        toolwire raised about the call (invalid arguments, a timeout, an unsendable result, a LangChain tool's
        answer it cannot send), one raised by the frame that ran the function (a ``sys.exit()`` stopped), or one
        without a traceback.
    """
    tb = exc.__traceback__
    inside = adapter = False
    while tb is not None:
        frame = tb.tb_frame
        module = _module(frame)
        if adapter:
            if module.partition(".")[0] not in _LIBRARIES:
                return True
        elif inside:
            if module.startswith(_ADAPTERS):
                adapter = True
            elif module != "toolwire" and not module.startswith("toolwire."):
                return True
        elif (module, frame.f_code.co_qualname) in _RUNNERS:
            inside = True
        tb = tb.tb_next
    return False


def _unsent(func: Any) -> list[Mapping[Any, Any]]:
    """The values a tool's function ``func`` is given that the model is not sent: its :data:`UNSENT_VALUES`, and
    what a ``functools.partial`` (or a chain of them) binds, by keyword and by position."""
    import functools

    from toolwire._tool_args import _bound_keywords

    found: list[Mapping[Any, Any]] = []
    marked = getattr(func, UNSENT_VALUES, None)
    if isinstance(marked, Mapping) and marked:
        found.append(marked)
    if isinstance(func, functools.partial):
        found.append(_bound_keywords(func))
        while isinstance(func, functools.partial):
            found.append({f"(bound argument {i})": value for i, value in enumerate(func.args)})
            func = func.func
    return [values for values in found if values]


def _injected(metadata: Any, annotation: Any) -> bool:
    """Whether a parameter (or ``args_schema`` field) with these ``Annotated`` ``metadata`` and (bare) ``annotation``
    is one LangChain or the application fills and the model is not shown: ``InjectedToolArg`` (LangGraph's
    ``InjectedState``/``InjectedStore``), ``RunnableConfig``; not ``InjectedToolCallId``, whose value is the id of
    the call, which the model's own call holds."""
    from toolwire._tool_checks import _runnable_config, langchain_marker

    kinds = {langchain_marker(marker) for marker in metadata or ()}
    return "injected" in kinds or ("call_id" not in kinds and _runnable_config(annotation))


def _hidden_arguments(tool: Any, kwargs: Any) -> dict[str, Any]:
    """``{parameter: value}`` for the parameters of ``tool`` (a :class:`~toolwire.tools.Tool`) the model is not shown
    because they are filled for it (:func:`_injected`), with the value its function got in ``kwargs`` (what LangGraph
    injected through ``to_langchain_tool``), else their default: the only value such a parameter has under toolwire
    (review 273 #1: an ``InjectedToolArg`` default was quoted to the model). For a tool with an ``args_schema``,
    its fields so marked and the function's own parameters the model has no field for. Read only when a call failed;
    ``{}`` when the signature or type hints cannot be read."""
    import inspect
    import typing

    from toolwire._signature import hint_target

    func = getattr(tool, "func", None)
    kwargs = kwargs if isinstance(kwargs, Mapping) else {}
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return {}
    named = {name: p for name, p in params.items()
             if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and name not in ("self", "cls")}
    model = getattr(tool, "args_schema", None)
    fields = getattr(model, "model_fields", None) if model is not None else None
    out: dict[str, Any] = {}
    if isinstance(fields, Mapping) and fields:
        from pydantic_core import PydanticUndefined

        for name, info in fields.items():
            if _injected(info.metadata, info.annotation):
                if name in kwargs:
                    out[name] = kwargs[name]
                elif info.default is not PydanticUndefined:
                    out[name] = info.default
        hidden = [name for name in named if name not in fields]  # (never the model's: it has no field)
    else:
        props = getattr(tool, "parameters", {}).get("properties") or {}
        candidates = [name for name in named if name not in props]
        if not candidates:
            return out
        try:
            hints = typing.get_type_hints(hint_target(func), include_extras=True)
        except Exception:  # (a hint that cannot be resolved: the tool could not have been made)
            return out
        hidden = []
        for name in candidates:
            hint = hints.get(name)
            metadata = getattr(hint, "__metadata__", None)
            if _injected(metadata, hint.__origin__ if metadata is not None else hint):
                hidden.append(name)
    for name in hidden:
        if name in kwargs:
            out[name] = kwargs[name]
        elif named[name].default is not inspect.Parameter.empty:
            out[name] = named[name].default
    return {name: _configurable(value) for name, value in out.items()}


_CONFIG_KEYS = frozenset(("tags", "metadata", "callbacks", "run_name", "max_concurrency", "recursion_limit",
                          "configurable", "run_id"))


def _configurable(value: Any) -> Any:
    """A ``RunnableConfig``'s ``configurable`` part, where an application puts its own values (a user's id, a key),
    for a value that is such a config (a mapping of its keys alone); else ``value``. The rest (LangGraph's tags,
    node names and step counters in ``metadata``) is the framework's, and hiding it hid the model's own words that
    happened to match them (review 275 #3: ``'agent tools'`` came back ``'agent <hidden>'`` under a node named
    ``tools``)."""
    if isinstance(value, Mapping) and value and all(isinstance(key, str) and key in _CONFIG_KEYS for key in value):
        return value.get("configurable") or {}
    return value


def hide_unsent_values(text: str, exc: BaseException) -> str:
    """``text`` (the error text the model gets for a call that failed with ``exc``) with the values that the tools
    whose code ``exc`` came through were given, and that the model was not sent, written as ``<hidden>``
    (:func:`toolwire._tool_args.hide_values`: a text value wherever quoted as its ``repr``, as itself when 8 or more
    characters long, and as a whole word when 4 to 7 long), never in a tool's name as the text quotes it
    (``tool 'count_orders'``): a ``from_langchain_tool(..., injected={...})`` value (an ``InjectedState`` snapshot
    too) or a LangChain tool's injected default, the values a tool's ``functools.partial`` binds, the value of a
    parameter filled for the model (``InjectedToolArg``, LangGraph's ``InjectedState``/``InjectedStore``,
    ``RunnableConfig``: its default, or what LangGraph passed through ``to_langchain_tool``). Those tools are found on
    ``exc``'s traceback (the frames that ran their functions), read only when a call failed; an error without that
    traceback is left as it is. Never raises an exception.

    Returns:
        The text, with those values hidden.
    """
    try:
        tb, found = exc.__traceback__, []
        while tb is not None:
            frame = tb.tb_frame
            holder = _RUNNERS.get((_module(frame), frame.f_code.co_qualname))
            if holder is not None:
                tool = frame.f_locals.get(holder)
                found.extend(_unsent(getattr(tool, "func", None)))
                if hidden := _hidden_arguments(tool, frame.f_locals.get("kwargs")):
                    found.append(hidden)
            tb = tb.tb_next
        if not found:
            return text
        import re

        from toolwire._tool_args import hide_values

        # everywhere but in the tools' names the text quotes (review 230 #1), set aside meanwhile, so that a
        # message quoted stripped or cut short is covered too (review 232 #3)
        kept = sorted(set(re.findall(r"\btool '[^'\s]{1,120}'", text)), key=len, reverse=True)
        for n, part in enumerate(kept):
            text = text.replace(part, f"\x00{n}\x00")
        for values in found:
            text = hide_values(text, values)
        for n, part in enumerate(kept):
            text = text.replace(f"\x00{n}\x00", part)
    except Exception:  # (the text as it is rather than no answer for the call)
        return text
    return text


def error_wording(exc: BaseException, tool_name: str, hide_details: bool) -> str:
    """The text of :func:`toolwire.results.error_text` (which see) before the values the model was not sent are hidden
    (:func:`hide_unsent_values`), URL credentials masked and the text made valid Unicode. Raises nothing."""
    # toolwire's own verdict on this call; one the tool's code raised (a nested tool call's) is its failure, as below
    if isinstance(exc, ToolExecutionError) and not raised_in_tool_code(exc):  # (review 213 #1)
        if isinstance(exc, ToolResultError):  # the call happened: a model that read "failed" would make it again
            cause = exc.__cause__
            why = (f"it could not be turned into JSON text ({type(cause).__name__})" if hide_details and cause
                   is not None else exc.reason or _str(exc))  # (writing it may quote the result: its type, review 62)
            return (f"Error: tool '{tool_name}' ran, but its result could not be sent back: {why.rstrip('.')}. Do "
                    "not call it again for the same action: whatever it does has been done.")
        if isinstance(exc, WrongToolCallError):  # nothing ran: not "failed" (review 170 #8)
            return (f"Error: tool '{tool_name}' did not run this call, which names the tool {exc.called!r}: give "
                    "each call to the tool it names.")
        if str(exc).startswith("Error:"):
            return str(exc)  # already written for the model (an MCP server's or a LangChain tool's error text)
        if isinstance(exc, ToolValidationError | ToolTimeoutError) or type(exc) is not ToolExecutionError:
            return f"Error: {exc}"
        if not (hide_details and isinstance(exc.__context__, SystemExit)):
            return f"Error: tool '{tool_name}' failed: {exc}"
        exc = exc.__context__  # a tool's sys.exit(...) (raised from None while handled): its argument may be a secret
    more = ""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:  # a TaskGroup's: the error inside tells
        if len(exc.exceptions) > 1 and not more:
            more = f" (the first of {len(exc.exceptions)} errors)"
        exc = exc.exceptions[0]
    kind = type(exc).__name__
    if hide_details:
        return f"Error: tool '{tool_name}' raised {kind}{more}. Try different arguments or another approach."
    try:
        detail = str(exc).strip()
    except Exception:  # an exception whose __str__ itself fails still gets its error result
        detail = ""
    return f"Error: tool '{tool_name}' raised {kind}{more}: {detail}" if detail else \
        f"Error: tool '{tool_name}' raised {kind}{more}."
