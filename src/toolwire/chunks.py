"""Streamed replies: :class:`AIMessageChunk` and :func:`merge_chunks` (re-exported by :mod:`toolwire.messages`).

A provider streams a reply as chunks: text fragments, tool-call argument fragments keyed by ``index``
(the OpenAI Chat Completions streaming shape, which LangChain core's ``tool_call_chunks`` also use),
usage and metadata. ``chunk_a + chunk_b`` merges two; :func:`merge_chunks` merges many in time linear
in the total text length, and ``merge_chunks(chunks).to_message()`` equals the reply ``invoke`` returns.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from toolwire.messages import (
    AIMessage,
    InvalidToolCall,
    ToolCall,
    ToolCallChunk,
    Usage,
    invalid_tool_call,
    tool_call,
)

__all__ = ["AIMessageChunk", "merge_chunks"]

class AIMessageChunk:
    """A piece of a streamed :class:`AIMessage`.

    Attributes:
        content: a text fragment.
        tool_call_chunks: :class:`ToolCallChunk` fragments (argument JSON text pieces).
        invalid_tool_calls: tool calls already known to be invalid (:class:`InvalidToolCall`, with
            their error), carried through merging unchanged, e.g. when a finished message is streamed.
        usage: token counts, usually only on the last chunk.
        response_metadata: provider details (finish reason, model).
        provider_data: provider-opaque data to keep on the final message.

    ``a + b`` merges two chunks; :func:`merge_chunks` merges many in linear time.
    """

    __slots__ = ("content", "id", "invalid_tool_calls", "provider_data", "response_metadata", "tool_call_chunks",
                 "usage")

    def __init__(
        self,
        content: str = "",
        *,
        tool_call_chunks: Sequence[ToolCallChunk] | None = None,
        invalid_tool_calls: Sequence[InvalidToolCall] | None = None,
        usage: Usage | None = None,
        response_metadata: dict[str, Any] | None = None,
        provider_data: dict[str, Any] | None = None,
        id: str | None = None,
    ) -> None:
        self.content = content
        self.tool_call_chunks = list(tool_call_chunks or ())
        self.invalid_tool_calls = list(invalid_tool_calls or ())
        self.usage = usage
        self.response_metadata = dict(response_metadata or {})
        self.provider_data = provider_data
        self.id = id

    def __add__(self, other: AIMessageChunk) -> AIMessageChunk:
        if not isinstance(other, AIMessageChunk):
            return NotImplemented
        return merge_chunks([self, other], as_chunk=True)  # type: ignore[return-value]

    def __repr__(self) -> str:
        return (f"AIMessageChunk(content={self.content!r}, tool_call_chunks={self.tool_call_chunks!r}"
                f"{', invalid_tool_calls=' + repr(self.invalid_tool_calls) if self.invalid_tool_calls else ''}"
                f"{', usage=' + repr(self.usage) if self.usage else ''})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AIMessageChunk):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def to_message(self) -> AIMessage:
        """Return the :class:`AIMessage` this (merged) chunk stands for.

        Each tool-call chunk's argument text is read with
        :func:`toolwire.parsing.arguments.normalize_arguments`; text that is not a JSON object becomes an
        :class:`InvalidToolCall` that keeps it. The chunk's own ``invalid_tool_calls`` follow.
        """
        from toolwire.errors import ToolCallParseError
        from toolwire.parsing.arguments import no_name_error, normalize_arguments

        calls: list[ToolCall] = []
        invalid: list[InvalidToolCall] = []
        for chunk in self.tool_call_chunks:
            name = chunk.get("name") or ""
            raw = chunk.get("args")
            try:
                args = normalize_arguments(raw)
            except ToolCallParseError as exc:
                invalid.append(invalid_tool_call(name or None, raw, chunk.get("id"), str(exc)))
                continue
            if not name:
                invalid.append(invalid_tool_call(None, raw, chunk.get("id"), no_name_error(None)))
                continue
            calls.append(tool_call(name, args, chunk.get("id")))
        invalid.extend(self.invalid_tool_calls)
        return AIMessage(
            self.content,
            tool_calls=calls,
            invalid_tool_calls=invalid,
            usage=self.usage,
            response_metadata=self.response_metadata,
            provider_data=self.provider_data,
            id=self.id,
        )


def _add_usage(a: Usage | None, b: Usage | None) -> Usage | None:
    if a is None:
        return b
    if b is None:
        return a
    out: dict[str, int] = dict(a)
    for key, value in b.items():
        out[key] = out.get(key, 0) + value
    return out  # type: ignore[return-value]


def merge_chunks(chunks: Iterable[AIMessageChunk], *, as_chunk: bool = True) -> AIMessageChunk | AIMessage:
    """Merge streamed chunks into one, in time linear in the total text length.

    Tool-call chunks are grouped by ``index`` (or by ``id`` when a provider sends no index); the
    first non-empty ``name`` and ``id`` win and the ``args`` fragments are concatenated in order.
    When every group has an index, the calls come out in index order. ``invalid_tool_calls`` of the
    chunks are concatenated.

    Args:
        chunks: the chunks in arrival order.
        as_chunk: return an :class:`AIMessageChunk` (default) or, when False, the final
            :class:`AIMessage` (``merge_chunks(...).to_message()``).

    Returns:
        The merged chunk, or the final message.
    """
    text: list[str] = []
    invalid: list[InvalidToolCall] = []
    groups: dict[Any, dict[str, Any]] = {}
    last_key: Any = None
    usage: Usage | None = None
    metadata: dict[str, Any] = {}
    provider_data: dict[str, Any] | None = None
    msg_id: str | None = None
    for chunk in chunks:
        if chunk.content:
            text.append(chunk.content)
        for part in chunk.tool_call_chunks:
            index = part.get("index")
            call_id = part.get("id")
            if index is not None:
                key: Any = ("i", index)
            elif call_id is not None:
                key = ("id", call_id)
                # a provider that streams ids only on the first piece: later id-less pieces follow it
            else:
                key = last_key if last_key is not None else ("i", 0)
            group = groups.get(key)
            if group is None:
                group = groups[key] = {"name": None, "id": None, "index": index, "args": []}
            if part.get("name") and not group["name"]:
                group["name"] = part["name"]
            if call_id and not group["id"]:
                group["id"] = call_id
            if part.get("args"):
                group["args"].append(part["args"])
            last_key = key
        if chunk.invalid_tool_calls:
            invalid.extend(chunk.invalid_tool_calls)
        if chunk.usage is not None:
            usage = _add_usage(usage, chunk.usage)
        if chunk.response_metadata:
            metadata.update(chunk.response_metadata)
        if chunk.provider_data:
            provider_data = {**(provider_data or {}), **chunk.provider_data}
        if chunk.id and msg_id is None:
            msg_id = chunk.id
    ordered = list(groups.values())
    if all(g["index"] is not None for g in ordered):
        ordered.sort(key=lambda g: g["index"])
    merged = AIMessageChunk(
        "".join(text),
        tool_call_chunks=[
            {"name": g["name"], "args": "".join(g["args"]), "id": g["id"], "index": g["index"],
             "type": "tool_call_chunk"}
            for g in ordered
        ],
        invalid_tool_calls=invalid,
        usage=usage,
        response_metadata=metadata,
        provider_data=provider_data,
        id=msg_id,
    )
    return merged if as_chunk else merged.to_message()
