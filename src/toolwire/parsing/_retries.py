"""Where a call the model wrote again after a cut-off attempt begins (review 187 #5).

A model that stops writing a call before its end often writes the whole call again right after it, in the same
format: a JSON call object missing its last braces, then the JSON call; ``[search(q="x"`` then ``[search(q="y")]``.
Read as one value, the cut-off attempt swallowed the call written after it, and only the broken attempt was
returned (as an invalid call). The readers end the attempt where the call written again begins, so that call is
read, under two rules:

* the place is outside the attempt's strings (a call quoted in a string argument, ``content="see
  [search(q=\\"y\\")]"``, is never read as a call), and past where the attempt stops being call syntax (a call
  object nested as an argument's value is not taken for a new call);
* the attempt is left unclosed (its brackets run on to the end of the text or of its block): a closed call with a
  slip inside (a missing comma) is read as before.

The attempt is then one invalid call, its whole text kept: the calls it completed are not read on their own, as
the call written again holds them too (reading both would run them twice).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from toolwire.parsing._calls import _HEAD, Collector, call_head
from toolwire.parsing._repeated_keys import RepeatedKey
from toolwire.parsing._scan import _DECODER, _spans_of, python_span_end, skip_ws

if TYPE_CHECKING:
    from toolwire.parsing.pythonic import PythonNames

__all__ = ["CUT_OFF", "json_retry", "python_retry"]

#: The error of a JSON call cut off before the call written again (the words of a JSON call cut off at the end).
CUT_OFF = "The call ends before it is closed (it looks cut off)."

_PYTHON_TAG = "<|python_tag|>"  # (llama.PYTHON_TAG: llama imports this module)
# a code fence's opening line, as the JSON reader takes one (llama._FENCE), up to what it holds
_FENCE_OPENER = re.compile(r"```[ \t]*(?:json|jsonc|tool_calls?|tool_code|javascript|python|py|)[ \t]*(?:\r?\n)?\s*",
                           re.IGNORECASE)
_NEXT_LINE = re.compile(r"\n[ \t]*")
# JSON errors inside a string: the place of the error is not outside the attempt's strings
_IN_STRING = ("Invalid \\escape", "Invalid \\u", "Invalid control character", "Unterminated string")


def json_retry(collector: Collector, text: str, start: int, limit: int, *, marked: bool) -> tuple[int, int]:
    """``(where the attempt stops, where a JSON call written again begins)`` inside ``text[start:limit]``, the JSON
    call (or list of calls) at ``start`` that could not be read; ``(-1, -1)`` when there is none.

    The attempt must start like a call (``{"name": "x", "arguments":``, :func:`~toolwire.parsing._calls.call_head`)
    and leave its brackets open up to ``limit``; the call written again starts where the JSON stops being valid
    (outside its strings, past its call head) or at the start of a later line, and is a call object naming a bound
    tool (any name when ``marked``, inside a call marker), a ``<|python_tag|>`` or a code fence holding one.
    """
    none = (-1, -1)
    head = _HEAD.match(text, start)
    if head is None or 0 <= python_span_end(text, start) <= limit:
        return none
    try:
        _DECODER.raw_decode(text, start)
    except RepeatedKey:
        return none
    except json.JSONDecodeError as exc:
        stop, message = exc.pos, exc.msg
    except (ValueError, RecursionError):  # (nested too deeply to read)
        return none
    else:
        return none
    if stop < head.end() or stop >= limit or message.startswith(_IN_STRING):
        return none
    at = skip_ws(text, stop)
    while at < limit:
        if _starts_call(collector, text, at, marked):
            return stop, at
        line = _NEXT_LINE.search(text, at, limit)
        if line is None:
            return none
        at = line.end()
    return none


def _starts_call(collector: Collector, text: str, at: int, marked: bool) -> bool:
    """Whether a JSON call (``{"name": ...``, a list of them, after ``<|python_tag|>`` or in a fence) starts at
    ``text[at]``."""
    if text.startswith(_PYTHON_TAG, at):
        return True
    fence = _FENCE_OPENER.match(text, at)
    name = call_head(text, at if fence is None else fence.end())
    return name is not None and (marked or collector.resolve(name) is not None)


# what a call written again may not follow: an opening bracket, a comma, "=" (it would be an argument's value) or a
# ":" on its own line (a dict's value; a ":" ending a line of prose, "Again:", may)
_NOT_AFTER = "([{,="


def python_retry(collector: Collector, text: str, open_idx: int, spell: PythonNames) -> int:
    """Where a pythonic call written again begins after the call (or call list) whose bracket at ``open_idx`` is
    never closed (or nests too deeply); ``len(text)`` when there is none.

    It is a call list ``[name(`` or a call of a bound tool ``name(``, whose bracket lies outside the attempt's
    strings and comments (as :func:`~toolwire.parsing._scan.python_span_end` reads them) and which follows no
    opening bracket, comma or ``=`` (no argument's value: a call is no literal, so the attempt could not hold it).
    """
    from toolwire.parsing.pythonic import _LIST_START, _bound_pattern

    patterns = [p for p in (_LIST_START, _bound_pattern(spell.spelled)) if p is not None]
    found = [_search(collector, p, text, open_idx + 1) for p in patterns]
    spans = _spans_of(text)
    bracket = spans.next_bracket(open_idx + 1)
    while bracket >= 0:
        candidates = [m for m in found if m is not None]
        if not candidates:
            break
        m = min(candidates, key=lambda m: m.start())
        own = m.start() if m.re is _LIST_START else m.end() - 1  # its bracket
        while 0 <= bracket < own:
            bracket = spans.next_bracket(bracket + 1)
        if bracket == own and _may_start(text, m.start()):
            return m.start()
        index = next(i for i, other in enumerate(found) if other is m)
        found[index] = _search(collector, patterns[index], text, m.start() + 1)
    return len(text)


def _search(collector: Collector, pattern: re.Pattern[str], text: str, pos: int) -> re.Match[str] | None:
    """``pattern.search(text, pos)``, told by the last search of the pattern in this very text when that began at
    or before ``pos`` and found nothing, or a match at or after ``pos``: a reply of many unclosed calls would
    otherwise be searched to its end once per call, in quadratic time (review 215 #5). What was found is kept on
    ``collector.searches`` (the parse's own :class:`~toolwire.parsing._calls.Collector`), so it goes with the parse
    and does not keep the reply alive after it (review 222 #9: a per-thread cache held each thread's last reply)."""
    last = collector.searches
    if last is None or last[0] is not text:
        last = collector.searches = (text, {})
    key = (pattern.pattern, pattern.flags)
    known = last[1].get(key)
    if known is not None and known[0] <= pos and (known[1] is None or known[1].start() >= pos):
        return known[1]
    m = pattern.search(text, pos)
    last[1][key] = (pos, m)
    return m


def _may_start(text: str, at: int) -> bool:
    """Whether a call written again may start at ``text[at]``: not where an argument's value would stand."""
    i = at - 1
    newline = False
    while i >= 0 and text[i].isspace():  # (each place is read for one call start at most)
        newline = newline or text[i] == "\n"
        i -= 1
    return i < 0 or (text[i] not in _NOT_AFTER and (text[i] != ":" or newline))
