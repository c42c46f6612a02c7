"""What the JSON dialect's parser reads from each of many starts in one text, each read costing only its new work.

:func:`toolwire.models._text_calls.read_text_calls` asks, for lines of a reply whose JSON value runs on unclosed to
the end of the reply, whether :func:`~toolwire.parsing.llama.parse_json` of the text from that line finds a call and
leaves no text. Parsing the rest of the reply again from each such line took quadratic time (review 178 #3: a reply
of 25 kB whose lines each opened a call object took 25 s). The parser reads left to right, and where it goes on
from a place depends on that place only, so two reads from different starts that reach the same place read the same
from there: :class:`JsonSuffixes` reads each place once and keeps what it found.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Collection, Mapping
from typing import Any

from toolwire.parsing._calls import Collector
from toolwire.parsing.llama import _BARE, PYTHON_TAG, _bare, _fence, _python_tag

__all__ = ["JsonSuffixes"]

_TAG_AT = re.compile(f"(?={re.escape(PYTHON_TAG)})")
_FENCE_AT = re.compile("(?=```)")
_BARE_AT = re.compile(f"(?={_BARE.pattern})", _BARE.flags)
_NON_WS = re.compile(r"\S")


class JsonSuffixes:
    """What :func:`~toolwire.parsing.llama.parse_json` finds in ``text[start:]``, for any number of starts in one
    text, in about the time of one read of the text (the first :meth:`read` finds where call syntax may start).

    Args:
        text: the whole text.
        tool_names: the bound tools' names (or a mapping by name), as ``parse_json`` takes them.
    """

    def __init__(self, text: str, tool_names: Collection[str] | Mapping[str, Any]) -> None:
        self.text = text
        self.collector = Collector(tool_names)  # (where each step's calls and spans are counted)
        self._starts: tuple[list[int], list[int], list[int]] | None = None  # <|python_tag|>, ```, bare JSON
        self._known: dict[int, tuple[bool, bool]] = {len(text): (False, True)}

    def read(self, start: int) -> tuple[bool, bool]:
        """What ``parse_json(text[start:], tool_names)`` finds.

        Returns:
            ``(whether it finds a call or an invalid call, whether its content is empty)``.
        """
        text, known = self.text, self._known
        start = min(start, len(text))
        # each link: (place, the place the parser goes on to, found at this place, no text left at this place)
        links: list[tuple[int, int, bool, bool]] = []
        pos = start
        while pos not in known:
            here = self._first_start(pos)
            if here < 0:  # nothing more to read: the rest is text
                known[pos] = (False, _NON_WS.search(text, pos) is None)
                break
            if here > pos:  # the text up to the next place call syntax may start
                links.append((pos, here, False, _NON_WS.search(text, pos, here) is None))
                pos = here
                continue
            found, empty, after = self._step(pos)
            if after is None:  # the parser stops here
                known[pos] = (found, empty)
                break
            links.append((pos, min(after, len(text)), found, empty))
            pos = min(after, len(text))
        for place, after, found, empty in reversed(links):
            later_found, later_empty = known[after]
            known[place] = (found or later_found, empty and later_empty)
        return known[start]

    def _first_start(self, pos: int) -> int:
        """The first place at or after ``pos`` where the parser reads call syntax (as ``collect_json`` finds it), or
        -1."""
        if self._starts is None:
            self._starts = ([m.start() for m in _TAG_AT.finditer(self.text)],
                            [m.start() for m in _FENCE_AT.finditer(self.text)],
                            [m.start() for m in _BARE_AT.finditer(self.text)])
        firsts = [starts[i] for starts in self._starts if (i := bisect_left(starts, pos)) < len(starts)]
        return min(firsts, default=-1)

    def _step(self, pos: int) -> tuple[bool, bool, int | None]:
        """Read the call syntax at ``pos`` as ``collect_json`` does.

        Returns:
            ``(found a call or an invalid call, no text left from pos up to where it goes on, where it goes on)``;
            ``where`` is None when the parser stops there (the text from ``pos`` on is then left as text).
        """
        text, collector = self.text, self.collector
        collector.spans = []
        before = len(collector.calls) + len(collector.invalid)
        after: int | None
        if text.startswith(PYTHON_TAG, pos):
            after = _python_tag(collector, text, pos)
        elif text.startswith("```", pos):
            end = _fence(collector, text, pos)
            after = end if end is not None else pos + 3
        else:
            after = _bare(collector, text, pos)
        found = len(collector.calls) + len(collector.invalid) > before
        stop = len(text) if after is None else after
        gap, empty = pos, True  # the text the step's spans leave between pos and stop must be whitespace
        for span_start, span_end in sorted(collector.spans):
            if span_start > gap and _NON_WS.search(text, gap, span_start) is not None:
                empty = False
                break
            gap = max(gap, span_end)
        if empty and gap < stop and _NON_WS.search(text, gap, stop) is not None:
            empty = False
        return found, empty, after
