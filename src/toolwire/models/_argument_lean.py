"""Leaning toward one more optional argument where the model hesitates to close a pythonic tool call.

Small models often close a call although the request gave a value for another, optional, parameter: on
BFCL these are the "missing parameter" failures (the question asks for "the population *and species* of
turtles" and the call leaves out ``species=True``). Reading the model's own probabilities at the token that
closes such calls (``benchmarks/bfcl_optional_gap.py``) showed that it often hesitates there: going on with
``, name=`` gets a large share of the probability, only less than closing with ``)``.

:class:`ArgumentLean` is that rule for greedy decoding under the call grammar. At a token that would close a
pythonic call's argument list, it sums the model's probability (softmax of the raw logits, before the
grammar) of every token that starts the same way but goes on with ``,`` and of every token that closes with
``)``. When going on gets at least ``share`` of the two together and the grammar allows going on (the
function has an optional parameter left, in signature order), the most likely allowed token that goes on is
taken instead; the grammar then makes the model name a parameter and give its value. The arguments a call
went on to are known (:meth:`ArgumentLean.added_tokens`), so that a string or number among them that the
conversation does not hold can be refused (``toolwire.models._generation``: the call is then made as the model
would have closed it). Left alone: a call with no argument yet (going on there is a name, not a comma), and a
closing token whose bytes before the ``)`` no vocabulary token continues with a comma. Where ``share`` comes
from, and what it moved on BFCL: ``benchmarks/ACCURACY.md`` ("Tenth session").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from toolwire.models._decoding import GrammarSampler

__all__ = ["ArgumentLean"]

_OPEN = frozenset(b"([{")
_CLOSE = frozenset(b")]}")
_QUOTES = frozenset(b"\"'")
_BACKSLASH = ord("\\")
_PAREN = ord("(")
_TRIES = 32  # the most "go on" candidates checked against the grammar, most likely first


class _Nesting:
    """Where a pythonic call list's text is: the open brackets, and whether inside a string literal."""

    def __init__(self) -> None:
        self.stack: list[int] = []
        self.quote: int | None = None
        self.escaped = False

    def copy(self) -> _Nesting:
        other = type(self)()  # subclasses (the call lean's list nesting) copy as themselves
        other.stack, other.quote, other.escaped = list(self.stack), self.quote, self.escaped
        return other

    def step(self, byte: int) -> bool:
        """Move past one byte; True when it is the ``)`` that closes a call's argument list."""
        if self.quote is not None:
            if self.escaped:
                self.escaped = False
            elif byte == _BACKSLASH:
                self.escaped = True
            elif byte == self.quote:
                self.quote = None
            return False
        if byte in _QUOTES:
            self.quote = byte
        elif byte in _OPEN:
            self.stack.append(byte)
        elif byte in _CLOSE:
            closes = byte == ord(")") and self.stack[-1:] == [_PAREN] and self.stack.count(_PAREN) == 1
            if self.stack:
                self.stack.pop()
            return closes
        return False

    def closing_at(self, piece: bytes) -> int | None:
        """The offset in ``piece`` of a byte that would close a call's argument list (state unchanged)."""
        probe = self.copy()
        for i, byte in enumerate(piece):
            if probe.step(byte):
                return i
        return None


class ArgumentLean:
    """Greedy decoding of pythonic calls: go on with another argument where the model nearly does.

    Args:
        piece: the bytes of a token as generated text.
        starting_with: the ids of every token whose bytes start with the given bytes (a NumPy integer array).
        share: the least share (0 to 1) of the probability of "close" and "go on" together that "go on" must
            get; 0 turns the rule off.

    :meth:`feed` is given every token of the call text in order (forced ones too); :meth:`choose` may replace
    the token greedy decoding chose at the current step. ``continued`` counts the replacements that were fed
    (a token chosen and then dropped, with a draft or at ``max_tokens``, does not count).
    """

    def __init__(self, piece: Callable[[int], bytes], starting_with: Callable[[bytes], np.ndarray],
                 share: float) -> None:
        self._piece = piece
        self._starting_with = starting_with
        self.share = share
        self._nesting = _Nesting()
        self._chosen: tuple[int, int] | None = None  # the token choose() put in place of the greedy one, and
        # the bytes in it before the comma
        self._fed = 0  # tokens fed so far
        self._open: tuple[int, int] | None = None  # where the arguments the call went on to begin (as added)
        self.added: list[tuple[int, int, int]] = []  # (first token, bytes before the comma in it, last token)
        self.continued = 0

    def feed(self, token: int) -> None:
        """Move past ``token``, a token of the call text."""
        if self._chosen is not None and token == self._chosen[0]:
            self.continued += 1
            if self._open is None:
                self._open = (self._fed, self._chosen[1])
        self._chosen = None
        closed = False
        for byte in self._piece(token):
            closed = self._nesting.step(byte) or closed
        if closed and self._open is not None:
            self.added.append((*self._open, self._fed))
            self._open = None
        self._fed += 1

    def added_tokens(self) -> list[tuple[int, int, int]]:
        """The arguments the call went on to: ``(index of the first token fed, bytes of that token before the
        comma, index of the last token)`` each, up to the call's ``)`` (or to the last token fed, when the
        reply ended inside them)."""
        if self._open is None:
            return list(self.added)
        return [*self.added, (*self._open, self._fed - 1)]

    def choose(self, token: int, logits: np.ndarray, grammar: GrammarSampler | None) -> int:
        """The token to take at this step: ``token`` (the greedy, grammar-allowed choice), or a token that
        goes on with another argument, as the class docstring says. ``logits``: this step's raw logits."""
        self._chosen = None
        if grammar is None or not self.share > 0:  # NaN: off
            return token
        piece = self._piece(token)
        at = self._nesting.closing_at(piece)
        if at is None:
            return token
        go_ids = self._going_on(piece[:at])
        if not len(go_ids):
            return token
        stop_ids = self._starting_with(piece[:at] + b")")
        peak = float(np.max(logits))
        go = float(np.exp(logits[go_ids].astype(np.float64) - peak).sum())
        stop = float(np.exp(logits[stop_ids].astype(np.float64) - peak).sum())
        if go <= 0 or go < self.share * (go + stop):
            return token
        order = go_ids[np.argsort(-logits[go_ids], kind="stable")][:_TRIES]
        for candidate in order.tolist():
            if grammar.allows(candidate, float(logits[candidate])):
                self._chosen = (candidate, at)
                return candidate
        return token

    def _going_on(self, prefix: bytes) -> np.ndarray:
        """The tokens that start with ``prefix`` and go on with another keyword argument as the pythonic
        grammar writes it: ``,`` alone, or ``, `` then at most the start of a name (not ``,)``, ``,\\n``)."""
        ids = self._starting_with(prefix + b",")
        start = len(prefix) + 1
        keep = [t for t in ids.tolist() if _next_argument(self._piece(t)[start:])]
        return np.array(keep, dtype=np.intp)


def _next_argument(rest: bytes) -> bool:
    """Whether ``rest`` (what a token holds after the comma) can begin the next ``name=value``."""
    if not rest:
        return True
    if rest[:1] != b" ":
        return False
    name = rest[1:]
    return not name or (not name[:1].isdigit() and name.replace(b"_", b"a").isalnum() and name.isascii())
