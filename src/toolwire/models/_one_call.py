"""``parallel_tool_calls=False`` kept whatever the provider did: a reply holds at most one tool call.

OpenAI's API documents ``parallel_tool_calls: false`` as "at most one tool call per reply", Gemini has no such
request field (the reply is read whole and one call kept here), and
OpenAI-compatible servers (vLLM, llama.cpp's server, Ollama) often ignore the field, as do calls read from a
server's text. Users set it so that tools with side effects run one at a time, each seeing the result of the one
before; an Agent given two calls would run them at once. So :class:`~toolwire.models.base.BaseChatModel` passes
every reply of a request with ``parallel_tool_calls=False`` through here: the first call is kept, the others are
dropped with a warning in the log (the model asks for them again after it sees the first one's result). A valid
call comes before an invalid one: the invalid calls are kept only when the reply has no valid one, and then only
the first.

A structured output (:meth:`~toolwire.models.base.BaseChatModel.with_structured_output`) keeps one call per reply
too, whatever ``parallel_tool_calls`` says, and its log line says so: of two or more calls of its output tool
(:class:`OutputTool`), the first whose arguments fit the schema is kept (review 118 #3: the first was kept though it
broke the schema and a later one fitted); when none fits, the first, so that the error, or the retry, is as before.
A stream holds such a reply's tool-call pieces back until it ends, to tell which call fits.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from toolwire.messages import AIMessage, AIMessageChunk

__all__ = ["OneCallStream", "OutputCallStream", "OutputTool", "one_call", "one_call_async_stream", "one_call_stream"]

log = logging.getLogger("toolwire.models")


@dataclass(frozen=True)
class OutputTool:
    """The output tool of a structured output, whose model keeps one call of it per reply.

    Attributes:
        name: the tool's name.
        read: turns a call's arguments into the value (raises when they do not fit the schema).
    """

    name: str
    read: Callable[[Any], Any]

    def fits(self, args: Any) -> bool:
        """Whether ``args`` (a call's arguments) read as a value of the schema."""
        try:
            self.read(args)
        except Exception:  # (the structured output names the problem when it reads the call kept)
            return False
        return True

    def reason(self) -> str:
        """What the log line gives as the reason a call was dropped."""
        return f"with_structured_output keeps one call of its output tool {self.name}"


def one_call(message: AIMessage, forced: str | None = None, output: OutputTool | None = None) -> AIMessage:
    """``message`` with at most one tool call: itself when it has one or none, else a copy with the first valid call
    (or, with none valid, the first invalid one), a warning logged, and the number of calls dropped added to its
    ``response_metadata["dropped_tool_calls"]`` (as Gemini's lowering records them; review 84).

    Args:
        message: the reply.
        forced: the tool the request's ``tool_choice`` names (a structured output's tool), whose first valid call is
            kept wherever it stands in the reply (review 96: a call of another tool before it was kept instead, and
            the structured output then said the model had not called it); None: the first call.
        output: a structured output's tool: its first call whose arguments fit the schema is kept (else its first
            call), and the log line names it as the reason (``parallel_tool_calls`` may not have been set).
    """
    valid, invalid = message.tool_calls, message.invalid_tool_calls
    if len(valid) + len(invalid) <= 1:
        return message
    dropped = len(valid) + len(invalid) - 1
    name = output.name if output is not None else forced
    named = [call for call in valid if call["name"] == name] if name else []
    fitting = next((call for call in named if output.fits(call["args"])), None) \
        if output is not None and len(named) > 1 else None
    kept = [fitting or named[0]] if named else valid[:1]
    later = valid.index(fitting) + 1 if fitting is not None and fitting is not named[0] else None
    _warn(dropped, _which(name, forced, not valid or kept[0] is valid[0], later), output)
    metadata = dict(message.response_metadata)
    metadata["dropped_tool_calls"] = int(metadata.get("dropped_tool_calls") or 0) + dropped
    return message.copy(tool_calls=kept, invalid_tool_calls=[] if valid else invalid[:1],
                        response_metadata=metadata)


def _which(name: str | None, forced: str | None, first: bool, later: int | None) -> str:
    """The call kept, as the log line names it: ``later``, the place in the reply of the first call of ``name``
    that fits the schema, after one that does not; ``first``: the reply's first call ("" for the default text)."""
    if later is not None:
        return f"the first call of {name} that fits its schema (call {later} of the reply)"
    if first:
        return ""
    return f"the call of {name}{', forced by tool_choice' if name == forced else ''} of the reply"


def _warn(dropped: int, which: str = "", output: OutputTool | None = None) -> None:
    log.warning("%s: kept %s, dropped %d", output.reason() if output is not None else "parallel_tool_calls=False",
                which or "the first tool call of the reply", dropped)


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
        self.dropped: dict[int, Any] = {}  # id() -> a group (call) dropped
        self.dropped_invalid: list[Any] = []  # the invalid calls dropped
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
                self.dropped[id(group)] = group
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
                self.dropped_invalid.append(call)
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
                self.dropped[id(self.candidate)] = self.candidate
                self.overtaken = True
            self.candidate, self.held = None, []
            return out
        if self.candidate is None:
            self.candidate = group
        if group is self.candidate:
            self.held.append(part)
        else:
            self.dropped[id(group)] = group
        return []

    def _count(self) -> int:
        """How many calls were dropped: each group, and each invalid call but one that a dropped group's pieces
        already made (the same id: a call the stream declares cut off at its end, review 159 #2)."""
        group_ids = {group.get("id") for group in self.dropped.values() if group.get("id")}
        return len(self.dropped) + sum(1 for call in self.dropped_invalid
                                       if not (isinstance(call, dict) and call.get("id") in group_ids))

    def done(self) -> AIMessageChunk | None:
        """Log the warning, when calls were dropped, and return the chunk that ends the stream: the first call held
        back when no call of ``forced`` came, and how many calls were dropped
        (``response_metadata["dropped_tool_calls"]``, as :func:`one_call` gives it); None when there is neither."""
        if not self.dropped and not self.dropped_invalid and not self.held:
            return None
        dropped = self._count()
        metadata = {"dropped_tool_calls": dropped} if dropped else {}
        if dropped:
            _warn(dropped, f"the call of {self.forced}, forced by tool_choice" if self.overtaken else "")
        held, self.held = self.held, []
        return AIMessageChunk("", tool_call_chunks=held, response_metadata=metadata)


class OutputCallStream:
    """The chunk filter of a structured output's stream (:class:`OutputTool`): every tool-call piece and invalid call
    is held back until the stream ends; then the held calls are merged as
    :func:`~toolwire.messages.merge_chunks` merges them and the one :func:`one_call` keeps of them (the first call of
    the output tool whose arguments fit the schema, else its first call, else the first valid call, else the first
    invalid one) is passed on whole in the last chunk, so a stream keeps the call ``invoke`` keeps (review 122: an
    invalid call streamed first was kept, and ``stream`` raised where ``invoke`` returned the value). Text and the
    other fields pass as they come.

    Args:
        forced: the tool the request's ``tool_choice`` names.
        output: the structured output's tool.
    """

    def __init__(self, forced: str | None, output: OutputTool) -> None:
        self.forced = forced
        self.output = output
        self.parts: list[Any] = []  # the tool-call pieces held back, in the order they came
        self.invalid: list[Any] = []  # the invalid calls held back

    def filter(self, chunk: AIMessageChunk) -> AIMessageChunk:
        """``chunk`` without its tool-call pieces and invalid calls (held back); itself when it has none."""
        if not chunk.tool_call_chunks and not chunk.invalid_tool_calls:
            return chunk
        self.parts.extend(chunk.tool_call_chunks)
        self.invalid.extend(chunk.invalid_tool_calls)
        return AIMessageChunk(chunk.content, usage=chunk.usage, response_metadata=chunk.response_metadata,
                              provider_data=chunk.provider_data, id=chunk.id, name=chunk.name)

    def done(self) -> AIMessageChunk | None:
        """Return the chunk that ends the stream: the call kept, whole, and how many calls were dropped
        (``response_metadata["dropped_tool_calls"]``; :func:`one_call` logs them); None when no call came."""
        import json

        from toolwire.chunks import merge_chunks

        if not self.parts and not self.invalid:
            return None
        merged = merge_chunks([AIMessageChunk("", tool_call_chunks=self.parts, invalid_tool_calls=self.invalid)],
                              as_chunk=False)
        kept = one_call(merged, self.forced, self.output)
        dropped = kept.response_metadata.get("dropped_tool_calls")
        parts = [{"name": call["name"], "args": json.dumps(call["args"], ensure_ascii=False), "id": call["id"],
                  "index": 0, "type": "tool_call_chunk"} for call in kept.tool_calls]
        return AIMessageChunk("", tool_call_chunks=parts, invalid_tool_calls=kept.invalid_tool_calls,
                              response_metadata={"dropped_tool_calls": dropped} if dropped else {})


def _stream_filter(forced: str | None, output: OutputTool | None) -> OneCallStream | OutputCallStream:
    """The chunk filter of a request's stream: :class:`OutputCallStream` for a structured output's."""
    return OutputCallStream(forced, output) if output is not None else OneCallStream(forced)


def one_call_stream(chunks: Iterator[AIMessageChunk], forced: str | None = None,
                    output: OutputTool | None = None) -> Iterator[AIMessageChunk]:
    """``chunks`` through :class:`OneCallStream` (closed with them); ``forced`` as there; with ``output`` (a
    structured output's tool), through :class:`OutputCallStream`."""
    kept = _stream_filter(forced, output)
    try:
        for chunk in chunks:
            yield kept.filter(chunk)
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
    if (last := kept.done()) is not None:
        yield last


async def one_call_async_stream(chunks: AsyncIterator[AIMessageChunk], forced: str | None = None,
                                output: OutputTool | None = None) -> AsyncIterator[AIMessageChunk]:
    """Async :func:`one_call_stream`."""
    kept = _stream_filter(forced, output)
    try:
        async for chunk in chunks:
            yield kept.filter(chunk)
    finally:
        close = getattr(chunks, "aclose", None)
        if close is not None:
            await close()
    if (last := kept.done()) is not None:
        yield last
