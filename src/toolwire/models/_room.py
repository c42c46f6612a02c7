"""The room a reply of the embedded model has in its context window (``n_ctx`` tokens): the prompt a conversation
becomes, with long tool results shown cut when they leave the reply too little room (:mod:`toolwire.models._fit`),
and the :class:`~toolwire.errors.ContextOverflowError` for a prompt that leaves none, naming what fills it.

Kept apart from :mod:`toolwire.models._generation`, which generates the reply in the room this leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from toolwire.errors import ContextOverflowError
from toolwire.models._fit import fit_tool_results, floor_size
from toolwire.models._loaded import LoadedModel
from toolwire.models.dialects import Rendered

__all__ = ["MIN_ROOM", "fitted_prompt", "overflow_error"]

MIN_ROOM = 8
"""The fewest tokens the context must have free for a reply."""

Render = Callable[[Sequence[Any]], tuple[Rendered, list[int]]]
"""Render a conversation: ``(the rendered chat, its prompt tokens)``."""


def fitted_prompt(messages: Sequence[Any], render: Render, n_ctx: int, max_tokens: int) -> tuple[Rendered, list[int],
                                                                                                   int]:
    """The prompt of ``messages``, with long tool results shown cut when the whole prompt leaves the reply less than
    ``min(max_tokens, n_ctx // 4)`` tokens (or, when even cut results leave that little, at least :data:`MIN_ROOM`:
    review 50, ``max_tokens=128`` at ``n_ctx=1024`` raised although cut results left room for a call).

    Returns:
        ``(rendered chat, prompt tokens, how many tool results are shown cut)``; the conversation itself is never
        changed.
    """
    chat, tokens = render(messages)
    wanted = min(max_tokens, n_ctx // 4)  # room a reply should have
    if n_ctx - len(tokens) >= wanted:
        return chat, tokens, 0

    def measure(shown: Sequence[Any]) -> int:
        return len(render(shown)[1])

    fitted = fit_tool_results(messages, measure, n_ctx - wanted)
    if fitted is None and wanted > MIN_ROOM:
        fitted = fit_tool_results(messages, measure, n_ctx - MIN_ROOM)
    if fitted is None:
        return chat, tokens, 0
    chat, tokens = render(fitted[0])
    return chat, tokens, fitted[1]


def overflow_error(messages: Sequence[Any], render: Render, render_bare: Render, loaded: LoadedModel,
                   chat: Rendered, tokens: list[int], n_ctx: int, tool_count: int) -> ContextOverflowError:
    """The error for a prompt that leaves fewer than :data:`MIN_ROOM` tokens free, with what fills the window: the
    prompt's size once tool results are cut as far as they go (review 73), the tokens the bound tools' descriptions
    add to the system turn, and those of the system prompt itself (review 110: a long system prompt was counted as
    the tools', and the advice was to bind fewer tools).

    Args:
        messages: the conversation.
        render: renders a conversation with the offered tools; ``render_bare`` with none.
        loaded: the model, for its system turn's tokens.
        chat, tokens: ``messages`` rendered, as the reply would have been asked.
        n_ctx: the context window in tokens.
        tool_count: how many tools were offered.
    """
    size = floor_size(messages, lambda shown: len(render(shown)[1])) or len(tokens)
    head = len(loaded.system_head(chat))
    system = len(loaded.system_head(render_bare(messages)[0])) if tool_count else head
    return ContextOverflowError(size, n_ctx, tools_tokens=max(0, head - system) if tool_count else 0,
                                tool_count=tool_count, min_room=MIN_ROOM, system_tokens=system,
                                trained_context=loaded.trained_context)
