"""Reading tool calls from a model's plain-text reply, in any of the common dialects.

Models served without a native tool-call API (llama.cpp, raw completions, small local models) write
their calls into the text. :func:`parse_tool_calls` finds them and returns the rest of the text.
"""

from __future__ import annotations

import re
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
            whose first call lies inside a call another dialect read, which began before it, is passed over
            when that call's end was found or the first call stands in one of its strings: a marker quoted
            inside another call's string argument
            (``{"name": "write_file", "arguments": {"content": "<tool_call>...</tool_call>"}}``, even cut off)
            neither replaces nor hides that call (review 178 #1), while a valid call written after a broken
            attempt cut off outside its strings (``search(q="x"`` then a ``<tool_call>`` block) is read
            (review 183 #3).

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
    for index in range(len(_AUTO_ORDER)):
        collector = _read(read, index, text, tool_names)
        if collector is None or not (collector.calls or collector.invalid) or _quoted(read, index, text, tool_names):
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


def _quoted(read: dict[int, Collector | None], index: int, text: str, tool_names: Collection[str]) -> bool:
    """Whether the first call syntax the dialect ``_AUTO_ORDER[index]`` read lies inside a call another dialect read,
    which began before it and :func:`_encloses` it: a marker quoted in a string argument (a tool writing
    documentation of the Hermes format, ``{"name": "write_file", "arguments": {"content": "<tool_call>{...}
    </tool_call>"}}``), not a call the model made (review 178 #1)."""
    own = read[index]
    if own is None or not own.spans:
        return False
    start, end = min(own.spans)
    if _OPENERS.search(text, 0, start) is None:  # nothing before it opens a call: the common case, decided at once
        return False
    for other in range(len(_AUTO_ORDER)):
        found = _read(read, other, text, tool_names) if other != index else None
        if found is None or not (found.calls or found.invalid):
            continue
        if any(s < start and end <= e and _encloses(_AUTO_ORDER[other][0], text[s:e], start - s, tool_names)
               for s, e in found.spans):
            return True
    return False

# appended to a call's text to learn whether its end was found: no syntax closes with it, and it is not whitespace
_PAST_END = "\x00"


def _encloses(collect: _Collect, syntax: str, at: int, tool_names: Collection[str]) -> bool:
    """Whether ``syntax``, the text of a call the dialect ``collect`` read, holds the other call syntax that starts
    at ``syntax[at]``: its end was found (more text after it is not read into it), or it is cut off inside a string
    (or a ``<parameter=>`` value) still open at ``at``. A call cut off outside its strings (``search(q="x"`` or a
    JSON call missing its last brace, whose span runs on to the end of the text or to the next marker) holds
    nothing: the call the model wrote after its broken attempt is read (review 183 #3)."""
    probe = syntax + _PAST_END
    try:
        if all(stop <= len(syntax) for _, stop in collect(probe, tool_names).spans):
            return True
    finally:
        forget_spans(probe)
    return _in_string(syntax, at)


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


def _in_string(syntax: str, at: int) -> bool:
    """Whether ``syntax[at]`` lies inside a string (JSON or Python, opened where a value may stand) or a raw
    ``<parameter=NAME>`` value still open there: ``syntax`` is read up to ``at`` only, once."""
    pos = 0
    while True:
        m = _VALUE_OPENER.search(syntax, pos, at)
        if m is None:
            return False
        if m.group(1) is None:  # a parameter tag
            close = _PARAMETER_END.search(syntax, m.end(), at)
            if close is None:
                return True
            pos = close.end()
            continue
        before = m.start() - 1
        while before >= 0 and syntax[before].isspace():
            before -= 1
        if before >= 0 and syntax[before] not in _BEFORE_VALUE:
            pos = m.end()
            continue
        string = _STRING_REST[m.group(1)].match(syntax, m.end(), at)
        if string is None or string.group("close") is None:
            return True
        pos = string.end()
