"""``toolwire.StructuredTool``: LangChain's ``StructuredTool.from_function`` (and constructor) for ported code.

LangChain's ``StructuredTool`` (``langchain_core/tools/structured.py``) is its tool of named arguments, what its
``@tool`` makes. Every toolwire :class:`~toolwire.tools.Tool` is such a tool (toolwire has no counterpart of
LangChain's single-input ``Tool`` and its ``__arg1``), so ``StructuredTool`` here is not a second kind of tool but
LangChain's way of making one:

* ``StructuredTool.from_function(func=None, coroutine=None, name=None, description=None, return_direct=False,
  args_schema=None, infer_schema=True, *, response_format="content", parse_docstring=False,
  error_on_invalid_docstring=False, **kwargs)``, LangChain's parameters in LangChain's order, returns a toolwire
  :class:`~toolwire.tools.Tool`;
* ``StructuredTool(name=..., description=..., func=..., coroutine=..., args_schema=...)``, LangChain's constructor
  form, returns the same;
* ``isinstance(tool, StructuredTool)`` is True for every toolwire :class:`~toolwire.tools.Tool` (and
  ``issubclass(Tool, StructuredTool)``), as it is for what LangChain's ``@tool`` makes.

Given both ``func`` and ``coroutine``, the tool runs ``func`` when called from sync code and ``coroutine`` from
async code, as LangChain's ``StructuredTool._run``/``_arun`` do (see :class:`_SyncAndAsyncTool`).
"""

from __future__ import annotations

import copy
import inspect
import textwrap
import types
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel

from toolwire._concurrency import _SYNC_CALL
from toolwire._keywords import ADVICE, check_keywords, keyword_names
from toolwire._signature import function_doc, function_name, is_async_callable, sync_wrapper
from toolwire._tool_pickle import pickled_function, restore_hints, sent_hints
from toolwire.errors import SchemaError, UserError
from toolwire.tools import Tool

__all__ = ["StructuredTool"]

_OWNER = "StructuredTool.from_function"
_TOOLWIRE_OPTIONS = ("timeout", "handle_errors", "hide_error_details")  # toolwire's own, taken through **kwargs
_LANGCHAIN_ARGS = ("func", "coroutine", "name", "description", "return_direct", "args_schema", "response_format")


class _SyncAndAsyncTool(Tool):
    """A tool with a sync function (``func``) and an async one (``coroutine``), LangChain's ``StructuredTool`` made
    with both: ``invoke`` (and the sync ``batch``, ``ToolExecutor.call``/``execute``, ``Agent.invoke``) runs ``func``;
    ``ainvoke`` (and ``abatch``, ``ToolExecutor.acall``/``aexecute``, ``Agent.ainvoke``) awaits ``coroutine``.

    Only :meth:`_arun` differs from :class:`Tool`'s, and only for these tools: a plain tool's ``invoke`` and
    ``ainvoke`` run exactly the code they ran before. The sync entry points of toolwire that run tools on an event
    loop of their own (:func:`toolwire._concurrency.run_coroutine_sync`: the executor's and Agent's ``invoke``) are
    told apart by that loop's marker, so they run ``func`` as LangChain's sync path does.
    """

    __slots__ = ("_async_twin", "coroutine")

    coroutine: Callable[..., Awaitable[Any]]
    _async_twin: Tool

    async def _arun(self, kwargs: dict[str, Any], timeout: float | None, settle: bool = False) -> Any:
        """Run ``coroutine`` (``func`` inside a sync call's own event loop) with the checked ``kwargs``."""
        if _SYNC_CALL.get() is not None:  # a sync call (ToolExecutor.call, Agent.invoke, batch) on its own loop
            return await Tool._arun(self, kwargs, timeout, settle)
        return await self._async_twin._arun(kwargs, timeout, settle)

    def __get__(self, obj: Any, objtype: Any = None) -> Tool:
        """As :meth:`Tool.__get__`, binding ``coroutine`` to the same instance (or class) as ``func``."""
        bound = super().__get__(obj, objtype)
        if bound is not self and isinstance(bound, _SyncAndAsyncTool):
            twin = copy.copy(self._async_twin)
            twin.func = types.MethodType(self.coroutine, bound.func.__self__)  # type: ignore[attr-defined]
            bound._async_twin = twin
        return bound

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Pickle by making it again from its two functions (which pickle saves by reference) with
        :meth:`StructuredTool.from_function`, a staticmethod's made again as one (its first parameter an argument even
        named ``self`` or ``cls``: review 186 #3); a function pickle cannot find by name, or an ``args_schema`` class it
        cannot find, is refused in one sentence saying what to do (review 320 #4), and another tool's function is saved
        as that tool's ``func`` (review 320 #5)."""
        source = self._source
        if source is None:
            return super().__reduce_ex__(protocol)  # (its error, in one sentence)
        schema, parse_docstring = source[1][:2] if source[0] == "function" else (source[1], False)
        static = source[0] == "function" and any(source[1][2:])
        options = {key: getattr(self, key) for key in ("timeout", "handle_errors", "hide_error_details")}
        func = pickled_function(self, self.func, schema if source[0] == "function" else None)
        coroutine = pickled_function(self, self.coroutine)
        args = (func, coroutine, self.name, self.description, self.return_direct, schema, self.response_format,
                parse_docstring, options)
        hints = (sent_hints(self, func) if func is self.func else None, sent_hints(self, coroutine))
        if any(hints):  # (string annotations its by-value copies cannot resolve: review 326 #2)
            return _remade, (*args, static, hints)
        return _remade, (*args, *((True,) if static else ()))


def _remade(func: Any, coroutine: Any, name: str, description: str, return_direct: bool, args_schema: Any,
            response_format: Any, parse_docstring: bool, options: dict[str, Any], static: bool = False,
            hints: tuple[Any, Any] = (None, None)) -> Tool:
    """Unpickling a :class:`_SyncAndAsyncTool`: made again with :meth:`StructuredTool.from_function` (``func`` as a
    ``staticmethod`` when ``static``, left out by earlier versions; ``hints``: the type hints of ``func`` and of
    ``coroutine`` a by-value pickler sent for their string annotations, each None when none, left out too)."""
    restore_hints(func, hints[0])
    restore_hints(coroutine, hints[1])
    return StructuredTool.from_function(staticmethod(func) if static else func, coroutine, name, description,
                                        return_direct, args_schema, response_format=response_format,
                                        parse_docstring=parse_docstring, **options)


def _pair(made: Tool, coroutine: Callable[..., Awaitable[Any]]) -> None:
    """Give ``made`` (a :class:`_SyncAndAsyncTool` just made from ``func``) its async twin running ``coroutine``.

    Raises:
        SchemaError: ``coroutine`` does not take the tool's arguments as ``func`` does.
    """
    if isinstance(coroutine, (staticmethod, classmethod)):  # as a class body holds it: its function (pickle cannot
        coroutine = coroutine.__func__  # save a staticmethod object; ``__get__`` binds a classmethod's: review 186 #3)
    _check_same_arguments(made, coroutine)
    twin = object.__new__(Tool)
    for slot in Tool.__slots__:
        if slot != "_input_model" and hasattr(made, slot):
            object.__setattr__(twin, slot, getattr(made, slot))
    twin.func = coroutine
    twin.is_async = True
    twin._off_loop = sync_wrapper(coroutine)  # a sync wrapper of an async def runs on a worker thread (review 269 #1)
    twin._method = ""
    object.__setattr__(made, "coroutine", coroutine)
    object.__setattr__(made, "_async_twin", twin)


def _check_same_arguments(made: Tool, coroutine: Callable[..., Any]) -> None:
    """Refuse a ``coroutine`` that cannot take the arguments ``func`` takes (LangChain calls either with the
    arguments checked against ``func``'s schema; it finds out at the first ``ainvoke``, toolwire when the tool is
    made).

    Raises:
        SchemaError: a parameter ``coroutine`` lacks, or a required one of its own the tool never passes, or a
            positional-only parameter (passed by keyword here).
    """
    try:
        params = list(inspect.signature(coroutine).parameters.values())
        func_params = inspect.signature(made.func).parameters
    except (TypeError, ValueError):  # no signature to compare: the call will tell
        return
    names = set(made.parameters.get("properties") or ()) | {
        n for n, p in func_params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    if any(p.kind is p.POSITIONAL_ONLY for p in func_params.values()) or any(
            p.kind is p.POSITIONAL_ONLY for p in params):
        raise SchemaError(f"Tool {made.name!r}: func= and coroutine= may not take positional-only parameters "
                          "(before a /) when both are given: make them ordinary parameters.")
    taken = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    more = any(p.kind is p.VAR_KEYWORD for p in params)
    needed = {p.name for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
              and p.name not in ("self", "cls")}
    lacks = sorted(set(made.parameters.get("properties") or ()) - taken) if not more else []
    extra = sorted(needed - names)
    if lacks or extra:
        what = "; ".join(filter(None, (f"it does not take {', '.join(lacks)}" if lacks else "",
                                       f"it requires {', '.join(extra)}, which func= does not take" if extra else "")))
        raise SchemaError(f"Tool {made.name!r}: coroutine= must take the same arguments as func= ({what}): "
                          "LangChain calls either one with the tool's arguments.")


def _invalid_docstring(source: Callable[..., Any], name: str, args_schema: Any = None) -> None:
    """LangChain's ``error_on_invalid_docstring=True`` rule (``_parse_google_docstring`` in
    ``langchain_core/utils/function_calling.py``): a function with parameters needs a Google-style docstring, a
    summary and then, after a blank line, a block starting ``Args:``; without an ``args_schema``, each entry of that
    block names a parameter of the function (``tools/base.py``; review 217 #6: a misspelled entry only warned).

    Raises:
        SchemaError: the docstring is missing or has no such ``Args:`` block, or an entry names no parameter.
    """
    doc = function_doc(source)  # (inspect.getdoc, as LangChain's _infer_arg_descriptions reads it)
    try:
        params = [n for n in inspect.signature(source).parameters
                  if n not in ("self", "cls", "run_manager", "callbacks", "runtime", "return")]
    except (TypeError, ValueError):
        params = []
    blocks = doc.split("\n\n") if doc else []
    if not doc or (params and (len(blocks) < 2 or not any(b.startswith("Args:") for b in blocks[1:]))):
        raise SchemaError(f"Tool {name!r} has an invalid Google-style docstring (error_on_invalid_docstring=True): "
                          "write a summary line, a blank line, then an 'Args:' block describing each parameter, "
                          "as LangChain requires.")
    try:
        taken = set(inspect.signature(source).parameters) if args_schema is None else None
    except (TypeError, ValueError):
        taken = None
    if wrong := sorted(set(_langchain_arg_docs(doc)) - taken) if taken is not None else None:
        raise SchemaError(f"Tool {name!r}: the docstring's Args: block describes {wrong[0]!r}, which is no parameter "
                          "of the function (error_on_invalid_docstring=True): fix the entry's name or remove it, as "
                          "LangChain requires.")


def _langchain_arg_docs(doc: str | None) -> dict[str, str]:
    """``{parameter: description}`` of the first ``Args:`` block of ``doc`` (``inspect.getdoc``'s text) as LangChain's
    ``_parse_google_docstring`` reads it: an entry's wrapped lines (indented deeper than the first entry's) joined
    with one space, ``name (type): text`` taken as ``name``."""
    block = next((b for b in (doc or "").split("\n\n") if b.startswith("Args:")), None)
    out: dict[str, str] = {}
    arg: str | None = None
    indent: int | None = None
    for line in (block or "").split("\n")[1:]:
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if indent is None and ":" in line:
            indent = depth
        if arg is not None and indent is not None and depth > indent:
            out[arg] += " " + line.strip()
        elif ":" in line:
            arg, text = line.split(":", maxsplit=1)
            arg = arg.strip()
            bare, _, kind = arg.partition(" ")
            if kind.startswith("(") and kind.endswith(")"):
                arg = bare
            out[arg] = text.strip()
        elif arg:
            out[arg] += " " + line.strip()
    return out


def _langchain_wrapping(made: Tool, source: Callable[..., Any]) -> None:
    """Give each parameter description of ``made`` that toolwire read from a wrapped ``Args:`` entry (its lines
    joined with a newline) LangChain's text, the lines joined with one space (review 217 #6). ``made.parameters``
    belongs to the tool alone, so it is edited in place (its :attr:`spec` holds the same dict)."""
    props = made.parameters.get("properties")
    if not isinstance(props, dict):
        return
    for key, text in _langchain_arg_docs(function_doc(source)).items():
        prop = props.get(key)
        shown = prop.get("description") if isinstance(prop, dict) else None
        if isinstance(shown, str) and "\n" in shown and shown.split() == text.split():
            prop["description"] = text


def _parsed_description(source: Callable[..., Any], args_schema: Any) -> str | None:
    """The description LangChain's ``StructuredTool.from_function(..., parse_docstring=True)`` gives a tool when
    ``description`` is not passed, or None to leave toolwire's rule.

    With a pydantic ``args_schema``, LangChain takes the model's docstring (dedented, stripped). Else it is the
    docstring's description as ``_parse_google_docstring`` (``langchain_core/utils/function_calling.py``) reads it:
    ``inspect.getdoc`` split at blank lines, the blocks before ``Args:`` (and before a ``Returns:``/``Example:``
    block) joined with one space, then dedented and stripped (``structured.py``): ``"Search the web. Longer text
    here."``. None when that is empty (LangChain then raises "Function must have a docstring"; toolwire's own rule
    and error apply)."""
    if isinstance(args_schema, type) and issubclass(args_schema, BaseModel):
        doc = args_schema.__doc__
        if not doc or "A base class for creating Pydantic models" in doc:
            return None
        return textwrap.dedent(doc).strip() or None
    if args_schema is not None:
        return None
    doc = function_doc(source)  # (inspect.getdoc)
    descriptors: list[str] = []
    past = False
    for block in doc.split("\n\n") if doc else ():
        if block.startswith("Args:"):
            break
        if block.startswith(("Returns:", "Example:")):
            past = True
        elif not past:
            descriptors.append(block)
    return textwrap.dedent(" ".join(descriptors).strip()).strip() or None


class _StructuredToolType(type):
    """The metaclass of :class:`StructuredTool`: every toolwire tool is an instance, and calling the class is
    LangChain's constructor form."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tool)

    def __subclasscheck__(cls, subclass: Any) -> bool:
        return isinstance(subclass, type) and issubclass(subclass, Tool)

    def __call__(cls, *args: Any, **kwargs: Any) -> Tool:
        """``StructuredTool(name=..., description=..., func=..., coroutine=..., args_schema=..., return_direct=...,
        response_format=...)``, LangChain's constructor (a pydantic model: keywords only), made as
        :meth:`StructuredTool.from_function` makes a tool (``args_schema`` left out: read from the function).

        Raises:
            UserError: a positional argument, or a keyword neither LangChain's constructor nor toolwire takes.
            SchemaError: as :meth:`StructuredTool.from_function`.
        """
        if args:
            raise UserError("StructuredTool(...) takes keywords only, as LangChain's (name=..., description=..., "
                            "func=...); or use StructuredTool.from_function(func).")
        known = [*_LANGCHAIN_ARGS, *_TOOLWIRE_OPTIONS]
        if not set(known).issuperset(kwargs):
            check_keywords("StructuredTool", kwargs, [*known, "infer_schema"])
        return StructuredTool.from_function(**kwargs)


class StructuredTool(metaclass=_StructuredToolType):
    """LangChain's ``StructuredTool``, as ported code makes and checks tools: not a class of its own tools but a
    name for toolwire's :class:`~toolwire.tools.Tool` (every toolwire tool takes named arguments described by a JSON
    Schema, what LangChain calls a structured tool).

    * ``StructuredTool.from_function(...)`` and ``StructuredTool(name=..., func=..., ...)`` return a
      :class:`~toolwire.tools.Tool`;
    * ``isinstance(tool, StructuredTool)`` is True for every toolwire tool (``@tool`` ones too, as for LangChain's
      ``@tool``), and ``issubclass(Tool, StructuredTool)``; a LangChain tool is not one (convert it with
      :func:`toolwire.interop.langchain.from_langchain_tool`).
    """

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any] | None = None,
        coroutine: Callable[..., Awaitable[Any]] | None = None,
        name: str | None = None,
        description: str | None = None,
        return_direct: bool = False,
        args_schema: type[BaseModel] | Mapping[str, Any] | None = None,
        infer_schema: bool = True,
        *,
        response_format: Literal["content", "content_and_artifact"] = "content",
        parse_docstring: bool = False,
        error_on_invalid_docstring: bool = False,
        **kwargs: Any,
    ) -> Tool:
        """Make a tool from a function, with LangChain's ``StructuredTool.from_function`` parameters and rules
        (``langchain_core/tools/structured.py``).

        Args:
            func: the sync function (or an ``async def``, which toolwire awaits in ``ainvoke`` and runs to the end in
                ``invoke``), or None when ``coroutine`` is given.
            coroutine: an ``async def`` function. Alone, the tool is async. With ``func``, ``invoke`` runs ``func``
                and ``ainvoke`` awaits ``coroutine`` (toolwire's sync ``batch``, ``ToolExecutor.call``/``execute``
                and ``Agent.invoke`` run ``func``; their async forms ``coroutine``), as in LangChain; it must take
                the same arguments.
            name: the tool's name (default: the function's ``__name__``).
            description: what the tool does. Default, as LangChain's: the function's whole docstring (dedented,
                its ``Args:`` section included) unless ``parse_docstring``, when the docstring's blocks before
                ``Args:`` (summary and body) joined with one space are the description and its ``Args:`` describe
                the parameters (a pydantic ``args_schema``'s docstring with an ``args_schema``); else
                ``args_schema``'s docstring (or a dict ``args_schema``'s ``"description"``).
            return_direct, response_format: see :class:`~toolwire.tools.Tool`.
            args_schema: a pydantic v2 model class whose fields are the arguments (its ``InjectedToolCallId`` and
                ``InjectedToolArg`` fields hidden from the model and filled, as in LangChain), or a JSON Schema dict
                (the tool is then made with :meth:`Tool.from_schema <toolwire.tools.Tool.from_schema>`, its arguments
                checked against it with ``jsonschema``).
            infer_schema: True (LangChain's default) reads the schema from the signature when there is no
                ``args_schema``; False is taken only with an ``args_schema`` (where LangChain ignores it too).
            parse_docstring: read the parameters' descriptions from a Google-style docstring (LangChain's default:
                False); an entry wrapped over several lines is joined with spaces, as LangChain joins it.
            error_on_invalid_docstring: with ``parse_docstring``, refuse a docstring that is not Google-style, by
                LangChain's rule (a summary, a blank line, an ``Args:`` block), and, without an ``args_schema``, an
                ``Args:`` entry that names no parameter of the function (else a warning says so).
            **kwargs: toolwire's own options ``timeout`` (seconds), ``handle_errors``, ``hide_error_details`` (see
                :class:`~toolwire.tools.Tool`). LangChain's other ``BaseTool`` fields (``handle_tool_error``,
                ``callbacks``, ``tags``, ``metadata``...) are refused, each with what toolwire does instead.

        Returns:
            A toolwire :class:`~toolwire.tools.Tool`.

        Raises:
            UserError: neither ``func`` nor ``coroutine`` (LangChain: "Function and/or coroutine must be provided"),
                ``infer_schema=False`` without ``args_schema``, or a keyword toolwire cannot honour (one sentence
                saying what to do instead) or does not know (with the close match).
            SchemaError: ``coroutine`` is not an ``async def``, ``func`` is one while ``coroutine`` is given too, the
                two take different arguments, an invalid docstring with ``error_on_invalid_docstring``, no
                description, or anything :meth:`Tool.from_function <toolwire.tools.Tool.from_function>` (or
                ``from_schema``) refuses.
        """
        if not set(_TOOLWIRE_OPTIONS).issuperset(kwargs):
            check_keywords(_OWNER, kwargs, [*keyword_names(StructuredTool.from_function), *_TOOLWIRE_OPTIONS])
        if func is None and coroutine is None:
            raise UserError(f"{_OWNER} needs the function: pass func= (sync or async def) or coroutine= (async def), "
                            "or both.")
        if coroutine is not None and not is_async_callable(coroutine):
            raise SchemaError(f"{_OWNER}: coroutine= must be an async def function (ainvoke awaits it); pass a sync "
                              "function as func=.")
        if func is not None and coroutine is not None and is_async_callable(func):
            raise SchemaError(f"{_OWNER}: func= is already an async def, so coroutine= has nothing to add: pass the "
                              "async function alone (toolwire awaits it in ainvoke and runs it to the end in invoke).")
        if args_schema is None and not infer_schema:
            raise UserError(f"{_OWNER}(infer_schema=False) needs args_schema=: {ADVICE['infer_schema']}.")
        source: Callable[..., Any] = func if func is not None else coroutine  # type: ignore[assignment]
        tool_name = name or function_name(source)
        if tool_name is None:
            raise SchemaError(f"Cannot name a tool for {source!r}: pass name=...")
        if parse_docstring and error_on_invalid_docstring:
            _invalid_docstring(source, tool_name, args_schema)
        if description is None and not parse_docstring:  # LangChain's: the whole docstring, dedented and stripped
            doc = source.__doc__ if inspect.isfunction(source) or inspect.ismethod(source) else function_doc(source)
            description = textwrap.dedent(doc).strip() or None if doc else None
        elif description is None:  # LangChain's: the summary and body joined with a space (review 98 #11)
            description = _parsed_description(source, args_schema)
        kind: type[Tool] = _SyncAndAsyncTool if func is not None and coroutine is not None else Tool
        if isinstance(args_schema, Mapping):  # a JSON Schema dict, as LangChain takes it
            text = description if description is not None else args_schema.get("description")
            if not isinstance(text, str) or not text.strip():
                raise SchemaError(f"Tool {tool_name!r} has no description: pass description=..., or give the "
                                  "function a docstring.")
            made = kind.from_schema(source, tool_name, text, args_schema, return_direct=return_direct,
                                    response_format=response_format, **kwargs)
        else:
            made = kind.from_function(source, tool_name, description, args_schema=args_schema,
                                      return_direct=return_direct, response_format=response_format,
                                      parse_docstring=parse_docstring, **kwargs)
            if parse_docstring and args_schema is None:
                _langchain_wrapping(made, source)
        if isinstance(made, _SyncAndAsyncTool):
            _pair(made, coroutine)  # type: ignore[arg-type]
        return made
