"""Where a tool call starts in a reply as a local model generates it.

:class:`OpenerScanner` watches the reply's text and says where a call in one of the formats of
:mod:`toolwire.models.grammar` (``pythonic``, ``json``, ``hermes``, ``function_tag``) opens, so that the rest
of the reply can be generated under that format's grammar; ``ChatLlamaCpp`` also adds up, with
:meth:`OpenerScanner.opens`, the probability of every token that would go on opening a call
(``min_call_probability``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from toolwire.parsing.call_lists import text_calls
from toolwire.parsing.pythonic import PythonNames

__all__ = ["OpenerScanner"]

_WS = " \t\r\n"
# how ``case`` and ``name`` atoms compare: ASCII letter case does not count, nor (``name``) do ``.``, ``-`` and
# ``_`` (one character for one, so a partial match stays a prefix)
_CASE_FOLD = str.maketrans({chr(c): chr(c + 32) for c in range(65, 91)})
_NAME_FOLD = str.maketrans({**{chr(c): chr(c + 32) for c in range(65, 91)}, ".": "_", "-": "_"})
# how a reply that may be a call of any function opens (``unknown_call``), at the reply's start only: after an
# optional code fence or backtick, ``[`` (once or more) and a Python name with its ``(``, or a JSON call object
# with its arguments key; whether it is a call is decided once the list, object or line is whole
_ANY_CALL = {
    "pythonic": [("ws", ()), ("fence", ()), ("ws", ()), ("opt", ("`",)), ("brackets", ()), ("ident", ()),
                 ("lit", ("(",))],
    # a bare call (``fibonacci(20)``), name and parenthesis together (``Paris (France)`` is prose), also in
    # parentheses (``(book_meeting(day="2023-04-01"))``: after a declined call list, the model wrote the call so;
    # review 67) (unfenced: a code block may well open with a call, ``print(``)
    "bare": [("ws", ()), ("opt", ("`",)), ("opt", ("(",)), ("ws", ()), ("ident", ()), ("lit", ("(",))],
    "json": [("ws", ()), ("fence", ()), ("ws", ()), ("brackets", ("any",)), ("lit", ("{",)), ("ws", ()),
             ("lit", ('"name"',)), ("ws", ()), ("lit", (":",)), ("ws", ()), ("str", ()), ("ws", ()), ("lit", (",",)),
             ("ws", ()), ("lit", ('"arguments"', '"parameters"'))],
    # a list of values in place of a call (``['BRCA1']``, ``[1494]``, ``[(10 * 5) / 2]``): what follows the ``[`` is
    # no name, list or object (``value``); taken only when the whole reply is that list (``values=True``)
    "values": [("ws", ()), ("fence", ()), ("ws", ()), ("opt", ("`",)), ("lit", ("[",)), ("ws", ()), ("value", ())],
}
_IDENT_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_IDENT = _IDENT_START | frozenset("0123456789.")
_NOT_VALUE = _IDENT_START | frozenset("[]{}`" + _WS)  # what cannot open a value in a list of values


def _patterns(fmt: str, names: Sequence[str], at_start: bool,
              in_block: bool = False) -> list[list[tuple[str, tuple[str, ...]]]]:
    """Opener patterns of ``fmt``: lists of atoms ``(kind, strings)`` with kind ``ws`` (any whitespace),
    ``lit`` (one of the strings), ``opt`` (one of the strings, or nothing), ``case`` (one of the strings, ASCII
    letter case not counting) or ``name`` (one of the strings,
    with ASCII letter case and the separators ``.``, ``-`` and ``_`` not counting: models trained on Python
    write ``math.factorial(`` for a tool bound as ``math_factorial``, and small models write
    ``protein_info_get_sequence_and_3d(`` for ``protein_info.get_sequence_and_3D``; the grammar then writes
    the bound name). Pythonic calls name the tools in their Python-safe spelling
    (:class:`~toolwire.parsing.pythonic.PythonNames`). ``in_block``: the line is inside a code block, so a
    fence there closes it and opens no call."""
    tools = tuple(names)
    if fmt == "pythonic":
        tools = _python_spellings(tools)
        fences = () if in_block else ("```python\n", "```py\n", "```\n")
        out = [[("ws", ()), ("opt", fences), ("ws", ()), ("lit", ("[",)), ("ws", ()),
                ("opt", ("'", '"')), ("name", tools), ("ws", ()), ("lit", ("(",))],
               # a bare call opening a code block (models write ```python\nget_weather(city="Oslo")``` after
               # saying which function they would call): bound names as written only
               [("ws", ()), ("lit", fences), ("ws", ()), ("lit", tools), ("ws", ()), ("lit", ("(",))]]
        if in_block:
            del out[1]
        if at_start:  # a bare call: bound names with their own separators (``math.factorial(5) is 120`` is
            # prose), letter case aside (``Five_factor_model_analyse(talkative=True)`` is a call)
            out.append([("ws", ()), ("case", tools), ("ws", ()), ("lit", ("(",))])
        return out
    if fmt == "json":
        fences = () if in_block else ("```json\n", "```\n")
        # ``{{"name"``: Qwen2.5's chat template writes its example call with doubled braces (a Jinja string
        # meant to escape them), and qwen2.5-coder copies them; the call is then generated again under the grammar
        quoted = tuple(f'"{n}"' for n in tools)
        return [[("ws", ()), ("opt", fences), ("ws", ()), ("opt", ("[",)), ("ws", ()),
                 ("lit", ("{",)), ("opt", ("{",)), ("ws", ()), ("lit", ('"name"',)), ("ws", ()), ("lit", (":",)),
                 ("ws", ()), ("name", quoted)],
                # a call written as a pair, name then arguments (``["get_weather", {"city": "Oslo"}]``): small
                # models answer so when shown JSON Schemas (review 64); the grammar writes it again as a call object
                [("ws", ()), ("opt", fences), ("ws", ()), ("lit", ("[",)), ("ws", ()), ("name", quoted), ("ws", ()),
                 ("lit", (",",)), ("ws", ()), ("lit", ("{",))]]
    if fmt in ("hermes", "function_tag"):  # JSON or Qwen3-Coder's XML inside the block: the grammar decides
        return [[("ws", ()), ("lit", ("<tool_call>",))]]
    return []


@functools.lru_cache(maxsize=64)
def _python_spellings(names: tuple[str, ...]) -> tuple[str, ...]:
    spell = PythonNames(names)
    return tuple(spell.tool(n) for n in names)


def _in_block(text: str, start: int) -> bool:
    """Whether the line at ``start`` is inside a code block: an odd number of fences before it."""
    return text.count("```", 0, start) % 2 == 1


def _match(pattern: list[tuple[str, tuple[str, ...]]], text: str, i: int = 0, k: int = 0) -> str:
    """Partial match of ``pattern[k:]`` at ``text[i:]``: ``"yes"`` (the whole pattern matched), ``"maybe"``
    (the text ended inside it) or ``"no"``."""
    if k == len(pattern):
        return "yes"
    kind, options = pattern[k]
    if kind == "value":  # one character that may open a value (a string, number, parenthesis, sign)
        if i == len(text):
            return "maybe"
        return "no" if text[i] in _NOT_VALUE else _match(pattern, text, i + 1, k + 1)
    if kind in _RUNS:
        return _match_run(kind, pattern, text, i, k)
    if kind == "ws":
        while i < len(text) and text[i] in _WS:
            i += 1
        if i == len(text):
            return "maybe"
        return _match(pattern, text, i, k + 1)
    best = "no"
    for option in options:
        rest = text[i:i + len(option)]
        if kind == "name":
            rest, option = rest.translate(_NAME_FOLD), option.translate(_NAME_FOLD)
        elif kind == "case":
            rest, option = rest.translate(_CASE_FOLD), option.translate(_CASE_FOLD)
        if rest == option:
            result = _match(pattern, text, i + len(option), k + 1)
        elif option.startswith(rest) and i + len(rest) == len(text):
            result = "maybe"
        else:
            continue
        if result == "yes":
            return "yes"
        if result == "maybe":
            best = "maybe"
    if kind == "opt":
        result = _match(pattern, text, i, k + 1)
        if result == "yes":
            return "yes"
        if result == "maybe":
            best = "maybe"
    return best


_RUNS = frozenset({"fence", "brackets", "ident", "str"})


def _match_run(kind: str, pattern: list[tuple[str, tuple[str, ...]]], text: str, i: int, k: int) -> str:
    """:func:`_match` for the atoms of variable length: ``fence`` (an optional code fence line, with or without
    a language), ``brackets`` (``[`` once or more, whitespace between; none too with the argument ``"any"``),
    ``ident`` (a Python name, dots allowed), ``str`` (a JSON string without escapes or line breaks)."""
    n = len(text)
    if kind == "fence":
        if i == n:
            return "maybe"
        if not text.startswith("```"[: n - i], i):  # no fence (a lone backtick is not one)
            return _match(pattern, text, i, k + 1)
        j = i + 3
        while j < n and text[j].isascii() and text[j].isalpha():
            j += 1
        while j < n and text[j] in " \t":
            j += 1
        if j >= n:
            return "maybe"
        return _match(pattern, text, j + 1, k + 1) if text[j] == "\n" else "no"
    if kind == "brackets":
        if i == n:
            return "maybe"
        if text[i] != "[":
            return _match(pattern, text, i, k + 1) if pattern[k][1] == ("any",) else "no"
        while i < n and text[i] in "[" + _WS:
            i += 1
        return "maybe" if i == n else _match(pattern, text, i, k + 1)
    if kind == "ident":
        if i == n:
            return "maybe"
        if text[i] not in _IDENT_START:
            return "no"
        while i < n and text[i] in _IDENT:
            i += 1
        return "maybe" if i == n else _match(pattern, text, i, k + 1)
    # str
    if i == n:
        return "maybe"
    if text[i] != '"':
        return "no"
    end = text.find('"', i + 1)
    if end < 0:
        return "maybe" if "\n" not in text[i:] and "\\" not in text[i:] else "no"
    if "\n" in text[i:end] or "\\" in text[i:end]:
        return "no"
    return _match(pattern, text, end + 1, k + 1)


def _closing(text: str, start: int) -> int | None:
    """The index just after the bracket that closes the one at ``text[start]`` (``[``, ``{`` or ``(``), skipping
    quoted strings; None when it is not closed yet."""
    depth = 0
    quote = ""
    i = start
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "[{(":
            depth += 1
        elif c in "]})":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


class OpenerScanner:
    """Watch a reply as it is generated and say where a tool call starts.

    Calls are recognised at the start of the reply or of a line, in any of ``formats``, and only for a
    bound tool name (so prose and code stay text); in a call list or a JSON call, a name written with
    another letter case or another of the separators ``.``, ``-``, ``_`` still counts (the grammar then
    writes the call again with the bound name).

    Args:
        formats: the call formats to look for, in priority order.
        names: the bound tool names.
        calls: False: :meth:`feed` finds no call (after the declines allowed in one reply; only
            :meth:`unknown_call` still holds the reply back).
        values: with ``pythonic`` among ``formats``, :meth:`unknown_call` also finds a reply that is only a list
            of values (``['BRCA1']``, ``[1494]``), written where a call list was wanted.
    """

    def __init__(self, formats: Sequence[str], names: Sequence[str], *, calls: bool = True,
                 values: bool = False) -> None:
        self.formats = tuple(formats)
        self.names = tuple(names)
        self.calls = calls
        self.values = values
        self.found = ""  # the kind of what unknown_call last found: "values", or a call format or "bare"
        self._pending: list[int] = [0] if calls else []  # line starts that may still begin a call
        self._seen = 0
        self._unknown_pending = False  # the reply may still open as a call feed() does not take (unknown_call)

    def feed(self, text: str) -> tuple[int, str] | None:
        """Look at the whole reply so far.

        Args:
            text: the reply's text so far, from its start (not only the new piece); lines already read are skipped.

        Returns:
            ``(position, format)`` when a call starts at ``position`` (after the whitespace before it),
            else None.
        """
        if not self.calls:
            return None
        for j in range(self._seen, len(text)):
            if text[j] == "\n":
                self._pending.append(j + 1)
        self._seen = len(text)
        keep = []
        for start in self._pending:
            in_block = _in_block(text, start)
            for fmt in self.formats:
                for pattern in _patterns(fmt, self.names, start == 0, in_block):
                    result = _match(pattern, text, start)
                    if result == "yes":
                        pos = start
                        while pos < len(text) and text[pos] in _WS:
                            pos += 1
                        return pos, fmt
                    if result == "maybe" and start not in keep:
                        keep.append(start)
        self._pending = keep
        return None

    def opens(self, text: str, start: int) -> bool:
        """Return whether ``text[start:]`` (``start``: a line start) is a call opening, whole or begun; stateless.

        Used to add up the probability of every token that would go on opening a call, in any of the
        formats and for any bound tool, and not only the one the model chose.

        Args:
            text: the reply text so far.
            start: the index in ``text`` of the line start to read from.
        """
        in_block = _in_block(text, start)
        return any(_match(pattern, text, start) != "no"
                   for fmt in self.formats for pattern in _patterns(fmt, self.names, start == 0, in_block))

    def unknown_call(self, text: str, *, final: bool = False) -> int | None:
        """Where the reply is a call that :meth:`feed` does not take, from its start: a call list of a function
        that is not bound (``[calculate_area(width=5)]``), or written so that it is no call
        (``[[get_weather(city="Oslo")]]``), a bare call alone on the first line (``fibonacci(20)``), or a JSON
        call object of such a function; fenced or not. Whether it is a call is decided as BFCL reads one
        (:func:`~toolwire.parsing.call_lists.text_calls`) once the list or object is closed, or the bare call's
        line ends, so prose and code that begin alike (``O(n log n) is ...``, ``[str(x) for x in xs]``) stay
        text; until then :meth:`safe_end` holds the reply back. Only the start of the reply counts: prose that
        shows a call further on stays prose. With ``values``, a reply that is only a list of values, fenced or
        not (``['BRCA1']``, ``[1494]``, ``[(10 * 5) / 2]``), is found too, once the reply ends with nothing else
        written; its position is then that of the first value, after the ``[``, so that a decline keeps the
        bracket and bans only what opens a value there. Call it when :meth:`feed` returned None for the same text.

        Args:
            text: the whole reply so far.
            final: the reply has ended (what is still open is judged as it stands).

        Returns:
            The position of the opening (after the whitespace before it), or None.
        """
        self._unknown_pending = False
        for kind, pattern in self._unknown_patterns():
            result = _match(pattern, text)
            if result == "maybe":
                self._unknown_pending = not final
            if result != "yes":
                continue
            pos = len(text) - len(text.lstrip(_WS))
            if kind == "values":
                if (first := self._values_only(text, final)) is not None:
                    self.found = kind
                    return first
                continue
            if kind == "bare":
                start, end = pos, (text.find("\n", pos) if "\n" in text[pos:] else None)
            else:  # the list or object after the fence
                start = min(i for i in (text.find("[", pos), text.find("{", pos)) if i >= 0)
                end = _closing(text, start)
            if end is None and not final:
                self._unknown_pending = True
                continue
            segment = text[start:end]
            # a call list in a list (``[[get_weather(city="Oslo")]]``, ``[\n  [get_weather(...)]\n]``) is no call
            # to BFCL, nor any use as text
            inner = segment[1:-1].strip()
            if text_calls(segment) or (inner.startswith("[") and segment.endswith("]") and text_calls(inner)):
                self.found = kind
                return pos
        return None

    def opens_unknown(self, text: str) -> bool:
        """Return whether ``text`` (a whole reply so far) is, or may still become, what :meth:`unknown_call` last found
        (used to ban every token that would open such a reply again). A bare call counts once its ``(`` is
        written (any reply may begin with a word); after a list of values, only an opened value counts (the
        ``[`` may still open a call list), and only a list of values."""
        values = self.found == "values"
        return any(_match(pattern, text) not in ("no", "maybe" if kind in ("bare", "values") else "")
                   for kind, pattern in self._unknown_patterns() if (kind == "values") == values)

    def _unknown_patterns(self) -> list[tuple[str, list[tuple[str, tuple[str, ...]]]]]:
        pythonic = "pythonic" in self.formats
        kinds = ([fmt for fmt in self.formats if fmt in _ANY_CALL] + (["bare"] if pythonic else [])
                 + (["values"] if pythonic and self.values else []))
        return [(kind, _ANY_CALL[kind]) for kind in kinds]

    def _values_only(self, text: str, final: bool) -> int | None:
        """For :meth:`unknown_call`: the position of the first value when ``text`` (which opens as a list of values)
        is that list and nothing else, closed and with the reply ended; else None, with the reply held back
        (``_unknown_pending``) while it may still become one."""
        start = text.find("[")
        end = _closing(text, start)
        if end is None:  # still open, or cut where the reply ended: no list to judge
            self._unknown_pending = not final
            return None
        if text[end:].strip(_WS + "`"):  # more was written after it (a closing fence or backtick aside)
            return None
        if not final:
            self._unknown_pending = True
            return None
        return len(text) - len(text[start + 1:].lstrip(_WS))

    def held_from(self, text: str) -> int:
        """Return where the part of ``text`` that may still begin a call starts (the first such line start, 0 while
        the reply may still open as a call of no tool); ``len(text)`` when none may."""
        if self._unknown_pending:
            return 0
        return min(self._pending) if self._pending else len(text)

    def safe_end(self, text: str) -> int:
        """Return how much of ``text`` may be shown already: up to the first line that may still start a call,
        without trailing whitespace."""
        return len(text[:self.held_from(text)].rstrip())
