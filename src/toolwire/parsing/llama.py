"""JSON tool calls (Llama 3.x and most small models): tagged, fenced or bare JSON call objects.

Format source: Meta's Llama 3.1/3.2/3.3 prompt format (custom tools as
``{"name": ..., "parameters": {...}}``, optionally after ``<|python_tag|>``, several separated by ``;``,
ended by ``<|eom_id|>``/``<|eot_id|>``; built-in tools as ``<|python_tag|>brave_search.call(query="...")``),
plus what instruction-tuned models commonly write: ```` ```json ```` fenced blocks, bare objects, JSON
lists of call objects, and Python-dict syntax (``{'name': 'f', 'arguments': {'x': True}}``, read with
:func:`ast.literal_eval`). ``"parameters"`` is accepted for ``"arguments"``.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from toolwire.parsing._calls import (
    Collector,
    ParsedReply,
    add_broken,
    add_failure,
    add_list_items,
    add_value,
    call_head,
)
from toolwire.parsing._retries import CUT_OFF, json_retry
from toolwire.parsing._scan import EOF, DecodeFailure, decode_value_at, python_span_end, skip_ws
from toolwire.parsing.pythonic import call_at

__all__ = ["PYTHON_TAG", "parse_json"]

PYTHON_TAG = "<|python_tag|>"
_END_TOKENS = ("<|eom_id|>", "<|eot_id|>", "<|eom|>")
_SEPARATORS = re.compile(r"[\s;,]*")
# a fence's tag, then a newline (CRLF too) or, on one line, the call itself (review 147 #3: a ```python fence, CRLF
# line ends and a one-line fence left their emptied fence in the reply's text)
_FENCE = re.compile(r"```[ \t]*(json|jsonc|tool_calls?|tool_code|javascript|python|py|)[ \t]*(?:\r?\n|(?=[{\[]))"
                    r"(.*?)\s*```", re.DOTALL | re.IGNORECASE)
_BARE = re.compile(r"""\{\s*["']|\[\s*\{""")
_AFTER_TAG = (f"After {PYTHON_TAG} write the call as JSON, such as "
              '{"name": "tool_name", "parameters": {...}}.')


def _python_tag(collector: Collector, text: str, start: int) -> int:
    """Read the calls after the ``<|python_tag|>`` at ``start``; return the end of the call syntax."""
    n = len(text)
    nxt = text.find(PYTHON_TAG, start + len(PYTHON_TAG))
    limit = nxt if nxt >= 0 else n
    p = skip_ws(text, start + len(PYTHON_TAG))
    fence = _fence_bounds(text, p)  # the calls in a code fence after the tag (review 53)
    fence = fence if fence is not None and fence[2] <= limit else None
    if fence is not None:
        p, limit = skip_ws(text, fence[0]), fence[1]
    found = False
    while p < limit:
        if text[p] in "{[":
            try:
                value, end = decode_value_at(text, p)
            except DecodeFailure as failure:
                stop = p + len(_until_end_token(text, p, limit))
                cut, retry = (0, -1) if failure.kind == "truncated" else json_retry(collector, text, p, stop,
                                                                                   marked=True)
                if retry >= 0:  # cut off where the model wrote the call again: read on from there (review 187 #5)
                    add_failure(collector, text[p:cut].strip(), CUT_OFF, marked=True)
                    end = retry
                else:
                    end = add_broken(collector, text, p, stop, failure, marked=True)
                    found = True
                    if end is None or end >= stop:  # cut off or unreadable up to the end of the calls
                        p = limit
                        break
            else:
                add_value(collector, value, text[p:end], marked=True)
        else:
            end = call_at(collector, text, p)
            if end is None:
                break
        found = True
        p = _SEPARATORS.match(text, end).end()  # type: ignore[union-attr]
    if not found:
        raw = _until_end_token(text, p, limit)
        collector.add_invalid(None, raw, _AFTER_TAG)
        p = p + len(raw) if raw else p
    if fence is not None and skip_ws(text, p) >= limit:  # the whole fence was calls: it ends the call syntax
        p = fence[2]
    p = skip_ws(text, p)
    for token in _END_TOKENS:
        if text.startswith(token, p):
            p += len(token)
            break
    collector.add_span(start, p)
    return max(p, start + len(PYTHON_TAG))


def _until_end_token(text: str, p: int, limit: int) -> str:
    ends = [i for i in (text.find(t, p, limit) for t in _END_TOKENS) if i >= 0]
    return text[p:min(ends, default=limit)].rstrip()


def _fence_bounds(text: str, start: int) -> tuple[int, int, int] | None:
    """``(body start, body end, end)`` of the code fence at ``start``, or None when none opens there. The body ends
    at the first ```` ``` ```` after the JSON values it opens with (a string argument may hold three backticks:
    review 178 #5), else (values that do not decode) at the first ```` ``` ```` (:data:`_FENCE`)."""
    m = _FENCE.match(text, start)
    if m is None:
        return None
    p = skip_ws(text, m.start(2))
    while p < len(text) and text[p] in "{[":
        try:
            end = decode_value_at(text, p)[1]
        except DecodeFailure:
            break
        p = _SEPARATORS.match(text, end).end()  # type: ignore[union-attr]
    else:
        if p > m.start(2) and text.startswith("```", p):
            return m.start(2), p, p + 3
    return m.start(2), m.end(2), m.end()


def _fence(collector: Collector, text: str, start: int) -> int | None:
    """Read a fenced block at ``start`` holding only calls; return its end, or None to read it as text.

    The block ends at the first ```` ``` ```` after its values, not at the first one in the text: a string
    argument may hold three backticks (a tool writing Markdown), which left the emptied fence in the reply's text
    (review 178 #5)."""
    m = _FENCE.match(text, start)
    if m is None:
        return None
    p = skip_ws(text, m.start(2))
    values = []
    while p < len(text) and text[p] in "{[":
        try:
            value, end = decode_value_at(text, p)
        except DecodeFailure:
            return None
        values.append((value, text[p:end]))
        p = _SEPARATORS.match(text, end).end()  # type: ignore[union-attr]
    if not values or not text.startswith("```", p):
        return None
    probe = Collector(collector.names)
    if not all(add_value(probe, v, raw, marked=False) for v, raw in values):
        return None
    for v, raw in values:
        add_value(collector, v, raw, marked=False)
    collector.add_span(start, p + 3)
    return p + 3


def _bare(collector: Collector, text: str, start: int) -> int | None:
    """Read a bare call object/list at ``start``; return where to go on, or None to stop (cut-off text)."""
    try:
        value, end = decode_value_at(text, start)
    except DecodeFailure as failure:
        if failure.kind == "invalid" and text[start] == "[" and (stop := python_span_end(text, start)) > 0:
            end = add_list_items(collector, text, start, stop, failure.message, marked=False)
            if end is not None:  # a list of calls with a malformed item
                collector.add_span(start, end)
                return end
        if failure.kind in ("invalid", "deep"):  # (too deep: an invalid call too, not text; review 53)
            name = call_head(text, start)
            if collector.resolve(name) is None:  # (too deep: stop, as scanning on inside it costs quadratic time)
                return start + 1 if failure.kind == "invalid" else None
            end = python_span_end(text, start)  # a broken call to a bound tool: up to its last bracket
            if end == EOF:  # cut off: up to the call the model wrote again after it (review 187 #5), else the end
                cut, retry = json_retry(collector, text, start, len(text), marked=False)
                if retry >= 0 and add_failure(collector, text[start:cut].strip(), CUT_OFF, marked=False):
                    collector.add_span(start, cut)
                    return cut
                end = len(text)
            elif end < 0:
                end = text.find("\n", start)
                end = len(text) if end < 0 else end
            add_failure(collector, text[start:end].strip(), failure.message, marked=False)
            collector.add_span(start, end)
            return end
        if failure.kind == "truncated":
            end = add_broken(collector, text, start, len(text), failure, marked=False)
            if end is not None:
                collector.add_span(start, end)
                return end
        return None
    if add_value(collector, value, text[start:end], marked=False):
        collector.add_span(start, end)
    return end


def parse_json(text: str, tool_names: Collection[str]) -> ParsedReply:
    """Find JSON tool calls (Llama 3 style) in a model's text reply.

    Args:
        text: the model's reply.
        tool_names: the bound tool names.

    Returns:
        A :class:`~toolwire.parsing.ParsedReply`. Read in this order: calls after ``<|python_tag|>``
        (explicit marker: unknown names and broken JSON become InvalidToolCalls), then ```` ```json ````
        fences holding only calls, then bare call objects or lists in the text. Outside the tag only a
        bound name makes a call (``{"name": "Ann"}`` in prose stays text); bare text cut off inside a call
        to a bound tool gives an InvalidToolCall, which ends where a JSON call the model wrote again after it
        starts, outside its strings (that call is read: :func:`~toolwire.parsing._retries.json_retry`).
    """
    return collect_json(text, tool_names).result(text)


def collect_json(text: str, tool_names: Collection[str]) -> Collector:
    """:func:`parse_json`' reading: the :class:`Collector` with the calls and the spans of their syntax."""
    collector = Collector(tool_names)
    n = len(text)
    pos = 0
    next_tag = next_fence = -2
    next_bare: re.Match[str] | None = None
    bare_from = -1
    while pos < n:  # left to right, so markers inside decoded JSON strings are skipped
        if next_tag != -1 and next_tag < pos:
            next_tag = text.find(PYTHON_TAG, pos)
        if next_fence != -1 and next_fence < pos:
            next_fence = text.find("```", pos)
        if bare_from < pos and (next_bare is None or next_bare.start() < pos):
            next_bare, bare_from = _BARE.search(text, pos), pos
            if next_bare is None:
                bare_from = n
        bare = next_bare.start() if next_bare is not None and next_bare.start() >= pos else -1
        found = [i for i in (next_tag, next_fence, bare) if i >= 0]
        if not found:
            break
        first = min(found)
        if first == next_tag:
            pos = _python_tag(collector, text, first)
        elif first == next_fence:
            end = _fence(collector, text, first)
            pos = end if end is not None else first + 3
        else:
            end = _bare(collector, text, first)
            if end is None:
                break
            pos = end
    return collector
