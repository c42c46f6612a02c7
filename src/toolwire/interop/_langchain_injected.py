"""The arguments of a LangChain tool that the model does not see, for
:func:`toolwire.interop.langchain.from_langchain_tool`: which they are (``InjectedToolCallId``, ``InjectedToolArg``
and LangGraph's ``InjectedState``/``InjectedStore``, LangChain v1's ``ToolRuntime``), the ``injected=`` values
checked against them, and how each call gets them (split from :mod:`toolwire.interop.langchain`, review 273).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire.errors import ToolValidationError, UserError

RUNTIME = "LangChain's ToolRuntime"
"""How an error names LangChain v1's ``ToolRuntime`` argument (``langchain.tools.ToolRuntime``, LangGraph's
``langgraph.prebuilt.ToolRuntime``)."""


def _fields(lc_tool: Any) -> dict[str, Any]:
    fields = getattr(getattr(lc_tool, "args_schema", None), "model_fields", None)
    return fields if isinstance(fields, dict) else {}


def _runtime_type(annotation: Any) -> bool:
    """Whether ``annotation`` is a class LangChain injects as it is, without ``Annotated`` (a subclass of
    ``langchain_core``'s ``_DirectlyInjectedToolArg``: v1's ``ToolRuntime``, also as ``ToolRuntime[Ctx, State]``);
    read by class names and modules, as LangChain reads it (``_is_directly_injected_arg_type``)."""
    cls = getattr(annotation, "__origin__", None) or annotation
    return isinstance(cls, type) and any(c.__name__ == "_DirectlyInjectedToolArg" and
                                         c.__module__.startswith("langchain_core") for c in cls.__mro__)


def runtime_fields(lc_tool: Any, visible: set[str]) -> tuple[str, ...]:
    """The arguments of ``lc_tool`` the model does not see that LangChain v1 fills with a ``ToolRuntime``."""
    return tuple(name for name, field in _fields(lc_tool).items()
                 if name not in visible and _runtime_type(field.annotation))


def injected_kinds(lc_tool: Any, visible: set[str]) -> dict[str, str]:
    """``{name: marker}`` for the arguments of ``lc_tool`` the model does not see because LangChain or the
    application fills them (``"InjectedToolCallId"``, ``"InjectedToolArg"``, ``"LangGraph's InjectedState"``...,
    ``"LangChain's ToolRuntime"``)."""
    from toolwire._tool_checks import langchain_marker, marker_name

    found: dict[str, str] = {}
    for name, field in _fields(lc_tool).items():
        if name in visible:
            continue
        if markers := [m for m in field.metadata if langchain_marker(m) is not None]:
            found[name] = marker_name(markers[0])
        elif _runtime_type(field.annotation):
            found[name] = RUNTIME
    return found


def _injected_fix(name: str, kind: str) -> str:
    if kind == "InjectedToolCallId":
        return f"'{name}' is the call's id (InjectedToolCallId), which LangChain fills from the tool call's \"id\"."
    return (f"'{name}' is injected ({kind}), which toolwire never reads from a call's arguments: give its value "
            f"with from_langchain_tool(lc_tool, injected={{{name!r}: ...}}), passed with every call.")


def explained(validate: Any, kinds: dict[str, str], name: str) -> Any:
    """``validate``, whose error for arguments that set an injected argument (LangChain's way to pass a run-time
    value, ``tool_call["args"]["user_id"] = ...``) says how toolwire fills it (review 93: "not a parameter").

    Args:
        validate: the tool's validator (arguments dict -> checked dict). kinds: what :func:`injected_kinds` gave.
        name: the tool's name, for the error.

    Returns:
        ``validate``, wrapped.

    Raises:
        ToolValidationError: (the returned function) as ``validate`` does, with the explanation added.
    """
    from toolwire._tool_checks import explain_injected

    def checked(args: Any) -> dict[str, Any]:
        try:
            result: dict[str, Any] = validate(args)
        except ToolValidationError as exc:
            given = {n: k for n, k in kinds.items() if n in args} if isinstance(args, Mapping) else {}
            if not given:
                raise
            raise ToolValidationError(explain_injected(str(exc), given, _injected_fix), name) from None
        return result

    return checked


def injected_defaults(lc_tool: Any, visible: set[str]) -> dict[str, Any]:
    """``{name: default}`` of the arguments of ``lc_tool`` the application injects (``InjectedToolArg``, LangGraph's
    ``InjectedState``/``InjectedStore``) that have a default: the value the tool gets when ``injected=`` gives none,
    which the model is never sent (review 273 #1: it was quoted in the error text)."""
    from pydantic_core import PydanticUndefined

    from toolwire._tool_checks import langchain_marker

    return {name: field.default for name, field in _fields(lc_tool).items() if name not in visible
            and field.default is not PydanticUndefined
            and "injected" in {langchain_marker(m) for m in field.metadata}}


def check_injected(lc_tool: Any, name: str, visible: set[str], fixed: Mapping[str, Any]) -> tuple[str, ...]:
    """Check the ``injected=`` values ``fixed`` of ``from_langchain_tool`` against the arguments ``lc_tool`` (named
    ``name``) hides from the model (``visible``: those it shows).

    Returns:
        The names of its ``ToolRuntime`` arguments given in ``fixed`` (each call gets its own id in them:
        :func:`with_call_id`).

    Raises:
        UserError: ``fixed`` names the ``InjectedToolCallId`` argument (review 273 #5: the value was dropped),
            an argument the model sees or one the tool does not have; or leaves out a ``ToolRuntime`` argument
            (review 273 #3: the advice gave a runtime whose ``tool_call_id`` was never the call's) or another
            injected one without a default.
    """
    from toolwire._tool_checks import langchain_marker

    fields = _fields(lc_tool)
    call_ids = [k for k in fixed if k in fields and k not in visible
                and "call_id" in {langchain_marker(m) for m in fields[k].metadata}]
    if call_ids:
        raise UserError(f"LangChain tool {name!r} fills {call_ids[0]!r} with the call's id (InjectedToolCallId), "
                        f"which comes from each tool call: leave {call_ids[0]!r} out of injected=.")
    if wrong := sorted(k for k in fixed if k in visible or k not in fields):
        raise UserError(f"LangChain tool {name!r} does not inject {', '.join(map(repr, wrong))}: pass in injected= "
                        "only the arguments it marks InjectedToolArg (or InjectedState, InjectedStore).")
    runtimes = runtime_fields(lc_tool, visible)
    if missing := [k for k in runtimes if k not in fixed and fields[k].is_required()]:
        raise UserError(f"LangChain tool {name!r} takes {missing[0]!r}, a ToolRuntime, which LangGraph's ToolNode "
                        "fills and toolwire has no graph for: pass one with from_langchain_tool(tool, "
                        f"injected={{{missing[0]!r}: ToolRuntime(state=..., context=..., config=..., "
                        "stream_writer=..., tool_call_id=None, store=None)}), whose tool_call_id toolwire sets to "
                        "each call's id.")
    if missing := [k for k, field in fields.items() if k not in visible and k not in fixed and k not in runtimes
                   and field.is_required() and "call_id" not in {langchain_marker(m) for m in field.metadata}]:
        raise UserError(f"LangChain tool {name!r} needs {', '.join(map(repr, missing))}, injected by the application "
                        "rather than the model: convert it with toolwire.interop.langchain.from_langchain_tool(tool, "
                        f"injected={{{missing[0]!r}: ...}}).")
    return tuple(k for k in runtimes if k in fixed)


def with_call_id(fixed: dict[str, Any], runtimes: tuple[str, ...], call_id: str) -> dict[str, Any]:
    """``fixed`` (the ``injected=`` values), with each ``ToolRuntime`` of ``runtimes`` a copy whose
    ``tool_call_id`` is ``call_id``, the id of the call the tool is given (a value that is not a dataclass with a
    ``tool_call_id``, such as a test's stand-in, is passed as it is)."""
    if not runtimes:
        return fixed
    import dataclasses

    out = dict(fixed)
    for key in runtimes:
        value = out[key]
        if dataclasses.is_dataclass(value) and not isinstance(value, type) and any(
                f.name == "tool_call_id" for f in dataclasses.fields(value)):
            out[key] = dataclasses.replace(value, tool_call_id=call_id)
    return out
