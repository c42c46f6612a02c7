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
from collections.abc import Callable, Mapping
from typing import Any

from toolwire._error_origin import UNSENT_VALUES
from toolwire._foreign_results import command_error, foreign_answer, is_foreign_answer
from toolwire._keywords import refuses_unknown_keywords
from toolwire._structured_tool import _pair, _SyncAndAsyncTool
from toolwire._tool_run import _CURRENT_CALL
from toolwire.errors import SchemaError, ToolExecutionError, ToolValidationError, UserError
from toolwire.interop._langchain_check import langchain_check, pydantic_validator, v1_validator
from toolwire.interop._langchain_injected import (
    check_injected,
    explained,
    injected_defaults,
    injected_kinds,
    with_call_id,
)
from toolwire.interop._langchain_messages import _lc, from_langchain_messages, to_langchain_messages
from toolwire.interop._langchain_out import (
    _LC_CALL_ID,
    _structured_tool_class,
    _tool_output,
    _unreserved,
    bare_tool_exception,
    graph_filled,
)
from toolwire.interop._langchain_schema import lc_schema
from toolwire.results import unsent_result
from toolwire.tools import Tool, error_text, result_to_content

__all__ = [
    "LangChainToolError",
    "from_langchain_messages",
    "from_langchain_tool",
    "to_langchain_messages",
    "to_langchain_tool",
]

# the toolwire tool a to_langchain_tool tool runs for LangChain's tool call (None: for bare arguments)
_LC_RUNNING: contextvars.ContextVar[Tool | None] = contextvars.ContextVar("toolwire_langchain_tool", default=None)
_OWN_CALL = " toolwire call id"
"""The key under which :meth:`_CallMarked.call_args` gives a from_langchain_tool tool's function the id of the tool
call it was invoked with (not a name an argument can have: the arguments are checked against the schema first)."""


class LangChainToolError(ToolExecutionError):
    """Formerly raised when a LangChain tool answered with ``status="error"``; no longer raised: that answer is now
    the call's ToolMessage as written (review 163 #3, see :func:`from_langchain_tool`). Kept so that code that
    imports or catches it still runs."""


def _own_call_id(name: str, args: Any) -> str | None:
    """The id of the tool call toolwire is running when ``args`` are that call's own arguments (the very object the
    call holds, which only the code running the call passes) and the call names the tool ``name``; else None."""
    from toolwire._tool_run import _CURRENT_CALL

    call = _CURRENT_CALL.get()
    if call is None or call.get("name", name) != name:
        return None
    held = call.get("args")
    # (a call without arguments: invoke checks a new {} in place of the missing "args")
    if args is held or (held is None and (args is None or (isinstance(args, dict) and not args))):
        return call.get("id")
    return None


class _CallMarked(Tool):
    """The :class:`~toolwire.tools.Tool` :func:`from_langchain_tool` makes: its arguments checked for a tool call
    carry that call's id to its function (under :data:`_OWN_CALL`), which so tells its own call from bare arguments
    given while another tool's call runs (review 168 #1: ``current_call_id()`` names whichever call runs)."""

    __slots__ = ()

    def call_args(self, args: Any) -> dict[str, Any]:
        """As :meth:`Tool.call_args <toolwire.tools.Tool.call_args>`: the checked arguments as a dict of keyword
        arguments (``{"city": "Paris"}``), what ``validate_args`` returns.

        When toolwire itself checks the arguments of a tool call of this tool that it is about to run (``invoke`` or
        ``ainvoke`` of the call, or a :class:`~toolwire.execution.ToolExecutor`), the dict also carries the call's id
        under the private :data:`_OWN_CALL`, for the tool's function. Arguments checked any other way, such as by
        another tool's function during its own call, never get it (review 173 #2: they got that other call's id).

        Raises:
            ToolValidationError, UserError: as ``Tool.call_args``.
        """
        kwargs = super().call_args(args)
        call_id = _own_call_id(self.name, args)
        return kwargs if call_id is None else {**kwargs, _OWN_CALL: call_id}


class _CallMarkedBoth(_SyncAndAsyncTool, _CallMarked):
    """:class:`_CallMarked` for a LangChain tool with a sync and an async side."""

    __slots__ = ()


def _checked_name(name: Any) -> str:
    """A LangChain tool's name, when a tool name can be it (LangChain takes any name; the OpenAI and Anthropic APIs,
    and so toolwire, do not).

    Raises:
        SchemaError: the name is not one (``math.add``), saying what to set it to (review 132 #5: the message did not
            say how to fix a tool the user did not write). It is not renamed quietly: LangGraph's ``ToolNode`` and a
            history holding the old name would then not find it (review 133 #2).
    """
    from toolwire._tool_checks import valid_name

    text = str(name)
    if (offered := valid_name(text, "tool")) != text:
        raise SchemaError(f"LangChain tool {text!r} has a name a model's tool cannot have (1 to 64 ASCII letters, "
                          f"digits, '_' or '-', the rule of the OpenAI and Anthropic APIs): set its name before "
                          f"passing it, for example lc_tool.name = {offered!r}.")
    return text


def _sides(lc_tool: Any) -> tuple[bool, bool]:
    """``(has a sync side, has an async side)`` of a LangChain tool, as LangChain runs it: a ``StructuredTool`` (or
    single-input ``Tool``) has the sides of its ``func`` and ``coroutine``; another ``BaseTool`` subclass always has
    ``_run`` (abstract), and an async side when it overrides ``_arun`` (BaseTool's own runs ``_run`` in a thread)."""
    from langchain_core.tools import BaseTool, StructuredTool
    from langchain_core.tools import Tool as LCTool

    if isinstance(lc_tool, StructuredTool | LCTool) and type(lc_tool)._arun in (StructuredTool._arun, LCTool._arun):
        return getattr(lc_tool, "func", None) is not None, getattr(lc_tool, "coroutine", None) is not None
    return True, type(lc_tool)._arun is not BaseTool._arun


@refuses_unknown_keywords("from_langchain_tool")
def from_langchain_tool(lc_tool: Any, *, injected: Mapping[str, Any] | None = None) -> Tool:
    """Wrap a LangChain tool as a toolwire :class:`~toolwire.tools.Tool`.

    The name, description and argument schema are LangChain's (``convert_to_openai_tool``, so
    injected arguments such as ``InjectedToolArg`` stay hidden from the model). Arguments are checked
    against that model-visible schema (the pydantic ``tool_call_schema``, or ``jsonschema`` for a dict
    schema and for a model whose fields are not the schema's properties, such as the single ``__arg1`` of
    LangChain's single-input ``Tool``; a ``pydantic.v1`` ``args_schema`` itself, with its lax coercion and validators,
    as LangChain checks it: its ``pre`` root validators and ``allow_population_by_field_name`` decide which keys it
    takes, and a key left over is refused unless its ``Config.extra`` allows or ignores it), or
    against the tool's own pydantic ``args_schema`` less the injected arguments
    when that model has validators or a config of its own, which then run as LangChain runs them (review 180 #1: a
    ``mode="before"`` validator mapping an old key was skipped): a key no field declares (after such a validator,
    unless the model sets ``extra="allow"``/``"ignore"``), an injected argument's name included, is a validation error
    the model sees. A tool with a ``handle_validation_error`` (``True``, a text, a callable) is handed refused
    arguments as they are, so that its handler answers them as LangChain's tool does (review 180 #2).
    When toolwire runs this tool for a tool call (``invoke(tool_call)``,
    ``ToolExecutor``, ``Agent``), the checked arguments are passed to the LangChain tool as a tool call carrying the
    model's call id, so LangChain fills ``InjectedToolCallId`` with it (other injected arguments take
    their defaults) and a ``response_format="content_and_artifact"`` artifact lands on
    ``ToolMessage.artifact``; ``return_direct`` and ``response_format`` are kept. With bare arguments
    (``invoke(args)``, also from inside another tool's call: review 168 #1) the LangChain tool is invoked with them
    bare and what it returns is returned as it is, as LangChain's ``invoke(args)`` does: the function's value (a dict
    stays a dict), or the text of its ``handle_tool_error`` (review 163 #2: it was the JSON text of the ToolMessage);
    a tool that takes ``InjectedToolCallId`` is still given a tool call (with a new id, never another call's) and
    gives its content (a ToolMessage it built with an artifact or an error status, as toolwire's
    :class:`~toolwire.messages.ToolMessage`), and a ``"content_and_artifact"`` tool gives the ``(content, artifact)``
    pair of its ToolMessage, or the text of its ``handle_tool_error`` (review 168 #5). Called directly,
    ``tool("Paris")`` takes positional arguments in the schema's order, as LangChain's ``tool("Paris")`` does. A
    LangChain ``status="error"`` ToolMessage (one the tool built, or the text of its ``handle_tool_error`` or
    ``handle_validation_error``) is the tool's answer, not a failure: it answers the call as written, its content
    (a list of blocks too), status and artifact kept, as toolwire's own
    :class:`~toolwire.messages.ToolMessage` does, also under ``handle_errors=False`` (review 163 #3); a LangChain tool
    that raises fails as any tool does. A LangGraph ``Command``, which toolwire does not apply, is a
    :class:`~toolwire.errors.ToolExecutionError` saying so (the tool has run).
    Tools with only a ``coroutine`` run async. A tool with both sides (a ``StructuredTool`` with ``func`` and
    ``coroutine``, a ``BaseTool`` subclass that overrides ``_arun``) is run as LangChain runs it: toolwire's sync entry
    points (``invoke``, ``batch``, ``ToolExecutor.call``/``execute``, ``Agent.invoke``) call ``lc_tool.invoke`` and
    the async ones (``ainvoke``, ``abatch``, ``acall``/``aexecute``, ``Agent.ainvoke``) await ``lc_tool.ainvoke``.

    Args:
        lc_tool: a LangChain ``BaseTool`` instance (``@tool``-decorated function, ``StructuredTool``, ``Tool``...).
        injected: ``{argument name: value}`` for the arguments the application injects in LangChain
            (``InjectedToolArg``, LangGraph's ``InjectedState``/``InjectedStore``), passed with every call; the
            model never sees them, also not quoted in the error text of an exception the tool raises (each value
            is written ``<hidden>`` there, as is the default of such an argument left out). Required when the tool
            has such an argument without a default. A LangChain v1 ``ToolRuntime`` argument is given here too (a
            ``ToolRuntime(state=..., context=..., config=..., stream_writer=..., tool_call_id=None, store=None)``):
            each call gets a copy whose ``tool_call_id`` is that call's id. The ``InjectedToolCallId`` argument
            is never given here: it is each call's id.

    Returns:
        A new :class:`~toolwire.tools.Tool` that runs ``lc_tool``.

    Raises:
        SchemaError: the tool's name or schema cannot be used.
        UserError: langchain-core is not installed; ``lc_tool`` is not a LangChain tool (a plain function: the
            message says to make a toolwire tool of it); a keyword other than ``injected`` (``injcted=``: the
            message names the close match); the tool needs an injected argument (or ``ToolRuntime``) ``injected``
            does not give (review 74: the model got pydantic's "Field required" for it), or ``injected`` names an
            argument the tool does not inject, or its ``InjectedToolCallId`` argument; the tool has no description
            (empty or blank).
        TypeError: (when called directly) more positional arguments than parameters, or one given both ways.
    """
    lc = _lc()
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

    name = _checked_name(lc_tool.name)
    # (less the defaults JSON cannot carry: review 242 #4; aliased fields under the keys LangChain reads, visible the
    # names of the fields shown: review 296 #2)
    parameters, visible = lc_schema(lc_tool)
    fixed = dict(injected or {})
    runtimes = check_injected(lc_tool, name, visible, fixed)  # (reviews 74, 273 #3, #5)
    schema_model = getattr(lc_tool, "tool_call_schema", None)
    # LangChain's single-input ``Tool`` (no args_schema) is offered as {"__arg1": string} while its tool_call_schema
    # is made from ``Tool._run(*args, config, **kwargs)``: check such a tool against the schema the model sees
    if isinstance(schema_model, type) and issubclass(schema_model, BaseModel) and set(
            getattr(schema_model, "model_fields", {}) or {}) == visible:
        validate = pydantic_validator(schema_model, name, schema=parameters)  # (errors worded on it: review 242 #1)
    else:  # a pydantic.v1 args_schema: checked by it, as LangChain does (review 217 #3)
        validate = v1_validator(lc_tool, parameters, fixed, name)
    if validate is None:  # jsonschema, from the parameters
        from toolwire.interop.openai_tools import normalize_parameters

        dialect = parameters.get("$schema")  # validated in the schema's own dialect, as Tool.from_schema does
        validate = schema_validator(normalize_parameters(parameters, name, dialect_form=True), name,
                                    dialect=dialect if isinstance(dialect, str) else None)

    with_artifact = getattr(lc_tool, "response_format", "content") == "content_and_artifact"
    props = list(parameters.get("properties") or {})

    validate = langchain_check(validate, lc_tool, visible, fixed, name, parameters)  # own validators (review 180)
    if kinds := injected_kinds(lc_tool, visible):
        validate = explained(validate, kinds, name)

    def unpack(message: Any) -> Any:
        if not isinstance(message, lc.ToolMessage):  # LangChain passes a ToolOutputMixin on as the tool returned it
            if is_foreign_answer(message):  # a LangGraph Command: refused after the tool ran (review 93: it was
                raise command_error(name)  # "'Command' object has no attribute 'content'")
            raise ToolExecutionError(f"LangChain tool {name!r} returned a {type(message).__name__} instead of its "
                                     "result or a ToolMessage, which toolwire cannot send the model: return text (or "
                                     "a ToolMessage) from the tool.", name)
        if message.status == "error":  # the tool answered (an error ToolMessage it built, its handle_tool_error
            # text): that answers the call as written, content, status and artifact kept, as toolwire's own tool's
            # ToolMessage does (review 163 #3: a content list reached the model as its Python repr, "Error: " was put
            # before the text, and handle_errors=False raised it)
            return foreign_answer(message, name)
        if with_artifact:  # (review 93: every LangChain tool was marked so, so invoke(args) gave (content, None))
            return message.content, message.artifact
        # a ToolMessage the tool built with an artifact (InjectedToolCallId) keeps it; else the content, as LangChain's
        return message.content if message.artifact is None else foreign_answer(message, name)  # invoke(args) gives

    def value(result: Any) -> Any:
        # what LangChain's tool.invoke(args) gave: the function's value, or the text of its handle_tool_error; a
        # ToolMessage it built as toolwire's own (a LangGraph Command refused, as in unpack)
        return foreign_answer(result, name) if is_foreign_answer(result) else result

    def call(args: tuple[Any, ...], kwargs: dict[str, Any], own: Any) -> dict[str, Any]:
        # the model's call id (``own``: the id of the call this tool was invoked with), so an InjectedToolCallId
        # argument (a LangGraph Command, a ToolMessage the tool builds) answers the right call; a new id when the tool
        # was invoked with bare arguments, also inside another tool's call (review 168 #1: it got that call's id)
        if args:  # tool("Paris"), as LangChain's tool("Paris") (review 93: a TypeError naming run())
            if len(args) > len(props):
                raise TypeError(f"LangChain tool {name!r} takes {len(props)} argument(s) ({', '.join(props)}), "
                                f"but {len(args)} were given: pass them by name.")
            if twice := [p for p in props[:len(args)] if p in kwargs]:
                raise TypeError(f"LangChain tool {name!r} got {twice[0]!r} both by position and by name: pass it "
                                "once.")
            kwargs = {**dict(zip(props, args, strict=False)), **kwargs}
        call_id = own or new_tool_call_id()  # (a ToolRuntime gets it too: review 273 #3)
        return {"name": name, "args": {**kwargs, **with_call_id(fixed, runtimes, call_id)}, "id": call_id,
                "type": "tool_call"}

    # with bare arguments (tool.invoke(args), an LCEL chain, a tool calling it inside its own call), LangChain's own
    # tool is given them bare and its value returned as it is (review 163 #2: the text of the ToolMessage came back, a
    # dict result as JSON), unless the tool needs a call: an InjectedToolCallId argument, or a (content, artifact)
    # pair to give back
    needs_call = with_artifact or "InjectedToolCallId" in kinds.values()

    def own_call(kwargs: dict[str, Any]) -> Any:
        # the id of the tool call this tool was invoked with (the mark call_args puts in its arguments, or the call
        # to_langchain_tool runs it for), None for bare arguments: that a call runs does not say it is this tool's
        # (review 168 #1: a tool calling this one inside its own call got the JSON text of the value)
        marked = kwargs.pop(_OWN_CALL, None)
        if marked is None and getattr(_LC_RUNNING.get(), "func", None) in (run, run_async):
            return current_call_id()
        return marked

    def answered(message: Any, own: Any) -> Any:
        # with bare arguments, an error answer (its handle_tool_error text) is that text, as LangChain's invoke(args)
        # gives it (review 168 #5: a content_and_artifact tool gave a ToolMessage with the made-up id)
        if own is None and with_artifact and isinstance(message, lc.ToolMessage) and message.status == "error":
            return message.content
        return unpack(message)

    async def run_async(*args: Any, **kwargs: Any) -> Any:
        own = own_call(kwargs)
        request = call(args, kwargs, own)
        if own is None and not needs_call:
            return value(await lc_tool.ainvoke(request["args"]))
        return answered(await lc_tool.ainvoke(request), own)

    def run(*args: Any, **kwargs: Any) -> Any:
        own = own_call(kwargs)
        request = call(args, kwargs, own)
        if own is None and not needs_call:
            return value(lc_tool.invoke(request["args"]))
        return answered(lc_tool.invoke(request), own)

    has_sync, has_async = _sides(lc_tool)
    unsent = {**injected_defaults(lc_tool, visible), **fixed}
    for func in (run, run_async):
        func.__name__ = name if name.isidentifier() else "langchain_tool"
        func.__doc__ = lc_tool.description
        if unsent:  # (the error text of the tool's own exception hides them: review 217 #1, 273 #1)
            setattr(func, UNSENT_VALUES, unsent)
    # both sides: toolwire's sync entry points call lc_tool.invoke and its async ones await lc_tool.ainvoke, as
    # LangChain does, made as StructuredTool.from_function(func=, coroutine=) makes such a tool (review 143 #2)
    kind = _CallMarkedBoth if has_sync and has_async else _CallMarked
    if not isinstance(lc_tool.description, str) or not lc_tool.description.strip():  # (the error of from_schema names
        raise UserError(f"LangChain tool {name!r} has no description: give it one (a docstring, or "  # description=,
                        "description=... where the tool is made) so that the model knows what it does.")  # r. 157)
    made = kind.from_schema(run if has_sync else run_async, name, lc_tool.description or "", parameters, validate,
                            return_direct=bool(getattr(lc_tool, "return_direct", False)),
                            response_format="content_and_artifact" if with_artifact else "content")
    if isinstance(made, _SyncAndAsyncTool):
        _pair(made, run_async)
    return made


def to_langchain_tool(tool: Any, **options: Any) -> Any:
    """Make a LangChain ``StructuredTool`` that runs a toolwire tool.

    Args:
        tool: a toolwire :class:`~toolwire.tools.Tool` (or anything ``toolwire.models.base.to_tool``
            turns into one, such as a function with a docstring).
        options: none: the LangChain tool takes the toolwire tool's name, description and options (a keyword given
            here is refused with a ``UserError`` saying to set it on the toolwire tool).

    Returns:
        A ``langchain_core.tools.StructuredTool`` with the same name, description and JSON Schema
        (``args_schema`` is the schema dict; a bare string is the value of its first parameter when the others are
        optional, as LangChain's own ``@tool`` does; an argument named ``config``, ``run_manager`` or ``self``, which
        LangChain keeps for itself, is offered as ``config_`` / ``run_manager_`` / ``self_``), ``return_direct`` and
        ``response_format``. Calls go through toolwire (validation, timeout). What the toolwire tool returns is
        passed on as LangChain's own tool passes it: a LangChain ``ToolMessage`` or LangGraph ``Command`` (any
        ``ToolOutputMixin``) as it is, toolwire's :class:`~toolwire.messages.ToolMessage` as LangChain's (content,
        ``tool_call_id``, status, artifact and name kept), anything else as the call's content (text, through a whole
        ToolCall) or as the value itself (with bare arguments, as LangChain's own tool and ``tool.invoke(args)``
        return it: review 163 #2; a ``"content_and_artifact"`` tool's content, as LangChain returns only that
        part then). Invoked with a whole LangChain
        ToolCall (what LangGraph's ``ToolNode`` does), a failure or invalid arguments become a LangChain
        ``status="error"`` ToolMessage with toolwire's error text when the toolwire tool handles errors
        (``handle_errors=True``, the default; the LangChain tool's ``handle_tool_error`` and
        ``handle_validation_error`` are that flag), and the tool's :func:`~toolwire.current_tool_call` gives that
        call (its ``id`` is LangChain's ``tool_call_id``). Invoked with bare arguments (``lc_tool.invoke({"x": 1})``,
        as an LCEL chain or LangChain's ``AgentExecutor`` runs it), it answers as LangChain's own tools with those
        flags answer: invalid arguments with toolwire's error text (``handle_validation_error``, so an agent's model
        can correct its call), a ``ToolException`` the function raises with its text (``handle_tool_error``), and any
        other failure raised as ``tool.invoke(args)`` raises it; :func:`~toolwire.current_tool_call` gives None. A
        ``ToolException``'s text has the values the model was not sent written ``<hidden>``, as a tool call's error
        text has, and is that error text under ``hide_error_details``. A parameter the model is not shown that
        LangGraph or LangChain fills (``Annotated[dict, InjectedState]``, ``InjectedStore``, a ``RunnableConfig``, in
        the signature or an ``args_schema``) is declared on the LangChain tool's function as LangChain's own ``@tool``
        declares it, so that LangGraph's ``ToolNode`` gives it the graph's state or store and LangChain the run's
        config (also with bare arguments), instead of its default (review 273 #2): the state and store are read from
        a whole ToolCall's arguments, where ``ToolNode`` puts them (and drops a model's value), as LangChain's own tool
        reads them; with bare arguments they are refused as toolwire refuses them. Toolwire itself (``invoke``,
        ``Agent``) still gives such a parameter its default, and an error text writes its value ``<hidden>``.

    Raises:
        SchemaError: ``tool`` has no function to run (a schema-only spec).
        UserError: langchain-core is not installed, or a keyword was given (``name=``...).

    The returned tool, invoked with bare arguments, raises as the toolwire tool does: ``ToolTimeoutError``,
    ``UserError`` (a tool taking ``InjectedToolCallId`` needs a ToolCall), or the function's own exception; and
    ``ToolValidationError`` when the toolwire tool has ``handle_errors=False``.
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
        if (answer := _tool_output(result)) is not None:  # the tool's own answer: LangChain passes it on as is
            return (answer, None) if tw.response_format == "content_and_artifact" else answer  # (review 143 #1, #9)
        # with bare arguments LangChain returns the function's value as it is (only a ToolCall's answer is made a
        # ToolMessage), as tw.invoke(args) does: so the value itself (review 163 #2: it was JSON text)
        content = result_to_content if _LC_CALL_ID.get() is not None else (lambda same: same)
        if tw.response_format == "content_and_artifact":
            if not (isinstance(result, tuple) and len(result) == 2):
                raise ToolExecutionError(
                    f"Tool '{tw.name}' has response_format='content_and_artifact' and must return a "
                    f"(content, artifact) tuple, but returned {type(result).__name__}.", tw.name)
            return content(result[0]), result[1]
        return content(result)

    def failed(exc: Exception) -> Exception:
        # with a whole ToolCall, any failure becomes a ToolException, which LangChain answers with an error
        # ToolMessage (handle_tool_error), as toolwire's tool.invoke(tool_call) and LangGraph's ToolNode do; with
        # bare arguments, as LangChain's own tools with these flags: invalid arguments answered with their text
        # (handle_validation_error: AgentExecutor shows it to the model, review 95), the function's failure raised
        # as tw.invoke(args) raises it (review 93: its text came back as if it were the result), a ToolException's
        # text, which LangChain answers with, with what the model was not sent hidden (review 273 #4)
        if not tw.handle_errors:
            return exc
        if _LC_CALL_ID.get() is None and not isinstance(exc, ToolValidationError):
            return bare_tool_exception(exc, tw.name, tw.hide_error_details)
        return ToolException(error_text(exc, tw.name, hide_details=tw.hide_error_details))

    def with_artifact(exc: Exception, handled: Exception) -> Any:
        # a failure that carries what the call gave besides its message (an MCP isError result's blocks, a value the
        # tool returned that could not be sent) answers a whole ToolCall with the error ToolMessage LangChain would
        # make of the ToolException, and that artifact on it, as toolwire's tool.invoke(tool_call) does (review
        # 132 #3: LangChain's own error path drops it); None otherwise (the ToolException is raised)
        call_id, artifact = _LC_CALL_ID.get(), unsent_result(exc, tw.name)
        if call_id is None or artifact is None:
            return None
        from langchain_core.messages import ToolMessage as LCToolMessage

        message = LCToolMessage(str(handled), tool_call_id=call_id, name=tw.name, status="error", artifact=artifact)
        return (message, None) if tw.response_format == "content_and_artifact" else message

    # the parameters LangGraph's ToolNode (InjectedState, InjectedStore) and LangChain (RunnableConfig) fill,
    # declared on the LangChain tool's functions as LangChain's own @tool declares them (review 273 #2)
    filled, from_call = graph_filled(tw)

    def taken(kwargs: dict[str, Any]) -> dict[str, Any]:
        # the values LangChain passed for them, taken out of the arguments: a config always (LangChain's own
        # argument), the state and store only with a whole tool call, where ToolNode puts them (with bare arguments
        # they are refused as any argument a call may not set)
        whole = _LC_CALL_ID.get() is not None
        return {key: kwargs.pop(key) for key in [k for k in kwargs if k in filled and (whole or k not in from_call)]}

    def current(kwargs: dict[str, Any], given: dict[str, Any]) -> tuple[contextvars.Token[Any] | None,
                                                                        contextvars.Token[Any]]:
        call_id = _LC_CALL_ID.get()  # set only while LangChain runs a whole tool call (not bare arguments)
        running = _LC_RUNNING.set(None if call_id is None else tw)  # (the call is tw's own: see from_langchain_tool)
        if call_id is None:  # bare arguments run outside any call, as tw.invoke(args) runs them (in started)
            return _CURRENT_CALL.set(None) if given and _CURRENT_CALL.get() is not None else None, running
        return _CURRENT_CALL.set({"name": tw.name, "args": kwargs, "id": call_id, "type": "tool_call"}), running

    def restore(tokens: tuple[contextvars.Token[Any] | None, contextvars.Token[Any]]) -> None:
        if tokens[0] is not None:
            _CURRENT_CALL.reset(tokens[0])
        _LC_RUNNING.reset(tokens[1])

    def started(kwargs: dict[str, Any], given: dict[str, Any], invoke: Callable[[Any], Any],
                run_checked: Callable[[dict[str, Any], Any], Any]) -> Any:
        # in LangChain's whole call tw runs within that call, which current() set; tw.invoke(args) would run it
        # outside any call (bare arguments, as from inside another tool's call); what LangChain passed for the
        # parameters it fills replaces their defaults
        if _LC_CALL_ID.get() is None and not given:
            return invoke(kwargs)
        return run_checked({**tw._arguments(kwargs), **given}, tw.timeout)

    def run(**kwargs: Any) -> Any:
        kwargs = {renamed.get(k, k): v for k, v in kwargs.items()} if renamed else kwargs
        given = taken(kwargs) if filled else {}
        token = current(kwargs, given)
        try:
            return shape(started(kwargs, given, tw.invoke, tw._run))
        except Exception as exc:
            if (handled := failed(exc)) is exc:
                raise
            if (kept := with_artifact(exc, handled)) is not None:
                return kept
            raise handled from exc
        finally:
            restore(token)

    async def arun(**kwargs: Any) -> Any:
        kwargs = {renamed.get(k, k): v for k, v in kwargs.items()} if renamed else kwargs
        given = taken(kwargs) if filled else {}
        token = current(kwargs, given)
        try:
            return shape(await started(kwargs, given, tw.ainvoke, tw._arun))
        except Exception as exc:
            if (handled := failed(exc)) is exc:
                raise
            if (kept := with_artifact(exc, handled)) is not None:
                return kept
            raise handled from exc
        finally:
            restore(token)

    if filled:  # (read by ToolNode and by StructuredTool._run/_arun through typing.get_type_hints)
        run.__annotations__ = arun.__annotations__ = {**filled, "return": Any}
    return _structured_tool_class()(
        name=tw.name,
        description=tw.description,
        args_schema=parameters,
        func=run,
        coroutine=arun,
        return_direct=tw.return_direct,
        response_format=tw.response_format,
        handle_tool_error=tw.handle_errors,
        handle_validation_error=tw.handle_errors,
    )
