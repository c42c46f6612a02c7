"""Reading tool calls from a model's plain-text reply, in any of the common dialects.

Models served without a native tool-call API (llama.cpp, raw completions, small local models) write
their calls into the text. :func:`parse_tool_calls` finds them and returns the rest of the text.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection

from toolwire.errors import UserError
from toolwire.parsing._calls import Collector, ParsedReply
from toolwire.parsing._scan import forget_spans
from toolwire.parsing.function_tags import FUNCTION_TAG, collect_function_tags, parse_function_tags
from toolwire.parsing.hermes import OPEN_TAG, collect_hermes, parse_hermes
from toolwire.parsing.llama import collect_json, parse_json
from toolwire.parsing.mistral import MARKER, collect_mistral, parse_mistral
from toolwire.parsing.pythonic import collect_pythonic, parse_pythonic

__all__ = ["DIALECTS", "parse_tool_calls"]

#: The dialect names :func:`parse_tool_calls` accepts (besides ``None`` for "try all").
DIALECTS: tuple[str, ...] = ("hermes", "json", "mistral", "pythonic", "function_tag")

_PARSERS: dict[str, Callable[[str, Collection[str]], ParsedReply]] = {
    "hermes": parse_hermes,
    "json": parse_json,
    "mistral": parse_mistral,
    "pythonic": parse_pythonic,
    "function_tag": parse_function_tags,
}


_Collect = Callable[[str, Collection[str]], Collector]
_AUTO_ORDER: tuple[tuple[_Collect, str | None], ...] = (
    (collect_hermes, OPEN_TAG),
    (collect_mistral, MARKER),
    (collect_function_tags, FUNCTION_TAG),
    (collect_json, None),
    (collect_pythonic, None),
)
# what opens every call syntax: a marker (its "<" or "["), a JSON object or list, a pythonic call's "("
_OPENERS = re.compile(r"[<\[{(]")

def parse_tool_calls(text: str, tool_names: Collection[str], dialect: str | None = None) -> ParsedReply:
    """Find the tool calls in a model's text reply.

    Args:
        text: the model's reply text.
        tool_names: the names of the bound tools (any collection of strings, or a mapping by name, such as
            ``{name: parameters JSON Schema}``: pythonic spellings such as ``from_`` and function_tag's raw
            values are then read by the schema).
            Only these names make a call: prose such as ``{"name": "Ann"}`` stays text. An unknown name
            inside an explicit call marker (``<tool_call>``, ``[TOOL_CALLS]``, ``<|python_tag|>``) or in a
            list of calls that also names a bound tool gives an InvalidToolCall whose error names the
            available tools; a list naming no bound tool at all stays text.
        dialect: one of :data:`DIALECTS`:

            * ``"hermes"``: Hermes / Qwen ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``;
            * ``"json"``: Llama 3 ``<|python_tag|>{"name": ..., "parameters": {...}}``, ```` ```json ````
              fences, bare JSON call objects or lists, Python-dict call syntax;
            * ``"mistral"``: ``[TOOL_CALLS] [{...}, ...]``, ``[TOOL_CALLS]name[ARGS]{...}``;
            * ``"pythonic"``: ``[get_weather(city="Oslo"), get_time(tz="CET")]`` or ``f(a=1)``;
            * ``"function_tag"``: Qwen3-Coder's ``<function=get_weather><parameter=city>Oslo</parameter>
              </function>`` (raw values, typed by the tool's schema when ``tool_names`` maps names to
              schemas) and Llama 3.1's ``<function=get_weather>{"city": "Oslo"}</function>``; the hermes
              dialect reads the first inside ``<tool_call>`` blocks too (:mod:`toolwire.parsing.function_tags`);

            or ``None`` (default) to try them in turn (marked formats first: hermes, mistral, function_tag, then json
            which reads ``<|python_tag|>``, fences and bare JSON left to right, then pythonic) and use the
            first that finds a valid call; when none does, the first that found an invalid one. A dialect
            whose first call lies inside a call another dialect read, which began before it, is passed over when
            that call is closed (its end was found), and read again without the call syntax such calls hold when
            that call was cut off and the first call stands in one of its strings (passed over when nothing is
            left): a marker quoted inside another call's string argument
            (``{"name": "write_file", "arguments": {"content": "<tool_call>...</tool_call>"}}``, even cut off)
            neither replaces nor hides that call (review 178 #1). In a cut-off call the quoted marker hides only
            itself, not a call of its format written after that call (review 187 #6). In a closed call it hides
            that dialect's calls, so a call of its format written after the closed call is read only when the
            dialect that read the closed call reads it too: after a JSON call both are read (the json dialect
            reads a later ``<tool_call>`` block's JSON), after ``write_file(content="<tool_call>...")`` only the
            pythonic call is (review 191 #5). A valid call written after a broken attempt cut
            off outside its strings is read, in another format (``search(q="x"`` then a ``<tool_call>``
            block: review 183 #3) or in the same one (a JSON call missing its last brace then the JSON call,
            ``[search(q="x"`` then ``[search(q="y")]``: the attempt is one invalid call, review 187 #5).

    Lenient by design: this reads a reply meant to hold calls (what a local model wrote once a call
    started, a server's text reply), so a call of a bound tool is read wherever it stands, prose and code
    included (``'You could call get_weather(city="Paris")'`` gives a call). For free text in which calls
    may only be mentioned, ``ChatOpenAI(text_tool_calls=True)`` reads calls only where a line starts with
    call syntax (JSON calls and Python call lists only where they end the reply) and never inside a
    ``<think>`` block (:mod:`toolwire.models._text_calls`, docs/providers.md).

    Returns:
        A :class:`ParsedReply` ``(content, tool_calls, invalid_tool_calls)``: the text without the call
        syntax (stripped), the calls in order with unique ids (generated when the model sent none), and
        the calls that could not be read (raw text kept).

    Raises:
        UserError: ``dialect`` is not one of :data:`DIALECTS` or ``None``, or ``text`` is not a string.
    """
    try:
        return _parse_tool_calls(text, tool_names, dialect)
    finally:
        forget_spans(text)  # (what the scan learnt about this text is not kept past it)


def _parse_tool_calls(text: str, tool_names: Collection[str], dialect: str | None) -> ParsedReply:
    """:func:`parse_tool_calls`' work."""
    if not isinstance(text, str):
        raise UserError(f"parse_tool_calls needs the reply text as a string, not {type(text).__name__}.")
    if dialect is not None:
        parser = _PARSERS.get(dialect)
        if parser is None:
            raise UserError(f"Unknown tool-call dialect {dialect!r}; use one of {', '.join(DIALECTS)} or None.")
        return parser(text, tool_names)
    read: dict[int, Collector | None] = {}  # each dialect's reading, made once (None: its marker is not in the text)
    first_invalid: Collector | None = None
    quotes = _Quotes(read, text, tool_names)
    for index in range(len(_AUTO_ORDER)):
        collector = _read(read, index, text, tool_names)
        if collector is None or not (collector.calls or collector.invalid):
            continue
        held = quotes.holder(index, min(collector.spans)) if collector.spans else None
        if held is not None:  # a quoted marker: passed over, or read again without it when a cut-off call holds it
            collector = None if held.closed else quotes.unquoted(index)  # (review 187 #6)
            if collector is None:
                continue
        if collector.calls:
            return collector.result(text)
        if first_invalid is None:
            first_invalid = collector
    return first_invalid.result(text) if first_invalid is not None else ParsedReply(text.strip(), [], [])


def _read(read: dict[int, Collector | None], index: int, text: str, tool_names: Collection[str]) -> Collector | None:
    """The reading of ``text`` by the dialect ``_AUTO_ORDER[index]`` (kept in ``read``), or None when the dialect's
    marker is not in the text."""
    if index not in read:
        collect, needed = _AUTO_ORDER[index]
        read[index] = None if needed is not None and needed not in text else collect(text, tool_names)
    return read[index]


class _Quotes:
    """Which call syntax of one dialect lies inside a call another dialect read (a marker quoted in a string
    argument), for one text: each other dialect's calls are sorted, and each call asked about is read once
    (:class:`_Holder`), so that many places are asked about in about the time of one read of the text."""

    def __init__(self, read: dict[int, Collector | None], text: str, tool_names: Collection[str]) -> None:
        self.read, self.text, self.tool_names = read, text, tool_names
        first = _OPENERS.search(text)  # nothing before it opens a call: the common case, decided at once
        self._first = len(text) if first is None else first.start()
        self._holders: dict[tuple[int, int, int], _Holder] = {}
        self._sorted: dict[int, tuple[list[int], list[tuple[int, int]], list[int]]] = {}

    def holder(self, index: int, span: tuple[int, int]) -> _Holder | None:
        """The call another dialect read, which began before the call syntax at ``span`` that the dialect
        ``_AUTO_ORDER[index]`` read and holds it (:class:`_Holder`; a closed one first), or None: a marker quoted in
        a string argument (a tool writing documentation of the Hermes format, ``{"name": "write_file", "arguments":
        {"content": "<tool_call>{...}</tool_call>"}}``), not a call the model made (review 178 #1)."""
        start, end = span
        if self._first >= start:
            return None
        held: _Holder | None = None
        for other in range(len(_AUTO_ORDER)):
            around = self._around(other, start) if other != index else ()
            for s, e in around:
                if end > e:
                    continue
                holder = self._holders.get((other, s, e))
                if holder is None:
                    collect = _AUTO_ORDER[other][0]
                    holder = self._holders[(other, s, e)] = _Holder(collect, self.text[s:e], self.tool_names)
                if holder.holds(start - s) and (held is None or holder.closed):
                    held = holder
                    if held.closed:
                        return held
        return held

    def _around(self, other: int, start: int) -> list[tuple[int, int]]:
        """The calls of the dialect ``_AUTO_ORDER[other]`` that begin before ``start`` and may hold it: the last one
        and the one reaching furthest (a collector's calls nest at most a fence deep)."""
        if other not in self._sorted:
            found = _read(self.read, other, self.text, self.tool_names)
            spans = sorted(found.spans) if found is not None and (found.calls or found.invalid) else []
            outer: list[int] = []
            for i, (_, e) in enumerate(spans):
                outer.append(i if not outer or e > spans[outer[-1]][1] else outer[-1])
            self._sorted[other] = ([s for s, _ in spans], spans, outer)
        starts, spans, outer = self._sorted[other]
        i = bisect_left(starts, start) - 1
        if i < 0:
            return []
        return [spans[i]] if outer[i] == i else [spans[i], spans[outer[i]]]

    def unquoted(self, index: int) -> Collector | None:
        """The reading of the text by the dialect ``_AUTO_ORDER[index]`` without its call syntax that another call
        holds (:meth:`holder`), or None when nothing is left: a marker quoted in a string of a cut-off call hides
        only itself, not a call of the same format the model wrote after that call (review 187 #6). The text is
        read again with that syntax blanked (newlines kept, so every place keeps its index and line)."""
        own = self.read[index]
        assert own is not None
        text = self.text
        pieces: list[str] = []
        pos = 0
        for start, end in sorted(set(own.spans)):
            if end > pos and self.holder(index, (start, end)) is not None:
                start = max(start, pos)
                pieces += [text[pos:start], _NOT_NEWLINE.sub(" ", text[start:end])]
                pos = end
        blanked = "".join([*pieces, text[pos:]])
        try:
            collector = _AUTO_ORDER[index][0](blanked, self.tool_names)
        finally:
            forget_spans(blanked)
        return collector if collector.calls or collector.invalid else None


_NOT_NEWLINE = re.compile(r"[^\n]")
# appended to a call's text to learn whether its end was found: no syntax closes with it, and it is not whitespace
_PAST_END = "\x00"


class _Holder:
    """A call the dialect ``collect`` read (its text: ``syntax``), asked which other call syntax it holds.

    It holds the syntax that starts at ``syntax[at]`` when its end was found (more text after it is not read into
    it), or when it is cut off inside a string (or a ``<parameter=>`` value) still open at ``at``. A call cut off
    outside its strings (``search(q="x"`` or a JSON call missing its last brace, whose span runs on to the end of the
    text or to the next marker) holds nothing: the call the model wrote after its broken attempt is read (review 183
    #3). The call is read once, whatever the number of places asked about (:meth:`holds`).
    """

    def __init__(self, collect: _Collect, syntax: str, tool_names: Collection[str]) -> None:
        probe = syntax + _PAST_END
        try:
            self.closed = all(stop <= len(syntax) for _, stop in collect(probe, tool_names).spans)
        finally:
            forget_spans(probe)
        self.syntax = syntax
        self._strings: list[tuple[int, int]] | None = None  # (where each string's text starts, where it ends)

    def holds(self, at: int) -> bool:
        """Whether this call holds the call syntax that starts at ``syntax[at]``."""
        if self.closed:
            return True
        if self._strings is None:
            self._strings = _strings(self.syntax)
        i = bisect_right(self._strings, (at, len(self.syntax) + 2)) - 1
        return i >= 0 and self._strings[i][0] <= at < self._strings[i][1]


# where a string or a raw <parameter=> value may open: a quote (after a Python prefix such as r or f, not right
# after a letter: an apostrophe in a word), or a parameter tag
_VALUE_OPENER = re.compile(r"""(?<!\w)[rRbBuUfF]{0,2}("{3}|'{3}|"|')|<parameter=[^>\n]*>""")
# the rest of a string opened by each quote (an escaped character skipped) and its closing quote, if any; a
# single-quoted one ends at its line (an apostrophe in prose opens no string past its line)
_STRING_REST = {'"': re.compile(r'(?:[^"\\]|\\.)*(?P<close>")?', re.S),
                "'": re.compile(r"(?:[^'\\\n]|\\.)*(?P<close>['\n])?", re.S),
                '"""': re.compile(r'(?:[^"\\]|\\.|"(?!""))*(?P<close>""")?', re.S),
                "'''": re.compile(r"(?:[^'\\]|\\.|'(?!''))*(?P<close>''')?", re.S)}
# the end of a raw <parameter=> value: its closing tag, or the next tag that closes it
_PARAMETER_END = re.compile(r"</parameter>|(?=<parameter=|</function>)")
# what a quote follows when it opens a value (not a quotation mark in prose)
_BEFORE_VALUE = "([{,:="


def _strings(syntax: str) -> list[tuple[int, int]]:
    """The strings (JSON or Python, opened where a value may stand) and raw ``<parameter=NAME>`` values of
    ``syntax``, read once, in order: ``(where its text starts, its end)``, the end just past its closing quote or
    tag, or one past the end of ``syntax`` when it is never closed. A place lies inside one when
    ``start <= place < end``."""
    found: list[tuple[int, int]] = []
    pos, n = 0, len(syntax)
    while (m := _VALUE_OPENER.search(syntax, pos)) is not None:
        if m.group(1) is None:  # a parameter tag
            close = _PARAMETER_END.search(syntax, m.end())
            if close is None:
                found.append((m.end(), n + 1))
                break
            found.append((m.end(), max(close.end(), close.start() + 1)))  # (the next tag: a lookahead, empty)
            pos = close.end()
            continue
        before = m.start() - 1
        while before >= 0 and syntax[before].isspace():
            before -= 1
        if before >= 0 and syntax[before] not in _BEFORE_VALUE:
            pos = m.end()
            continue
        string = _STRING_REST[m.group(1)].match(syntax, m.end())
        assert string is not None  # (each pattern matches the empty text)
        if string.group("close") is None:
            found.append((m.end(), n + 1))
            break
        found.append((m.end(), string.end()))
        pos = string.end()
    return found
