"""Tools: a Python function plus the frozen description a model sees.

``@tool`` turns a function (sync or ``async def``) into a :class:`Tool`. Name, description and the
JSON Schema of the arguments come from the signature, type hints and docstring
(:mod:`toolwire.schema`), once, at decoration time. A :class:`ToolSpec` is the pure data providers
receive (name, description, parameters); the :class:`Tool` holds the function. ``tool.name = ...`` and
``tool.description = ...`` with a new value are refused once the tool is made (``Tool.__setattr__``).

``tool.invoke(args)`` validates and returns the function's raw result;
``tool.invoke(tool_call)`` (a dict with ``"type": "tool_call"``) returns a :class:`ToolMessage` with the
call's id, turning every failure (invalid arguments, an exception, a timeout) into a
``status="error"`` result the model can act on. A tool that returns a ToolMessage of its own (toolwire's or
LangChain's) answers with its content, status and artifact, under the call's id; a LangGraph ``Command`` is an error.

A generator function's items are gathered into a list on the thread that runs the tool, inside its
timeout; an ``async def`` generator's items likewise, on the event loop. ``StopIteration``,
``StopAsyncIteration``, a tool's own ``CancelledError`` and ``GeneratorExit`` and other ``BaseException``
subclasses (not ``KeyboardInterrupt``, which propagates) fail the call as a ``RuntimeError`` chained from them
(``"RuntimeError: GeneratorExit raised inside the tool"``); a ``SystemExit`` as :class:`ToolExecutionError`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import copy
import functools
import threading
import types
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal, overload

from pydantic import BaseModel

from toolwire._batch import Batching
from toolwire._bridge_calls import bridged as _bridged
from toolwire._concurrency import _loop_running, run_coroutine_sync, run_sync_with_timeout
from toolwire._failed_calls import identified, log_failure
from toolwire._keywords import refuses_unknown_keywords
from toolwire._printing import safe_text
from toolwire._schema_params import is_v1_model
from toolwire._signature import BRIDGE, docstring_summary, function_name, is_async_callable, sync_wrapper
from toolwire._staticmethods import written_static
from toolwire._tool_args import ToolArguments, hide_injected_fields
from toolwire._tool_calls import ArgumentTextError, _is_tool_call, _require_call_id, aanswered, answered
from toolwire._tool_checks import (
    SET_CHECKED,
    check_description,
    check_fields_taken,
    check_name,
    check_subclass,
    check_tool,
    checked_attribute,
    injected_guard,
)
from toolwire._tool_dispatch import dispatch_positional
from toolwire._tool_pickle import copy_tool, reduce_tool
from toolwire._tool_results import settled_result, tool_message
from toolwire._tool_run import (
    _CURRENT_CALL,
    _call_id,
    _in_context,
    _running,
    bad_flags,
    bad_timeout,
    check_call_name,
    current_call_id,
    current_tool_call,
    escaped,
    guarded,
    receiver,
    run_timed,
    untimed_thread,
    unwrapped,
)
from toolwire._tool_spec import ToolSpec
from toolwire.errors import SchemaError, ToolExecutionError, ToolTimeoutError, UserError
from toolwire.messages import ToolCall, ToolMessage
from toolwire.parsing.arguments import JsonStringPlan
from toolwire.results import error_text, result_to_content, truncate_content, unsent_result, valid_text
from toolwire.schema import FunctionSchema, function_schema, model_schema

__all__ = ["Tool", "ToolSpec", "current_call_id", "current_tool_call", "error_text", "result_to_content", "tool",
           "truncate_content"]

_CONFIG_REFUSED = ("invoke(input, config) takes LangChain's RunnableConfig, which toolwire tools do not take: "
                   "leave it out (use timeout= for a time limit), or convert the tool with "
                   "toolwire.interop.langchain.to_langchain_tool.")

ResponseFormat = Literal["content", "content_and_artifact"]
_GENERATOR = types.GeneratorType
_ASYNC_GENERATOR = types.AsyncGeneratorType
_CONTAINERS = (dict, list)
_NOT_LAZY = frozenset((str, int, float, bool, type(None), dict, list, tuple))  # common results, no iterator test


class Tool(ToolArguments, Batching):
    """A callable tool: a function, its :class:`ToolSpec`, and how to run it.

    Build one with :func:`tool`, :meth:`Tool.from_function` or :meth:`Tool.from_schema` (the constructor takes a
    :class:`toolwire.schema.FunctionSchema` and raises :class:`~toolwire.errors.SchemaError` as they do).

    Attributes:
        name, description, parameters: as in :class:`ToolSpec` (``parameters`` is the JSON Schema). Setting
            ``name`` or ``description`` to a new value (LangChain's ``tool.name = "wiki_search"``) raises
            :class:`~toolwire.errors.UserError` saying to make the tool with it: models bound, executors, copies and
            pickles made from the tool know it by them (review 144).
        spec: the :class:`ToolSpec` providers are sent.
        args: the ``properties`` of ``parameters`` (parameter name -> schema).
        args_schema: the pydantic model class given as ``args_schema``, else None (read-only).
        tool_call_schema: the arguments as a pydantic model class, LangChain's (also ``get_input_schema()``; made on
            first use, see :mod:`toolwire._tool_model`).
        func: the wrapped function (sync or async).
        is_async: True for ``async def`` functions (async generator functions included), and for a sync wrapper of one
            (``functools.wraps``, or a decorator object made with ``functools.update_wrapper``): what it returns is
            awaited when it is awaitable, else used as it is. A wrapper whose code (an object's ``__call__``, or a
            function it calls directly) runs the coroutine itself (``asyncio.run``, ``loop.run_until_complete``,
            asgiref's ``async_to_sync``, asyncer's ``syncify``) is called once per call: on the caller's thread for a
            sync ``invoke`` with no loop running there and no timeout, else on a worker thread with the caller's
            context variables. Any other is called on the event loop's thread, and again on a worker thread
            only when a bridge it hides deeper (a helper two calls down) refuses the running loop (``asyncio.run``,
            asgiref, anyio), so its work before that bridge is done twice (review 269 #1, 295, 300).
        return_direct: when True the Agent stops after this tool and returns its result.
        timeout: seconds a call may take, or None.
        response_format: ``"content"``, or ``"content_and_artifact"`` (the function returns
            ``(content, artifact)`` and the artifact lands on ``ToolMessage.artifact``, never sent to the
            model).
        handle_errors: when True (default) ``invoke(tool_call)`` turns failures into ``status="error"``
            ToolMessages; when False it raises them, and so do a ToolExecutor and an Agent that run the tool
            (arguments it refuses and its own exception; a call whose arguments could not be read at all, an
            InvalidToolCall, is answered there as for any tool).
        hide_error_details: show the model only the exception type, not its message.

    The options above can be set after the tool is made, checked as ``from_function`` checks them; LangChain's
    ``BaseTool`` fields toolwire has no part for (``handle_tool_error``, ``verbose``, ``tags``, ``metadata``,
    ``callbacks``...) are refused with a :class:`~toolwire.errors.UserError` saying what toolwire does instead.
    """

    __slots__ = (
        "_input_model",
        "_json_plan",
        "_method",
        "_null_plan",
        "_off_loop",
        "_positional_only",
        "_source",
        "_validate",
        "description",
        "func",
        "handle_errors",
        "hide_error_details",
        "is_async",
        "name",
        "parameters",
        "response_format",
        "return_direct",
        "spec",
        "timeout",
    )
    description: str  # (the options set through object.__setattr__, declared for type checkers: review 166 #1)
    return_direct: bool
    timeout: float | None
    response_format: ResponseFormat
    handle_errors: bool
    hide_error_details: bool
    batch_option_names = frozenset({"timeout"})  # (batch and abatch pass on only this option to invoke)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        check_subclass(cls)  # (a smolagents-style class, refused as it is written)

    def __init__(
        self,
        func: Callable[..., Any],
        schema: FunctionSchema,
        *,
        name: str,
        return_direct: bool = False,
        timeout: float | None = None,
        response_format: ResponseFormat = "content",
        handle_errors: bool = True,
        hide_error_details: bool = False,
    ) -> None:
        check_tool(func, name, schema.description, response_format, timeout, return_direct=return_direct,
                   handle_errors=handle_errors, hide_error_details=hide_error_details)
        self.func = func
        set_ = object.__setattr__  # (the checked attributes, set unchecked here: __setattr__ would check them again)
        set_(self, "name", name)
        set_(self, "description", schema.description)
        self.parameters = schema.parameters
        self._validate = injected_guard(func, schema.validate, schema.parameters, name)  # (review 93)
        self._positional_only = dispatch_positional(func, schema.positional_only, name)  # (singledispatch: review 212)
        self._null_plan = schema.null_plan
        self._json_plan: JsonStringPlan | bool | None = False  # worked out at the first dict of arguments
        self._source: tuple[str, Any] | None = None  # how to make it again when pickled (_tool_pickle)
        self.is_async = is_async_callable(func)
        self._off_loop = self.is_async and sync_wrapper(func)  # may need a worker thread (review 269 #1)
        set_(self, "return_direct", return_direct)
        set_(self, "timeout", timeout)
        set_(self, "response_format", response_format)
        set_(self, "handle_errors", handle_errors)
        set_(self, "hide_error_details", hide_error_details)
        self._method = receiver(func)
        self.spec = ToolSpec(name, schema.description, schema.parameters)  # (last: until then, no attribute checks)

    # -- construction ------------------------------------------------------------------------------

    @classmethod
    @refuses_unknown_keywords("Tool.from_function")
    def from_function(
        cls,
        func: Callable[..., Any],
        name: str | None = None,
        description: str | None = None,
        *,
        args_schema: type[BaseModel] | None = None,
        return_direct: bool = False,
        timeout: float | None = None,
        response_format: ResponseFormat = "content",
        parse_docstring: bool = True,
        handle_errors: bool = True,
        hide_error_details: bool = False,
    ) -> Tool:
        """Return a new :class:`Tool` made from a function.

        Args:
            func: a sync or ``async def`` function.
            name: the tool name (default: the function's ``__name__``; for a ``functools.partial``, the wrapped
                function's).
            description: the tool description (default: from the docstring, or from ``args_schema``'s).
            args_schema: a pydantic model class whose fields are the arguments (instead of the signature); a field
                marked LangChain's way (``Annotated[str, InjectedToolCallId]``, ``InjectedToolArg``) is not shown to the
                model and is filled as such a parameter is (:func:`~toolwire._tool_args.hide_injected_fields`).
            return_direct, timeout (seconds), response_format, handle_errors, hide_error_details:
                see :class:`Tool`.
            parse_docstring: read parameter descriptions from the docstring.

        Returns:
            The new tool: its :attr:`spec` (name, description, JSON Schema of the arguments) is built now.

        Raises:
            SchemaError: bad name, no description or one that is not text, a signature with no JSON Schema, an
                ``args_schema`` that is not a pydantic model class or whose fields the function does not take as keyword
                arguments (or with an ``InjectedToolArg`` field that neither a default nor a ``functools.partial``
                fills), a ``timeout`` that is not a positive number of seconds, a ``response_format`` other than
                ``"content"`` or ``"content_and_artifact"``, or ``return_direct``, ``handle_errors``,
                ``hide_error_details`` or ``parse_docstring`` that is not a bool.
            UserError: a keyword that is none of these (``nmae=``: the message names the close match, ``name``).

        Warns:
            ToolDefinitionWarning: the definition works but is likely a mistake (see its message).
        """
        static = isinstance(func, staticmethod)  # (its first parameter is an argument, even named self or cls)
        if isinstance(func, (classmethod, staticmethod)):  # ``@tool`` above ``@classmethod``: see ``__get__``
            func = func.__func__
        elif receiver(func) and written_static(func):  # ``@staticmethod`` above ``@tool``, tool(K.run) (review 186
            static = True  # #2; only a function taking self or cls first gets here)
        tool_name = name if name is not None else function_name(func)
        if tool_name is None:
            if hasattr(func, "inputs") and hasattr(func, "output_type"):  # an instance of a smolagents-style class:
                check_subclass(type(func))  # its own advice (review 144 #4)
            raise SchemaError(f"Cannot name a tool for {func!r}: pass name=...")
        check_name(tool_name)
        check_description(tool_name, description)  # (not the docstring's fault: reviews 61, 157 #4)
        if type(parse_docstring) is not bool:  # ("false" read as True: review 211 #3)
            raise SchemaError(str(bad_flags(parse_docstring=parse_docstring)))
        if args_schema is not None:
            if not (isinstance(args_schema, type) and issubclass(args_schema, BaseModel)):
                other = ("pydantic.v1 model, use toolwire.interop.tool_from_schema(Model.schema(), func)"
                         if isinstance(args_schema, type) and is_v1_model(args_schema)
                         else "JSON Schema dict, use toolwire.interop.tool_from_schema(schema, func)")
                raise SchemaError(f"args_schema must be a pydantic BaseModel class: for a {other} instead.")
            check_fields_taken(func, args_schema, tool_name)
            doc_desc = docstring_summary(func) if description is None else None
            schema = hide_injected_fields(model_schema(args_schema, tool_name, description or doc_desc or None),
                                          args_schema, tool_name, func)  # (review 143 #3, 217 #2)
        else:
            schema = function_schema(func, tool_name, description=description, parse_docstring=parse_docstring,
                                     static=static)
        made = cls(func, schema, name=tool_name, return_direct=return_direct, timeout=timeout,
                   response_format=response_format, handle_errors=handle_errors, hide_error_details=hide_error_details)
        if static:
            made._method = ""  # never bound (review 181 #4: a staticmethod's ``cls`` parameter got the class)
        made._source = ("function", (args_schema, parse_docstring, static))
        return made

    @classmethod
    @refuses_unknown_keywords("Tool.from_schema")
    def from_schema(
        cls,
        func: Callable[..., Any],
        name: str,
        description: str,
        parameters: Mapping[str, Any],
        validate: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None,
        *,
        return_direct: bool = False,
        timeout: float | None = None,
        response_format: ResponseFormat = "content",
        handle_errors: bool = True,
        hide_error_details: bool = False,
    ) -> Tool:
        """Return a new :class:`Tool` made from a ready JSON Schema instead of a signature.

        Used for tools whose schema comes from elsewhere (an OpenAI tool dict, an MCP server, a
        LangChain tool); see :func:`toolwire.interop.openai_tools.tool_from_schema` for the friendly
        front end.

        Args:
            func: sync or ``async def`` function, called as ``func(**arguments)``.
            name: the tool name (``^[a-zA-Z0-9_-]{1,64}$``).
            description: what the tool does (required: text that is not empty or only whitespace).
            parameters: JSON Schema of the arguments, an object schema; local ``$ref`` are inlined.
            validate: ``validate(args) -> dict`` raising :class:`ToolValidationError`; by default the
                arguments are checked against ``parameters`` with ``jsonschema``, in the dialect its
                ``$schema`` names (default 2020-12; :func:`toolwire.interop.openai_tools.schema_validator`).
            return_direct, timeout, response_format, handle_errors, hide_error_details: see :class:`Tool`.

        A ``null`` received for a parameter that is optional and does not accept ``null`` is dropped
        before validation, as for decorated tools (OpenAI strict mode sends ``null`` for left-out ones).

        Returns:
            The new tool, whose :attr:`parameters` are ``parameters`` with local ``$ref`` inlined.

        Raises:
            SchemaError: bad name, blank description, a schema that is not a valid object schema, no
                ``validate`` given and the ``jsonschema`` package not installed, or an option
                refused as :meth:`from_function` refuses it (``timeout``, ``response_format``, the bool flags).
            UserError: a keyword that is none of these (``timout=``: the message names the close match).
        """
        from toolwire.interop.openai_tools import ready_function_schema

        check_name(name)
        check_description(name, description, required=True)  # (not the docstring's: review 157 #4)
        made = cls(func, ready_function_schema(parameters, name, description, validate), name=name,
                   return_direct=return_direct, timeout=timeout, response_format=response_format,
                   handle_errors=handle_errors, hide_error_details=hide_error_details)
        made._source = ("schema", copy.deepcopy(dict(parameters))) if validate is None else None
        return made

    # -- introspection -----------------------------------------------------------------------------

    # (``args`` and ``args_schema``: :class:`~toolwire._tool_args.ToolArguments`)

    def __setattr__(self, key: str, value: Any) -> None:
        """The options set after the tool is made, checked as when it is made; a new ``name`` or ``description``
        (LangChain's ``tool.name = "wiki_search"``) and LangChain-only fields (``handle_tool_error``, ``verbose``,
        ``tags``...) refused. See :func:`~toolwire._tool_checks.checked_attribute` (its errors)."""
        object.__setattr__(self, key, checked_attribute(self, key, value) if key in SET_CHECKED else value)

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r}, description={self.description!r})"

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Pickle support (by reference, or made again from the function): see :mod:`toolwire._tool_pickle`."""
        return reduce_tool(self)

    def __copy__(self) -> Tool:
        return copy_tool(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> Tool:
        return copy_tool(self, memo)

    def __get__(self, obj: Any, objtype: Any = None) -> Tool:
        """``@tool`` on a method: reading it from an instance gives the tool bound to that instance
        (``self`` is not a parameter the model sees); on a classmethod (``@tool`` above ``@classmethod``), the
        tool bound to the class, read from the class or an instance (``cls`` is not a parameter either)."""
        if self._method == "cls":
            owner = objtype if objtype is not None else type(obj)
        elif obj is None or not self._method:
            return self
        else:
            owner = obj
        bound = copy.copy(self)
        bound.func = types.MethodType(self.func, owner)
        bound._method = ""
        return bound

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Return ``func(*args, **kwargs)``: the underlying function called directly, without validation or timeout."""
        return self.func(*args, **kwargs)

    def _call(self, kwargs: dict[str, Any], stop: threading.Event | None = None) -> Any:
        """Call the function (on the thread that runs a sync tool, so inside its timeout).

        A generator it returns is consumed here into a list, until ``stop`` is set (the call timed out, or its
        run gave it up: the generator is closed rather than drained for nobody). Exceptions other
        than ordinary ones are turned into ones that fail this call only: ``SystemExit`` -> :class:`ToolExecutionError`;
        ``StopIteration``, ``StopAsyncIteration``, ``concurrent.futures.CancelledError`` and other ``BaseException``
        subclasses (a sync tool's ``CancelledError`` and ``GeneratorExit`` are always its own) -> ``RuntimeError``
        from them.
        ``KeyboardInterrupt`` propagates. For an async tool this only makes the coroutine (see
        :func:`~toolwire._tool_run.guarded`).
        """
        try:
            positional = self._positional(kwargs) if self._positional_only else ()
            result = self.func(*positional, **kwargs)
            kind = type(result)
            if kind is _GENERATOR or (kind not in _NOT_LAZY and (not self.is_async or isinstance(result, Iterator))):
                result = settled_result(self, result, stop)  # a generator drained now, a sync tool's coroutine refused
            return result
        except (StopIteration, StopAsyncIteration) as exc:  # asyncio cannot carry them: a run would hang
            raise escaped(exc) from exc
        except concurrent.futures.CancelledError as exc:  # (an Exception) asyncio would read as the caller's
            raise escaped(exc) from exc  # cancellation when a worker thread's future carries it (review 41)
        except Exception:
            raise
        except SystemExit as exc:  # a tool must not end the program that runs it
            raise self._exit_error(exc) from None
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # CancelledError, a library's own BaseException subclass
            raise escaped(exc) from exc

    def _exit_error(self, exc: SystemExit) -> ToolExecutionError:
        code = safe_text(exc.code)  # (an exit code whose repr() fails as "<TypeName>", review 176 #3)
        return ToolExecutionError(f"Tool '{self.name}' tried to exit the program (sys.exit({code})); it was stopped.",
                                  self.name)

    def _to_message(self, result: Any, call: Mapping[str, Any]) -> ToolMessage:
        if type(result) is str and self.response_format == "content":  # the common case, without the checks
            call_id = _call_id(call)
            return ToolMessage._made(valid_text(result), call_id if call_id.isascii() else valid_text(call_id),
                                     self.name, "success", None)
        return tool_message(self, result, call)  # (the tool's own ToolMessage, an artifact, any other value)

    def _error_message(self, exc: BaseException, call: Mapping[str, Any]) -> ToolMessage:
        log_failure(exc, self.name, _call_id(call))  # (the developer's trace of it, at DEBUG: review 289 #2)
        return ToolMessage(error_text(exc, self.name, hide_details=self.hide_error_details),
                           _call_id(call), name=self.name, status="error", artifact=unsent_result(exc, self.name))

    # -- sync --------------------------------------------------------------------------------------

    def _run(self, kwargs: dict[str, Any], timeout: float | None) -> Any:
        if self.is_async:
            if self._off_loop == BRIDGE and timeout is None and not _loop_running():  # a wrapper running its async
                return _bridged(self, kwargs)  # def itself: on the caller's thread, as LangChain's invoke (review 300)
            return run_coroutine_sync(self._arun(kwargs, timeout))
        if timeout is None:  # in a copy of the caller's context: what the tool sets there does not leak back
            return contextvars.copy_context().run(self._call, kwargs)
        stop = threading.Event()
        try:
            return run_sync_with_timeout(_in_context(functools.partial(self._call, stop=stop)), kwargs,
                                         float(timeout), self.name)  # float: a Decimal or NumPy number too
        except ToolTimeoutError:
            stop.set()  # a generator tool stops being drained
            raise

    @overload
    def invoke(self, input: ToolCall, config: None = ..., *, timeout: float | None = ...) -> ToolMessage: ...
    @overload  # (a dict, not any Mapping: a ToolCall is one too, and mypy then typed both Any: review 166 #6)
    def invoke(self, input: dict[str, Any] | str | None, config: None = ..., *, timeout: float | None = ...) -> Any: ...

    def invoke(self, input: Any, config: Any = None, *, timeout: float | None = None) -> Any:
        """Run the tool.

        Args:
            input: the arguments as a dict (or a string for a one-parameter tool), or a tool call
                ``{"name", "args", "id", "type": "tool_call"}`` (whose ``args`` may also be the argument
                JSON text, see :meth:`call_args`). A typed call with more keys (a stream's ``index``; the arguments
                under ``arguments``, ``input`` or ``parameters``) is read and answered as
                :class:`~toolwire.execution.ToolExecutor` reads and answers it (:mod:`toolwire._tool_calls`).
            config: LangChain's ``RunnableConfig`` place, which toolwire tools do not take: only None.
            timeout: seconds, overriding the tool's own ``timeout``.

        Returns:
            For arguments: the function's raw result; the function runs outside any tool call
            (:func:`~toolwire.current_tool_call` gives None there, and an ``InjectedToolCallId`` parameter its
            default), also when this is called from inside another tool's call. For a tool call: a
            :class:`ToolMessage` whose
            ``tool_call_id`` is the call's id (``status="error"`` on failure unless
            ``handle_errors=False``). Type checkers see a :class:`ToolCall` give a ToolMessage and a ``dict``,
            string or None give ``Any`` (another mapping works, but is not in the overloads).

        Raises:
            ToolValidationError: invalid arguments (arguments form, or a tool call with ``handle_errors=False``; else
                an error ToolMessage, ToolExecutor's own when the argument text is no JSON object).
            ToolTimeoutError: the call took longer than the timeout.
            UserError: ``timeout`` is not a positive number of seconds (NaN, a string, a bool...), the
                tool is a method read from its class (``Class.method``: no instance to call it on), a
                ``config`` was given, or a tool call has no non-empty ``"id"``.
            ToolExecutionError: a sync tool's function returned an awaitable or async generator (arguments form, or
                a tool call with ``handle_errors=False``; :meth:`ainvoke` too): declare the function ``async def``,
                or keep ``functools.wraps`` on its decorator, so toolwire awaits it. With ``handle_errors=False``,
                also: a ``response_format="content_and_artifact"`` tool returned something other than a ``(content,
                artifact)`` pair, the call names another tool, or its arguments cannot be read (given under two keys
                with different values: the tool is then not run; an error ToolMessage saying so otherwise).
            Exception: whatever the function raises (arguments form, or ``handle_errors=False``);
                StopIteration and BaseException subclasses arrive as ``RuntimeError`` (see the module).
        """
        if config is not None:
            raise UserError(_CONFIG_REFUSED)
        if timeout is not None and (problem := bad_timeout(timeout)) is not None:
            raise UserError(problem)
        limit = timeout if timeout is not None else self.timeout
        if called := _is_tool_call(input):
            if (found := input.get("id")) is None or found == "":  # (inline: B1 times this path)
                _require_call_id(input, self.name)
            token = _CURRENT_CALL.set(input)  # current_tool_call(); not a context manager: B1 times this path
            try:
                if input.get("name", self.name) != self.name:  # (the check inline when it agrees: B1 times this)
                    check_call_name(self.name, input)
                return self._to_message(self._run(self.call_args(input.get("args", {})), limit), input)
            except Exception as exc:
                if not self.handle_errors:  # (named by its call: review 289 #1)
                    if (own := identified(exc, self.name, input.get("id"), token.old_value, call=input)) is exc:
                        raise
                    raise own from own.__cause__
                if type(exc) is ArgumentTextError and exc.raw is input.get("args"):  # text that is no JSON object:
                    return answered(self, input, limit)  # answered as ToolExecutor answers it (review 262 #3)
                return self._error_message(exc, input)
            finally:
                _CURRENT_CALL.reset(token)
        if called is None:  # a call with more keys (a stream's "index", "arguments"...): read as ToolExecutor reads it
            return answered(self, input, limit)
        if _CURRENT_CALL.get() is None:
            return self._run(self._arguments(input), limit)
        with _running(None):  # bare arguments inside another tool's call: not that call (see above)
            return self._run(self._arguments(input), limit)

    # -- async -------------------------------------------------------------------------------------

    async def _arun(self, kwargs: dict[str, Any], timeout: float | None, settle: bool = False) -> Any:
        """Run the function with validated ``kwargs``, at most ``timeout`` seconds (see :func:`run_timed`; ``settle``:
        a sync tool's thread running when the caller is cancelled is waited for: :func:`untimed_thread`)."""
        if timeout is not None:
            return await run_timed(self, kwargs, float(timeout), settle=settle)  # float: a Decimal, NumPy number
        if self.is_async:
            # a task of its own runs the tool in a copy of the caller's context (as a sync tool's thread and a
            # timed call do), so a context variable the tool sets does not leak into the caller (review 41)
            return await unwrapped(asyncio.get_running_loop().create_task(guarded(self, kwargs)))
        return await untimed_thread(self._call, kwargs, self.name, settle)

    @overload
    async def ainvoke(self, input: ToolCall, config: None = ..., *, timeout: float | None = ...) -> ToolMessage: ...
    @overload
    async def ainvoke(self, input: dict[str, Any] | str | None, config: None = ..., *,
                      timeout: float | None = ...) -> Any: ...

    async def ainvoke(self, input: Any, config: Any = None, *, timeout: float | None = None) -> Any:
        """Async :meth:`invoke`: async tools are awaited (and cancelled on timeout); sync tools run in a
        worker thread (on timeout the thread is abandoned, since Python cannot kill it).

        Args:
            input: the arguments as a dict (or a string for a one-parameter tool), or a tool call, as for
                :meth:`invoke`.
            config, timeout: as for :meth:`invoke`.

        Returns:
            As :meth:`invoke`: the function's raw result for arguments, a :class:`ToolMessage` for a tool call.

        Raises:
            ToolValidationError, ToolTimeoutError, UserError, ToolExecutionError, Exception: as :meth:`invoke`.
        """
        if config is not None:
            raise UserError(_CONFIG_REFUSED)
        if timeout is not None and (problem := bad_timeout(timeout)) is not None:
            raise UserError(problem)
        limit = timeout if timeout is not None else self.timeout
        if called := _is_tool_call(input):
            _require_call_id(input, self.name)
            token = _CURRENT_CALL.set(input)
            try:
                if input.get("name", self.name) != self.name:  # (the check inline when it agrees: B1 times this)
                    check_call_name(self.name, input)
                return self._to_message(await self._arun(self.call_args(input.get("args", {})), limit), input)
            except Exception as exc:
                if not self.handle_errors:  # (as invoke)
                    if (own := identified(exc, self.name, input.get("id"), token.old_value, call=input)) is exc:
                        raise
                    raise own from own.__cause__
                if type(exc) is ArgumentTextError and exc.raw is input.get("args"):  # (as invoke)
                    return await aanswered(self, input, limit)
                return self._error_message(exc, input)
            finally:
                _CURRENT_CALL.reset(token)
        if called is None:  # (as invoke)
            return await aanswered(self, input, limit)
        if _CURRENT_CALL.get() is None:
            return await self._arun(self._arguments(input), limit)
        with _running(None):  # (as invoke)
            return await self._arun(self._arguments(input), limit)


from toolwire._tool_decorator import tool  # noqa: E402  (it needs Tool: review 166 #4)
