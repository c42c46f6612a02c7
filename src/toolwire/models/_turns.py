"""Replies taking turns on one loaded model, so that no reply keeps the model while it is paused.

A llama.cpp context holds the state of one reply at a time: the KV cache of its tokens (with
llama-cpp-python's ``input_ids`` / ``n_tokens`` bookkeeping), the position of a grammar sampler, the
sampler chain of a reply sampled at temperature > 0. A streamed reply is paused at every chunk it yields,
for as long as its reader likes, or for good when the reader stops reading without closing it. A lock held
across those pauses would let two streams read alternately in one thread work on one KV cache (each gets
the other's tokens), or let a half-read stream freeze every other caller of the model.

So each reply is a :class:`Turn`, run by :func:`take_turns`: from one yield to the next it takes one
*step*, alone on the model (:class:`ModelTurns`, one per loaded model, lets one step run at a time), and
it holds nothing while paused. Another reply may then use the model. Before it does, the paused reply's
state is saved: its tokens, a copy of its KV cache (llama.cpp's sequence state, the bytes the disk prompt
cache keeps; about 30 KB a token for qwen2.5-coder-1.5b, held until the reply goes on or ends) and where
its samplers were. When the paused reply goes on, that state is put back as it was, so it goes on exactly
as if it had not been paused: each reply sees only its own tokens, and the same ones, however its steps
and another reply's are interleaved. (Should llama.cpp refuse the copy, the tokens no longer in the KV
cache are evaluated again instead: the reply is still its own, though where two tokens are nearly tied it
may differ, since an evaluation in one batch can differ from token by token; see
:mod:`toolwire.models._decoding`.)

Who goes next: a reply that is running, or paused only between two chunks its reader takes at once, keeps
the model until it ends; another reply waits for it, since setting a reply aside costs copying its KV cache
out and back (two replies taking the model from each other at every token would be slower). A
paused reply is set aside at once when it was paused in the thread that now asks (it cannot go on before
that thread's call returns: waiting would hang), else once it has been paused for ``grace`` seconds (its
reader has stopped, or is slow). A reply closed (or collected) before its end gives the model up at once, and
one that needs the model no more (it is only reporting its calls) ends its turn early.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any, TypeVar

from toolwire.models._cancel import stop_if_cancelled

__all__ = ["GRACE_SECONDS", "ModelTurns", "Turn", "take_turns"]

GRACE_SECONDS = 0.5  # how long a reply may stay paused before another one may take the model from it
T = TypeVar("T")


_EXITING_THREAD = [0]  # the thread that runs the exit (it may still end its own replies)


class ModelTurns:
    """Whose turn it is on one loaded model (see the module's text).

    Attributes:
        grace: seconds a paused reply keeps the model while another one waits for it.
    """

    def __init__(self, grace: float = GRACE_SECONDS) -> None:
        self.grace = grace
        self.changed = threading.Condition()  # an RLock: a reply collected while it is held can still end
        self.holder: Turn | None = None  # the reply whose state is in the model, until it ends
        self.exiting = False  # set at exit: no step begins any more (review 288 #1)


class Turn:
    """One reply's use of a loaded model: its steps run alone on it, and it holds nothing while paused.

    Args:
        loaded: the :class:`~toolwire.models._loaded.LoadedModel` (``turns``, ``save_state()``,
            ``restore_state(state)``).
    """

    def __init__(self, loaded: Any) -> None:
        self.loaded = loaded
        self._turns: ModelTurns = loaded.turns
        self.stepping = False
        self.paused_at = 0.0
        self.thread = 0  # the thread of the latest step
        self.ended = False
        self._saved: Any = None  # this reply's state while another reply uses the model

    def begin(self) -> None:
        """Start a step: wait for the model (see the module's text), then put back this reply's state if
        another reply used the model since this one's last step."""
        if self.ended:
            return
        turns = self._turns
        me = threading.get_ident()
        with turns.changed:
            while True:
                if turns.exiting and me != _EXITING_THREAD[0]:  # (the process exits: this step would be torn down)
                    turns.changed.wait()
                    continue
                holder = turns.holder
                if holder is None or holder is self:
                    break
                if holder.stepping:
                    turns.changed.wait()
                    continue
                if holder.thread == me:
                    break
                idle = time.monotonic() - holder.paused_at
                if idle >= turns.grace:
                    break
                turns.changed.wait(turns.grace - idle)
            if holder is not None and holder is not self:
                holder._saved = self.loaded.save_state()  # the model holds the paused holder's state
            turns.holder = self
            self.stepping = True
            self.thread = me
            saved, self._saved = self._saved, None
        if saved is not None:
            try:
                self.loaded.restore_state(saved)
            except BaseException:
                self.pause()
                raise

    def pause(self) -> None:
        """End a step (the reply yields, or is done)."""
        with self._turns.changed:
            self.stepping = False
            self.paused_at = time.monotonic()
            self._turns.changed.notify_all()

    def end(self) -> None:
        """Give the model up for good: the reply has ended, or needs the model no more (idempotent)."""
        with self._turns.changed:
            self.ended = True
            self.stepping = False
            self._saved = None
            if self._turns.holder is self:
                self._turns.holder = None
            self._turns.changed.notify_all()


def take_turns(turn: Turn, steps: Iterator[T]) -> Iterator[T]:
    """Run the generator ``steps`` (a reply that uses the model) one step per item, each step in ``turn``.

    Closing this generator (or dropping it) ends the turn at once and closes ``steps``. A reply cancelled while it
    waited for its turn (:func:`~toolwire.models._cancel.cancel_on`: an interrupted ``batch``) does not start once it
    gets it.

    Raises:
        GenerationCancelled: the reply was cancelled (its steps stop at their next token too).
    """
    try:
        while True:
            turn.begin()
            try:
                stop_if_cancelled()
                item = next(steps)
            except StopIteration:
                return
            finally:
                turn.pause()
            yield item
    finally:
        turn.end()
        close = getattr(steps, "close", None)
        if close is not None:
            close()
