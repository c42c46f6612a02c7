"""What a try of a streamed reply has handed to the caller: the rule by which a broken stream is tried again.

:func:`~toolwire.models._retry.retry_stream` tries a failed stream again until content has reached the caller (a
retry would repeat what the caller has). Content is what the caller gets, which is not always what the provider
sent: a compatible server's calls written as text are held back by the text-call reader
(:class:`~toolwire.models._text_calls.TextCallStream`, which runs inside each try, so its output is what is judged
here), and with ``parallel_tool_calls=False`` or a structured output's model the one-call filter that
:meth:`~toolwire.models.base.BaseChatModel.stream` applies after the retry holds calls back too (a first call of
another tool while the forced one may still come, every call of a structured output's model:
:mod:`toolwire.models._one_call`). :class:`Handed` judges each chunk as that filter would pass it on, with a filter
of its own started afresh for each try, so a stream whose caller got only empty chunks is tried again (review 206 #1).
A caller that hands out nothing before the reply is complete (a structured output's ``stream``) reads the stream
whole instead (:func:`whole_streamer`), so a failure at any point is tried again.

The SDK clients handed out to tries are counted here too (:class:`ClientsInUse`): ``close()`` leaves a sync client
that a try still has a request on to that try, which closes it when its request ends (review 203 #2).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolwire.messages import AIMessageChunk

if TYPE_CHECKING:
    from toolwire.models.base import BaseChatModel

__all__ = ["IN_USE", "ClientsInUse", "Handed", "close_sync", "handed_out", "held", "whole_streamer"]


def handed_out(chunk: AIMessageChunk) -> bool:
    """Whether a streamed chunk carries content (text, a tool-call piece, an invalid call): once one has reached
    the caller, a failed stream is no longer tried again (see :func:`~toolwire.models._retry.retry_stream`)."""
    return bool(chunk.content or chunk.tool_call_chunks or chunk.invalid_tool_calls)


def held(chunk: AIMessageChunk) -> bool:
    """For ``invoke`` through a stream: no chunk reaches the caller before the stream ends, so a failure at any point
    may be tried again (see :func:`~toolwire.models._retry.retry_stream`)."""
    return False


class Handed:
    """The ``handed_out`` rule of one streamed call, for :func:`~toolwire.models._retry.retry_stream`: whether a chunk
    of the current try reaches the caller with content, once the one-call filter the caller's stream goes through
    has read it (none: :func:`handed_out` as it is).

    Args:
        one_call: makes the filter :meth:`~toolwire.models.base.BaseChatModel.stream` applies to this request's
            chunks (``OneCallStream``/``OutputCallStream`` of :mod:`toolwire.models._one_call`, each with a
            ``filter(chunk) -> chunk``), or None when it applies none.

    Call :meth:`new_try` when each try begins: the filter of a failed try saw chunks that the caller never gets.
    """

    def __init__(self, one_call: Callable[[], Any] | None = None) -> None:
        self._make = one_call
        self._filter: Any = None

    def new_try(self) -> None:
        """Start judging a new try (a new filter, which has seen none of its chunks)."""
        self._filter = self._make() if self._make is not None else None

    def __call__(self, chunk: AIMessageChunk) -> bool:
        """Whether ``chunk`` reaches the caller with content (the filter's parts of the chunk; the filter's state
        moves on as the caller's filter will when the chunk is passed on)."""
        if self._filter is not None:
            chunk = self._filter.filter(chunk)
        return handed_out(chunk)


def whole_streamer(model: BaseChatModel) -> BaseChatModel | None:
    """A copy of ``model`` whose ``invoke`` reads the reply through the streaming API whole (a hosted model's
    ``streaming=True``, :class:`~toolwire.models._sdk.SDKChatModel`: a stream that breaks at any point is tried again,
    up to ``max_retries``), ``model`` itself when it streams so already, or None for a model without that option (a
    local or scripted one: read its ``stream``). ``model`` is not changed.
    """
    from toolwire.models._sdk import SDKChatModel

    if not isinstance(model, SDKChatModel):
        return None
    if model.streaming:
        return model
    whole = copy.copy(model)  # (shares the SDK clients, and the bound tools and options)
    whole.streaming = True
    return whole


class ClientsInUse:
    """Sync SDK clients that attempts have a request in flight on (review 203 #2): ``SDKChatModel.close()`` of one
    of them leaves it open, and its last attempt closes it. Closing an HTTP client's sockets under a thread
    blocked reading one could leave that thread waiting for the whole timeout (the socket's number, reused by a new
    connection, is then polled in its place), so no socket is closed while a request is on it."""

    def __init__(self) -> None:
        # (re-entrant: a stream's try dropped unclosed gives its client back from a finalizer, which the garbage
        # collector may run in a thread that holds the lock)
        self.lock = threading.RLock()
        self.clients: dict[int, list[Any]] = {}  # id(client) -> [client, attempts on it, close() left it to them]

    def take(self, client: Any) -> None:
        """Note one more attempt on ``client``."""
        with self.lock:
            self.clients.setdefault(id(client), [client, 0, False])[1] += 1

    def give_back(self, client: Any) -> bool:
        """Note the end of an attempt on ``client``; returns whether the caller is to close it now (it was the last
        attempt, and close() left the client to it)."""
        with self.lock:
            entry = self.clients[id(client)]
            entry[1] -= 1
            if entry[1]:
                return False
            del self.clients[id(client)]
            return bool(entry[2])

    def close_later(self, client: Any) -> bool:
        """Whether ``client`` (no longer the model's) is in use: its last attempt closes it. ``False``: close it."""
        with self.lock:
            entry = self.clients.get(id(client))
            if entry is None:
                return False
            entry[2] = True
            return True


IN_USE = ClientsInUse()


def close_sync(client: Any) -> None:
    """Close a sync SDK client (one without ``close`` is left to be collected)."""
    close = getattr(client, "close", None)
    if callable(close):
        close()
