"""Fitting a conversation's tool results into a local model's context window.

A tool result is cut by the executor at ``max_result_chars`` (20,000 characters by default), which a model
with a context of a few thousand tokens still cannot hold (review 29: 20,000 characters of hex text are 17,945
tokens). Rather than refusing the turn, :class:`~toolwire.models.llamacpp.ChatLlamaCpp` renders the longest tool
results cut, each ending with :func:`~toolwire.results.truncate_content`'s marker (which tells the model how much
was cut and to ask for a narrower result), so that the reply keeps room. Only the prompt is cut: the messages
the caller holds, and the conversation an Agent returns, keep every result whole.

The cut is the largest that fits (review 110: results far longer than the window were cut to the 200-character
floor, most of the room left unused), found with a few calls of ``measure`` on cut results only (a result of
millions of characters is never tokenized whole here), and a result cut before (by the executor) keeps its
original size in the one marker it ends with.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from toolwire._result_cut import ends_text, item_text, with_text
from toolwire.messages import BaseMessage, ToolMessage
from toolwire.results import truncate_content

__all__ = ["fit_tool_results", "floor_size"]

_FLOOR = 200  # characters a cut result keeps at least (its head, then the marker)
_MEASURES = 8  # calls of ``measure`` fit_tool_results makes at most (each renders and tokenizes the prompt)
_GUESS = 2.0  # characters a token, the first guess before two sizes are measured (hex text ~1.1, prose ~4)
_GRID_BITS = 7  # caps are rounded down to 7 significant bits (steps of 1/64 to 1/128 of the cap: review 110)

# The markers results.py ends a cut text with (truncate_content, bounded_content), at the very end of the text.
_MARKER = re.compile(
    r"\n\[\.\.\. (?:result truncated: (?:(?P<cut>\d+) of (?P<total>\d+) characters cut"
    r"|its first (?P<first>\d+) characters kept, of more than (?P<more>\d+)); ask for a narrower result \.\.\.\]"
    r"|error text truncated: (?P<ecut>\d+) of (?P<etotal>\d+) characters cut \.\.\.\])\Z")
_TAIL = 200  # characters at the end of a text where a marker is looked for (markers are shorter)


class _Result:
    """A long tool result of the conversation: where it is, its text without a marker it already ends with
    (``length`` characters), and what that marker said of the original: its size in characters (``total``), or
    that it was more than ``more`` characters (:func:`~toolwire.results.bounded_content`)."""

    def __init__(self, index: int, message: Any) -> None:
        self.index = index
        self.message = message
        self.error = message.status == "error"
        self.content = message.content
        self.total: int | None = None
        self.more: int | None = None
        # (the text the model reads, as truncate_content counts it: plain strings, records as their JSON text,
        # Responses text parts; and a marker ends the last of them, a cut record being a string: review 284 #3)
        index, last = ends_text(message.content)
        found = _MARKER.search(last, max(0, len(last) - _TAIL)) if last else None
        if found:
            if index is None:
                self.content = last[:found.start()]
            else:
                self.content = list(message.content)
                self.content[index] = with_text(self.content[index], last[:found.start()])
        self.length = _text_length(self.content)
        if found:
            if found["more"]:
                self.more = int(found["more"])
            else:
                cut, total = (found["cut"], found["total"]) if found["cut"] else (found["ecut"], found["etotal"])
                self.total = max(int(total), self.length + int(cut))

    def cut(self, cap: int) -> Any:
        """The message with its text cut to ``cap`` characters and one marker counting against the original
        size; the message itself when its text (without its marker) is at most ``cap`` characters."""
        if self.length <= cap:
            return self.message
        content = truncate_content(self.content, cap, error=self.error)
        if self.total is not None or self.more is not None:
            content = self._recount(content)
        return self.message.copy(content=content)

    def _recount(self, content: Any) -> Any:
        """``content`` freshly cut, its marker (which counts against the text already cut) rewritten to count
        against the original: ``X of <original> characters cut``, or ``its first K characters kept, of more
        than N`` for a result :func:`~toolwire.results.bounded_content` had cut."""
        def rewrite(text: str) -> str:
            found = _MARKER.search(text, max(0, len(text) - _TAIL))
            if found is None:
                return text
            kept = self.length - int(found["cut"] or found["ecut"])
            if self.more is not None:
                marker = (f"\n[... result truncated: its first {kept} characters kept, of more than {self.more}; "
                          "ask for a narrower result ...]")
            elif found["ecut"]:
                marker = f"\n[... error text truncated: {self.total - kept} of {self.total} characters cut ...]"
            else:
                marker = (f"\n[... result truncated: {self.total - kept} of {self.total} characters cut; ask for a "
                          "narrower result ...]")
            return text[:found.start()] + marker

        index, last = ends_text(content)
        if (new := rewrite(last)) == last:
            return content
        if index is None:
            return new
        content = list(content)
        content[index] = with_text(content[index], new)
        return content


def _text_length(content: Any) -> int:
    """The characters of text the model reads in ``content``, as :func:`~toolwire.results.truncate_content` counts
    them (:func:`~toolwire._result_cut.item_text`: a record as its JSON text, review 284 #3)."""
    if isinstance(content, str):
        return len(content)
    return sum(len(text) for text in map(item_text, content) if text is not None)


def _long_results(messages: Sequence[BaseMessage]) -> list[_Result]:
    """The tool results longer than the floor (their text without a marker they already end with)."""
    found = [_Result(i, m) for i, m in enumerate(messages) if isinstance(m, ToolMessage) and (
        not isinstance(m.content, str) or len(m.content) > _FLOOR)]  # (a list's records are not in m.text)
    return [r for r in found if r.length > _FLOOR]


def _cut_all(messages: Sequence[BaseMessage], results: list[_Result], cap: int) -> tuple[list[BaseMessage], int]:
    current = list(messages)
    cut = 0
    for result in results:
        current[result.index] = result.cut(cap)
        cut += current[result.index] is not result.message
    return current, cut


def _grid(cap: int) -> int:
    """``cap`` rounded down to its first ``_GRID_BITS`` bits, so that the same cut comes out of budgets a little
    apart (a prompt that stays the same keeps the model's cache of it)."""
    shift = max(cap.bit_length() - _GRID_BITS, 0)
    return cap >> shift << shift


def _next(cap: int) -> int:
    """The grid's next cap above ``cap`` (a grid point)."""
    return cap + (1 << max(cap.bit_length() - _GRID_BITS, 0))


def _cap(lengths: list[int], kept: float) -> int:
    """The largest cap ``c`` such that ``sum(min(n, c) for n in lengths) <= kept`` (at least ``_FLOOR``)."""
    low, high = _FLOOR, max(lengths)
    while low < high:
        mid = (low + high + 1) // 2
        if sum(min(n, mid) for n in lengths) <= kept:
            low = mid
        else:
            high = mid - 1
    return low


def fit_tool_results(messages: Sequence[BaseMessage], measure: Callable[[Sequence[BaseMessage]], int],
                     limit: int) -> tuple[list[BaseMessage], int] | None:
    """Cut the longest tool results of ``messages``, as little as it takes, so that the prompt fits in ``limit``
    tokens.

    Every result longer than the cap is cut to the same cap, in characters (the longest results are cut first,
    to a common length, so short results stay whole), and the cap is (close to) the largest whose prompt fits:
    a search over caps (review 110: the first guess, when the results were more than ten times what fits, went
    straight to the floor, and was never grown back, leaving most of the room unused). The search measures at
    most ``_MEASURES`` (8) conversations, all with the results cut (the uncut conversation only when the
    characters say it may fit whole; review 110: a 5,000,000-character result was tokenized whole again), and
    caps are rounded down to a grid (steps of under 2% of the cap), so the same messages and budget give the
    same cut, and budgets a few tokens apart mostly too. A result cut before (its text ends with
    :func:`~toolwire.results.truncate_content`'s or :func:`~toolwire.results.bounded_content`'s marker) is cut
    on its text without that marker and ends with one marker, counting against its original size (review 110:
    "17249 of 20089 characters cut" for a result of 5,000,000).

    Args:
        messages: the conversation (not changed).
        measure: the prompt's length in tokens for a conversation (the model's own render and tokenizer).
        limit: the most tokens the prompt may take (the context minus the room the reply needs).

    Returns:
        ``(messages with the cut results as new ToolMessages, how many results were cut)``, whose ``measure``
        is at most ``limit``: ``(a copy of messages, 0)`` when they fit whole; None when the conversation has
        no tool result longer than a couple of hundred characters (``_FLOOR``), or when even every result cut
        to that does not make it fit (the rest of the conversation is too long).
    """
    results = _long_results(messages)
    if not results:
        return None
    lengths = [r.length for r in results]
    top = max(lengths)  # the cap that cuts nothing

    def kept(cap: int) -> int:
        return sum(min(n, cap) for n in lengths)

    sizes: dict[int, int] = {}

    def size(cap: int) -> int:
        if cap not in sizes:
            sizes[cap] = measure(_cut_all(messages, results, cap)[0])
        return sizes[cap]

    if size(_FLOOR) > limit:
        return None
    low, high = _FLOOR, top + 1  # low fits (measured); high does not (top + 1: not measured, nothing above top)
    last_fit, same_side = None, 0  # whether the last size fitted, and how many in a row did (or did not)
    while len(sizes) < _MEASURES and low < top:
        above = min(_next(low), top)  # the grid's next cap above low (low < above)
        if above >= high:
            break  # low is the largest cap that fits, to the grid
        if high > top:  # no size known above low: from low on, as many characters a token as from the floor to low
            per_token = (kept(low) - kept(_FLOOR)) / max(size(low) - size(_FLOOR), 1) if low > _FLOOR else _GUESS
            target = kept(low) + (limit - size(low)) * per_token
            cap = top if target >= kept(top) else _grid(_cap(lengths, target))
        elif same_side >= 2:  # the interpolation keeps moving one end: halve instead
            cap = _grid((low + high) // 2)
        else:  # between the sizes known, as the characters kept go
            share = (limit - size(low)) / max(size(high) - size(low), 1)
            cap = _grid(_cap(lengths, kept(low) + (kept(high) - kept(low)) * share))
        cap = min(max(cap, above), high - 1)
        if cap < top:
            cap = max(_grid(cap), above)
        fits = size(cap) <= limit
        if fits:
            low = cap
        else:
            high = cap
        same_side = same_side + 1 if fits == last_fit else 1
        last_fit = fits
    if low >= top:
        return list(messages), 0
    return _cut_all(messages, results, low)


def floor_size(messages: Sequence[BaseMessage], measure: Callable[[Sequence[BaseMessage]], int]) -> int | None:
    """The prompt's length in tokens with every tool result cut as far as :func:`fit_tool_results` cuts them (to a
    couple of hundred characters and the marker, a result cut before counting against its original size: review
    110), for saying how long a conversation that does not fit still is (review 73: the error quoted the uncut
    20,195 tokens of a conversation that fitted in 512 once cut); None when no result is long enough to be cut."""
    results = _long_results(messages)
    if not results:
        return None
    return measure(_cut_all(messages, results, _FLOOR)[0])
