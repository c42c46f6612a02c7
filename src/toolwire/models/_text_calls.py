"""Tool calls that an OpenAI-compatible server left in the reply's text.

A server that does not parse the model's tool calls itself (vLLM without ``--enable-auto-tool-choice``,
llama.cpp server without ``--jinja``, a model whose format the server's parser does not know) sends them
as text. :class:`ChatOpenAI <toolwire.models.openai.ChatOpenAI>` reads them, the same way in ``invoke`` and
in ``stream``, only where a line *starts* with call syntax (after spaces):

* ``<tool_call>`` blocks (Hermes, Qwen; Qwen3-Coder's ``<function=NAME>`` tags inside them too),
  ``[TOOL_CALLS]`` (Mistral), ``<|python_tag|>`` (Llama 3), ``<function=NAME>`` (Llama 3.1, Qwen3-Coder): read
  in that format;
* a JSON call object or a list of them, bare or in a ```` ``` ```` / ```` ```json ```` fence;
* a Python list of calls, ``[get_weather(city="Oslo")]``, bare or in a ```` ```python ```` fence (just
  that list: a call inside other code or inside prose, ``result = f(x)``, is not a call).

Only bound tool names make a call (:func:`~toolwire.parsing.parse_tool_calls`); the first such line that
holds one is where the calls start. The prose before it is the reply's text; the text the parser leaves
after marked calls follows, after a blank line. JSON calls and Python call lists carry no marker, so they are
calls only where they end the reply (nothing but whitespace, or the closing fence, after them): followed by
more text ("...but I will not run it.", "Please confirm first."), they are an example the reply shows, and
stay text, since running them could do what the model declined to do.

A stream shows the text as it comes until a line starts with ``<``, ``{``, ``[``, a backtick or ``~``; from there
it is held back until the reply ends, then sent as the calls (and the text left), or as text when it holds
none. A reply with native ``tool_calls`` is never read again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator, Mapping
from typing import Any

from toolwire.messages import AIMessage, AIMessageChunk
from toolwire.models.lowering._common import native_call, split_calls
from toolwire.parsing import parse_tool_calls
from toolwire.parsing._calls import name_key
from toolwire.parsing._scan import python_span_end

__all__ = ["METADATA_KEY", "TextCallStream", "read_text_calls", "with_text_calls"]

METADATA_KEY = "tool_calls_from_text"
"""``response_metadata`` key set to True on a reply whose calls were read from its text."""

_MAYBE = re.compile(r"(?m)^[ \t]*[<{\[`~]")
"""A line that may open a call (the stream holds text back from the first one)."""

_MAYBE_HERE = re.compile(r"[ \t]*[<{\[`~]")

_CALL_LINE = re.compile(
    r"(?m)^[ \t]*(?:"
    r"(?P<hermes><tool_call>)|(?P<mistral>\[TOOL_CALLS\])|(?P<tag><\|python_tag\|>)|(?P<function><function=)"
    r"|(?:```(?:json)?[ \t]*\n\s*)?(?P<json>\{|\[\s*\{)"
    r"|(?:```(?:python|py)?[ \t]*\n\s*)?(?P<py>\[)\s*(?P<name>[A-Za-z_][\w.\-]*)\s*\("
    r")")
"""A line that starts with call syntax; the group that matched names the format."""

_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL)
"""A reasoning block (DeepSeek-R1, Qwen3, QwQ write ``<think>...</think>`` in the text when the server does
not split it out): calls drafted there are not calls the model made; an unclosed block runs to the end."""

_UNMARKED = frozenset({"json", "py"})
"""The call formats without a marker of their own: read only where the calls end the reply (review 57)."""

_FENCE_END = re.compile(r"\s*```")
_FENCE_ONLY = re.compile(r"\s*(?:```|~~~)?\s*(?:<\|[\w.-]+\|>\s*)*")
"""The text left after calls when it is only a closing fence (of an opening ``_CALL_LINE`` does not take in:
```` ```tool_code ```` (Gemma), ```` ```JSON ````, ``~~~json``, a CRLF reply) or an end-of-turn token a server
left in (``<|im_end|>``, ``<|eot_id|>``): the calls still end the reply."""
_OPENING_FENCE = re.compile(r"(?:^|\n)[ \t]*(?:```|~~~)[^\n`]*\s*$")
_NEXT_LIST = re.compile(r"[ \t]*\n\s*(?P<py>\[)\s*(?P<name>[A-Za-z_][\w.\-]*)\s*\(")


def _calls_at(text: str, match: re.Match[str], tool_names: Collection[str] | Mapping[str, Any],
              keys: Collection[str]) -> tuple[str, list[Any], list[Any], bool]:
    """Parse the calls that start at ``match`` (a :data:`_CALL_LINE` match; ``keys``: the tool names'
    :func:`name_key`): ``(text left after them, calls, invalid calls, whether the parser read to the end)``."""
    start = match.start()
    if match.group("py") is None:
        dialect = ("hermes" if match.group("hermes") else "mistral" if match.group("mistral")
                   else "function_tag" if match.group("function") else "json")
        parsed = parse_tool_calls(text[start:], tool_names, dialect=dialect)
        return parsed.content, parsed.tool_calls, parsed.invalid_tool_calls, True
    calls: list[Any] = []
    invalid: list[Any] = []
    bracket = match.start("py")
    to_end = False
    while True:  # the list, and any list of calls on the lines right after it
        end = python_span_end(text, bracket)
        if end < 0:  # cut off or unbalanced: what the parser makes of the rest (an invalid call, or nothing)
            end, to_end = len(text), True
        parsed = parse_tool_calls(text[bracket:end], tool_names, dialect="pythonic")
        calls += parsed.tool_calls
        invalid += parsed.invalid_tool_calls
        following = _NEXT_LIST.match(text, end)
        if following is None or name_key(following.group("name")) not in keys:
            break
        bracket = following.start("py")
    if "```" in text[start:match.start("py")] and (fence := _FENCE_END.match(text, end)):
        end = fence.end()
    return text[end:].strip(), calls, invalid, to_end


def read_text_calls(text: str,
                    tool_names: Collection[str] | Mapping[str, Any]) -> tuple[str, list[Any], list[Any]] | None:
    """The tool calls written in a reply's text, by the rules of this module.

    Args:
        text: the reply's text.
        tool_names: the bound tools' names; only they make a call. A mapping ``{name: parameters JSON
            Schema}`` also types raw values (Qwen3-Coder's ``<parameter=...>`` tags, see
            :mod:`toolwire.parsing.function_tags`).

    Returns:
        ``(content, tool_calls, invalid_tool_calls)``: the prose before the first line that starts with
        calls to bound tools (trailing whitespace removed), then, after a blank line, the text the parser
        left after them; the calls (arguments read as a native call's are, so a call wrapped twice,
        ``{"name": "f", "arguments": {...}}`` inside the arguments of ``f``, is unwrapped) and the calls that
        could not be read (an unknown name inside a call marker: the error lists the tools). None when no
        such line holds a call. Lines inside a ``<think>`` block (:data:`_THINK`) are never read.
    """
    if not tool_names:
        return None
    names = tool_names if isinstance(tool_names, Mapping) else tuple(tool_names)  # a mapping keeps the schemas
    keys = {name_key(n) for n in names}
    tried: set[str] = set()  # a marked or JSON format is parsed once, from its first line: the parser reads on
    thinking = [m.span() for m in _THINK.finditer(text)] if "<think>" in text else []
    for match in _CALL_LINE.finditer(text):
        if any(start <= match.start() < end for start, end in thinking):
            continue
        family = next(k for k in ("hermes", "mistral", "tag", "function", "json", "py") if match.group(k) is not None)
        if family in tried or (family == "py" and name_key(match.group("name")) not in keys):
            continue
        rest, calls, invalid, to_end = _calls_at(text, match, names, keys)
        head = text[:match.start()].rstrip()
        if not calls and not invalid:
            if to_end:  # the parser read on to the end: a later line of this family holds nothing new
                tried.add(family)
            continue
        if rest and family in _UNMARKED:
            if not _FENCE_ONLY.fullmatch(rest):  # text after unmarked calls: an example the reply talks about;
                continue  # a later line may still hold the calls that end the reply (review 60)
            rest, head = "", _OPENING_FENCE.sub("", head).rstrip()  # a fence the call line did not take in
        elif to_end:
            tried.add(family)
        records = [native_call(c["name"], json.dumps(c["args"], ensure_ascii=False, default=str), c["id"], names)
                   for c in calls]
        valid, bad = split_calls(records)
        return head + ("\n\n" if head and rest else "") + rest, valid, [*bad, *invalid]
    return None


def with_text_calls(message: AIMessage, tool_names: Collection[str] | Mapping[str, Any]) -> AIMessage:
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
    a whole reply (so the merged chunks equal what ``invoke`` returns). The work per chunk is proportional
    to the chunk (the text is scanned once).

    Args:
        tool_names: the bound tools' names, or a mapping ``{name: parameters JSON Schema}``
            (see :func:`read_text_calls`).
    """

    def __init__(self, tool_names: Collection[str] | Mapping[str, Any]) -> None:
        self.tool_names = dict(tool_names) if isinstance(tool_names, Mapping) else tuple(tool_names)
        self.text = ""
        self.shown = 0  # how much of ``text`` was sent on
        self.hold: int | None = None  # where the first line that may open a call starts
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
        before = len(self.text)
        self.text += chunk.content
        if self.hold is None:  # the line the new text continues, then the lines it starts
            line = self.text.rfind("\n", 0, before) + 1
            if _MAYBE_HERE.match(self.text, line):
                self.hold = line
            elif found := _MAYBE.search(self.text, before):
                self.hold = found.start()
        # shown: the text before the hold, without trailing whitespace (a last line that is only whitespace
        # so far may still open a call)
        end = len(self.text) if self.hold is None else self.hold
        while end > self.shown and self.text[end - 1].isspace():
            end -= 1
        piece = self.text[self.shown:end] if end > self.shown else ""
        self.shown = max(self.shown, end)
        yield AIMessageChunk(piece, usage=chunk.usage, response_metadata=chunk.response_metadata,
                             provider_data=chunk.provider_data, id=chunk.id, name=chunk.name)

    def finish(self) -> Iterator[AIMessageChunk]:
        """The rest of the reply: the calls read from the held text and the text left, or the held text."""
        found = None if self.native or self.hold is None else read_text_calls(self.text, self.tool_names)
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
