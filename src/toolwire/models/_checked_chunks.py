"""The chunks a model's own ``_stream``/``_astream`` yields, checked to be :class:`~toolwire.messages.AIMessageChunk`
objects as they pass (used by :class:`toolwire.models.base.BaseChatModel`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from toolwire.errors import UserError
from toolwire.messages import AIMessageChunk
from toolwire.models.lowering._calls import remember_streamed


def _checked_chunks(chunks: Iterator[Any], refuse: Callable[[Any], UserError],
                    parameters: dict[str, dict[str, Any]] | None = None) -> Iterator[AIMessageChunk]:
    """``chunks`` passed on, each checked to be an :class:`~toolwire.messages.AIMessageChunk` (else ``refuse(value)``
    is raised: review 241 #3), and, with ``parameters`` (the bound tools'), the tools of their tool-call pieces
    remembered (:func:`~toolwire.models.lowering._calls.remember_streamed`): a model that implements only
    :meth:`BaseChatModel._stream` then streams calls whose merge shows the called tool's shape in an unreadable call's
    error, as :meth:`BaseChatModel.invoke`'s (which merges with the tools) does, and as the built-in providers' streams
    do (review 142 #2). Closed, it closes ``chunks`` now."""
    try:
        for chunk in chunks:
            if not isinstance(chunk, AIMessageChunk):
                raise refuse(chunk)
            if parameters and chunk.tool_call_chunks:
                remember_streamed(chunk.tool_call_chunks, parameters)
            yield chunk
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()


async def _achecked_chunks(chunks: AsyncIterator[Any], refuse: Callable[[Any], UserError]
                           ) -> AsyncIterator[AIMessageChunk]:
    """Async :func:`_checked_chunks` (the check alone), for the one-call filter of :meth:`BaseChatModel.astream`."""
    try:
        async for chunk in chunks:
            if not isinstance(chunk, AIMessageChunk):
                raise refuse(chunk)
            yield chunk
    finally:
        close = getattr(chunks, "aclose", None)
        if close is not None:
            await close()
