"""The LangChain side of :func:`toolwire.interop.langchain.to_langchain_tool`: the ``StructuredTool`` subclass that
runs a toolwire tool and keeps the id of LangChain's tool call, the arguments LangChain keeps for itself, and what of
a tool's result LangChain passes on as it is (split from :mod:`toolwire.interop.langchain`, review 168)."""

from __future__ import annotations

import contextvars
from typing import Any

from toolwire.interop._langchain_messages import to_langchain_messages

# the id of the tool call LangChain is running (BaseTool.run's ``tool_call_id``), for current_tool_call()
_LC_CALL_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("toolwire_langchain_call_id", default=None)
_tool_class: list[type] = []  # the StructuredTool subclass, made once langchain-core is imported


def _tool_output(result: Any) -> Any:
    """What a toolwire tool returned, as LangChain passes a tool's own answer on (``_format_output``): a LangChain
    ``ToolOutputMixin`` (its ``ToolMessage``, a LangGraph ``Command``), or a non-empty list of them, as it is, and
    toolwire's :class:`~toolwire.messages.ToolMessage` as LangChain's (content, ``tool_call_id``, status, artifact,
    name and id kept); None for any other result (review 143 #1, #9: they were written out as JSON text, the status,
    artifact and state update lost)."""
    import langchain_core.messages.tool as lc_tool_messages

    from toolwire.messages import ToolMessage

    # (an older langchain-core without ToolOutputMixin passes on its ToolMessage alone)
    passed = getattr(lc_tool_messages, "ToolOutputMixin", lc_tool_messages.ToolMessage)
    if isinstance(result, passed) or (isinstance(result, list) and result and all(
            isinstance(item, passed) for item in result)):
        return result
    if isinstance(result, ToolMessage):
        return to_langchain_messages([result])[0]
    return None


def bare_tool_exception(exc: Exception, tool_name: str, hide_details: bool) -> Exception:
    """What a ``to_langchain_tool`` tool invoked with bare arguments raises for ``exc``, its function's failure:
    ``exc`` itself, raised as ``tool.invoke(args)`` raises it, except for a LangChain ``ToolException``, whose text
    LangChain answers with (``handle_tool_error``) and an agent shows the model: that is a new ``ToolException``
    whose text has the values the model was not sent written ``<hidden>`` and URL credentials masked, as in a tool
    call's error text (review 273 #4: a ``functools.partial``'s secret was in it), or, under ``hide_error_details``,
    that text (:func:`~toolwire.results.error_text`), which names only the exception's type.

    Args:
        exc: the exception the toolwire tool's run ended with. tool_name: its name. hide_details: its
            ``hide_error_details``.

    Returns:
        ``exc``, or the ``ToolException`` to raise from it.
    """
    from langchain_core.tools import ToolException

    if not isinstance(exc, ToolException) or not exc.args or not isinstance(exc.args[0], str):
        return exc  # (LangChain answers an empty one "Tool execution error", and passes another value on as it is)
    from toolwire._error_origin import hide_unsent_values
    from toolwire._secrets import redact_url
    from toolwire.results import error_text

    if hide_details:
        return ToolException(error_text(exc, tool_name, hide_details=True))
    text = redact_url(hide_unsent_values(exc.args[0], exc))
    return exc if text == exc.args[0] else ToolException(text)


_GRAPH_MARKERS = ("InjectedState", "InjectedStore")  # the markers LangGraph's ToolNode fills from a whole tool call


def _graph_marker(marker: Any) -> bool:
    """Whether ``marker`` (a class or an instance) is LangGraph's ``InjectedState`` or ``InjectedStore``, or a
    subclass, read by class names and modules (langgraph need not be installed)."""
    cls = marker if isinstance(marker, type) else type(marker)
    return any(c.__name__ in _GRAPH_MARKERS and c.__module__.startswith("langgraph")
               for c in getattr(cls, "__mro__", ()))


def graph_filled(tool: Any) -> tuple[dict[str, Any], frozenset[str]]:
    """The parameters of a toolwire ``tool``'s function that LangChain or LangGraph fill rather than the model, as
    the ``StructuredTool`` that :func:`~toolwire.interop.langchain.to_langchain_tool` makes must declare them for
    LangGraph's ``ToolNode`` and LangChain to fill them (review 273 #2: they got their defaults): ``{name: the
    annotation to declare}`` (LangGraph's ``Annotated[T, InjectedState]``/``InjectedStore`` as written, and
    ``RunnableConfig`` itself for a parameter typed ``RunnableConfig`` or ``RunnableConfig | None``), and the names
    among them read from a whole tool call's arguments only (the state and store ``ToolNode`` puts there; a config
    is LangChain's own argument). A parameter a ``functools.partial`` binds, or one of an ``args_schema`` that is
    not marked so, is left out. Read once, when the tool is converted.

    Args:
        tool: a toolwire :class:`~toolwire.tools.Tool`.

    Returns:
        ``({name: annotation}, frozenset of names)``; empty when the type hints cannot be read.
    """
    import inspect
    import typing

    from toolwire._signature import hint_target
    from toolwire._tool_args import _bound_keywords
    from toolwire._tool_checks import _runnable_config, langchain_marker

    func = tool.func
    props = tool.parameters.get("properties") or {}
    try:
        params = inspect.signature(func).parameters
        hints = typing.get_type_hints(hint_target(func), include_extras=True)
    except Exception:  # (a signature or hint that cannot be read: nothing declared, as before)
        return {}, frozenset()
    bound = _bound_keywords(func)
    found: dict[str, tuple[Any, Any]] = {}  # name -> (metadata, bare annotation)
    fields = getattr(getattr(tool, "args_schema", None), "model_fields", None)
    if isinstance(fields, dict) and fields:
        found = {name: (info.metadata, info.annotation) for name, info in fields.items()
                 if name not in bound and any(langchain_marker(m) == "injected" for m in info.metadata)}
    else:
        for name, param in params.items():
            if name in props or name in bound or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            hint = hints.get(name)
            metadata = getattr(hint, "__metadata__", None)
            found[name] = (metadata or (), hint.__origin__ if metadata is not None else hint)
    declared: dict[str, Any] = {}
    from_call: set[str] = set()
    for name, (metadata, bare) in found.items():
        kinds = {langchain_marker(m) for m in metadata}
        if any(_graph_marker(m) for m in metadata):
            declared[name] = typing.Annotated[(bare, *metadata)]  # type: ignore[valid-type]
            from_call.add(name)
        elif "call_id" not in kinds and _runnable_config(bare):
            from langchain_core.runnables import RunnableConfig

            declared[name] = RunnableConfig  # (LangChain passes a config only to a parameter typed exactly so)
    return declared, frozenset(from_call)


_LC_RESERVED = ("config", "run_manager", "self")
"""Keyword arguments LangChain's ``StructuredTool._run(self, *args, config, run_manager, **kwargs)`` keeps for itself: a
tool argument of that name never reaches the function (langchain-core ``tools/structured.py``; ``self``: a
TypeError on every call, review 217 #5)."""


def _unreserved(parameters: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The schema LangChain is given, and ``{LangChain's name: the tool's}`` for the renamed arguments: an
    argument named ``config``, ``run_manager`` or ``self`` is offered as ``config_`` (``config__``, ... if taken), so
    its value reaches the tool instead of being taken by LangChain."""
    props = parameters.get("properties")
    if not isinstance(props, dict) or not any(name in props for name in _LC_RESERVED):
        return parameters, {}
    new_names: dict[str, str] = {}
    for name in props:
        if name in _LC_RESERVED:
            new = name + "_"
            while new in props or new in new_names.values():
                new += "_"
            new_names[name] = new
    out = dict(parameters)
    out["properties"] = {new_names.get(k, k): v for k, v in props.items()}
    if isinstance(parameters.get("required"), list):
        out["required"] = [new_names.get(k, k) for k in parameters["required"]]
    return out, {new: old for old, new in new_names.items()}


def _structured_tool_class() -> type:
    """A ``StructuredTool`` subclass that keeps the id of the tool call LangChain runs (``run``/``arun`` get it
    as ``tool_call_id`` when invoked with a whole ToolCall), so the toolwire tool's
    :func:`~toolwire.current_tool_call` gives it, as on toolwire's own paths."""
    if not _tool_class:
        from langchain_core.tools import StructuredTool

        class ToolwireStructuredTool(StructuredTool):
            """A toolwire tool as a LangChain StructuredTool (see ``to_langchain_tool``)."""

            def _single(self, tool_input: Any) -> Any:
                """A string is the value of the tool's first parameter when its others are optional, as for
                LangChain's own ``@tool`` and toolwire's ``invoke`` (its JSON Schema ``args_schema`` refuses strings;
                legacy text agents send them). A ``self`` key (the tool's own name of an argument LangChain is given
                as ``self_``) is passed as ``self_`` (``self__``... when given too): LangChain's ``_run`` raised a
                TypeError for it, also for a whole ToolCall (review 217 #5)."""
                if isinstance(tool_input, dict) and "self" in tool_input:
                    new = "self_"
                    while new in tool_input:
                        new += "_"
                    tool_input = {(new if key == "self" else key): value for key, value in tool_input.items()}
                schema = self.args_schema if isinstance(self.args_schema, dict) else {}
                props = schema.get("properties")
                if isinstance(tool_input, str) and isinstance(props, dict) and props and \
                        set(schema.get("required") or ()) <= {next(iter(props))}:
                    return {next(iter(props)): tool_input}
                return tool_input

            def run(self, tool_input: Any, *args: Any, tool_call_id: str | None = None, **kwargs: Any) -> Any:
                token = _LC_CALL_ID.set(tool_call_id)
                try:
                    return super().run(self._single(tool_input), *args, tool_call_id=tool_call_id, **kwargs)
                finally:
                    _LC_CALL_ID.reset(token)

            async def arun(self, tool_input: Any, *args: Any, tool_call_id: str | None = None,
                           **kwargs: Any) -> Any:
                token = _LC_CALL_ID.set(tool_call_id)
                try:
                    return await super().arun(self._single(tool_input), *args, tool_call_id=tool_call_id, **kwargs)
                finally:
                    _LC_CALL_ID.reset(token)

        _tool_class.append(ToolwireStructuredTool)
    return _tool_class[0]
