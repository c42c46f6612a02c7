"""The Hermes / Qwen tool-call format: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``.

Format source: NousResearch Hermes-2-Pro / Hermes-3 function-calling prompt format, also used by
Qwen2.5 / Qwen3 chat templates (one ``<tool_call>`` block per call, a JSON object inside); a block
holding Qwen3-Coder's ``<function=NAME>`` tags instead is read by :mod:`toolwire.parsing.function_tags`. Blocks are
read by JSON boundaries (:meth:`json.JSONDecoder.raw_decode` from the first ``{`` after the tag), not by
searching for ``</tool_call>``, so the closing tag or braces inside a string argument do no harm and a
missing closing tag is tolerated.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from toolwire.parsing._calls import Collector, ParsedReply, add_broken, add_failure, add_value, call_head
from toolwire.parsing._retries import CUT_OFF, json_retry
from toolwire.parsing._scan import DecodeFailure, decode_value_at, skip_ws
from toolwire.parsing.function_tags import FUNCTION_TAG, Finder, read_function_tag
from toolwire.parsing.pythonic import call_at

__all__ = ["OPEN_TAG", "parse_hermes"]

OPEN_TAG = "<tool_call>"
CLOSE_TAG = "</tool_call>"
_SEPARATORS = re.compile(r"[\s;,]*")
_FENCE_OPEN = re.compile(r"```[ \t]*[A-Za-z_]*[ \t]*\n?\s*")
_STRAY = re.compile(r"[}\]]*\s*")  # closing brackets after a call's JSON, dropped before the block's end
_CLOSE = re.compile(r"</tool_calls?\s*>")  # (a closing tag misspelt </tool_calls> is one too: review 147 #3)
_EMPTY = (f"The {OPEN_TAG} block holds no JSON object; write "
          f'{OPEN_TAG}{{"name": "tool_name", "arguments": {{...}}}}{CLOSE_TAG}.')


def parse_hermes(text: str, tool_names: Collection[str]) -> ParsedReply:
    """Find Hermes/Qwen ``<tool_call>`` blocks in a model's text reply.

    Args:
        text: the model's reply.
        tool_names: the bound tool names, or a mapping ``{name: parameters JSON Schema or None}``.

    Returns:
        A :class:`~toolwire.parsing.ParsedReply`. Every block is call syntax (removed from the content):
        a block with a bound name gives a ToolCall; one naming an unknown tool, holding cut-off or
        malformed JSON, or nothing readable before its ``</tool_call>`` gives an InvalidToolCall that
        keeps the raw text (a call cut off before a JSON call written again in the same block ends there, and
        that call is read too). A block may hold a JSON list of calls, several call objects one after the
        other (each one a call, as Qwen models write parallel calls), a fenced JSON object, or a pythonic
        call (``get_weather(city="Oslo")``), or Qwen3-Coder's ``<function=NAME>`` tags (typed with the
        schemas when ``tool_names`` maps names to them); a missing ``</tool_call>`` is tolerated. A tag followed by
        prose and never closed (the tag named in a sentence) stays text.
    """
    return collect_hermes(text, tool_names).result(text)


def collect_hermes(text: str, tool_names: Collection[str]) -> Collector:
    """:func:`parse_hermes`' reading: the :class:`Collector` with the calls and the spans of their syntax."""
    collector = Collector(tool_names)
    schemas = tool_names if isinstance(tool_names, Mapping) else {}
    finder = Finder(text)  # one for the reply, so that reading many blocks stays linear
    pos = 0
    n = len(text)
    unclosed = -1  # where the last block that had no closing tag ended
    while True:
        start = text.find(OPEN_TAG, pos)
        if start < 0:
            break
        body = start + len(OPEN_TAG)
        nxt = text.find(OPEN_TAG, body)
        limit = nxt if nxt >= 0 else n
        close = text.find(CLOSE_TAG, body, limit)
        first = skip_ws(text, body)
        fence = _FENCE_OPEN.match(text, first)
        if fence is not None:
            first = fence.end()
        if text.startswith(FUNCTION_TAG, first):  # Qwen3-Coder: <function=NAME> tags inside the block
            pos = _function_tags(collector, text, first, limit, schemas, finder)
            collector.add_span(start, pos)
            continue
        if first >= limit and close < 0 and unclosed >= 0 and skip_ws(text, unclosed) == start:
            collector.add_span(start, body)  # an opening tag written to close the block before (review 147 #4)
            pos, unclosed = body, -1
            continue
        end = call_at(collector, text, first) if first < limit and text[first] != "{" else None
        if end is None and (first >= limit or text[first] not in "{["):
            if close < 0 and first < limit:  # the tag named in prose, not a call
                pos = body
                continue
            end = close if close >= 0 else limit
            collector.add_invalid(None, text[body:end].strip(), _EMPTY)
        if end is None:
            end = _read_values(collector, text, first, limit)
        pos = _after_close(text, end, fence is not None)
        unclosed = pos if pos == end or not _CLOSE.match(text, skip_ws(text, end)) else -1
        collector.add_span(start, pos)
    return collector


def _function_tags(collector: Collector, text: str, p: int, limit: int, schemas: Mapping[str, Any],
                   finder: Finder) -> int:
    """Read the ``<function=NAME>`` calls of one block from ``p``; return the end of the block (past its
    ``</tool_call>`` when it has one)."""
    end = p
    while p < limit and text.startswith(FUNCTION_TAG, p):
        stop = read_function_tag(collector, text, p, schemas, marked=True, limit=limit, finder=finder)
        end = stop if stop is not None else limit
        p = skip_ws(text, end)
    return _after_close(text, end, False)


def _read_values(collector: Collector, text: str, p: int, limit: int) -> int:
    """Read the JSON value(s) of one block from ``p`` (a ``{`` or ``[``); return where they end.

    Qwen models write parallel calls as several objects in one block (``<tool_call>{...}\n{...}</tool_call>``):
    a value that follows the previous one (after whitespace, ``,`` or ``;``) is read too when the block
    is closed after it or the value starts like a call object. ``limit`` is the next ``<tool_call>``; one quoted in
    a string of a value read is passed over (the block ends at the next one after that value).
    """
    while True:
        try:
            value, end = decode_value_at(text, p)
        except DecodeFailure as failure:
            end = text.find(CLOSE_TAG, p, limit)
            end = end if end >= 0 else limit
            cut, retry = json_retry(collector, text, p, end, marked=True) if failure.kind != "truncated" else (0, -1)
            if retry < 0 or text[retry] not in "{[":
                add_broken(collector, text, p, end, failure, marked=True)
                return end
            add_failure(collector, text[p:cut].strip(), CUT_OFF, marked=True)  # cut off, then written again
            p = retry  # (review 187 #5)
            continue
        add_value(collector, value, text[p:end], marked=True)
        if end > limit:  # the next <tool_call> was quoted in a string of this value: the block goes on (review 215 #2)
            nxt = text.find(OPEN_TAG, end)
            limit = nxt if nxt >= 0 else len(text)
        p = _SEPARATORS.match(text, end).end()  # type: ignore[union-attr]
        if p >= limit or text[p] not in "{[" or (
                text.find(CLOSE_TAG, p, limit) < 0 and call_head(text, p) is None):
            return end


def _after_close(text: str, end: int, fenced: bool) -> int:
    """Index past the ``</tool_call>`` (or ``</tool_calls>``) that follows ``end`` (after whitespace, closing
    brackets too many, as in review 147's ``{...}}``, or a code fence's end); with no closing tag, past those
    brackets when the block ends there, past the fence's end when the block opened a fence (``fenced``: review 147
    #3, it stayed in the text), else ``end``."""
    j = skip_ws(text, end)
    stray = _STRAY.match(text, j).end()  # type: ignore[union-attr]  # ("}}": a brace too many after the call)
    if stray > j and (stray == len(text) or _CLOSE.match(text, stray) or text.startswith(OPEN_TAG, stray)):
        end = j = stray
    fence_end = -1
    if text.startswith("```", j):
        fence_end = j + 3
        j = skip_ws(text, fence_end)
    close = _CLOSE.match(text, j)
    if close is not None:
        return close.end()
    return fence_end if fenced and fence_end >= 0 else end
