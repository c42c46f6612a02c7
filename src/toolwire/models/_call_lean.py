"""Leaning toward one more tool call where the model hesitates to close its list of calls.

Small models often stop after the first call of a request that asks the same thing of several values ("the
factorial of 5, 10 and 15" gets one call): on BFCL these are the ``parallel`` and ``parallel_multiple``
"wrong count" failures with fewer calls than asked. At the token that closes the call list (the ``]`` of
``[f(x=5)]`` or of ``[{"name": ..., "arguments": ...}]``) the model may still give going on with ``,`` a large
share of its probability, only less than closing.

:class:`CallLean` is that rule for greedy decoding under the call grammar, the call-list twin of
:class:`~toolwire.models._argument_lean.ArgumentLean`. At a token that would close the outermost list of a
``"pythonic"`` or ``"json"`` reply it sums the model's probability (softmax of the raw logits, before the
grammar) of every token that starts the same way but goes on with ``,`` (then, in JSON, whitespace and at most
the next call object's opening; in Python, a space and at most a name), and of every token that closes with
``]``. JSON calls written one object per line are weighed the same way on the line after each object: the tokens
that open the next object against those that close the code fence (or end the reply, without a fence). It
records that share of going on (:attr:`CallLean.shares`, one per close where some token goes on after
the same bytes, whether it acted or not; the ``]`` of a list after whose last call the grammar allows no comma is
recorded but never acted on), and when it is at least ``share`` and the grammar allows another call (fewer than
its ``max_calls``), the most likely allowed token that goes on is taken instead: the model then writes another
call. The calls it went on to
are known (:meth:`CallLean.added_tokens`), so the caller can refuse them when they repeat a call or hold a value
the conversation does not (``toolwire.models._generation``: the reply is then generated as the model would have
closed it). With ``share`` 1 the rule records and acts only where closing has no probability at all; with 0 it
only records. Where ``share`` comes from, and what it moved on BFCL:
``benchmarks/ACCURACY.md`` ("Twenty-fifth session").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from toolwire.models._argument_lean import ArgumentLean, _Nesting
from toolwire.models._reply import read_reply

if TYPE_CHECKING:
    from toolwire.models._decoding import GrammarSampler
    from toolwire.tools import ToolSpec

__all__ = ["CallLean", "Leans", "first_repeat"]

_TRIES = 32  # the most "go on" candidates checked against the grammar, most likely first
_LIST = ord("[")
_CLOSE_LIST = ord("]")
_COMMA = ord(",")
_OPEN_OBJECT, _CLOSE_OBJECT, _BACKTICK = ord("{"), ord("}"), ord("`")
_SPACE = frozenset(b" \t\n\r")
# a token that only begins the next call object of one-per-line JSON calls: in a fence, after the newline; without
# one, from the newline on
_NEXT_OBJECT = re.compile(rb'\{[ \t\n]*("[a-z]*)?')
_NEXT_LINE = re.compile(rb'\n(\{[ \t\n]*("[a-z]*)?)?')
# what a token may hold after the comma and still only begin the next call
_NEXT = {"json": re.compile(rb'[ \t\n]*(\{[ \t\n]*("[a-z]*)?)?'),
         "pythonic": re.compile(rb"( [A-Za-z_][A-Za-z0-9_.]*)?| ")}  # names may be dotted (math.factorial)


class _ListNesting(_Nesting):
    """:class:`_Nesting`, telling the ``]`` that closes the outermost list instead of a call's ``)``."""

    def step(self, byte: int) -> bool:
        outermost = self.quote is None and byte == _CLOSE_LIST and self.stack == [_LIST]
        super().step(byte)
        return outermost


class CallLean:
    """Greedy decoding of a call list: go on with another call where the model nearly does.

    Args:
        piece: the bytes of a token as generated text.
        starting_with: the ids of every token whose bytes start with the given bytes (a NumPy integer array).
        share: the least share (0 to 1) of the probability of "close" and "go on" together that "go on" must
            get; 0 only records :attr:`shares`.
        fmt: the call format, ``"pythonic"`` or ``"json"`` (what may follow the comma differs). JSON calls written
            one object per line (the grammar's other form, which qwen2.5-coder-0.5b's own template writes in a
            ```` ```json ```` fence) are weighed too: where the line after a top-level call object would close the
            fence rather than open the next object (in a fence), or end the reply rather than go on to a new line
            (without one).
        limit: the most calls it may add (None: as many as the grammar allows); it still records the shares.
        ends: the end-of-generation token ids (for JSON calls one per line without a fence; None: none).

    :meth:`feed` is given every token of the call text in order (forced ones too); :meth:`choose` may replace
    the token greedy decoding chose at the current step. ``continued`` counts the replacements that were fed,
    ``starts`` holds for each the index (from 0) of the call it began.

    Raises:
        ValueError: ``fmt`` is neither ``"pythonic"`` nor ``"json"``.
    """

    def __init__(self, piece: Callable[[int], bytes], starting_with: Callable[[bytes], np.ndarray],
                 share: float, fmt: str, limit: int | None = None, ends: np.ndarray | None = None) -> None:
        if fmt not in _NEXT:
            raise ValueError(f"CallLean takes 'pythonic' or 'json' calls, not {fmt!r}")
        self._piece = piece
        self._starting_with = starting_with
        self._next = _NEXT[fmt]
        self.share = share
        self.limit = limit
        self._nesting = _ListNesting()
        self._calls = 0  # the call list's commas so far: the index of the call being written
        self._chosen: tuple[int, int] | None = None  # the token choose() put in, and its bytes before the comma
        self._fed = 0
        self._open: tuple[int, int] | None = None  # where the calls the list went on to begin
        self.shares: list[float] = []  # the share of going on at each close of the list that was weighed
        self.continued = 0
        self.starts: list[int] = []
        self._lines = fmt == "json"  # JSON call objects one per line (no list) are weighed too
        self._ends = np.zeros(0, dtype=np.intp) if ends is None else ends
        self._fenced: bool | None = None  # whether the call text opened a code fence (None: nothing seen yet)
        self._objects = 0  # top-level call objects opened (one per line, outside a list)
        self._between: bytes | None = None  # the whitespace since a top-level call object closed (None: not there)

    def feed(self, token: int) -> None:
        """Move past ``token``, a token of the call text."""
        added = self._chosen is not None and token == self._chosen[0]
        if added and self._open is None:
            self._open = (self._fed, self._chosen[1])  # type: ignore[index]
        self._chosen = None
        nesting = self._nesting
        for byte in self._piece(token):
            top = nesting.quote is None and not nesting.stack
            if byte == _COMMA and nesting.quote is None and nesting.stack == [_LIST]:
                self._calls += 1
            if self._fenced is None and byte not in _SPACE:
                self._fenced = byte == _BACKTICK
            if top and byte == _OPEN_OBJECT:
                self._calls += self._objects > 0  # the next call object of one-per-line calls
                self._objects += 1
            nesting.step(byte)
            if top and self._between is not None:
                self._between = self._between + bytes([byte]) if byte in _SPACE else None
            elif nesting.quote is None and not nesting.stack and byte == _CLOSE_OBJECT:
                self._between = b""
        if added:
            self.continued += 1
            # a bare newline between one-per-line calls only begins the next one (its "{" comes next)
            self.starts.append(self._calls + (self._between is not None))
        self._fed += 1

    def added_tokens(self) -> list[tuple[int, int, int]]:
        """The calls the list went on to: ``(index of the first token fed, bytes of that token before the comma,
        index of the last token fed)``, one span from the first comma it chose to the end of the call text."""
        return [] if self._open is None else [(*self._open, self._fed - 1)]

    def choose(self, token: int, logits: np.ndarray, grammar: GrammarSampler | None) -> int:
        """The token to take at this step: ``token`` (the greedy, grammar-allowed choice), or a token that goes
        on with another call, as the class docstring says. ``logits``: this step's raw logits."""
        self._chosen = None
        if grammar is None:
            return token
        piece = self._piece(token)
        at = self._nesting.closing_at(piece)  # the offset of the list's "]" (this nesting's step says)
        if at is None:
            return self._choose_line(token, logits, grammar)
        prefix = piece[:at]
        go_ids = self._going_on(prefix)
        if not len(go_ids):
            return token
        stop_ids = self._starting_with(prefix + b"]")
        return self._weigh(token, logits, grammar, go_ids, stop_ids, at)

    def _choose_line(self, token: int, logits: np.ndarray, grammar: GrammarSampler) -> int:
        """:meth:`choose` between JSON call objects written one per line (the grammar's other JSON form): in a
        code fence, where the line after a call object would close the fence (a token starting with the fence's
        backticks) rather than open another object; without one, where the reply would end (an end-of-generation
        token, from ``ends``) rather than go on to a new line."""
        if not self._lines or self._between is None:
            return token
        if self._fenced:
            if self._between != b"\n":
                return token
            go_ids = self._after(b"{", _NEXT_OBJECT)
            stop_ids = self._starting_with(b"```")
        else:
            if self._between != b"":
                return token
            go_ids = self._after(b"\n", _NEXT_LINE)
            stop_ids = self._ends
        if not len(go_ids) or not len(stop_ids) or token not in set(stop_ids.tolist()):
            return token
        return self._weigh(token, logits, grammar, go_ids, stop_ids, 0)

    def _after(self, prefix: bytes, pattern: re.Pattern[bytes]) -> np.ndarray:
        ids = self._starting_with(prefix)
        return np.array([t for t in ids.tolist() if pattern.fullmatch(self._piece(t))], dtype=np.intp)

    def _weigh(self, token: int, logits: np.ndarray, grammar: GrammarSampler, go_ids: np.ndarray,
               stop_ids: np.ndarray, at: int) -> int:
        """Record the share of going on (``go_ids`` against ``stop_ids``) and take the most likely allowed token
        of ``go_ids`` when that share is at least :attr:`share` (``at``: the bytes of the token before the new
        call's separator)."""
        peak = float(np.max(logits))
        go = float(np.exp(logits[go_ids].astype(np.float64) - peak).sum())
        stop = float(np.exp(logits[stop_ids].astype(np.float64) - peak).sum())
        if go + stop <= 0:
            return token
        self.shares.append(go / (go + stop))
        if not self.share > 0 or go < self.share * (go + stop):  # NaN or 0: record only
            return token
        if self.limit is not None and self.continued >= self.limit:
            return token
        order = go_ids[np.argsort(-logits[go_ids], kind="stable")][:_TRIES]
        for candidate in order.tolist():
            if grammar.allows(candidate, float(logits[candidate])):
                self._chosen = (candidate, at)
                return candidate
        return token

    def _going_on(self, prefix: bytes) -> np.ndarray:
        ids = self._starting_with(prefix + b",")
        start = len(prefix) + 1
        keep = [t for t in ids.tolist() if self._next.fullmatch(self._piece(t)[start:])]
        return np.array(keep, dtype=np.intp)


class Leans:
    """Several leans as one, for :func:`~toolwire.models._decoding.greedy_tokens`: each is fed every token, and
    the first whose :meth:`choose` replaces the greedy token decides the step.

    Args:
        leans: :class:`~toolwire.models._argument_lean.ArgumentLean` and :class:`CallLean` objects, the one to
            ask first first.
    """

    def __init__(self, *leans: ArgumentLean | CallLean) -> None:
        self.leans = leans

    def feed(self, token: int) -> None:
        """Feed ``token`` to every lean."""
        for lean in self.leans:
            lean.feed(token)

    def choose(self, token: int, logits: np.ndarray, grammar: GrammarSampler | None) -> int:
        """The first lean's replacement of ``token``, else ``token``."""
        chosen = token
        for lean in self.leans:
            if chosen != token:  # decided: the others' earlier choice is void
                lean._chosen = None
            else:
                chosen = lean.choose(token, logits, grammar)
        return chosen


def first_repeat(call_text: str, tools: Sequence[ToolSpec], fmt: str, start: int = 0) -> int | None:
    """The index (from 0) of the first of the calls ``call_text`` holds (read in ``fmt``), from index ``start`` on,
    with the same name and arguments as a call before it; None when no such call repeats one."""
    seen: set[tuple[str, str]] = set()
    for index, call in enumerate(read_reply("", call_text, tools, (fmt,), fmt, cut=False).tool_calls):
        key = (call["name"], json.dumps(call["args"], sort_keys=True, default=str))
        if key in seen and index >= start:
            return index
        seen.add(key)
    return None
