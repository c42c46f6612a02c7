"""Reading a Python callable for its schema: parameters, type hints and docstrings.

:func:`signature_params` reads ``(name, kind, default)`` the way ``inspect.signature`` does, straight from
the code object for plain functions; :func:`type_hints` is ``typing.get_type_hints`` made quicker for plain
string annotations; :func:`hint_target` finds the object whose annotations describe a callable (through
decorators, ``functools.partial``, classes and callable instances); :func:`function_doc` and
:func:`partial_keywords` handle ``functools.partial``; :func:`call_doc` finds a callable object's ``__call__``
docstring; :func:`_parse_docstring` reads a docstring's description and parameter descriptions.
:mod:`toolwire.schema` builds the JSON Schema from them.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import os
import re
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

import docstring_parser
import docstring_parser.epydoc
import docstring_parser.google
import docstring_parser.numpydoc
import docstring_parser.rest

from toolwire._bridges import BRIDGE, runs_coroutine_itself

__all__ = [
    "call_doc", "caller_namespace", "defined_in_class", "function_doc", "function_name", "hint_target",
    "napoleon_entry", "partial_keywords", "signature_params", "type_hints",
]

_EMPTY = inspect.Parameter.empty
_POSITIONAL_ONLY, _POSITIONAL_OR_KEYWORD = inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD


def signature_params(func: Any) -> list[tuple[str, inspect._ParameterKind, Any]]:
    """``(name, kind, default)`` of each parameter, as ``inspect.signature(func).parameters`` has them.

    A plain function (no ``__wrapped__``, ``__signature__`` or partialmethod) is read straight from its
    code object the way ``inspect`` does, without building Parameter and Signature objects; anything
    else goes through ``inspect.signature``.
    """
    if type(func) is not types.FunctionType or (func.__dict__ and any(  # (attributes a plain function has none of)
            hasattr(func, a) for a in ("__wrapped__", "__signature__", "_partialmethod", "__partialmethod__"))):
        return [(p.name, p.kind, p.default) for p in inspect.signature(func).parameters.values()]
    code = func.__code__
    pos_count, posonly_count, kwonly_count = code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount
    names = code.co_varnames
    defaults = func.__defaults__ or ()
    first_default = pos_count - len(defaults)
    out: list[tuple[str, inspect._ParameterKind, Any]] = []
    for index, name in enumerate(names[:pos_count]):
        kind = _POSITIONAL_ONLY if index < posonly_count else _POSITIONAL_OR_KEYWORD
        out.append((name, kind, defaults[index - first_default] if index >= first_default else _EMPTY))
    extra = pos_count + kwonly_count
    if code.co_flags & inspect.CO_VARARGS:
        out.append((names[extra], inspect.Parameter.VAR_POSITIONAL, _EMPTY))
    kwdefaults = func.__kwdefaults__ or {}
    for name in names[pos_count:pos_count + kwonly_count]:
        out.append((name, inspect.Parameter.KEYWORD_ONLY, kwdefaults.get(name, _EMPTY)))
    if code.co_flags & inspect.CO_VARKEYWORDS:
        out.append((names[extra + (1 if code.co_flags & inspect.CO_VARARGS else 0)], inspect.Parameter.VAR_KEYWORD,
                    _EMPTY))
    return out


# String annotations (``from __future__ import annotations``): typing.get_type_hints makes a ForwardRef
# of each, compiling its text, evaluates it in the function's module, checks the value and resolves any
# forward references inside it. For the common case, where the value is a class or a builtin generic or
# union of classes, that check and resolution return the value unchanged, so it is evaluated here
# directly (the compiled text is kept, by text); anything else goes through typing.get_type_hints.
_COMPILED: dict[str, Any] = {}


def _plain_hint(value: Any) -> bool:
    """Whether typing would keep ``value`` (an evaluated annotation) unchanged."""
    kind = type(value)
    if kind is types.GenericAlias or kind is types.UnionType:
        return all(_plain_hint(arg) for arg in value.__args__)
    return isinstance(value, type) and value not in (typing.Generic, typing.Protocol)


def type_hints(target: Any) -> dict[str, Any]:
    """``typing.get_type_hints(target, include_extras=True)``, quicker for plain string annotations."""
    annotations = getattr(target, "__annotations__", None)
    if type(annotations) is not dict or isinstance(target, (type, types.ModuleType)):
        return typing.get_type_hints(target, include_extras=True)
    holder = target
    while (type(holder) is not types.FunctionType or holder.__dict__) and hasattr(holder, "__wrapped__"):
        holder = holder.__wrapped__  # get_type_hints' own choice of globals
    namespace = getattr(holder, "__globals__", {})
    hints: dict[str, Any] = {}
    for name, value in annotations.items():
        if type(value) is str:
            code = _COMPILED.get(value)
            try:
                if code is None:
                    if len(_COMPILED) > 4096:
                        _COMPILED.clear()
                    code = _COMPILED[value] = compile(value, "<string>", "eval")
                value = eval(code, namespace, namespace)  # as ForwardRef._evaluate does
            except Exception:  # let typing raise its own error
                return typing.get_type_hints(target, include_extras=True)
            if value is None:
                value = type(None)
        elif value is None:
            value = type(None)
        if not _plain_hint(value):
            return typing.get_type_hints(target, include_extras=True)
        hints[name] = value
    return hints


def type_hints_in_callers(target: Any, error: NameError, depth: int = 3) -> dict[str, Any]:
    """:func:`type_hints` of ``target`` with the local variables of the code that is defining the tool as well.

    Under ``from __future__ import annotations`` every annotation is text, resolved later in the function's
    module globals, so a class defined in the function that makes the tool (``def make_tools(): class
    Query(BaseModel): ...; @tool def search(query: Query)``) is not found there (review 28). As pydantic does
    for ``validate_call`` (its parent frame's namespace), the local variables of the nearest frames outside
    toolwire (up to ``depth`` of them, nearest first) are tried in turn.

    Raises:
        NameError: ``error`` (the first failure) when no such frame resolves every annotation.
    """
    frame = sys._getframe(1)
    tried = 0
    while frame is not None and tried < depth:
        module = frame.f_globals.get("__name__")
        if not (isinstance(module, str) and (module == "toolwire" or module.startswith("toolwire."))):
            tried += 1
            try:
                return typing.get_type_hints(target, localns=dict(frame.f_locals), include_extras=True)
            except NameError:
                pass
        frame = frame.f_back
    raise error


def caller_namespace(depth: int = 3) -> dict[str, Any]:
    """The local variables of the nearest ``depth`` frames outside toolwire (the code defining a tool or asking
    for structured output, and its callers), merged with the nearest winning: where a class defined in a function
    is found when a TypedDict's or dataclass's field names it as text (``from __future__ import annotations``),
    as :func:`type_hints_in_callers` finds one named by the function's own hints (review 94 #7).

    Returns:
        ``{name: value}``; empty when there is no such frame.
    """
    frame = sys._getframe(1)
    found: list[dict[str, Any]] = []
    while frame is not None and len(found) < depth:
        module = frame.f_globals.get("__name__")
        if not (isinstance(module, str) and (module == "toolwire" or module.startswith("toolwire."))):
            found.append(dict(frame.f_locals))
        frame = frame.f_back
    merged: dict[str, Any] = {}
    for namespace in reversed(found):
        merged.update(namespace)
    return merged


def _unwrap(func: Any, stop: Callable[[Any], bool] | None = None) -> Any:
    """``func`` through ``functools.partial`` and decorators' ``__wrapped__`` (at most 100 layers), stopping
    early at the first layer for which ``stop`` is true."""
    for _ in range(100):
        if stop is not None and stop(func):
            break
        if isinstance(func, functools.partial):
            func = func.func
        elif hasattr(func, "__wrapped__"):
            func = func.__wrapped__
        else:
            break
    return func


def function_name(func: Any) -> str | None:
    """The name a tool made from ``func`` takes when none is given: its ``__name__``, or for a ``functools.partial``
    (or a chain of them) without one, that of the function it wraps, as its description and parameters come from
    that function (review 77); None when there is none (a callable instance)."""
    name = getattr(func, "__name__", None)
    while name is None and isinstance(func, functools.partial):
        func = func.func
        name = getattr(func, "__name__", None)
    return name if isinstance(name, str) else None


def hint_target(func: Any) -> Any:
    """The object whose annotations describe ``func``'s parameters: the wrapped function of a decorator
    or ``functools.partial``, a class's ``__init__``, a callable instance's ``__call__``."""
    if type(func) is types.FunctionType and not func.__dict__:  # a plain function (no __wrapped__): itself
        return func
    func = _unwrap(func)
    if isinstance(func, type):
        return func.__init__
    if inspect.isfunction(func) or inspect.ismethod(func) or inspect.isbuiltin(func):
        return func
    return type(func).__call__ if callable(func) else func


def defined_in_class(func: Any) -> bool:
    """Whether ``func`` (through ``functools.partial`` and decorators' ``__wrapped__``) is a plain function
    written in a class body, whose first parameter (``self``, ``cls``) receives the instance or class it is
    bound to. Told by its ``__qualname__`` (PEP 3155): ``"Svc.add"`` and ``"f.<locals>.Svc.add"`` are, but
    ``"add"`` and ``"f.<locals>.add"`` are not; a bound method is not either (its signature has no ``self``)."""
    func = _unwrap(func, stop=inspect.ismethod)
    if not inspect.isfunction(func):  # a bound method (its signature has no ``self``) included
        return False
    owner = func.__qualname__.rpartition(".")[0]
    return bool(owner) and not owner.endswith("<locals>")


def function_doc(func: Any) -> str | None:
    """``inspect.getdoc(func)``, but a ``functools.partial`` gives the docstring of the function it wraps
    (not ``partial``'s own, nor a subclass's without one), so its description and ``Args:`` reach the schema; a
    callable object whose class has no docstring gives its ``__call__``'s."""
    while isinstance(func, functools.partial) and func.__doc__ in (None, functools.partial.__doc__):
        func = func.func
    return inspect.getdoc(func) or call_doc(func)


_ASYNC_FLAGS = inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR  # what inspect's two tests read


def is_async_callable(func: Any) -> bool:
    """Whether calling ``func`` gives a coroutine or an async generator: an ``async def`` (or async generator
    function), one under a plain ``functools.wraps`` decorator (the wrapper returns its coroutine), a
    ``functools.partial`` of either, or a callable object whose ``__call__`` is one."""
    if type(func) is types.FunctionType and not func.__dict__:  # a plain function: no __wrapped__, no marker
        return bool(func.__code__.co_flags & _ASYNC_FLAGS)

    def async_def(target: Any) -> bool:
        return inspect.iscoroutinefunction(target) or inspect.isasyncgenfunction(target)

    base = func
    while isinstance(base, functools.partial):  # (a partial of a wraps-decorated async def: review 275 #5)
        base = base.func
    unwrapped = inspect.unwrap(base)
    return async_def(func) or (unwrapped is not func and async_def(unwrapped)) or (
        not inspect.isroutine(base) and callable(base) and async_def(type(base).__call__))  # (review 284 #5)


_MARKED = getattr(asyncio.coroutines, "_is_coroutine", None)  # asgiref's markcoroutinefunction before Python 3.12


def sync_wrapper(func: Any) -> bool | str:
    """Whether ``func``, which :func:`is_async_callable` takes for async, is so only through its ``__wrapped__``: its
    own code is sync (``inspect.iscoroutinefunction`` is False, and it is not marked with
    ``inspect.markcoroutinefunction`` or asgiref's), as a ``functools.wraps`` wrapper's, an ``lru_cache``'s or asgiref's
    ``AsyncToSync``'s is. It may hand back the coroutine or run it itself and return its value (``asyncio.run``,
    ``async_to_sync``, ``asyncer.syncify``: review 269 #1). One whose code visibly runs it
    (:func:`~toolwire._bridges.runs_coroutine_itself`) is a bridge: the tool calls it once, on a worker thread (review
    295 #1, #2). A "sync or async" wrapper, which runs its coroutine with ``asyncio.run`` only when no loop runs and
    else hands it back, is a bridge too (reading its paths statically mistook bridges for such wrappers: reviews 313
    #1, 315, 323): under an async caller its coroutine runs on a private loop on that worker thread. Any other is
    called on the loop's thread (it may schedule the coroutine there or set a ContextVar: review 275 #1), and again
    on a worker thread when a bridge hidden deeper refused the running loop (:func:`loop_refused`;
    :func:`~toolwire._tool_run.guarded`).

    Returns:
        :data:`~toolwire._bridges.BRIDGE` (truthy) for a bridge; True for another such wrapper; False for an ``async
        def``, a partial or a callable object whose ``__call__`` is one.
    """
    if type(func) is types.FunctionType and not func.__dict__:  # a plain ``async def``
        return False
    if inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func):
        return False
    if _MARKED is not None and getattr(func, "_is_coroutine", None) is _MARKED:
        return False
    if inspect.isroutine(func) or not callable(func) or not (
            inspect.iscoroutinefunction(type(func).__call__) or inspect.isasyncgenfunction(type(func).__call__)):
        return BRIDGE if runs_coroutine_itself(func) else True
    return False


_BRIDGES = tuple(os.path.join(*parts) for parts in (("asyncio", "runners.py"), ("asgiref", "sync.py"),
                                                    ("anyio", "_core", "_eventloop.py")))


def loop_refused(exc: BaseException) -> bool:
    """Whether ``exc`` is a sync bridge's refusal to run inside a running event loop: a ``RuntimeError`` raised in
    ``asyncio.run``, asgiref's ``AsyncToSync`` or ``anyio.run`` itself, which check for a running loop before they
    start any work. The call is then made again on a worker thread: a fallback only for a bridge hidden from
    :func:`~toolwire._bridges.runs_coroutine_itself` (a helper two calls down), as what the wrapper did before reaching
    the bridge is done again (review 295 #1). The coroutine the bridge was given and left (``asyncio.run``'s) is
    closed, so it does not warn that it was never awaited."""
    trace = exc.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    if type(exc) is not RuntimeError or trace is None or not trace.tb_frame.f_code.co_filename.endswith(_BRIDGES):
        return False
    for value in list(trace.tb_frame.f_locals.values()):
        if type(value) is types.CoroutineType:
            value.close()
    return True


def call_doc(func: Any) -> str | None:
    """The docstring of ``type(func).__call__`` when ``func`` (through ``functools.partial``) is a callable
    object, not a function, method or class; else None. Its ``Args:`` describe the parameters the object
    takes, which its class docstring often leaves out."""
    while isinstance(func, functools.partial):
        func = func.func
    if isinstance(func, type) or inspect.isroutine(func) or not callable(func):
        return None
    return inspect.getdoc(type(func).__call__)


# -- docstrings -------------------------------------------------------------------------------------------
# docstring_parser's style detection (docstring_parser.parse) parses with every style and keeps the result
# with the most fields (ties: reST, Google, NumPy, Epydoc). Its Google parser is given the sections of
# the Google style guide and Napoleon that it lacks: "Keyword Args:"/"Keyword Arguments:" and "Other
# Parameters:" list parameters too (https://google.github.io/styleguide/pyguide.html#383-functions-and-methods,
# https://www.sphinx-doc.org/en/master/usage/extensions/napoleon.html#docstring-sections).

_SECTIONS = [
    *docstring_parser.google.DEFAULT_SECTIONS,
    *(docstring_parser.google.Section(title, "param", docstring_parser.google.SectionType.MULTIPLE)
      for title in ("Keyword Args", "Keyword Arguments", "Other Parameters")),
    # Napoleon's aliases of Returns, Yields and Raises (review 147 #2: they stayed in the description)
    docstring_parser.google.Section("Return", "returns", docstring_parser.google.SectionType.SINGULAR_OR_MULTIPLE),
    docstring_parser.google.Section("Yield", "yields", docstring_parser.google.SectionType.SINGULAR_OR_MULTIPLE),
    docstring_parser.google.Section("Raise", "raises", docstring_parser.google.SectionType.MULTIPLE),
]
_ROLE = re.compile(r":[\w.+-]+(?::[\w.+-]+)*:`~?([^`]*)`")  # a Sphinx role (:obj:`int`, :class:`~pkg.T`)


def napoleon_entry(text: str) -> str:
    """The Google entry ``text`` with the colons inside its parenthesised type taken out (a Sphinx role written
    as its target: ``limit (:obj:`int`, optional): ...`` -> ``limit (int, optional): ...``, Napoleon's own
    example), so that the first colon ends the name and type (review 212 #4: the name was read as ``limit (``). The
    type ends at the parenthesis that closes it, so a type holding parentheses (``size (tuple (int, int) or
    :obj:`None`, optional): ...``) is read whole (review 222 #8)."""
    colon, start = text.find(":"), text.find("(")
    if start < 0 or colon < start:
        return text
    close = text.find(")", start)
    if 0 < close < colon and text.find("(", start + 1, close) < 0:  # ``limit (int): ...``: nothing to take out
        return text
    depth, end = 0, -1
    for index in range(start, len(text)):  # the parenthesis that closes the type (``(tuple (int, int) or ...)``)
        char = text[index]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if not depth:
                end = index
                break
    if end < colon:
        return text
    return text[:start] + _ROLE.sub(r"\1", text[start:end]).replace(":", "") + text[end:]


class _GoogleParser(docstring_parser.google.GoogleParser):
    """docstring_parser's Google parser, reading an entry's name and type as Napoleon does (:func:`napoleon_entry`)."""

    def _build_meta(self, text: str, title: str) -> docstring_parser.DocstringMeta:
        return super()._build_meta(napoleon_entry(text), title)


_GOOGLE = _GoogleParser(_SECTIONS)  # (its parse keeps no state)
_GOOGLE_PLAIN = docstring_parser.google.GoogleParser(_SECTIONS)  # (the same where no type holds a colon)
# The same sections, those that describe no parameter read as one block of text each: Napoleon reads a Raises
# entry with no colon ("ValueError if q is empty.", a bare "TypeError"), where docstring_parser's Google parser
# stops at it; tried once no style could parse a docstring (review 147 #1: the whole docstring became the
# description, and every parameter lost its text).
_GOOGLE_LENIENT = _GoogleParser([
    section if section.key == "param" else
    docstring_parser.google.Section(section.title, section.key, docstring_parser.google.SectionType.SINGULAR)
    for section in _SECTIONS
])


def _google(doc: str) -> docstring_parser.Docstring:
    """``doc`` parsed in the Google style, its sections that describe no parameter read as one block each if the
    strict parse fails (:data:`_GOOGLE_LENIENT`).

    Raises:
        docstring_parser.ParseError: the strict parse's error, when neither parse can read ``doc``.
    """
    try:  # (Napoleon's reading only where a type may hold a colon: a Sphinx role; the plain one is faster, B3)
        return (_GOOGLE if "`" in doc or "(:" in doc else _GOOGLE_PLAIN).parse(doc)
    except docstring_parser.ParseError as exc:
        try:
            return _GOOGLE_LENIENT.parse(doc)
        except docstring_parser.ParseError:
            raise exc from None


_STYLES = (docstring_parser.rest.parse, _google, docstring_parser.numpydoc.parse, docstring_parser.epydoc.parse)
# A line that could start a section or field of the reST, Epydoc or NumPy styles (":param", "@param",
# ".. deprecated::", a "-----" underline). Without one, those three parsers find no fields in a docstring.
# (As ``^\s*(?::|@|\.\.|-)`` in MULTILINE mode, searched as a match at the start and a search from each newline,
# which the regex engine finds by scanning for the newline instead of trying every position.)
_OTHER_STYLE_START = re.compile(r"\s*(?::|@|\.\.|-)")
_OTHER_STYLE_LINE = re.compile(r"\n\s*(?::|@|\.\.|-)")


def _parse_docstring_fields(doc: str) -> docstring_parser.Docstring:
    """``docstring_parser.parse(doc)`` (style detection, with the Google sections above), parsing a plain
    Google docstring once, not four times.

    When no line can start a reST, Epydoc or NumPy field those find none, so a Google parse with at least
    one field is the answer; otherwise every style is tried.

    Raises:
        docstring_parser.ParseError: no style can parse ``doc``.
    """
    if not (_OTHER_STYLE_START.match(doc) or _OTHER_STYLE_LINE.search(doc)):
        try:
            parsed = _google(doc)
        except docstring_parser.ParseError:
            pass
        else:
            if parsed.meta:
                return parsed
    results, error = [], None
    for parse in _STYLES:
        try:
            results.append(parse(doc))
        except docstring_parser.ParseError as exc:
            error = exc
    if not results:
        raise error  # type: ignore[misc]
    return max(results, key=lambda parsed: len(parsed.meta))  # (the first of the longest, as sorted() keeps)


def _indent_leading_section(doc: str) -> str:
    """``doc`` (cleaned as ``inspect.getdoc`` cleans it) with the body of a Google section that starts it indented
    back under its title.

    A docstring that opens with its section (``\"\"\"Args:`` on the line of the quotes, no summary) loses that
    body's indentation: ``inspect.cleandoc`` measures the margin from the second line on, so the body ends up
    at the title's level, where no style reads it as the section's (the title and body became the
    description). When the line after such a title is not indented, the lines up to the next title at the left
    margin are the title's body. (The text starts with a newline: docstring_parser cleans it again, and would
    otherwise undo the indentation the same way.)
    """
    first, newline, rest = doc.partition("\n")
    if not newline or not _GOOGLE.titles_re.match(first):
        return doc
    lines = rest.split("\n")
    body = next((line for line in lines if line.strip()), "")
    if not body or body[0].isspace():
        return doc  # already indented under the title (another section follows at the margin)
    end = next((i for i, line in enumerate(lines) if i and _GOOGLE.titles_re.match(line)), len(lines))
    indented = ["    " + line if line.strip() else line for line in lines[:end]]
    return "\n".join(["", first, *indented, *lines[end:]])


# A reST/Epydoc field at the left margin (":param q:", "@param q:"), which starts or goes on a field list.
_FIELD_LINE = re.compile(r"^[:@]\w")
# The first line that starts a Google section or a reST/Epydoc field (either line test of
# _split_text_after_sections, on the whole text), and a line at the left margin (a newline and a character that
# is not whitespace, as ``str.isspace`` tells it: ``\s`` and ``\S`` are that test): with no such line after the
# first section, no paragraph follows a section.
# (Searched from each newline, with a match at the start, as _OTHER_STYLE_LINE is.)
_TITLE = _GOOGLE.titles_re.pattern.removeprefix("^")
_SECTION_START = re.compile(rf"{_TITLE}|[:@]\w", re.MULTILINE)
_SECTION_LINE = re.compile(rf"\n(?:{_TITLE}|[:@]\w)", re.MULTILINE)
_MARGIN_LINE = re.compile(r"\n\S")


def _split_text_after_sections(doc: str) -> tuple[str, str]:
    """``(doc without them, paragraphs)``: the paragraphs written at the left margin after a Google section's
    indented body or after a reST/Epydoc field list, which docstring_parser drops (Google) or glues onto the
    last field's text (reST).

    Google style (the Napoleon guide) ends a section at the first line back at the section title's margin, and
    reST ends a field list at a blank line followed by text at the list's margin; such text is the docstring's
    own prose and belongs in the description. Only a paragraph after a blank line, following a section that had
    an indented body or a field, is taken, so a section written without indentation is left to the parser.
    """
    first = _SECTION_START.match(doc) or _SECTION_LINE.search(doc)  # (most docstrings: no section, or no text at
    # the margin after the first)
    if first is None:
        return doc, ""
    end = doc.find("\n", first.end())
    if end < 0 or not _MARGIN_LINE.search(doc, end):
        return doc, ""
    kept: list[str] = []
    moved: list[str] = []
    in_section = has_body = free = blank = False
    for line in doc.split("\n"):
        stripped = line.strip()
        at_margin = bool(stripped) and not line[0].isspace()
        if at_margin and (_GOOGLE.titles_re.match(line) or _FIELD_LINE.match(line)):
            free, in_section, has_body = False, True, bool(_FIELD_LINE.match(line))  # a field holds its text
        elif at_margin and in_section and has_body and blank:
            free, in_section = True, False
        elif stripped and in_section and line[0].isspace():
            has_body = True
        (moved if free else kept).append(line)
        blank = not stripped
    if not moved:
        return doc, ""
    return "\n".join(kept).rstrip(), "\n".join(moved).strip()


_NAMES_SEP = re.compile(r"\s*,\s*")  # numpydoc's "x, y : float"


def _parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """``(description, {parameter: description})`` of a docstring: the summary and the paragraphs after it
    (never the ``Args``/``Returns``/``Raises`` sections), as written (a summary wrapped over several lines keeps
    its lines in one paragraph), and each documented parameter's text; a docstring no style can parse is all
    description."""
    if not doc or not doc.strip():
        return "", {}
    doc, after = _split_text_after_sections(doc)
    doc = _indent_leading_section(doc)
    try:
        parsed = _parse_docstring_fields(doc)
    except docstring_parser.ParseError:
        return "\n\n".join(p for p in (inspect.cleandoc(doc), after) if p), {}
    short, long = parsed.short_description, parsed.long_description
    if short and long:
        # docstring_parser takes the first line as the summary and the rest as the long description: a summary
        # wrapped over several lines (no blank line after its first) goes on in the same paragraph (review 24)
        joint = "\n\n" if parsed.blank_after_short_description else "\n"
        summary = f"{short}{joint}{long}".strip()
    else:
        summary = (short or long or "").strip()
    description = f"{summary}\n\n{after}" if summary and after else summary or after
    # NumPy/Sphinx style may carry the type in the name ("q : str" is already split by the parser); numpydoc
    # documents parameters that share a type and a text together ("x, y : float")
    params: dict[str, str] = {}
    for param in parsed.params:
        text, arg = param.description or "", param.arg_name
        for name in _NAMES_SEP.split(arg.strip()) if "," in arg else (arg.strip(),):
            if name:
                params[name] = text
    return description, {k: v.strip() for k, v in params.items() if v}


def docstring_error(doc: str | None) -> str | None:
    """Why no style can read the parameter descriptions of ``doc``, or None when one can or ``doc`` has no parameter
    section: the parse error of :func:`_parse_docstring`, which then gives every parameter no description and the
    whole docstring as the description (review 147 #1: that went unsaid). Parses ``doc`` again: call it only for a
    docstring that gave no parameter descriptions."""
    if not doc or not _PARAM_TITLE.search(doc):
        return None
    try:
        _google(_indent_leading_section(_split_text_after_sections(doc)[0]))
    except docstring_parser.ParseError as exc:
        return str(exc)
    return None


_PARAM_TITLE = re.compile(r"^[ \t]*(?:Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters)"
                          r"[ \t]*:[ \t]*$", re.MULTILINE)


def partial_positionals(func: Any) -> set[str]:
    """The parameters a ``functools.partial`` (or a chain of them) fills by position (``partial(f, db)`` fills
    ``f``'s first parameter): not parameters of the tool, though the function's docstring may describe them."""
    if not isinstance(func, functools.partial):  # (most tools: no signature read)
        return set()
    chain = []
    while isinstance(func, functools.partial):
        chain.append(func)
        func = func.func
    try:
        names = [p.name for p in inspect.signature(func).parameters.values()
                 if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return set()
    bound = sum(len(part.args) for part in chain)
    return set(names[:bound])


def partial_keywords(func: Any) -> set[str]:
    """The keyword arguments a ``functools.partial`` (or a chain of them) fixes: not parameters of the tool."""
    fixed: set[str] = set()
    while isinstance(func, functools.partial):
        fixed.update(func.keywords)
        func = func.func
    return fixed


def docstring_summary(func: Any) -> str:
    """The description :func:`function_doc`'s docstring gives ``func`` (its summary and body, without sections)."""
    return _parse_docstring(function_doc(func))[0]
