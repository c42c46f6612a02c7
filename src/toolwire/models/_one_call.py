"""``parallel_tool_calls=False`` kept whatever the provider did: a reply holds at most one tool call.

OpenAI's API documents ``parallel_tool_calls: false`` as "at most one tool call per reply", Gemini has no such
request field (the reply is read whole and one call kept here), and
OpenAI-compatible servers (vLLM, llama.cpp's server, Ollama) often ignore the field, as do calls read from a
server's text. Users set it so that tools with side effects run one at a time, each seeing the result of the one
before; an Agent given two calls would run them at once. So :class:`~toolwire.models.base.BaseChatModel` passes
every reply of a request with ``parallel_tool_calls=False`` through here: the first call is kept, the others are
dropped with a warning in the log (the model asks for them again after it sees the first one's result). A valid
call comes before an invalid one: the invalid calls are kept only when the reply has no valid one, and then only
the first. The first is the first in the reply's order: a stream's calls as merging orders them (by the provider's
``index``, where it gives one to every call), whatever order they start in.

A structured output (:meth:`~toolwire.models.base.BaseChatModel.with_structured_output`) keeps one call per reply
too, whatever ``parallel_tool_calls`` says, and its log line says so: of two or more calls of its output tool
(:class:`OutputTool`), the first whose arguments fit the schema is kept (review 118 #3: the first was kept though it
broke the schema and a later one fitted); when none fits, the first, so that the error, or the retry, is as before.
A stream holds its tool-call pieces back until it ends, to tell which call is first (a call with a lower index may
start later), which is valid and which fits (:class:`OneCallStream`), so it keeps the call ``invoke`` keeps.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Collection, Iterator
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
    """The chunk filter of a stream that keeps one tool call (:func:`one_call_stream`): every tool-call piece and
    invalid call is held back until the stream ends; then the held calls are merged as
    :func:`~toolwire.messages.merge_chunks` merges them (by the provider's ``index`` where it orders by it, with the
    ``finish_reason`` the stream gave and the bound tools' names) and the one :func:`one_call` keeps of them is passed
    on whole in the last chunk, so a stream keeps the call ``invoke`` keeps: the first valid call of the reply in the
    reply's order, else its first invalid one; ``forced``'s first call wherever it stands; for a structured output,
    the first call of its tool whose arguments fit the schema (review 122). Only the end tells which call that is: a
    call with a lower ``index`` may start later (review 241 #1: the first call to arrive was kept), and a call's
    arguments may turn out unreadable (review 122). Text and the other fields pass as they come.

    Args:
        forced: the tool the request's ``tool_choice`` names, as for :func:`one_call`.
        output: a structured output's tool, as for :func:`one_call`; None for ``parallel_tool_calls=False``.
        tool_names: the bound tools' names (``ChatRequest.tool_parameters``), which merging reads calls with, as
            ``invoke`` does.
    """

    def __init__(self, forced: str | None = None, output: OutputTool | None = None,
                 tool_names: Collection[str] | None = None) -> None:
        self.forced = forced
        self.output = output
        self.tool_names = tool_names
        self.parts: list[Any] = []  # the tool-call pieces held back, in the order they came
        self.invalid: list[Any] = []  # the invalid calls held back
        self.finish_reason: Any = None  # the stream's last finish_reason, which tells how its calls read

    def filter(self, chunk: AIMessageChunk) -> AIMessageChunk:
        """``chunk`` without its tool-call pieces and invalid calls (held back); itself when it has none."""
        if (reason := chunk.response_metadata.get("finish_reason")) is not None:
            self.finish_reason = reason
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
        metadata = {"finish_reason": self.finish_reason} if self.finish_reason is not None else {}
        merged = merge_chunks([AIMessageChunk("", tool_call_chunks=self.parts, invalid_tool_calls=self.invalid,
                                              response_metadata=metadata)],
                              as_chunk=False, tool_names=self.tool_names)
        kept = one_call(merged, self.forced, self.output)
        dropped = kept.response_metadata.get("dropped_tool_calls")
        parts = [{"name": call["name"], "args": json.dumps(call["args"], ensure_ascii=False), "id": call["id"],
                  "index": 0, "type": "tool_call_chunk"} for call in kept.tool_calls]
        return AIMessageChunk("", tool_call_chunks=parts, invalid_tool_calls=kept.invalid_tool_calls,
                              response_metadata={"dropped_tool_calls": dropped} if dropped else {})


OutputCallStream = OneCallStream
"""The filter of a structured output's stream: :class:`OneCallStream` with its ``output`` tool (its name before
review 241 #1, when ``parallel_tool_calls=False`` streams passed on the first call to arrive)."""


def _stream_filter(forced: str | None, output: OutputTool | None,
                   tool_names: Collection[str] | None = None) -> OneCallStream:
    """The chunk filter of a request's stream (:class:`OneCallStream`)."""
    return OneCallStream(forced, output, tool_names)


def one_call_stream(chunks: Iterator[AIMessageChunk], forced: str | None = None,
                    output: OutputTool | None = None, tool_names: Collection[str] | None = None
                    ) -> Iterator[AIMessageChunk]:
    """``chunks`` through :class:`OneCallStream` (closed with them); ``forced``, ``output`` and ``tool_names`` as
    there."""
    kept = _stream_filter(forced, output, tool_names)
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
                                output: OutputTool | None = None, tool_names: Collection[str] | None = None
                                ) -> AsyncIterator[AIMessageChunk]:
    """Async :func:`one_call_stream`."""
    kept = _stream_filter(forced, output, tool_names)
    try:
        async for chunk in chunks:
            yield kept.filter(chunk)
    finally:
        close = getattr(chunks, "aclose", None)
        if close is not None:
            await close()
    if (last := kept.done()) is not None:
        yield last
