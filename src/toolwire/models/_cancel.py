"""A reply nobody waits for any more stops at its next token: the cancellation flag of the thread that generates it.

The embedded model (:class:`~toolwire.models.llamacpp.ChatLlamaCpp`) generates on the caller's thread (``invoke``,
``stream``, a ``batch`` worker) or on a thread of its own (``ainvoke``, ``astream``). Whoever stops waiting for the
reply sets an event that was given to :func:`cancel_on` on that thread: a cancelled ``ainvoke``/``astream``
(:func:`~toolwire._concurrency.iterate_in_thread`'s ``stop``), or a ``batch`` that was interrupted (Ctrl-C) or failed
(:meth:`~toolwire._batch.Batching.batch`). The model reads it with :func:`cancelled` before each batch of a prompt's
evaluation, before each token, and when its turn on the model comes (:func:`~toolwire.models._turns.take_turns`),
and stops by raising :class:`GenerationCancelled`.

This module imports nothing but the standard library, so that a ``batch`` of tools or Agents can set the flag without
loading llama.cpp's helpers (numpy).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

__all__ = ["GenerationCancelled", "cancel_on", "cancelled", "stop_if_cancelled"]

_CANCEL = threading.local()  # the event that cancels the reply the current thread generates (cancel_on)


class GenerationCancelled(Exception):
    """The reply's consumer went away (a cancelled ``ainvoke``/``astream``, an interrupted or failed ``batch``) before
    the reply was done: it stopped where it was, and nobody reads what it would have said."""


@contextlib.contextmanager
def cancel_on(event: threading.Event) -> Iterator[None]:
    """Within the block, a reply generated on this thread stops once ``event`` is set: at its next token, at the next
    batch of ``n_batch`` tokens of its prompt's evaluation, or as soon as its turn on the model comes, raising
    :class:`GenerationCancelled`. Blocks nest: the innermost event is the one read (the outer one is back after)."""
    previous = getattr(_CANCEL, "event", None)
    _CANCEL.event = event
    try:
        yield
    finally:
        _CANCEL.event = previous


def cancelled() -> bool:
    """Whether the reply generated on this thread was cancelled (:func:`cancel_on`)."""
    event = getattr(_CANCEL, "event", None)
    return event is not None and event.is_set()


def stop_if_cancelled(what: str = "generated") -> None:
    """Raise :class:`GenerationCancelled` when the reply generated on this thread was cancelled (:func:`cancelled`);
    ``what`` ends its text: "The reply was cancelled while it was <what>."

    Raises:
        GenerationCancelled: the reply was cancelled.
    """
    if cancelled():
        raise GenerationCancelled(f"The reply was cancelled while it was {what}.")
