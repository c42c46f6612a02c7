"""Pythonic tool calls: ``[get_weather(city="Tóquio"), calculate(expression="123 * 456")]``.

Format source: the "pythonic" tool-call style of Llama 3.2 / Llama 4 prompts (a Python list of calls),
vLLM's ``pythonic`` tool parser, and single calls such as ``get_weather(city="Oslo")`` that small models
write. Candidate spans are found by scanning for ``[`` or a bound name followed by ``(`` and balancing
brackets (string literals respected); each span is read with ``ast.parse(..., mode="eval")`` and only
calls of (dotted) names with literal keyword arguments are accepted (``ast.literal_eval`` per value).
Nothing is ever evaluated.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Collection

from toolwire.parsing._calls import Collector, ParsedReply
from toolwire.parsing._scan import BAD, DEEP, EOF, parse_expr, python_span_end, to_jsonable

__all__ = ["add_calls_in", "call_at", "parse_pythonic"]

_LIST_START = re.compile(r"\[\s*([A-Za-z_][\w]*(?:\s*\.\s*[A-Za-z_]\w*)*)\s*\(")
_ANY_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)\s*\(")
_KEYWORD_START = re.compile(r"\s*(?:[A-Za-z_]\w*\s*=|$)")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\Z")
_LITERAL_ERRORS = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)
_CUT_OFF = ('The call is cut off before its closing parenthesis; send the complete call, '
            'such as {name}(param="value").')


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
        to_jsonable(ast.literal_eval(node))
    except _LITERAL_ERRORS:
        return False
    return True


def _add_call(collector: Collector, src: str, call: ast.Call, name: str) -> None:
    raw = ast.get_source_segment(src, call) or src
    if name not in collector.names:
        collector.add_invalid(name, raw, collector.unknown_error(name))
        return
    if call.args:
        collector.add_invalid(name, raw, (
            f'Call {name} with keyword arguments only, such as {name}(param="value"); '
            "positional arguments cannot be matched to parameters."))
        return
    args = {}
    for kw in call.keywords:
        if kw.arg is None:
            collector.add_invalid(name, raw, f"Call {name} with explicit keyword arguments, not **mapping.")
            return
        try:
            args[kw.arg] = to_jsonable(ast.literal_eval(kw.value))
        except _LITERAL_ERRORS:
            collector.add_invalid(name, raw, (
                f"The value of {kw.arg!r} must be a literal (a string, number, True, False, None, "
                "list or dict), not an expression."))
            return
    collector.add_call(name, args)


def _add_source(collector: Collector, src: str, is_list: bool, marked: bool) -> bool:
    try:
        body = parse_expr(src)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
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
        if not any(n in collector.names for n in names):
            return False
        if not is_list:  # prose such as "get_weather(city)" is not a call
            call = calls[0]
            assert isinstance(call, ast.Call)
            if not all(_is_literal(a) for a in call.args) or not all(
                    kw.arg is not None and _is_literal(kw.value) for kw in call.keywords):
                return False
    for call, name in zip(calls, names, strict=True):
        assert isinstance(call, ast.Call) and name is not None
        _add_call(collector, src, call, name)
    return True


def _try(collector: Collector, text: str, start: int, open_idx: int, name: str, is_list: bool,
         marked: bool, args_pos: int) -> int | None:
    """Read the candidate starting at ``start``; return the end of its span when it was call syntax.

    Returns -1 (stop scanning) when the brackets nest deeper than any call list would.
    """
    end = python_span_end(text, open_idx)
    if end == BAD:
        return None
    if end == DEEP:
        return -1
    if end == EOF:
        name = re.sub(r"\s+", "", name)
        if not marked and (name not in collector.names or not _KEYWORD_START.match(text, args_pos)):
            return None
        collector.add_invalid(name, text[start:].strip(), _CUT_OFF.format(name=name))
        return len(text)
    return end if _add_source(collector, text[start:end], is_list, marked) else None


def call_at(collector: Collector, text: str, pos: int) -> int | None:
    """Read a call or call list starting exactly at ``pos`` inside a call marker (unknown names invalid).

    Returns:
        The end of the call syntax, or ``None`` when there is no call at ``pos``.
    """
    m = _LIST_START.match(text, pos)
    if m is not None:
        end = _try(collector, text, pos, pos, m.group(1), True, True, m.end())
    else:
        m = _ANY_CALL.match(text, pos)
        if m is None:
            return None
        end = _try(collector, text, pos, m.end() - 1, m.group(1), False, True, m.end())
    return None if end == -1 else end


def _scan(collector: Collector, text: str, marked: bool) -> list[tuple[int, int]]:
    candidates = [(m.start(), m.start(), m.group(1), True, m.end()) for m in _LIST_START.finditer(text)]
    pattern = _ANY_CALL if marked else _bound_pattern(collector.names)
    if pattern is not None:
        candidates.extend((m.start(), m.end() - 1, m.group(1), False, m.end())
                          for m in pattern.finditer(text))
    candidates.sort()
    spans = []
    pos = 0
    for start, open_idx, name, is_list, args_pos in candidates:
        if start < pos:
            continue
        end = _try(collector, text, start, open_idx, name, is_list, marked, args_pos)
        if end == -1:
            break
        if end is not None:
            spans.append((start, end))
            pos = end
    return spans


def add_calls_in(collector: Collector, text: str) -> bool:
    """Record the pythonic calls in ``text``, a block inside a call marker (unknown names invalid).

    Returns:
        True when any call (valid or invalid) was found.
    """
    return bool(_scan(collector, text, marked=True))


def parse_pythonic(text: str, tool_names: Collection[str]) -> ParsedReply:
    """Find pythonic tool calls in a model's text reply.

    Args:
        text: the model's reply, e.g. ``'Sure. [get_weather(city="Oslo"), get_time(tz="CET")]'``.
        tool_names: the bound tool names; dotted names (``brave_search.call``) are matched whole.

    Returns:
        A :class:`~toolwire.parsing.ParsedReply`. A list of calls counts when every item is a call and one
        names a bound tool (other names in it become invalid calls); a lone call ``f(a=1)`` counts when
        ``f`` is bound and its arguments are literals. Positional arguments, non-literal values and a
        cut-off call give InvalidToolCalls saying what to fix; prose such as ``get_weather(city)`` stays
        text.
    """
    collector = Collector(tool_names)
    for start, end in _scan(collector, text, marked=False):
        collector.add_span(start, end)
    return collector.result(text)
