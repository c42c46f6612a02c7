"""``parallel_tool_calls=False`` kept whatever the provider did: a reply holds at most one tool call.

OpenAI's API documents ``parallel_tool_calls: false`` as "at most one tool call per reply", Gemini has no such
request field (its lowering keeps the first call, :func:`toolwire.models.lowering.gemini.parse_response`), and
OpenAI-compatible servers (vLLM, llama.cpp's server, Ollama) often ignore the field, as do calls read from a
server's text. Users set it so that tools with side effects run one at a time, each seeing the result of the one
before; an Agent given two calls would run them at once. So :class:`~toolwire.models.base.BaseChatModel` passes
every reply of a request with ``parallel_tool_calls=False`` through here: the first call is kept, the others are
dropped with a warning in the log (the model asks for them again after it sees the first one's result). A valid
call comes before an invalid one: the invalid calls are kept only when the reply has no valid one, and then only
the first.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

from toolwire.messages import AIMessage, AIMessageChunk

__all__ = ["OneCallStream", "one_call", "one_call_async_stream", "one_call_stream"]

log = logging.getLogger("toolwire.models")


def one_call(message: AIMessage, forced: str | None = None) -> AIMessage:
    """``message`` with at most one tool call: itself when it has one or none, else a copy with the first valid call
    (or, with none valid, the first invalid one), a warning logged, and the number of calls dropped added to its
    ``response_metadata["dropped_tool_calls"]`` (as Gemini's lowering records them; review 84).

    Args:
        message: the reply.
        forced: the tool the request's ``tool_choice`` names (a structured output's tool), whose first valid call is
            kept wherever it stands in the reply (review 96: a call of another tool before it was kept instead, and
            the structured output then said the model had not called it); None: the first call.
    """
    valid, invalid = message.tool_calls, message.invalid_tool_calls
    if len(valid) + len(invalid) <= 1:
        return message
    dropped = len(valid) + len(invalid) - 1
    kept = next(([call] for call in valid if call["name"] == forced), valid[:1]) if forced else valid[:1]
    _warn(dropped, "" if not valid or kept[0] is valid[0] else f"the call of {forced}, forced by tool_choice")
    metadata = dict(message.response_metadata)
    metadata["dropped_tool_calls"] = int(metadata.get("dropped_tool_calls") or 0) + dropped
    return message.copy(tool_calls=kept, invalid_tool_calls=[] if valid else invalid[:1],
                        response_metadata=metadata)


def _warn(dropped: int, which: str = "") -> None:
    log.warning("parallel_tool_calls=False: kept %s of the reply, dropped %d", which or "the first tool call", dropped)


class OneCallStream:
    """The chunk filter of :func:`one_call_stream`: the tool-call chunks of the first call are passed on, those of
    any other call are dropped. Which call a chunk belongs to is decided as :func:`~toolwire.messages.merge_chunks`
    decides it (``toolwire.chunks._Calls``: by index, id and name, with the providers' quirks: an index reused for
    every call, one id for all of them, whole calls with neither). An invalid call sent as such is a call too: it is
    kept when it has the kept call's id (a call the provider reports cut off, review 63: dropping it would make the
    cut call's chunks look whole), or when it comes before any call; in a stream the first call sent is kept.

    Args:
        forced: the tool the request's ``tool_choice`` names, as for :func:`one_call`: its first call is kept
            wherever it stands, so a stream keeps the call ``invoke`` keeps (review 108). A first call of another
            tool is held back meanwhile, and passed on at the end only when no call of ``forced`` came.
    """

    def __init__(self, forced: str | None = None) -> None:
        from toolwire.chunks import _Calls

        self.calls = _Calls()
        self.forced = forced
        self.first: Any = None  # the group of the call kept (None: none yet; self: an invalid call was kept)
        self.candidate: Any = None  # with ``forced``: the first call, of another tool, held back
        self.held: list[Any] = []  # the candidate's parts
        self.dropped: set[int] = set()  # ids (id()) of the groups and invalid calls dropped
        self.overtaken = False  # a held first call was dropped for a later call of ``forced``

    def filter(self, chunk: AIMessageChunk) -> AIMessageChunk:
        """``chunk`` without the parts of calls other than the first (itself when nothing is dropped)."""
        parts = chunk.tool_call_chunks
        invalid = chunk.invalid_tool_calls
        if not parts and not invalid:
            return chunk
        kept = []
        for part in parts:
            self.calls.add(part)
            group = self.calls.last
            if self.first is None and self.forced is not None:
                kept.extend(self._forced_part(group, part))
                continue
            if self.first is None:
                self.first = group
            if group is self.first:
                kept.append(part)
            else:
                self.dropped.add(id(group))
        kept_invalid = []
        anchor = self.first if self.first is not None else self.candidate
        kept_id = anchor.get("id") if isinstance(anchor, dict) else None
        for call in invalid:
            if anchor is None:
                self.first = anchor = self  # (no group is this): every later call is dropped
                kept_invalid.append(call)
            elif kept_id is not None and call.get("id") == kept_id:
                kept_invalid.append(call)  # the kept call, cut off: not another call
            else:
                self.dropped.add(id(call))
        if len(kept) == len(parts) and len(kept_invalid) == len(invalid):
            return chunk
        return AIMessageChunk(chunk.content, tool_call_chunks=kept, invalid_tool_calls=kept_invalid, usage=chunk.usage,
                              response_metadata=chunk.response_metadata, provider_data=chunk.provider_data,
                              id=chunk.id, name=chunk.name)

    def _forced_part(self, group: Any, part: Any) -> list[Any]:
        """With ``forced`` and no call kept yet: the parts to pass on now for ``part`` of call ``group``."""
        if group.get("name") == self.forced:  # the forced call: kept, and a first call of another tool dropped
            self.first = group
            out = [*self.held, part] if group is self.candidate else [part]
            if self.candidate is not None and group is not self.candidate:
                self.dropped.add(id(self.candidate))
                self.overtaken = True
            self.candidate, self.held = None, []
            return out
        if self.candidate is None:
            self.candidate = group
        if group is self.candidate:
            self.held.append(part)
        else:
            self.dropped.add(id(group))
        return []

    def done(self) -> AIMessageChunk | None:
        """Log the warning, when calls were dropped, and return the chunk that ends the stream: the first call held
        back when no call of ``forced`` came, and how many calls were dropped
        (``response_metadata["dropped_tool_calls"]``, as :func:`one_call` gives it); None when there is neither."""
        if not self.dropped and not self.held:
            return None
        metadata = {"dropped_tool_calls": len(self.dropped)} if self.dropped else {}
        if self.dropped:
            _warn(len(self.dropped), f"the call of {self.forced}, forced by tool_choice" if self.overtaken else "")
        held, self.held = self.held, []
        return AIMessageChunk("", tool_call_chunks=held, response_metadata=metadata)


def one_call_stream(chunks: Iterator[AIMessageChunk], forced: str | None = None) -> Iterator[AIMessageChunk]:
    """``chunks`` through :class:`OneCallStream` (closed with them); ``forced`` as there."""
    kept = OneCallStream(forced)
    try:
        for chunk in chunks:
            yield kept.filter(chunk)
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
    if (last := kept.done()) is not None:
        yield last


async def one_call_async_stream(chunks: AsyncIterator[AIMessageChunk],
                                forced: str | None = None) -> AsyncIterator[AIMessageChunk]:
    """Async :func:`one_call_stream`."""
    kept = OneCallStream(forced)
    try:
        async for chunk in chunks:
            yield kept.filter(chunk)
    finally:
        close = getattr(chunks, "aclose", None)
        if close is not None:
            await close()
    if (last := kept.done()) is not None:
        yield last
