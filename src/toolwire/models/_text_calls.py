"""Tool calls that an OpenAI-compatible server left in the reply's text.

A server that does not parse the model's tool calls itself (vLLM without ``--enable-auto-tool-choice``,
llama.cpp server without ``--jinja``, a model whose format the server's parser does not know) sends them
as text: ``<tool_call>{"name": ...}</tool_call>``, a ```` ```json ```` block, ``[get_weather(city="Oslo")]``.
:class:`ChatOpenAI <toolwire.models.openai.ChatOpenAI>` reads them with
:func:`~toolwire.parsing.parse_tool_calls` (bound tool names only), the same way in ``invoke`` and in
``stream``:

* A call is looked for from the first line that opens with ``<``, ``{``, ``[`` or a code fence (after
  whitespace): prose before it is the reply's text; the rest is parsed, and the text the parser leaves
  (prose after the calls) follows, after a blank line.
* A stream shows text as it comes until such a line starts; from there the text is held back until the
  reply ends, then sent as the calls (and the text left), or as text when it holds no call.
* A reply that carries native ``tool_calls`` is never read again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator
from typing import Any

from toolwire.messages import AIMessage, AIMessageChunk
from toolwire.parsing import parse_tool_calls

__all__ = ["TextCallStream", "read_text_calls"]

_OPENING = re.compile(r"(?m)^[ \t]*(?:[<{\[]|```)")
"""A line that may open a call: ``<tool_call>``, ``<|python_tag|>``, ``{"name"``, ``[TOOL_CALLS]``,
``[f(...)]``, a code fence."""

METADATA_KEY = "tool_calls_from_text"
"""``response_metadata`` key set to True on a reply whose calls were read from its text."""


def _cut(text: str) -> int:
    """Where the first line that may open a call starts (``len(text)``: none)."""
    found = _OPENING.search(text)
    return found.start() if found else len(text)


def read_text_calls(text: str, tool_names: Collection[str]) -> tuple[str, list[Any], list[Any]] | None:
    """The tool calls written in a reply's text.

    Args:
        text: the reply's text.
        tool_names: the bound tools' names; only they make a call.

    Returns:
        ``(content, tool_calls, invalid_tool_calls)``: the prose before the first line that may open a call
        (trailing whitespace removed), then, after a blank line, the text the parser left after the calls;
        the calls as :func:`~toolwire.parsing.parse_tool_calls` reads them. None when the text holds no
        call (not even an unreadable one inside a call marker).
    """
    cut = _cut(text)
    if cut == len(text) or not tool_names:
        return None
    parsed = parse_tool_calls(text[cut:], tool_names)
    if not parsed.tool_calls and not parsed.invalid_tool_calls:
        return None
    head = text[:cut].rstrip()
    rest = parsed.content
    return head + ("\n\n" if head and rest else "") + rest, parsed.tool_calls, parsed.invalid_tool_calls


def with_text_calls(message: AIMessage, tool_names: Collection[str]) -> AIMessage:
    """``message`` with the calls its text holds (:func:`read_text_calls`) moved into ``tool_calls``, when it
    has no native calls and its content is a string; else ``message`` unchanged."""
    if message.tool_calls or message.invalid_tool_calls or not isinstance(message.content, str):
        return message
    found = read_text_calls(message.content, tool_names)
    if found is None:
        return message
    content, calls, invalid = found
    return message.copy(content=content, tool_calls=calls, invalid_tool_calls=invalid,  # type: ignore[return-value]
                        response_metadata={**message.response_metadata, METADATA_KEY: True})


class TextCallStream:
    """Reads the calls left in a streamed reply's text, chunk by chunk, as :func:`with_text_calls` does for
    a whole reply (so the merged chunks equal what ``invoke`` returns).

    Args:
        tool_names: the bound tools' names.
    """

    def __init__(self, tool_names: Collection[str]) -> None:
        self.tool_names = tuple(tool_names)
        self.text = ""
        self.shown = 0  # how much of ``text`` was sent on
        self.native = False  # the server sent calls of its own (or content that is not text)

    def feed(self, chunk: AIMessageChunk) -> Iterator[AIMessageChunk]:
        """Pass ``chunk`` on, holding back the text from the first line that may open a call."""
        if chunk.tool_call_chunks or chunk.invalid_tool_calls or not isinstance(chunk.content, str):
            if not self.native:
                self.native = True
                yield from self._flush()
            yield chunk
            return
        if self.native or not chunk.content:
            yield chunk
            return
        self.text += chunk.content
        # the text before the first possible opening, without its trailing whitespace (a last line that is
        # only whitespace so far may still open one)
        end = len(self.text[:_cut(self.text)].rstrip())
        piece = self.text[self.shown:end] if end > self.shown else ""
        self.shown = max(self.shown, end)
        yield AIMessageChunk(piece, usage=chunk.usage, response_metadata=chunk.response_metadata,
                             provider_data=chunk.provider_data, id=chunk.id, name=chunk.name)

    def finish(self) -> Iterator[AIMessageChunk]:
        """The rest of the reply: the calls read from the held text and the text left, or the held text."""
        found = None if self.native else read_text_calls(self.text, self.tool_names)
        if found is None:
            yield from self._flush()
            return
        content, calls, invalid = found
        chunks = [{"name": call["name"], "args": json.dumps(call["args"], ensure_ascii=False, default=str),
                   "id": call["id"], "index": index, "type": "tool_call_chunk"} for index, call in enumerate(calls)]
        yield AIMessageChunk(content[self.shown:], tool_call_chunks=chunks,  # type: ignore[arg-type]
                             invalid_tool_calls=invalid, response_metadata={METADATA_KEY: True})

    def _flush(self) -> Iterator[AIMessageChunk]:
        if len(self.text) > self.shown:
            yield AIMessageChunk(self.text[self.shown:])
        self.shown = len(self.text)
