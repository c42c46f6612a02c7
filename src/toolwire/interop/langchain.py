"""LangChain interoperability: tools and messages, both ways (extra ``langchain``: ``langchain-core>=0.3``).

* :func:`from_langchain_tool`: a LangChain ``BaseTool`` (what ``@langchain_core.tools.tool`` makes,
  a ``StructuredTool``, a ``BaseTool`` subclass) as a toolwire :class:`~toolwire.tools.Tool`. It is
  called for you when a LangChain tool is passed to ``bind_tools``, :class:`~toolwire.ToolExecutor` or
  :class:`~toolwire.Agent`, so those work as is.
* :func:`to_langchain_tool`: a toolwire tool as a LangChain ``StructuredTool``.
* :func:`to_langchain_messages` / :func:`from_langchain_messages`: conversations both ways, keeping
  tool calls (name, args, id), invalid tool calls, ``tool_call_id``, ``status``, ``artifact``, names,
  ids, usage and response metadata.

Formats follow langchain-core's own (``langchain_core.messages``: ``AIMessage.tool_calls`` as
``{"name", "args", "id", "type": "tool_call"}``, ``ToolMessage(content, tool_call_id, status,
artifact)``, ``usage_metadata`` with ``input_token_details.cache_read``), which toolwire's messages
mirror; see https://python.langchain.com/docs/concepts/messages/ and .../concepts/tools/.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Iterable, Mapping
from typing import Any

from toolwire._call_records import in_reply_order
from toolwire._extras import install_hint
from toolwire._keywords import refuses_unknown_keywords
from toolwire._message_dicts import INDEX_KEY
from toolwire._tool_run import _CURRENT_CALL
from toolwire.errors import SchemaError, ToolExecutionError, UserError
from toolwire.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    invalid_tool_call,
    tool_call,
)
from toolwire.tools import Tool, error_text, result_to_content

__all__ = [
    "LangChainToolError",
    "from_langchain_messages",
    "from_langchain_tool",
    "to_langchain_messages",
    "to_langchain_tool",
]

_PROVIDER_DATA_KEY = "toolwire_provider_data"
# the id of the tool call LangChain is running (BaseTool.run's ``tool_call_id``), for current_tool_call()
_LC_CALL_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("toolwire_langchain_call_id", default=None)
_tool_class: list[type] = []  # the StructuredTool subclass, made once langchain-core is imported


def _lc() -> Any:
    try:
        import langchain_core  # noqa: F401
    except ImportError:
        raise UserError(f"LangChain interop needs langchain-core, {install_hint('langchain')}.") from None
    import langchain_core.messages as lc_messages

    return lc_messages


class LangChainToolError(ToolExecutionError):
    """A LangChain tool answered with ``status="error"`` (its own ``handle_tool_error`` or
    ``handle_validation_error`` turned a failure into text); the text is kept as the message."""


# -- tools ----------------------------------------------------------------------------------------


def _lc_parameters(lc_tool: Any) -> dict[str, Any]:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    try:
        return dict(convert_to_openai_tool(lc_tool)["function"].get("parameters") or {})
    except Exception as exc:
        raise SchemaError(f"Cannot read the schema of LangChain tool {lc_tool.name!r}: {exc}") from None


def _pydantic_validator(model: Any, name: str) -> Any | None:
    """Build ``validate(args) -> dict`` from the model-visible pydantic model (LangChain's ``tool_call_schema``).

    ``tool_call_schema`` leaves injected arguments out (``InjectedToolArg``, ``InjectedToolCallId``,
    LangGraph's ``InjectedState``/``InjectedStore``): those are the application's to fill, and LangChain
    fills ``InjectedToolCallId`` itself from the call's id. pydantic ignores unknown keys by default, so
    the arguments are checked with a subclass set to ``extra="forbid"``: a key the schema does not
    declare (an injected one included) is an error naming the tool's parameters, which the model can
    correct, and only declared keys reach the LangChain tool. The check follows toolwire's own rules as well
    (:mod:`toolwire._schema_strict`: no boolean for a number, no NaN). Returns ``None`` when ``model`` cannot be
    subclassed (the caller then checks with ``jsonschema``, which also refuses undeclared keys).

    Raises:
        ToolValidationError: (when validating) one message naming each bad field, e.g. ``"Invalid
            arguments for tool 'add': 'user_id' is not a parameter of this tool (got 'x'). Its
            parameters are: a, b."``
    """
    from pydantic import ValidationError

    from toolwire.errors import ToolValidationError
    from toolwire.schema import validation_message

    fields = list(getattr(model, "model_fields", {}) or {})
    config = dict(getattr(model, "model_config", {}) or {})
    try:
        checked = type(model.__name__, (model,), {"model_config": {**config, "extra": "forbid"},
                                                  "__module__": model.__module__})
    except Exception:  # a model that cannot be subclassed: the caller checks with jsonschema instead
        return None
    from toolwire._schema_strict import strict_validator, validator_config

    core = checked.__pydantic_core_schema__  # toolwire's rules too (a boolean refused for a number: review 63)
    validate_python = strict_validator(core, validator_config(core), checked.__pydantic_validator__).validate_python

    def validate(args: Any) -> dict[str, Any]:
        args = dict(args)
        try:
            validate_python(args)
        except ValidationError as exc:
            raise ToolValidationError(validation_message(exc, name, fields), name) from None
        return args

    return validate


def _is_async_only(lc_tool: Any) -> bool:
    return getattr(lc_tool, "coroutine", None) is not None and getattr(lc_tool, "func", None) is None


def _injected_needed(lc_tool: Any, visible: set[str]) -> list[str]:
    """The required arguments of ``lc_tool`` the model does not see and LangChain does not fill: those the
    application injects (``InjectedToolArg``, LangGraph's ``InjectedState``/``InjectedStore``); LangChain fills
    ``InjectedToolCallId`` (and a ``RunnableConfig``) itself."""
    from toolwire._tool_checks import langchain_marker

    fields = getattr(getattr(lc_tool, "args_schema", None), "model_fields", None)
    if not isinstance(fields, dict):
        return []
    return [name for name, field in fields.items() if name not in visible and field.is_required()
            and "call_id" not in {langchain_marker(m) for m in field.metadata}]


@refuses_unknown_keywords("from_langchain_tool")
def from_langchain_tool(lc_tool: Any, *, injected: Mapping[str, Any] | None = None) -> Tool:
    """Wrap a LangChain tool as a toolwire :class:`~toolwire.tools.Tool`.

    The name, description and argument schema are LangChain's (``convert_to_openai_tool``, so
    injected arguments such as ``InjectedToolArg`` stay hidden from the model). Arguments are checked
    against that model-visible schema (the pydantic ``tool_call_schema``, or ``jsonschema`` for a dict
    schema and for a model whose fields are not the schema's properties, such as the single ``__arg1`` of
    LangChain's single-input ``Tool``): a key it does not declare, an injected argument's name included, is a
    validation error the model sees. The checked arguments are passed to the LangChain tool as a tool call carrying the
    model's call id, so LangChain fills ``InjectedToolCallId`` with it (other injected arguments take
    their defaults) and a ``response_format="content_and_artifact"`` artifact lands on
    ``ToolMessage.artifact``; ``return_direct`` is kept. A LangChain ``status="error"`` answer
    becomes a :class:`LangChainToolError` (a ``status="error"`` ToolMessage through ``invoke(tool_call)``).
    Tools with only a ``coroutine`` run async.

    Args:
        lc_tool: a LangChain ``BaseTool`` instance (``@tool``-decorated function, ``StructuredTool``, ``Tool``...).
        injected: ``{argument name: value}`` for the arguments the application injects in LangChain
            (``InjectedToolArg``, LangGraph's ``InjectedState``/``InjectedStore``), passed with every call; the
            model never sees them. Required when the tool has such an argument without a default.

    Returns:
        A new :class:`~toolwire.tools.Tool` that runs ``lc_tool``.

    Raises:
        SchemaError: the tool's name or schema cannot be used.
        UserError: langchain-core is not installed; ``lc_tool`` is not a LangChain tool (a plain function: the
            message says to make a toolwire tool of it); a keyword other than ``injected`` (``injcted=``: the
            message names the close match); the tool needs an injected argument ``injected`` does not give
            (review 74: the model got pydantic's "Field required" for it), or ``injected`` names an argument the
            tool does not inject.
    """
    _lc()
    from langchain_core.tools import BaseTool

    if not isinstance(lc_tool, BaseTool):  # (review 76: an AttributeError, 'function' object has no attribute 'name')
        what = "a plain function" if callable(lc_tool) else type(lc_tool).__name__
        raise UserError(f"from_langchain_tool takes a LangChain tool (what @langchain_core.tools.tool makes, a "
                        f"StructuredTool or BaseTool), not {what}: make a toolwire tool of a function with "
                        "@toolwire.tool or toolwire.Tool.from_function(func), or pass the function to bind_tools, "
                        "ToolExecutor or Agent as it is.")
    from pydantic import BaseModel

    from toolwire._tool_run import current_call_id
    from toolwire.interop.openai_tools import schema_validator
    from toolwire.messages import new_tool_call_id

    name = lc_tool.name
    parameters = _lc_parameters(lc_tool)
    visible = set(parameters.get("properties") or {})
    fixed = dict(injected or {})
    declared = getattr(getattr(lc_tool, "args_schema", None), "model_fields", None) or {}
    if wrong := sorted(k for k in fixed if k in visible or k not in declared):
        raise UserError(f"LangChain tool {name!r} does not inject {', '.join(map(repr, wrong))}: pass in injected= "
                        "only the arguments it marks InjectedToolArg (or InjectedState, InjectedStore).")
    if missing := [k for k in _injected_needed(lc_tool, visible) if k not in fixed]:
        raise UserError(f"LangChain tool {name!r} needs {', '.join(map(repr, missing))}, injected by the application "
                        "rather than the model: convert it with toolwire.interop.langchain.from_langchain_tool(tool, "
                        f"injected={{{missing[0]!r}: ...}}).")
    schema_model = getattr(lc_tool, "tool_call_schema", None)
    # LangChain's single-input ``Tool`` (no args_schema) is offered as {"__arg1": string} while its tool_call_schema
    # is made from ``Tool._run(*args, config, **kwargs)``: check such a tool against the schema the model sees
    if isinstance(schema_model, type) and issubclass(schema_model, BaseModel) and set(
            getattr(schema_model, "model_fields", {}) or {}) == set(parameters.get("properties") or {}):
        validate = _pydantic_validator(schema_model, name)
    else:
        validate = None
    if validate is None:  # jsonschema, from the parameters
        from toolwire.interop.openai_tools import normalize_parameters

        dialect = parameters.get("$schema")  # validated in the schema's own dialect, as Tool.from_schema does
        validate = schema_validator(normalize_parameters(parameters, name, dialect_form=True), name,
                                    dialect=dialect if isinstance(dialect, str) else None)

    def unpack(message: Any) -> Any:
        if getattr(message, "status", "success") == "error":
            text = message.content if isinstance(message.content, str) else str(message.content)
            raise LangChainToolError(text, name)
        return message.content, getattr(message, "artifact", None)

    def call(kwargs: dict[str, Any]) -> dict[str, Any]:
        # the model's call id, so an InjectedToolCallId argument (a LangGraph Command, a ToolMessage the tool
        # builds) answers the right call; a new id only when run outside a tool call
        return {"name": name, "args": {**kwargs, **fixed}, "id": current_call_id() or new_tool_call_id(),
                "type": "tool_call"}

    if _is_async_only(lc_tool):
        async def run_async(**kwargs: Any) -> Any:
            return unpack(await lc_tool.ainvoke(call(kwargs)))

        func: Any = run_async
    else:
        def run(**kwargs: Any) -> Any:
            return unpack(lc_tool.invoke(call(kwargs)))

        func = run
    func.__name__ = name if name.isidentifier() else "langchain_tool"
    func.__doc__ = lc_tool.description
    return Tool.from_schema(func, name, lc_tool.description or "", parameters, validate,
                            return_direct=bool(getattr(lc_tool, "return_direct", False)),
                            response_format="content_and_artifact")


def to_langchain_tool(tool: Any, **options: Any) -> Any:
    """Make a LangChain ``StructuredTool`` that runs a toolwire tool.

    Args:
        tool: a toolwire :class:`~toolwire.tools.Tool` (or anything ``toolwire.models.base.to_tool``
            turns into one, such as a function with a docstring).
        options: none: the LangChain tool takes the toolwire tool's name, description and options (a keyword given
            here is refused with a ``UserError`` saying to set it on the toolwire tool).

    Returns:
        A ``langchain_core.tools.StructuredTool`` with the same name, description and JSON Schema
        (``args_schema`` is the schema dict; a tool of one parameter also takes its value as a bare string, as
        LangChain's own ``@tool`` does; an argument named ``config`` or ``run_manager``, which
        LangChain keeps for itself, is offered as ``config_`` / ``run_manager_``), ``return_direct`` and
        ``response_format``. Calls go
        through toolwire (validation, timeout); when the toolwire tool handles errors
        (``handle_errors=True``, the default) a failure becomes a LangChain ``status="error"``
        ToolMessage with toolwire's error text. Invoked with a whole LangChain ToolCall, the tool's
        :func:`~toolwire.current_tool_call` gives that call (its ``id`` is LangChain's ``tool_call_id``);
        invoked with bare arguments, it gives None, as ``tool.invoke(args)`` does.

    Raises:
        SchemaError: ``tool`` has no function to run (a schema-only spec).
        UserError: langchain-core is not installed, or a keyword was given (``name=``...).
    """
    if options:  # (review 76: a TypeError)
        key = next(iter(options))
        raise UserError(f"to_langchain_tool() takes only the tool, not {key}=: set the name, description and options "
                        "on the toolwire tool (@tool(name=..., description=...) or Tool.from_function(func, "
                        "name=...)), which the LangChain tool takes as they are.")
    _lc()
    from langchain_core.tools import ToolException

    from toolwire.models.base import to_tool

    converted = to_tool(tool)
    if not isinstance(converted, Tool):
        raise SchemaError(f"Tool {converted.name!r} has a schema but no function, so LangChain cannot run it.")
    tw = converted
    parameters, renamed = _unreserved(tw.parameters)

    def shape(result: Any) -> Any:
        if tw.response_format == "content_and_artifact":
            if not (isinstance(result, tuple) and len(result) == 2):
                raise ToolExecutionError(
                    f"Tool '{tw.name}' has response_format='content_and_artifact' and must return a "
                    f"(content, artifact) tuple, but returned {type(result).__name__}.", tw.name)
            return result_to_content(result[0]), result[1]
        return result_to_content(result)

    def failed(exc: Exception) -> Exception:
        if not tw.handle_errors:
            return exc
        return ToolException(error_text(exc, tw.name, hide_details=tw.hide_error_details))

    def current(kwargs: dict[str, Any]) -> contextvars.Token[Any] | None:
        call_id = _LC_CALL_ID.get()  # set only while LangChain runs a whole tool call (not bare arguments)
        return None if call_id is None else _CURRENT_CALL.set(
            {"name": tw.name, "args": kwargs, "id": call_id, "type": "tool_call"})

    def run(**kwargs: Any) -> Any:
        kwargs = {renamed.get(k, k): v for k, v in kwargs.items()} if renamed else kwargs
        token = current(kwargs)
        try:
            return shape(tw.invoke(kwargs))
        except Exception as exc:
            raise failed(exc) from exc
        finally:
            if token is not None:
                _CURRENT_CALL.reset(token)

    async def arun(**kwargs: Any) -> Any:
        kwargs = {renamed.get(k, k): v for k, v in kwargs.items()} if renamed else kwargs
        token = current(kwargs)
        try:
            return shape(await tw.ainvoke(kwargs))
        except Exception as exc:
            raise failed(exc) from exc
        finally:
            if token is not None:
                _CURRENT_CALL.reset(token)

    return _structured_tool_class()(
        name=tw.name,
        description=tw.description,
        args_schema=parameters,
        func=run,
        coroutine=arun,
        return_direct=tw.return_direct,
        response_format=tw.response_format,
        handle_tool_error=tw.handle_errors,
    )


_LC_RESERVED = ("config", "run_manager")
"""Keyword arguments LangChain's ``StructuredTool._run`` keeps for itself: a tool argument of that name never
reaches the function (langchain-core ``tools/structured.py``)."""


def _unreserved(parameters: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The schema LangChain is given, and ``{LangChain's name: the tool's}`` for the renamed arguments: an
    argument named ``config`` or ``run_manager`` is offered as ``config_`` (``config__``, ... if taken), so its
    value reaches the tool instead of being taken by LangChain."""
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
            """A toolwire tool as a LangChain StructuredTool (see :func:`to_langchain_tool`)."""

            def _single(self, tool_input: Any) -> Any:
                """A string given to a tool of one parameter is that parameter's value, as for LangChain's own
                ``@tool`` (its JSON Schema ``args_schema`` refuses strings; legacy text agents send them)."""
                props = self.args_schema.get("properties") if isinstance(self.args_schema, dict) else None
                if isinstance(tool_input, str) and isinstance(props, dict) and len(props) == 1:
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


# -- messages -------------------------------------------------------------------------------------


def _usage_to_lc(usage: Any) -> Any:
    if not usage:
        return None
    out: dict[str, Any] = {k: usage.get(k, 0) for k in ("input_tokens", "output_tokens", "total_tokens")}
    if usage.get("cached_tokens") is not None:
        out["input_token_details"] = {"cache_read": usage["cached_tokens"]}
    return out


def _invalid_places(msg: AIMessage) -> dict[str, int]:
    """``{call id: index}`` for the calls of ``msg`` that go to LangChain as invalid ones and have a place among the
    reply's calls (:class:`~toolwire.messages.InvalidToolCall` ``index``): each indexed invalid call, and each call
    whose arguments are not an object (LangChain's invalid call too) that a readable call follows. LangChain's
    invalid_tool_call has no ``index``, so :func:`to_langchain_messages` keeps this in ``additional_kwargs``, where
    :func:`from_langchain_messages` reads it back (review 76: a round trip wrote the turn back reordered)."""
    unread = [c for c in msg.tool_calls if not isinstance(c["args"], dict)]
    places = {bad["id"]: bad["index"] for bad in msg.invalid_tool_calls if type(bad.get("index")) is int}
    if unread:
        order = in_reply_order(msg.tool_calls, msg.invalid_tool_calls, msg.invalid_tool_calls)
        last_read = max((i for i, c in enumerate(order) if c.get("type") == "tool_call"
                         and isinstance(c.get("args"), dict)), default=-1)
        for position, call in enumerate(order):
            if position < last_read and any(call is c for c in unread):
                places[call["id"]] = position
    return places


def _chunk_calls(msg: Any) -> tuple[list[Any], list[Any]]:
    """The ``(tool_calls, invalid_tool_calls)`` of a LangChain ``AIMessageChunk``, read from its raw
    ``tool_call_chunks`` as toolwire's own :class:`~toolwire.chunks.AIMessageChunk` reads them
    (:meth:`~toolwire.chunks.AIMessageChunk.to_message`), not from LangChain's ``tool_calls``: LangChain parses the
    argument text as partial JSON, so arguments a stream cut off mid-way (``'{"pattern": "*.tmp", "dry_run": fa'``)
    read as a call without the cut ones (review 76: it ran with ``dry_run`` at its default). Here such a call is an
    :class:`~toolwire.messages.InvalidToolCall` that never runs. Invalid calls the chunk was given with an error
    (LangChain makes a chunk of each; those read from chunks have none) are kept as given."""
    from toolwire.chunks import AIMessageChunk as Chunk

    pieces = [dict(piece) for piece in msg.tool_call_chunks]
    given = [bad for bad in msg.invalid_tool_calls if bad.get("error") is not None]
    for bad in given:  # the piece LangChain made of it (None index, its name, args and id) is not read again
        made = [i for i, piece in enumerate(pieces) if piece.get("index") is None and (
            piece.get("name"), piece.get("args"), piece.get("id")) == (bad.get("name"), bad.get("args"), bad.get("id"))]
        if made:
            del pieces[made[0]]
    read = Chunk("", tool_call_chunks=pieces,  # type: ignore[arg-type]
                 invalid_tool_calls=[invalid_tool_call(bad.get("name"), bad.get("args"), bad.get("id"),
                                                       bad.get("error")) for bad in given],
                 response_metadata=dict(msg.response_metadata or {})).to_message()
    return read.tool_calls, read.invalid_tool_calls


def to_langchain_messages(messages: Any) -> list[Any]:
    """Convert toolwire messages to ``langchain_core.messages`` ones.

    Args:
        messages: a toolwire message, a list of them, or anything toolwire accepts as a conversation
            (strings, ``(role, text)`` tuples, role dicts).

    Returns:
        LangChain ``SystemMessage``/``HumanMessage``/``AIMessage``/``ToolMessage`` objects in order.
        ``AIMessage.usage`` becomes ``usage_metadata``; ``provider_data`` is kept in
        ``additional_kwargs["toolwire_provider_data"]`` so it survives a round trip, as is each invalid call's place
        in the reply (its ``index``, for which LangChain's ``invalid_tool_call`` has no field), as
        ``additional_kwargs["toolwire_invalid_call_index"]`` ``{call id: index}``; the LangChain
        ``additional_kwargs`` that :func:`from_langchain_messages` kept in ``response_metadata["additional_kwargs"]``
        go back to ``additional_kwargs``, and so does ``response_metadata["refusal"]`` (where ChatOpenAI keeps it).

    Raises:
        UserError: langchain-core is not installed, or an item is not a message.
    """
    lc = _lc()
    from toolwire.messages import coerce_messages

    out: list[Any] = []
    for msg in coerce_messages(messages):
        common = {"id": msg.id, "name": msg.name}
        if isinstance(msg, SystemMessage):
            out.append(lc.SystemMessage(content=msg.content, **common))
        elif isinstance(msg, HumanMessage):
            out.append(lc.HumanMessage(content=msg.content, **common))
        elif isinstance(msg, AIMessage):
            metadata = dict(msg.response_metadata)
            kept = metadata.get("additional_kwargs")  # what from_langchain_messages kept of LangChain's
            extra: dict[str, Any] = dict(metadata.pop("additional_kwargs")) if isinstance(kept, dict) else {}
            if metadata.get("refusal"):  # where LangChain's ChatOpenAI keeps it (review 76)
                extra["refusal"] = metadata.pop("refusal")
            if msg.provider_data:
                extra[_PROVIDER_DATA_KEY] = msg.provider_data
            if places := _invalid_places(msg):
                extra[INDEX_KEY] = places
            out.append(lc.AIMessage(
                content=msg.content,
                tool_calls=[{"name": c["name"], "args": c["args"], "id": c["id"], "type": "tool_call"}
                            for c in msg.tool_calls if isinstance(c["args"], dict)],
                # a call whose arguments are text that could not be read (kept as sent, see AIMessage): LangChain
                # holds such a call as an invalid one (a place in the reply, "index", is kept in extra above:
                # LangChain's invalid_tool_call has no field for it)
                invalid_tool_calls=[*({k: v for k, v in c.items() if k != "index"} for c in msg.invalid_tool_calls),
                                    *({"name": c["name"], "args": c["args"] if isinstance(c["args"], str)
                                       else json.dumps(c["args"], default=str), "id": c["id"],
                                       "error": "the arguments are not a JSON object", "type": "invalid_tool_call"}
                                      for c in msg.tool_calls if not isinstance(c["args"], dict))],
                usage_metadata=_usage_to_lc(msg.usage),
                response_metadata=metadata,
                additional_kwargs=extra,
                **common,
            ))
        elif isinstance(msg, ToolMessage):
            out.append(lc.ToolMessage(content=msg.content, tool_call_id=msg.tool_call_id, status=msg.status,
                                      artifact=msg.artifact, **common))
        else:  # pragma: no cover - coerce_messages returns only these
            raise UserError(f"Cannot convert {type(msg).__name__} to a LangChain message.")
    return out


def _content(value: Any) -> Any:
    return value if isinstance(value, str | list) else str(value)


def from_langchain_messages(messages: Any) -> list[BaseMessage]:
    """Convert ``langchain_core.messages`` objects to toolwire messages.

    Args:
        messages: one LangChain message or a list (any iterable) of them (``AIMessageChunk`` counts as an
            ``AIMessage``, its calls read from its raw ``tool_call_chunks`` as toolwire's own chunk reads them, so a
            call whose arguments a stream cut off is an invalid call; a ``ChatMessage`` is read by its role). Items
            that are not LangChain messages are read as toolwire reads a conversation
            (:func:`toolwire.messages.coerce_messages`): toolwire messages are kept, ``(role, text)`` tuples, role
            dicts and strings become messages.

    Returns:
        toolwire messages in order; tool calls keep name, args and id, invalid tool calls keep their raw
        text, ToolMessages keep ``tool_call_id``, ``status`` and ``artifact``. An AI message's
        ``additional_kwargs`` are kept as :func:`toolwire.message_from_dict` keeps them from LangChain's
        ``messages_to_dict`` form: ``refusal`` in ``response_metadata["refusal"]``, the others (such as
        ``reasoning_content``; not the raw ``tool_calls``, which LangChain already read into ``tool_calls``) in
        ``response_metadata["additional_kwargs"]``, and the invalid calls' places that :func:`to_langchain_messages`
        kept (``toolwire_invalid_call_index``) as their ``index``.

    Raises:
        UserError: langchain-core is not installed, ``messages`` is not a message or an iterable of them, or a
            message has no toolwire equivalent (``FunctionMessage``, ``RemoveMessage``, a ``ChatMessage`` with an
            unknown role), or an item is neither a LangChain message nor one toolwire reads.
    """
    from toolwire._message_dicts import _is_role_pair
    from toolwire.messages import coerce_messages

    lc = _lc()
    if isinstance(messages, lc.BaseMessage | BaseMessage | str | dict) or _is_role_pair(messages):
        messages = [messages]  # one message (a string is one question, not its characters)
    elif not isinstance(messages, Iterable):
        raise UserError(f"from_langchain_messages takes a LangChain message or a list of them, not "
                        f"{type(messages).__name__}.")
    items: Iterable[Any] = messages
    out: list[BaseMessage] = []
    roles = {"system": SystemMessage, "user": HumanMessage, "human": HumanMessage,
             "assistant": AIMessage, "ai": AIMessage}
    for msg in items:
        if not isinstance(msg, lc.BaseMessage):  # a toolwire message, a (role, text) tuple, a role dict...
            out.extend(coerce_messages([msg]))
            continue
        common = {"id": msg.id, "name": msg.name}
        content = _content(msg.content)
        if isinstance(msg, lc.SystemMessage):
            out.append(SystemMessage(content, **common))
        elif isinstance(msg, lc.HumanMessage):
            out.append(HumanMessage(content, **common))
        elif isinstance(msg, lc.AIMessage):
            extra = dict(msg.additional_kwargs or {})
            extra.pop("tool_calls", None)  # OpenAI's raw form of the calls LangChain read into tool_calls
            if isinstance(msg, lc.AIMessageChunk) and msg.tool_call_chunks:
                calls, invalid = _chunk_calls(msg)
            else:
                calls = [tool_call(c["name"], dict(c.get("args") or {}), c.get("id")) for c in msg.tool_calls]
                invalid = [invalid_tool_call(c.get("name"), c.get("args"), c.get("id"), c.get("error"))
                           for c in msg.invalid_tool_calls]
            # LangChain's keywords, read as AIMessage reads them (provider_data, refusal, the invalid calls' places)
            out.append(AIMessage(content, tool_calls=calls, invalid_tool_calls=invalid,
                                 usage_metadata=msg.usage_metadata or None,
                                 response_metadata=dict(msg.response_metadata or {}), additional_kwargs=extra,
                                 **common))
        elif isinstance(msg, lc.ToolMessage):
            out.append(ToolMessage(content, msg.tool_call_id, status=getattr(msg, "status", "success"),
                                   artifact=getattr(msg, "artifact", None), **common))
        elif isinstance(msg, lc.ChatMessage) and msg.role in roles:
            out.append(roles[msg.role](content, **common))
        else:
            raise UserError(f"Cannot convert a LangChain {type(msg).__name__} to a toolwire message.")
    return out

