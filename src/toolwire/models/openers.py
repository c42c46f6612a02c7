"""Where a tool call starts in a reply as a local model generates it.

:class:`OpenerScanner` watches the reply's text and says where a call in one of the formats of
:mod:`toolwire.models.grammar` (``pythonic``, ``json``, ``hermes``) opens, so that the rest of the reply
can be generated under that format's grammar; ``ChatLlamaCpp`` also adds up, with :meth:`OpenerScanner.opens`,
the probability of every token that would go on opening a call (``min_call_probability``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from toolwire.parsing.pythonic import PythonNames

__all__ = ["OpenerScanner"]

_WS = " \t\r\n"
# how ``case`` and ``name`` atoms compare: ASCII letter case does not count, nor (``name``) do ``.``, ``-`` and
# ``_`` (one character for one, so a partial match stays a prefix)
_CASE_FOLD = str.maketrans({chr(c): chr(c + 32) for c in range(65, 91)})
_NAME_FOLD = str.maketrans({**{chr(c): chr(c + 32) for c in range(65, 91)}, ".": "_", "-": "_"})


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
        return [[("ws", ()), ("opt", fences), ("ws", ()), ("opt", ("[",)), ("ws", ()),
                 ("lit", ("{",)), ("ws", ()), ("lit", ('"name"',)), ("ws", ()), ("lit", (":",)), ("ws", ()),
                 ("name", tuple(f'"{n}"' for n in tools))]]
    if fmt == "hermes":
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


class OpenerScanner:
    """Watch a reply as it is generated and say where a tool call starts.

    Calls are recognised at the start of the reply or of a line, in any of ``formats``, and only for a
    bound tool name (so prose and code stay text); in a call list or a JSON call, a name written with
    another letter case or another of the separators ``.``, ``-``, ``_`` still counts (the grammar then
    writes the call again with the bound name).

    Args:
        formats: the call formats to look for, in priority order.
        names: the bound tool names.
    """

    def __init__(self, formats: Sequence[str], names: Sequence[str]) -> None:
        self.formats = tuple(formats)
        self.names = tuple(names)
        self._pending: list[int] = [0]  # line starts that may still begin a call
        self._seen = 0

    def feed(self, text: str) -> tuple[int, str] | None:
        """Look at the whole reply so far.

        Returns:
            ``(position, format)`` when a call starts at ``position`` (after the whitespace before it),
            else None.
        """
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
        """Whether ``text[start:]`` (``start``: a line start) is a call opening, whole or begun; stateless.

        Used to add up the probability of every token that would go on opening a call, in any of the
        formats and for any bound tool, and not only the one the model chose.
        """
        in_block = _in_block(text, start)
        return any(_match(pattern, text, start) != "no"
                   for fmt in self.formats for pattern in _patterns(fmt, self.names, start == 0, in_block))

    def safe_end(self, text: str) -> int:
        """How much of ``text`` may be shown already: up to the first line that may still start a call,
        without trailing whitespace."""
        end = min(self._pending) if self._pending else len(text)
        return len(text[:end].rstrip())
