"""Fitting a conversation's tool results into a local model's context window.

A tool result is cut by the executor at ``max_result_chars`` (20,000 characters by default), which a model
with a context of a few thousand tokens still cannot hold (review 29: 20,000 characters of hex text are 17,945
tokens). Rather than refusing the turn, :class:`~toolwire.models.llamacpp.ChatLlamaCpp` renders the longest tool
results cut, each ending with :func:`~toolwire.results.truncate_content`'s marker (which tells the model how much
was cut and to ask for a narrower result), so that the reply keeps room. Only the prompt is cut: the messages
the caller holds, and the conversation an Agent returns, keep every result whole.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from toolwire.messages import BaseMessage, ToolMessage
from toolwire.results import truncate_content

__all__ = ["fit_tool_results", "floor_size"]

_FLOOR = 200  # characters a cut result keeps at least (its head, then the marker)
_TRIES = 4


def _cap(lengths: list[int], total_after: int) -> int:
    """The largest cap ``c`` such that ``sum(min(n, c) for n in lengths) <= total_after`` (at least ``_FLOOR``)."""
    low, high = _FLOOR, max(lengths)
    while low < high:
        mid = (low + high + 1) // 2
        if sum(min(n, mid) for n in lengths) <= total_after:
            low = mid
        else:
            high = mid - 1
    return low


def fit_tool_results(messages: Sequence[BaseMessage], measure: Callable[[Sequence[BaseMessage]], int],
                     limit: int) -> tuple[list[BaseMessage], int] | None:
    """Cut the longest tool results of ``messages`` until the prompt fits in ``limit`` tokens.

    Args:
        messages: the conversation (not changed).
        measure: the prompt's length in tokens for a conversation (the model's own render and tokenizer).
        limit: the most tokens the prompt may take (the context minus the room the reply needs).

    Returns:
        ``(messages with the cut results as new ToolMessages, how many results were cut)`` once ``measure`` is
        at most ``limit``; None when the conversation has no tool result longer than a couple of hundred
        characters, or when even every result cut to that does not make it fit (the rest of the conversation
        is too long). The longest results are cut first, to a common length, so short results stay whole.
    """
    indexes = [i for i, m in enumerate(messages) if isinstance(m, ToolMessage) and len(m.text) > _FLOOR]
    if not indexes:
        return None
    lengths = [len(messages[i].text) for i in indexes]
    floor = _FLOOR * len(indexes)
    current, cut, cap = list(messages), 0, max(lengths)
    size = measure(current)
    for _ in range(_TRIES):
        if size <= limit:
            return current, cut
        kept = sum(min(n, cap) for n in lengths)
        if kept <= floor:
            return None
        per_token = max(sum(len(m.text) for m in current) / max(size, 1), 1.0)  # a rough guide, over the prompt
        target = int(kept - (size - limit) * per_token * 1.1) - 100 * len(indexes)  # (the markers take room too)
        cap = _cap(lengths, max(target, floor))
        current, cut = list(messages), 0
        for i, n in zip(indexes, lengths, strict=True):
            if n > cap:
                message: Any = messages[i]
                current[i] = message.copy(content=truncate_content(message.content, cap,
                                                                   error=message.status == "error"))
                cut += 1
        size = measure(current)
    return (current, cut) if size <= limit else None


def floor_size(messages: Sequence[BaseMessage], measure: Callable[[Sequence[BaseMessage]], int]) -> int | None:
    """The prompt's length in tokens with every tool result cut as far as :func:`fit_tool_results` cuts them (to a
    couple of hundred characters and the marker), for saying how long a conversation that does not fit still is
    (review 73: the error quoted the uncut 20,195 tokens of a conversation that fitted in 512 once cut); None when
    no result is long enough to be cut."""
    indexes = [i for i, m in enumerate(messages) if isinstance(m, ToolMessage) and len(m.text) > _FLOOR]
    if not indexes:
        return None
    current: list[Any] = list(messages)
    for i in indexes:
        current[i] = current[i].copy(content=truncate_content(current[i].content, _FLOOR,
                                                              error=current[i].status == "error"))
    return measure(current)
