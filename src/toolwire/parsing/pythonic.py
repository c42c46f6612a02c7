"""Pythonic tool calls: ``[get_weather(city="Tóquio"), calculate(expression="123 * 456")]``.

Format source: the "pythonic" tool-call style of Llama 3.2 / Llama 4 prompts (a Python list of calls),
vLLM's ``pythonic`` tool parser, and single calls such as ``get_weather(city="Oslo")`` that small models
write. Candidate spans are found by scanning for ``[`` or a bound name followed by ``(`` and balancing
brackets (string literals respected); each span is read with ``ast.parse(..., mode="eval")`` and only
calls of (dotted) names with literal keyword arguments are accepted (``ast.literal_eval`` per value).
Nothing is ever evaluated. The arguments are JSON: a dict key written as an ``int``, ``float``, ``bool`` or ``None``
literal becomes the text JSON writes for it (``Bins(bins={3: "North"})`` gives ``{"bins": {"3": "North"}}``, which a
``dict[int, str]`` parameter reads back as ints; review 96); other keys (a tuple) make the call invalid.

Tool and parameter names that Python cannot read as written (``get-weather``, a parameter ``from`` or
``first-name``) are written in a Python-safe spelling (``get_weather``, ``from_``, ``first_name``; see
:class:`PythonNames`), which the parser maps back to the real names.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Collection, Mapping
from typing import Any

from toolwire.parsing._calls import Collector, ParsedReply
from toolwire.parsing._python_names import PythonNames, names_of, python_name, signature_order
from toolwire.parsing._pythonic_slips import (
    ARGUMENT_LIKE,
    KEYWORD_MARK,
    NOT_PYTHON,
    call_start,
    list_items,
    list_start,
    parse_repairing,
    respell_tools,
    written_call_start,
    written_syntax_error,
)
from toolwire.parsing._repeated_keys import RepeatedKey, refuse_repeated_literal_keys
from toolwire.parsing._retries import python_retry
from toolwire.parsing._scan import BAD, DEEP, EOF, forget_spans, python_span_end, skip_ws, to_jsonable

__all__ = ["PythonNames", "add_calls_in", "call_at", "parse_pythonic", "python_name", "signature_order"]

_LIST_START = re.compile(r"\[\s*([A-Za-z_][\w]*(?:\s*\.\s*[A-Za-z_]\w*)*)\s*\(")
_ANY_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)\s*\(")
_DEFINES = re.compile(r"(?:^|[^\w.])(?:def|class)[ \t]+\Z")  # right before a name: it is being defined
_KEYWORD_START = re.compile(r"\s*(?:[A-Za-z_]\w*\s*=|$)")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\Z")
_LITERAL_ERRORS = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)
_CUT_OFF = ('The call is cut off before its closing parenthesis; send the complete call, '
            'such as {name}(param="value").')
_UNREADABLE = 'The call cannot be read as Python; send it as {name}(param="value").'
_TOO_DEEP = ('The call to {name} nests its brackets too deeply to read; send its arguments with less nesting, '
             'such as {name}(param="value").')
# a fence around a call list: ```python ... ``` (what the pythonic grammar allows, and Gemma's ```tool_code)
_FENCE_OPEN = re.compile(r"```[ \t]*(?:python3?|py|tool_code)?[ \t]*\r?\n[ \t\r\n]*\Z", re.IGNORECASE)
_FENCE_CLOSE = re.compile(r"[ \t\r\n]*(?:```|\Z)")


@functools.lru_cache(maxsize=64)
def _bound_pattern(names: frozenset[str]) -> re.Pattern[str] | None:
    usable = sorted((n for n in names if _DOTTED.match(n)), key=len, reverse=True)
    if not usable:
        return None
    alternatives = "|".join(re.escape(n).replace(r"\.", r"\s*\.\s*") for n in usable)
    return re.compile(rf"(?<![\w.])({alternatives})\s*\(")


def _dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _is_literal(node: ast.expr) -> bool:
    try:
        to_jsonable(ast.literal_eval(node), scalar_keys=True)
    except _LITERAL_ERRORS:
        return False
    return True


def _real(collector: Collector, spell: PythonNames, written: str) -> str:
    """The real name of the tool written ``written``: its Python-safe spelling read back, then repaired to a
    bound name that differs only in letter case and separators (:meth:`Collector.resolve`)."""
    name = spell.real_tool(written)
    return collector.resolve(name) or collector.resolve(written) or name


def _unknown_error(collector: Collector, spell: PythonNames, written: str) -> str:
    """The collector's error for an unknown name, naming the tools as the pythonic format spells them."""
    shown = sorted(spell.tool(n) for n in collector.names)
    if shown == sorted(collector.names):
        return collector.unknown_error(written)
    return f"Unknown tool {written!r}; call one of the available tools: {', '.join(shown)}."


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")  # a line as ast.get_source_segment splits them


class _Segments:
    """:func:`ast.get_source_segment` for the nodes of one source, its lines split and encoded once (review 119:
    splitting the whole source again for each call of a list took quadratic time). Same results: the lines are
    split as ``ast`` splits them (``\\r\\n``, ``\\r``, ``\\n``), and the columns are UTF-8 byte offsets."""

    def __init__(self, src: str) -> None:
        self.src = src
        self._lines: list[str] | None = None
        self._encoded: dict[int, bytes] = {}

    def _line(self, index: int) -> bytes:
        """Line ``index`` (from 0) as UTF-8."""
        line = self._encoded.get(index)
        if line is None:
            if self._lines is None:
                self._lines = _LINE.findall(self.src)
            line = self._encoded[index] = self._lines[index].encode()
        return line

    def of(self, node: ast.expr) -> str | None:
        """The text of ``node``, as ``ast.get_source_segment(src, node)`` gives it."""
        if node.end_lineno is None or node.end_col_offset is None:
            return None
        first, last = node.lineno - 1, node.end_lineno - 1
        if first == last:
            return self._line(first)[node.col_offset:node.end_col_offset].decode()
        head = self._line(first)[node.col_offset:].decode()
        tail = self._line(last)[:node.end_col_offset].decode()
        assert self._lines is not None
        return "".join([head, *self._lines[first + 1:last], tail])


def _add_call(collector: Collector, source: _Segments, call: ast.Call, written: str, spell: PythonNames,
              repaired: bool = False) -> None:
    """Record one call of a parsed call (list); ``repaired``: :data:`KEYWORD_MARK` was put before keyword names
    (:func:`_keywords_repaired`), and is taken off them and off the call's text again."""
    raw = source.of(call) or source.src
    if repaired:
        raw = raw.replace(KEYWORD_MARK, "")
    name = _real(collector, spell, written)
    if name not in collector.names:
        collector.add_invalid(name, raw, _unknown_error(collector, spell, written))
        return
    if call.args:
        collector.add_invalid(name, raw, (
            f'Call {written} with keyword arguments only, such as {written}(param="value"); '
            "positional arguments cannot be matched to parameters."))
        return
    args = {}
    for kw in call.keywords:
        if kw.arg is None:
            collector.add_invalid(name, raw, f"Call {written} with explicit keyword arguments, not **mapping.")
            return
        if repaired and kw.arg.startswith(KEYWORD_MARK):  # from="NYC": the name as the schema spells it
            kw.arg = kw.arg[len(KEYWORD_MARK):]
        if spell.real_param(name, kw.arg) in args:  # Python itself refuses f(a=1, a=2)
            collector.add_invalid(name, raw, f"Call {written} with each argument once; {kw.arg!r} is repeated.")
            return
        try:
            value = ast.literal_eval(kw.value)
            refuse_repeated_literal_keys(kw.value)  # {'a': 1, 'a': 2}: refused as in JSON (review 215 #1)
        except RepeatedKey as exc:
            collector.add_invalid(name, raw, exc.msg)
            return
        except _LITERAL_ERRORS:
            collector.add_invalid(name, raw, (
                f"The value of {kw.arg!r} must be a literal (a string, number, True, False, None, "
                "list or dict), not an expression."))
            return
        try:  # a dict's int, float, bool or None keys become their JSON text: {3: "a"} -> {"3": "a"} (review 96)
            args[spell.real_param(name, kw.arg)] = to_jsonable(value, scalar_keys=True)
        except _LITERAL_ERRORS as exc:
            collector.add_invalid(name, raw, (
                f"The value of {kw.arg!r} holds {exc}, which JSON cannot carry; send strings, numbers, True, False, "
                'None, lists and dicts, with dict keys that are strings or numbers, such as {"a": 1} or {3: "b"}.'))
            return
    collector.add_call(name, args, raw=raw)


def _add_source(collector: Collector, src: str, is_list: bool, marked: bool, spell: PythonNames) -> bool:
    respelled = respell_tools(src, spell.respelled)  # [get-weather(...)] read as [get_weather(...)]
    try:
        body, fixed = parse_repairing(src if respelled is None else respelled)
        fixed = fixed or respelled
    except (SyntaxError, ValueError) as exc:  # Python reads at most 4,300 digits of an int (sys.int_max_str_digits)
        return "Exceeds the limit" in str(exc) and _too_long(collector, src, is_list, marked, spell)
    except (MemoryError, RecursionError):
        return False
    if is_list:
        if not isinstance(body, ast.List) or not body.elts:
            return False
        calls = body.elts
    else:
        calls = [body]
    if not all(isinstance(c, ast.Call) for c in calls):
        return False
    names = [_dotted(c.func) for c in calls]  # type: ignore[attr-defined]
    if any(n is None for n in names):
        return False
    if not marked:
        if not any(_real(collector, spell, n) in collector.names for n in names if n is not None):
            return False
        if not is_list:  # prose such as "get_weather(city)" is not a call
            call = calls[0]
            assert isinstance(call, ast.Call)
            if not all(_is_literal(a) for a in call.args) or not all(
                    kw.arg is not None and _is_literal(kw.value) for kw in call.keywords):
                return False
    source = _Segments(src if fixed is None else fixed)
    for call, name in zip(calls, names, strict=True):
        assert isinstance(call, ast.Call) and name is not None
        _add_call(collector, source, call, name, spell, fixed is not None)
    return True


def _too_long(collector: Collector, src: str, is_list: bool, marked: bool, spell: PythonNames) -> bool:
    """A call (list) Python refuses for a number too long to read: one invalid call under the first call's name,
    so the model hears what to fix, when it is marked or names a bound tool; else False (it stays text)."""
    m = _ANY_CALL.match(src, skip_ws(src, 1) if is_list else 0)
    if m is None:
        return False
    written = re.sub(r"\s+", "", m.group(1))
    name = _real(collector, spell, written)
    if not marked and name not in collector.names:
        return False
    collector.add_invalid(name, src, (f"A number in the call to {written} has too many digits to read; send it "
                                      "with fewer digits, or as a string if the tool takes one."))
    return True


def _cut_list(collector: Collector, text: str, open_idx: int, spell: PythonNames) -> bool:
    """Read a call list cut off before its ``]``: its complete calls as calls (or invalid calls), and what
    follows them as one cut-off call under its own name.

    Returns:
        False, recording nothing, when no call in the list is complete or the list holds something other
        than calls before the cut.
    """
    items: list[tuple[int, int, str]] = []
    pos = open_idx + 1
    calls = call_start(frozenset(spell.respelled))  # get-weather( too (review 151 #5)
    while True:
        pos = skip_ws(text, pos)
        m = calls.match(text, pos)
        if m is None:
            break
        end = python_span_end(text, m.end() - 1)
        if end == EOF:
            break
        if end < 0:
            return False
        items.append((pos, end, re.sub(r"\s+", "", m.group(1))))
        pos = skip_ws(text, end)
        if not text.startswith(",", pos):
            if pos < len(text):
                return False
            break
        pos += 1
    if not items:
        return False
    for start, end, written in items:
        if not _add_source(collector, text[start:end], False, True, spell):
            _add_unreadable(collector, spell, text[start:end], written)
    rest = text[pos:].strip()
    if rest:
        m = calls.match(rest)
        written = re.sub(r"\s+", "", m.group(1)) if m is not None else "tool_name"
        real = _real(collector, spell, written) if m is not None else None
        collector.add_invalid(real, rest, _CUT_OFF.format(name=written if real is None
                                                           else _shown(collector, spell, real, written)))
    return True


def _try(collector: Collector, text: str, start: int, open_idx: int, name: str, is_list: bool,
         marked: bool, args_pos: int, spell: PythonNames) -> int | None:
    """Read the candidate starting at ``start``; return the end of its span when it was call syntax.

    Returns -1 (stop scanning) when the brackets nest deeper than any call list would, after recording an
    invalid call when the call names a bound tool (or is marked as a call): it is not lost (review 51). A call left
    unclosed ends where a call the model wrote again after it starts (:func:`python_retry`, review 187 #5).
    """
    end = python_span_end(text, open_idx)
    if end == BAD:
        return None
    if end in (DEEP, EOF):  # nested too deeply, or cut off: an invalid call when it is one of a bound tool
        written = re.sub(r"\s+", "", name)
        real = _real(collector, spell, written)
        if not marked and (real not in collector.names or not _KEYWORD_START.match(text, args_pos)):
            return -1 if end == DEEP else None
        stop = len(text) if marked else python_retry(collector, text, open_idx, spell)  # (review 187 #5)
        if end == DEEP and stop == len(text):
            collector.add_invalid(real, text[start:].strip(), _TOO_DEEP.format(name=written))
        elif stop < len(text) or not (is_list and _cut_list(collector, text, open_idx, spell)):
            collector.add_invalid(real, text[start:stop].strip(), _CUT_OFF.format(name=written))
        return stop
    if _add_source(collector, text[start:end], is_list, marked, spell):
        return end
    return end if is_list and _broken_list(collector, text, start, end, name, marked, spell) else None


def _broken_list(collector: Collector, text: str, start: int, end: int, name: str, marked: bool,
                 spell: PythonNames) -> bool:
    """Record the call list ``text[start:end]`` (``[name(...`` ... ``]``) that Python cannot read (a missing or
    doubled comma, ``city: "x"``) as invalid calls saying what to fix (review 148 #3): each of its calls on its own
    (a readable one as a call) when the list is made of calls, else the whole list as one.

    Outside a call marker the list must open with a call of a bound tool and hold an argument written as
    ``name=value`` (or ``name: value``); otherwise, and when the list parses (something other than calls, such as
    ``[get_weather() and x]``), nothing is recorded and it stays text.

    Returns:
        True when something was recorded.
    """
    src = text[start:end]
    error = written_syntax_error(src, spell.respelled)  # (get-weather(...) read as get_weather(...): review 151 #5)
    written = re.sub(r"\s+", "", name)
    real = _real(collector, spell, written)
    if error is None or (not marked and (real not in collector.names or not ARGUMENT_LIKE.search(src))):
        return False
    items = list_items(text, start, end, call_start(frozenset(spell.respelled)))
    if items is None:
        collector.add_invalid(real, src, NOT_PYTHON.format(name=_shown(collector, spell, real, written), error=error))
        return True
    for item_start, item_end, item_name in items:
        item = text[item_start:item_end]
        if not _add_source(collector, item, False, True, spell):
            _add_unreadable(collector, spell, item, item_name)
    return True


def _add_unreadable(collector: Collector, spell: PythonNames, item: str, written: str) -> None:
    """Record ``item``, one call of a list written ``written(...)`` that cannot be read as a call, as an invalid
    call: with Python's reason when it is a syntax slip (``city: "x"``)."""
    reason = written_syntax_error(item, spell.respelled)
    real = _real(collector, spell, written)
    shown = _shown(collector, spell, real, written)
    collector.add_invalid(real, item, _UNREADABLE.format(name=shown) if reason is None
                          else NOT_PYTHON.format(name=shown, error=reason))


def _shown(collector: Collector, spell: PythonNames, real: str, written: str) -> str:
    """The name to write a call of ``real`` (``written`` in the reply) with in an error: its Python spelling."""
    return spell.tool(real) if real in collector.names else written


def call_at(collector: Collector, text: str, pos: int) -> int | None:
    """Read a call or call list starting exactly at ``pos`` inside a call marker (unknown names invalid).

    Args:
        collector: the reply's :class:`~toolwire.parsing._calls.Collector`, which gets the calls read.
        text, pos: the reply text and the index in it where the call must start.

    Returns:
        The end of the call syntax, or ``None`` when there is no call at ``pos``.
    """
    spell = names_of(collector.names)
    m = _LIST_START.match(text, pos)
    if m is not None:
        end = _try(collector, text, pos, pos, m.group(1), True, True, m.end(), spell)
    else:
        m = _ANY_CALL.match(text, pos)
        if m is None:
            return None
        end = _try(collector, text, pos, m.end() - 1, m.group(1), False, True, m.end(), spell)
    return None if end == -1 else end


def _scan(collector: Collector, text: str, marked: bool, spell: PythonNames) -> list[tuple[int, int]]:
    candidates = [(m.start(), m.start(), m.group(1), True, m.end()) for m in _LIST_START.finditer(text)]
    if (written := list_start(frozenset(spell.respelled))) is not None:  # [get-weather(...)]
        candidates.extend((m.start(), m.start(), m.group(1), True, m.end()) for m in written.finditer(text))
    patterns = [_ANY_CALL if marked else _bound_pattern(spell.spelled), written_call_start(frozenset(spell.respelled))]
    for pattern in patterns:  # (a lone get-weather(...) too: review 153 #5)
        if pattern is not None:  # a name after ``def``/``class`` is a definition, not a call
            candidates.extend((m.start(), m.end() - 1, m.group(1), False, m.end()) for m in pattern.finditer(text)
                              if not _DEFINES.search(text, max(0, m.start() - 16), m.start()))
    candidates.sort()
    spans = []
    pos = 0
    for start, open_idx, name, is_list, args_pos in candidates:
        if start < pos:
            continue
        end = _try(collector, text, start, open_idx, name, is_list, marked, args_pos, spell)
        if end == -1:
            break
        if end is not None:
            spans.append((start, end))
            pos = end
    return spans


def _fences(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The code fences (```` ```python ```` ... ```` ``` ````) that hold nothing but the call ``spans`` (and
    whitespace), or whose text ends after them."""
    runs: list[list[int]] = []
    for start, end in spans:
        if runs and not text[runs[-1][1]:start].strip():
            runs[-1][1] = end
        else:
            runs.append([start, end])
    out = []
    for start, end in runs:
        i = text.rfind("```", 0, start)
        if i < 0 or text.count("```", 0, i) % 2 or text[:i].rstrip(" \t")[-1:] not in ("", "\n"):
            continue
        if _FENCE_OPEN.fullmatch(text, i, start) and (m := _FENCE_CLOSE.match(text, end)) is not None:
            out.append((i, m.end()))
    return out


def add_calls_in(collector: Collector, text: str) -> bool:
    """Record the pythonic calls in ``text``, a block inside a call marker (unknown names invalid).

    Args:
        collector: the reply's :class:`~toolwire.parsing._calls.Collector` (bound tool names), which gets the calls.
        text: the block's text.

    Returns:
        True when any call (valid or invalid) was found.
    """
    return bool(_scan(collector, text, True, names_of(collector.names)))


def parse_pythonic(text: str, tool_names: Collection[str] | Mapping[str, Any]) -> ParsedReply:
    """Find pythonic tool calls in a model's text reply.

    Args:
        text: the model's reply, e.g. ``'Sure. [get_weather(city="Oslo"), get_time(tz="CET")]'``.
        tool_names: the bound tool names; dotted names (``brave_search.call``) are matched whole. A name
            Python cannot read (``get-weather``) is read in its Python-safe spelling (``get_weather``,
            see :class:`PythonNames`); with a mapping from each name to its parameters' JSON Schema (or
            to a ToolSpec or Tool), parameter spellings (``from_`` for ``from``) are mapped back too.

    Returns:
        A :class:`~toolwire.parsing.ParsedReply`. A list of calls counts when every item is a call and one
        names a bound tool (other names in it become invalid calls); a lone call ``f(a=1)`` counts when
        ``f`` is bound and its arguments are literals. Positional arguments, non-literal values and a
        cut-off call give InvalidToolCalls saying what to fix (in a cut-off list, the calls before the
        cut are kept; a cut-off call or list the model wrote again after it is one invalid call, up to
        where the call written again starts, which is read); prose such as ``get_weather(city)`` stays
        text. A code fence holding only calls is removed with them.
    """
    try:
        return collect_pythonic(text, tool_names).result(text)
    finally:
        forget_spans(text)  # (what the scan learnt about this text is not kept past it: review 222 #9's neighbour)


def collect_pythonic(text: str, tool_names: Collection[str] | Mapping[str, Any]) -> Collector:
    """:func:`parse_pythonic`' reading: the :class:`Collector` with the calls and the spans of their syntax."""
    collector = Collector(tool_names)
    spans = _scan(collector, text, False, PythonNames(tool_names))
    for start, end in [*spans, *_fences(text, spans)]:
        collector.add_span(start, end)
    return collector
