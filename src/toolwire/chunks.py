"""Streamed replies: :class:`AIMessageChunk` and :func:`merge_chunks` (re-exported by :mod:`toolwire.messages`).

A provider streams a reply as chunks: text fragments, tool-call argument fragments keyed by ``index``
(the OpenAI Chat Completions streaming shape, which LangChain core's ``tool_call_chunks`` also use),
usage and metadata. ``chunk_a + chunk_b`` merges two; :func:`merge_chunks` merges many in time linear
in the total text length, and ``merge_chunks(chunks).to_message()`` equals the reply ``invoke`` returns
(:func:`toolwire.models.base.message_to_chunks` makes the chunks of a whole reply, field for field).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Sequence
from typing import Any, ClassVar

from toolwire._call_records import _call_list, _id_text, split_in_order
from toolwire._chunk_blocks import Block, ExtraFields, add_blocks, join_content
from toolwire._chunk_compat import ChunkLangChainAPI
from toolwire.errors import UserError
from toolwire.messages import (
    AIMessage,
    Content,
    InvalidToolCall,
    MessageText,
    ToolCall,
    ToolCallChunk,
    Usage,
    content_text,
    langchain_usage,
    new_tool_call_id,
)

__all__ = ["AIMessageChunk", "merge_chunks"]

class AIMessageChunk(ChunkLangChainAPI):
    """A piece of a streamed :class:`AIMessage`.

    Attributes:
        content: a text fragment (providers stream text this way), or a list of content blocks carried
            whole (``[{"type": "text", "text": ...}, {"type": "image", ...}]``, as in :class:`AIMessage`),
            e.g. when a finished message with such content is streamed. :attr:`text` is the text of either.
        tool_call_chunks: :class:`ToolCallChunk` fragments (argument JSON text pieces).
        invalid_tool_calls: tool calls already known to be invalid (:class:`InvalidToolCall`, with
            their error), carried through merging unchanged, e.g. when a finished message is streamed.
        usage: token counts, usually only on the last chunk.
        response_metadata: provider details (finish reason, model).
        provider_data: provider-opaque data to keep on the final message.
        id: the message id (the first one given wins).
        name: the speaker name of the message (the first one given wins).
        type: ``"AIMessageChunk"``, as LangChain's chunk says.

    The constructor also takes LangChain's keywords, read as :class:`AIMessage` reads them: ``usage_metadata``
    (LangChain's name for ``usage``) and ``additional_kwargs`` (kept in ``response_metadata["additional_kwargs"]``;
    OpenAI-format streamed calls there, ``[{"index", "id", "function": {"name", "arguments"}}]``, are read as the
    ``tool_call_chunks`` when those are not given, as LangChain reads them).

    ``a + b`` merges two chunks; :func:`merge_chunks` merges many in linear time.

    As on LangChain's ``AIMessageChunk``, a (merged) chunk also reads :attr:`tool_calls` (the calls its
    ``tool_call_chunks`` make, parsed as :meth:`to_message` parses them) and :attr:`usage_metadata`
    (LangChain's name for :attr:`usage`). Its ``invalid_tool_calls`` attribute stays the list carried
    through merging: calls whose streamed argument text cannot be read are in
    ``to_message().invalid_tool_calls`` (LangChain also lists them in the chunk's ``invalid_tool_calls``).
    LangChain's ``model_copy``, ``model_dump``, ``model_dump_json``, ``content_blocks`` and ``copy(update=...)``
    work too, with LangChain's chunk's keys and readings (:mod:`toolwire._chunk_compat`).

    Raises:
        UserError: ``tool_call_chunks`` or ``invalid_tool_calls`` (or ``additional_kwargs["tool_calls"]``) is one
            piece (a dict) rather than a list of them, or an item of ``additional_kwargs["tool_calls"]`` is no dict;
            both ``usage`` and a different ``usage_metadata``; a ``usage_metadata`` or ``additional_kwargs`` that
            is not a dict, or a token count in it that is not a whole number of 0 or more.
    """

    __slots__ = ("_made_ids", "content", "id", "invalid_tool_calls", "name", "provider_data", "response_metadata",
                 "tool_call_chunks", "usage")
    type: ClassVar[str] = "AIMessageChunk"  # LangChain's chunk's ``type``, which UI code reads (review 107)

    def __init__(
        self,
        content: Content = "",
        *,
        tool_call_chunks: Sequence[ToolCallChunk] | None = None,
        invalid_tool_calls: Sequence[InvalidToolCall] | None = None,
        usage: Usage | None = None,
        response_metadata: dict[str, Any] | None = None,
        provider_data: dict[str, Any] | None = None,
        id: str | None = None,
        name: str | None = None,
        usage_metadata: Usage | dict[str, Any] | None = None,
        additional_kwargs: dict[str, Any] | None = None,
    ) -> None:
        if usage_metadata is not None or additional_kwargs is not None:  # LangChain's keywords
            from toolwire._message_dicts import langchain_keywords

            raw_calls = None
            if isinstance(additional_kwargs, dict) and "tool_calls" in additional_kwargs:
                additional_kwargs = dict(additional_kwargs)
                raw_calls = additional_kwargs.pop("tool_calls")
            if not tool_call_chunks and raw_calls:  # (one call, not in a list, is refused as AIMessage refuses it)
                tool_call_chunks = [_raw_chunk(raw) for raw in _call_list(raw_calls, "additional_kwargs tool_calls",
                                                                          "AIMessageChunk")]
            _, invalid_tool_calls, usage, response_metadata, provider_data = langchain_keywords(
                None, invalid_tool_calls, usage, response_metadata, provider_data, usage_metadata, additional_kwargs,
                "AIMessageChunk")
        self.content = content if content is not None else ""
        self.tool_call_chunks = list(_call_list(tool_call_chunks, "tool_call_chunks", "AIMessageChunk"))
        self.invalid_tool_calls = list(_call_list(invalid_tool_calls, "invalid_tool_calls", "AIMessageChunk"))
        self.usage = usage
        self.response_metadata = dict(response_metadata or {})
        self.provider_data = provider_data
        self.id = id
        self.name = name
        # the ids made for tool-call chunks that have none, by position: every read of this chunk gives a call
        # the same id, while the chunks themselves keep None, so a later chunk's real id still wins in a merge
        self._made_ids: dict[int, str] = {}

    @property
    def text(self) -> MessageText:
        """The chunk's text (a ``str``): ``content`` if a string, else its text blocks joined with nothing between
        them, as LangChain joins them. ``chunk.text()`` gives the same text."""
        return MessageText(content_text(self.content))

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls of this (merged) chunk, as LangChain's ``AIMessageChunk.tool_calls`` gives them:
        ``to_message().tool_calls``, a new list of :class:`ToolCall` dicts each time it is read (its cost is
        linear in the argument text; merging does not compute it). A call whose argument text is not (yet)
        a JSON object is not among them (see :meth:`to_message`)."""
        return self.to_message().tool_calls

    @property
    def usage_metadata(self) -> Usage | None:
        """LangChain's name for :attr:`usage`, in LangChain's shape, as
        :attr:`toolwire.messages.AIMessage.usage_metadata` gives it (cached prompt tokens also as
        ``input_token_details["cache_read"]``)."""
        return langchain_usage(self.usage)

    def __add__(self, other: AIMessageChunk | list[AIMessageChunk]) -> AIMessageChunk:
        """Merge (:func:`merge_chunks`); a list of chunks is merged after this one, as LangChain's
        ``AIMessageChunk.__add__`` merges one (review 99)."""
        if isinstance(other, list) and all(isinstance(c, AIMessageChunk) for c in other):
            return merge_chunks([self, *other], as_chunk=True)  # type: ignore[return-value]
        if not isinstance(other, AIMessageChunk):
            return NotImplemented
        return merge_chunks([self, other], as_chunk=True)  # type: ignore[return-value]

    def __repr__(self) -> str:
        return (f"AIMessageChunk(content={self.content!r}, tool_call_chunks={self.tool_call_chunks!r}"
                f"{', invalid_tool_calls=' + repr(self.invalid_tool_calls) if self.invalid_tool_calls else ''}"
                f"{', usage=' + repr(self.usage) if self.usage else ''}"
                f"{', id=' + repr(self.id) if self.id is not None else ''}"
                f"{', name=' + repr(self.name) if self.name is not None else ''})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AIMessageChunk):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__ if k != "_made_ids")

    __hash__ = None  # type: ignore[assignment]

    def to_message(self, *, tool_names: Collection[str] | None = None) -> AIMessage:
        """Return the :class:`AIMessage` this (merged) chunk stands for.

        Tool-call chunks of one call that this chunk holds several pieces of (a provider's closing chunk may) are
        first merged into one, as :func:`merge_chunks` merges them (:func:`merge_call_pieces`), so a single chunk
        reads as the same calls as ``merge_chunks([chunk])``. Each call is read as a provider's whole reply reads
        its native call, by the same
        function (:func:`toolwire.models.lowering._common.native_call`, which runs
        :func:`toolwire.parsing.arguments.tool_call_from_native`): the name is stripped, the argument text
        goes through :func:`~toolwire.parsing.arguments.normalize_arguments`, arguments wrapped as
        ``{"name": <the call's name>, "arguments": {...}}`` are unwrapped, and a call with an empty name
        whose arguments wrap ``{"name", "arguments"}`` is read as that inner call. Text that is not a JSON
        object, or a call left without a name, becomes an :class:`InvalidToolCall` that keeps the text.
        The chunk's own ``invalid_tool_calls`` follow; a call chunk whose id is among those with a cut-off error
        (:data:`~toolwire.models.lowering._calls.CUT_OFF`, ``STREAM_CUT``), or among any of them when the reply
        stopped at ``max_tokens`` (``response_metadata["finish_reason"]``), is left out: the stream declared it
        invalid at its end, as Anthropic's codec does for the call a reply stopped at ``max_tokens`` was cut off in,
        and OpenAI's for a call whose arguments a token limit or the stream's end cut off (which would read as
        ``{}`` or as merely invalid JSON). In a reply that stopped at the output token limit (``finish_reason``
        ``length``, ``max_tokens``, ``MAX_TOKENS``), the last call chunk, when its argument text is empty or
        unclosed, is invalid with that cut-off error, as a provider codec reads it, rather than a call with ``{}``
        (an earlier call, which another followed, was not cut). A call chunk
        without an id is given a new one, once:
        it is kept with this chunk (not written into its tool-call chunk, so a real id in a later chunk still
        wins when they are merged), so every read gives the same id. Other ids are kept as they are: the provider
        codecs have already renamed repeated ones (:class:`~toolwire.models.lowering._common.CallIds`), and a finished
        message streamed by :func:`~toolwire.models.base.message_to_chunks` comes back with its own.

        Args:
            tool_names: the bound tools' names, listed in the error of a call that has no name, as
                ``parse_response(..., tool_names=...)`` lists them (``None``: not known, the error names
                no tools).

        Returns:
            The AIMessage: this chunk's content, the calls read from its tool-call chunks, then its invalid
            calls, its usage and metadata.

        Raises:
            TypeError, UserError: the chunk's content or its invalid calls cannot make an AIMessage (as
                :class:`~toolwire.messages.AIMessage` raises them).
        """
        from toolwire._agent_checks import LENGTH_REASONS
        from toolwire.models.lowering._calls import CUT_OFF, STREAM_CUT
        from toolwire.models.lowering._common import native_call

        records: list[ToolCall | InvalidToolCall] = []
        # in a reply that was cut short, a call the stream declared invalid at its end is that, not a call to run
        reason = self.response_metadata.get("finish_reason")
        cut = reason in ("max_tokens", "model_context_window_exceeded")  # (Anthropic: review 136 #4)
        limit = isinstance(reason, str) and reason.lower() in LENGTH_REASONS  # there, empty argument text is cut off
        declared = {bad.get("id") for bad in self.invalid_tool_calls if isinstance(bad, dict) and bad.get("id")
                    and (cut or bad.get("error") in (CUT_OFF, STREAM_CUT))}
        pieces = self.tool_call_chunks
        if len(pieces) > 1:  # several pieces of one call in this chunk (a provider's closing chunk, or a chunk made
            pieces = merge_call_pieces(pieces)  # by hand) are one call, as merge_chunks reads them (review 159 #1)
        for position, chunk in enumerate(pieces):
            if chunk.get("id") and chunk.get("id") in declared:
                continue
            if not chunk.get("id"):  # one new id, kept with this chunk: every read gives the call the same id, so
                # results already given for it still answer it (review 33); the chunk's own part keeps None, so
                # the provider's id in a later chunk still wins when they are merged (review 41)
                made = self._made_ids.get(position)
                if made is None:
                    made = self._made_ids[position] = new_tool_call_id()
                chunk = {**chunk, "id": made}  # type: ignore[typeddict-item]
            last = position == len(pieces) - 1  # a call another followed was not cut (review 82)
            records.append(native_call(chunk.get("name"), chunk.get("args"), chunk.get("id"), tool_names,
                                       cut=limit and last))
        calls, invalid = split_in_order(records)  # an invalid call before a valid one keeps its place (index)
        invalid.extend(self.invalid_tool_calls)
        return AIMessage(
            self.content,
            tool_calls=calls,
            invalid_tool_calls=invalid,
            usage=self.usage,
            response_metadata=self.response_metadata,
            provider_data=self.provider_data,
            id=self.id,
            name=self.name,
        )


_PROVISIONAL: OrderedDict[str, None] = OrderedDict()  # the ids provisional_call_id made, most recent last
_PROVISIONAL_LIMIT = 4096  # the most recent ones remembered (a merge reads them right after the stream)
_PROVISIONAL_LOCK = threading.Lock()


def provisional_call_id() -> str:
    """A new call id for a streamed call whose first piece came without the provider's: remembered, so that
    :func:`merge_chunks` gives the call the provider's id when a later piece of the call brings it, as the stream
    itself does (:class:`~toolwire.models.lowering._stream.ToolCallMerger`) and as ``invoke`` reads the whole reply
    (review 142 #1).

    Returns:
        A new id (:func:`~toolwire.messages.new_tool_call_id`'s form).
    """
    call_id = new_tool_call_id()
    with _PROVISIONAL_LOCK:
        _PROVISIONAL[call_id] = None
        while len(_PROVISIONAL) > _PROVISIONAL_LIMIT:
            _PROVISIONAL.popitem(last=False)
    return call_id


def is_provisional(call_id: Any) -> bool:
    """Whether ``call_id`` was made by :func:`provisional_call_id` (and is still remembered)."""
    with _PROVISIONAL_LOCK:
        return isinstance(call_id, str) and call_id in _PROVISIONAL


def _raw_chunk(raw: dict[str, Any]) -> ToolCallChunk:
    """One OpenAI-format streamed call (``{"index", "id", "function": {"name", "arguments"}}``, the Chat Completions
    ``delta.tool_calls`` item LangChain keeps in ``additional_kwargs``) as a :class:`ToolCallChunk`."""
    if not isinstance(raw, dict):
        raise UserError(f"AIMessageChunk additional_kwargs tool_calls holds {type(raw).__name__} where a streamed call "
                        "is a dict {'index', 'id', 'function': {'name', 'arguments'}}: fix or remove it.")
    function = raw.get("function") if isinstance(raw.get("function"), dict) else {}
    return ToolCallChunk(name=function.get("name"), args=function.get("arguments"), id=raw.get("id"),
                         index=raw.get("index"), type="tool_call_chunk")


def _add_usage(a: Any, b: Any) -> Any:
    """The usage of two chunks together: token counts (ints) summed key by key, nested dicts (a custom model's
    LangChain-style ``input_token_details``) merged the same way; any other value (``None``, text) is kept,
    the later non-None one winning, so odd usage never fails the merge (review 26)."""
    if a is None:
        return b
    if b is None:
        return a
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return b
    out: dict[str, Any] = dict(a)
    for key, value in b.items():
        old = out.get(key)
        if _is_count(old) and _is_count(value):
            out[key] = old + value
        elif isinstance(old, dict) and isinstance(value, dict):
            out[key] = _add_usage(old, value)
        elif value is not None or key not in out:
            out[key] = value
    return out


def _is_count(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class _Calls:
    """The tool calls of a stream being merged: which call each :class:`ToolCallChunk` belongs to.

    A piece with an ``index`` joins the call its ``id`` opened on that index (the latest one, when the id
    opened several there), else the call open on that index; one with only an ``id`` joins the latest call
    with that id; one with neither continues the last call. An id seen on another index does not count:
    a new index is a new call, whatever its id (DeepSeek, GLM, Kimi and OpenRouter reuse one id across
    parallel calls). A piece that does not carry the id of the call it would join starts a new call
    instead when it has a name and that call has argument text but no name, or another name, or complete
    JSON arguments while the piece brings a new id or argument text. That keeps apart a provider's index 0
    reused for every parallel call (Ollama) and whole calls sent one per chunk with no index or id, while
    pieces whose id changes on every delta of one call (Poolside, mlx-openai-server, vLLM gpt-oss) stay
    one call, as the OpenAI SDK and LangChain merge them by index. A piece with the call's own id starts a
    new call only when that call has a name and the piece another, or the same name with argument text
    after complete JSON (OpenRouter: one id and index 0 for every parallel call). A repeated name with
    nothing else joins the call; another name on the call's index from a piece with no id, before any
    argument text, is the next piece of the name (:func:`continues_name`). Ids are kept as given (the provider
    codecs have made them unique).
    """

    __slots__ = ("by_id", "by_index", "by_key", "groups", "last")

    def __init__(self) -> None:
        self.groups: list[dict[str, Any]] = []
        self.by_index: dict[Any, dict[str, Any]] = {}  # index -> the call now open on it
        self.by_key: dict[tuple[Any, str], dict[str, Any]] = {}  # (index, id) -> the latest call it opened
        self.by_id: dict[str, dict[str, Any]] = {}  # id -> the latest call with that id
        self.last: dict[str, Any] | None = None

    def add(self, part: ToolCallChunk) -> None:
        """File one piece under its call (a new one when it starts one).

        Odd fields are read as what they stand for, never failing the merge: an ``index`` that is a numeral
        string counts as that number (any other non-integer index as none), an ``id`` that is not a string as
        its text (as :class:`~toolwire.messages.AIMessage` keeps call ids), decoded ``args`` (a dict or list)
        as their JSON text.
        """
        index = part.get("index")
        if type(index) is not int and index is not None:
            index = _index(index)
        call_id = part.get("id") or None
        if call_id is not None and type(call_id) is not str:
            call_id = _id_text(call_id) or None  # a number (some servers) as its text, as AIMessage keeps it
        name = part.get("name") or None
        if name is not None and type(name) is not str:
            name = None
        if index is not None:
            group = self.by_key.get((index, call_id)) if call_id else None
            if group is not None:
                if _starts_new_call(group, part, same_id=True):
                    group = None  # the next call under the same id
            else:
                group = self.by_index.get(index)
                if group is not None and _starts_new_call(group, part):
                    group = None  # the index is reused for the next call
        elif call_id:
            group = self.by_id.get(call_id)
            if group is not None and _starts_new_call(group, part, same_id=True):
                group = None
        else:  # no index, no id: a named piece after a named call starts the next one (as ToolCallMerger)
            group = self.last
            if group is not None and (_starts_new_call(group, part) or (
                    name and group["name"] and name != group["name"])):
                group = None
        if group is None:
            group = {"name": None, "id": None, "index": index, "args": [], "parser": None, "fed": 0}
            self.groups.append(group)
        if index is not None:
            self.by_index[index] = group
        if name and not group["name"]:
            group["name"] = name
        elif name and index is not None and continues_name(group["name"], bool(group["args"]), name, call_id):
            group["name"] += name  # the name streamed in pieces on one index (the group was kept: no id came)
        if call_id and (not group["id"] or (call_id != group["id"] and is_provisional(group["id"])
                                            and not is_provisional(call_id))):
            group["id"] = call_id  # (the provider's id replaces one a stream made before it came: review 142 #1)
            self.by_id[call_id] = group
            if index is not None:
                self.by_key[index, call_id] = group
        args = part.get("args")
        if args:
            group["args"].append(args if type(args) is str else _args_text(args))
        self.last = group

    def chunks(self) -> list[ToolCallChunk]:
        """The merged calls, in index order when every call has an index (else in the order they started)."""
        ordered = self.groups
        if all(g["index"] is not None for g in ordered):
            ordered = sorted(ordered, key=lambda g: g["index"])
        return [{"name": g["name"], "args": "".join(g["args"]), "id": g["id"], "index": g["index"],
                 "type": "tool_call_chunk"} for g in ordered]


def merge_call_pieces(pieces: Iterable[ToolCallChunk]) -> list[ToolCallChunk]:
    """The streamed tool-call pieces ``pieces`` merged into one piece per call, by the rule :func:`merge_chunks`
    follows (:class:`_Calls`): what one chunk holding them all reads as, whichever provider made it.

    Args:
        pieces: :class:`ToolCallChunk` dicts in arrival order (odd fields read as :meth:`_Calls.add` reads them).

    Returns:
        One ``{"name", "args", "id", "index", "type": "tool_call_chunk"}`` per call, the argument text joined, in
        index order when every call has an index (else in the order the calls started).
    """
    calls = _Calls()
    for part in pieces:
        calls.add(part)
    return calls.chunks()


def _args_text(value: Any) -> str:
    """A chunk's ``args`` as text: a str subclass as its string, decoded arguments as their JSON text."""
    if isinstance(value, str):
        return str(value)
    return json.dumps(value, ensure_ascii=False, default=str)


def _index(value: Any) -> int | None:
    """A chunk's ``index`` as an int (a numeral string too), else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdecimal():
        return int(value)
    return None


def _starts_new_call(group: dict[str, Any], part: ToolCallChunk, same_id: bool = False) -> bool:
    """Whether ``part``, which would join ``group``, starts another call: it has a name, and ``group`` has
    argument text but no name, or another name, or complete JSON arguments while the piece brings a new id
    or more argument text. With the group's own id (``same_id``) the piece must bring another name, or
    the same one with more argument text after complete JSON (the same rule as ``ToolCallMerger``)."""
    name = part.get("name")
    if not name:
        return False
    if not group["name"]:
        return not same_id and bool(group["args"])
    if part.get("index") is not None and continues_name(group["name"], bool(group["args"]), name, part.get("id")):
        return False  # the name streamed in pieces: only on an index, and only by a piece with no id
    if name != group["name"]:
        return True
    if not ((part.get("id") and not same_id) or part.get("args")):
        return False  # a repeated name and nothing else: nothing to tell apart
    if same_id and not opens_value(part.get("args")):
        return False  # whitespace after complete arguments continues the call (as ToolCallMerger reads it)
    # the arguments so far are read once, and only when a repeated name asks (linear in total)
    from toolwire.parsing.partial_json import PartialJSONParser

    parser = group["parser"] = group["parser"] or PartialJSONParser()
    for fragment in group["args"][group["fed"]:]:
        parser.feed(fragment, build=False)
    group["fed"] = len(group["args"])
    return bool(parser.complete)


def continues_name(current: str | None, has_args: bool, name: str, other_id: Any) -> bool:
    """Whether a streamed piece's ``name`` is the next piece of the call's name rather than another call.

    Args:
        current: the call's name so far (``None``: no name yet, nothing to continue).
        has_args: whether the call has any argument text yet.
        name: the piece's name.
        other_id: the piece's id, if any: a piece with an id (even the call's own: OpenRouter, DeepSeek, GLM
            and Kimi send parallel calls under one id) is never a name piece, since OpenAI sends the id only
            with the first piece of a call.

    Returns:
        True when the call has a name and no argument text, the piece brings another name and no id:
        the OpenAI Chat Completions stream may split ``function.name`` over deltas, and the official SDK's
        stream accumulator joins the pieces. A name equal to the call's is a repeat (some servers send the
        name on every delta), never joined.
    """
    return bool(current) and not has_args and name != current and not other_id


def opens_value(args: Any) -> bool:
    """Whether a streamed piece's arguments start a JSON object or array (a decoded one counts): under the
    id of a call whose arguments are complete, such a piece starts another call, while whitespace or
    other text continues the one it follows (``merge_chunks`` and ``ToolCallMerger`` alike)."""
    if isinstance(args, dict | list):
        return True
    return isinstance(args, str) and args.lstrip()[:1] in ("{", "[")


def merge_chunks(chunks: Iterable[AIMessageChunk], *, as_chunk: bool = True,
                 tool_names: Collection[str] | None = None) -> AIMessageChunk | AIMessage:
    """Merge streamed chunks into one, in time linear in the total text length.

    Text fragments are concatenated. When a chunk's content is a list of blocks, the merged content is a
    list: the blocks in order, with the text fragments between them as ``{"type": "text", "text"}``
    blocks. Tool-call chunks are grouped by ``index`` (or by ``id`` when a provider sends no index; a
    piece with neither continues the last call), whatever other ids a provider puts on later pieces of a
    call; a new index is a new call even when its id repeats. A piece that does not carry the id of the
    call it would join starts a new call when it has a name and that call has argument text but no name,
    or another name, or complete JSON arguments while the piece brings a new id or argument text (an
    index reused for the next call, or whole calls sent one per chunk); one with the call's own id starts
    a new call when it brings another name, or the same name with argument text after complete JSON (one
    id for every call on index 0). The first non-empty ``name`` and ``id`` of a call win (but for an id a provider
    stream made for a call whose first piece came without one, which the provider's id in a later piece replaces,
    as the stream does) and its ``args`` fragments are concatenated in order. When every call has an index, the
    calls come out in index order.
    ``invalid_tool_calls`` are concatenated, ``usage`` is summed (token counts key by key, nested dicts alike;
    a value that is not a number, such as None, is kept rather than added), ``response_metadata`` and
    ``provider_data`` are updated in order (a ``response_metadata`` value of None does not replace an earlier value,
    so a usage chunk's ``finish_reason: None`` keeps the reason, as LangChain keeps it), but for
    ``response_metadata["additional_kwargs"]`` (LangChain's extra reply fields), merged key by key with the text
    pieces of a key joined (a streamed ``reasoning_content``), as LangChain's ``merge_dicts`` merges them; the first
    message ``id`` and ``name`` given win.

    Args:
        chunks: the chunks in arrival order.
        as_chunk: return an :class:`AIMessageChunk` (default) or, when False, the final
            :class:`AIMessage` (``merge_chunks(...).to_message(tool_names=tool_names)``).
        tool_names: with ``as_chunk=False``, the bound tools' names, listed in the error of a call that
            has no name (see :meth:`AIMessageChunk.to_message`).

    Returns:
        The merged chunk, or the final message.
    """
    text: list[str] = []
    blocks: list[Any] | None = None
    indexed: dict[int | str, Block] | None = None  # the blocks merged by their index
    invalid: list[InvalidToolCall] = []
    calls = _Calls()
    usage: Usage | None = None
    metadata: dict[str, Any] = {}
    provider_data: dict[str, Any] | None = None
    msg_id: str | None = None
    name: str | None = None
    extra: ExtraFields | None = None  # LangChain's additional_kwargs, merged key by key
    for chunk in chunks:
        content = chunk.content
        if isinstance(content, list):
            blocks = blocks if blocks is not None else []
            if text:
                blocks.append({"type": "text", "text": "".join(text)})
                text = []
            indexed = add_blocks(blocks, content, indexed)
        elif content:
            text.append(content)
        for part in chunk.tool_call_chunks:
            calls.add(part)  # (merge_call_pieces of all the chunks' pieces, read as they come)
        if chunk.invalid_tool_calls:
            invalid.extend(chunk.invalid_tool_calls)
        if chunk.usage is not None:
            usage = _add_usage(usage, chunk.usage)
        if chunk.response_metadata:
            metadata.update({k: v for k, v in chunk.response_metadata.items() if v is not None or k not in metadata})
            if isinstance(kept := chunk.response_metadata.get("additional_kwargs"), dict):
                extra = ExtraFields() if extra is None else extra
                extra.add(kept)
        if chunk.provider_data is not None:
            provider_data = {**(provider_data or {}), **chunk.provider_data}
        if chunk.id is not None and not msg_id:
            msg_id = chunk.id
        if chunk.name is not None and not name:
            name = chunk.name
    if extra is not None:
        metadata["additional_kwargs"] = extra.merged()
    merged = AIMessageChunk(
        join_content(text, blocks),
        tool_call_chunks=calls.chunks(),
        invalid_tool_calls=invalid,
        usage=usage,
        response_metadata=metadata,
        provider_data=provider_data,
        id=msg_id,
        name=name,
    )
    return merged if as_chunk else merged.to_message(tool_names=tool_names)
