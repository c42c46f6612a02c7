"""Streamed replies: :class:`AIMessageChunk` and :func:`merge_chunks` (re-exported by :mod:`toolwire.messages`).

A provider streams a reply as chunks: text fragments, tool-call argument fragments keyed by ``index``
(the OpenAI Chat Completions streaming shape, which LangChain core's ``tool_call_chunks`` also use),
usage and metadata. ``chunk_a + chunk_b`` merges two; :func:`merge_chunks` merges many in time linear
in the total text length, and ``merge_chunks(chunks).to_message()`` equals the reply ``invoke`` returns
(:func:`toolwire.models.base.message_to_chunks` makes the chunks of a whole reply, field for field).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any, ClassVar, Literal, overload

from toolwire._call_records import _call_list, split_in_order
from toolwire._chunk_blocks import Block, add_blocks, join_content
from toolwire._chunk_calls import (  # noqa: F401 (re-exported: the stream codecs and _one_call import them here)
    _Calls,
    continues_name,
    is_provisional,
    merge_call_pieces,
    opens_value,
    provisional_call_id,
)
from toolwire._chunk_compat import ChunkLangChainAPI
from toolwire._kwargs_merge import ExtraFields
from toolwire._message_keywords import checked_usage
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
        usage: token counts, usually only on the last chunk (kept as a copy, read as :class:`AIMessage` reads its
            ``usage``: a missing ``total_tokens`` is the sum of this chunk's counts, so merged chunks add up to the
            reply's total even when the input and output counts come in different chunks).
        response_metadata: provider details (finish reason, model).
        provider_data: provider-opaque data to keep on the final message.
        id: the message id (the first one given wins).
        name: the speaker name of the message (the first one given wins).
        type: ``"AIMessageChunk"``, as LangChain's chunk says.

    The constructor also takes LangChain's keywords, read as :class:`AIMessage` reads them: ``usage_metadata``
    (LangChain's name for ``usage``) and ``additional_kwargs`` (kept in ``response_metadata["additional_kwargs"]``;
    OpenAI-format streamed calls there, ``[{"index", "id", "function": {"name", "arguments"}}]``, are read as the
    ``tool_call_chunks`` when those are not given, as LangChain reads them; a legacy ``function_call`` stays there,
    merged piece by piece, and :meth:`to_message` reads it as the one call when there are no call chunks), and the
    other keys its own
    :meth:`model_dump` writes, so ``AIMessageChunk(**chunk.model_dump())`` rebuilds it (review 195 #5): ``type``
    (``"AIMessageChunk"``), ``tool_calls`` (the calls the chunks make; given without chunks, they become chunks of
    their own, and one typed ``"invalid_tool_call"`` an invalid call, as :class:`AIMessage` reads it) and
    ``chunk_position`` (None or ``"last"``).

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
            both ``usage`` and a different ``usage_metadata``; a ``usage``, ``usage_metadata`` or
            ``additional_kwargs`` that is not a dict, or a token count in the first two that is not a whole number of
            0 or more; a ``type`` other than ``"AIMessageChunk"``, a ``chunk_position`` other than None or ``"last"``.
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
        type: str | None = None,
        tool_calls: Sequence[ToolCall] | None = None,
        chunk_position: str | None = None,
    ) -> None:
        if type is not None or tool_calls is not None or chunk_position is not None:  # its own model_dump()'s keys
            tool_call_chunks, given_invalid = _dumped_keys(type, tool_calls, chunk_position, tool_call_chunks)
            if tool_call_chunks and invalid_tool_calls:  # a dump's reading of its chunks is no call of its own
                invalid_tool_calls = _not_read_from(tool_call_chunks, invalid_tool_calls)
            if given_invalid:  # calls typed "invalid_tool_call": invalid, never read as calls (review 201 #2)
                invalid_tool_calls = [*_call_list(invalid_tool_calls, "invalid_tool_calls", "AIMessageChunk"),
                                      *given_invalid]
        if usage is not None:  # read once here, as AIMessage reads it: a missing total is the sum (review 291 #1)
            usage = checked_usage(usage, "AIMessageChunk")
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
        reads as the same calls as ``merge_chunks([chunk])``; a call sent again (its id, name and the same arguments)
        is left out, and so is a copy of it whose text never completed. Each call is read as a provider's whole reply
        reads its native call, by the same function (:func:`toolwire.models.lowering._common.native_call`, which runs
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
                no tools), and telling two calls on one index apart as :func:`merge_chunks` does (also when the
                chunk was merged without them: it keeps the pieces of a name joined on one index).

        Returns:
            The AIMessage: this chunk's content, the calls read from its tool-call chunks, then its invalid
            calls, its usage and metadata.

        Raises:
            TypeError, UserError: the chunk's content or its invalid calls cannot make an AIMessage (as
                :class:`~toolwire.messages.AIMessage` raises them).
        """
        calls, invalid = self._read_calls(tool_names)
        metadata = self.response_metadata
        if not calls and not self.tool_call_chunks:  # OpenAI's legacy function_call, merged whole: the one call
            from toolwire._legacy_calls import legacy_call  # (review 304 #1)

            extra = metadata.get("additional_kwargs")
            if (read := legacy_call(extra, self.id)) is not None:
                calls, invalid = read[0], [*read[1], *invalid]
                kept = {k: v for k, v in extra.items() if k != "function_call"}
                metadata = {**metadata, "additional_kwargs": kept} if kept else \
                    {k: v for k, v in metadata.items() if k != "additional_kwargs"}
        return AIMessage(
            self.content,
            tool_calls=calls,
            invalid_tool_calls=invalid,
            usage=self.usage,
            response_metadata=metadata,
            provider_data=self.provider_data,
            id=self.id,
            name=self.name,
        )

    def _read_calls(self, tool_names: Collection[str] | None = None) -> tuple[list[ToolCall], list[InvalidToolCall]]:
        """The ``(tool_calls, invalid_tool_calls)`` of :meth:`to_message` (see there), without making the message:
        the calls read from the tool-call chunks, then the invalid ones, the chunk's own last. Never raises for the
        content (:meth:`~toolwire._chunk_compat.ChunkLangChainAPI.model_dump` reads the calls so, review 203 #3)."""
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
            pieces = merge_call_pieces(pieces, tool_names)  # by hand) are one call, as merge_chunks reads them
            # (review 159 #1)
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
        return calls, invalid


def _dumped_keys(kind: Any, tool_calls: Any, chunk_position: Any, tool_call_chunks: Sequence[ToolCallChunk] | None
                 ) -> tuple[Sequence[ToolCallChunk] | None, list[InvalidToolCall]]:
    """Check the keys of LangChain's chunk that :meth:`AIMessageChunk.model_dump` writes and the constructor is given
    back (``AIMessageChunk(**chunk.model_dump())``, LangChain's ``messages_from_dict``: review 195 #5), and return the
    ``tool_call_chunks`` to make the chunk with: those given, or, when none are, chunks of ``tool_calls`` (each call's
    arguments as JSON text, no index), as LangChain makes them; calls given beside chunks are the chunks' own
    reading, so the chunks win, as on LangChain's chunk. An entry of ``tool_calls`` typed ``"invalid_tool_call"``
    is no chunk but an invalid call, as :class:`AIMessage` reads it (its arguments as text, an error; an ``index``
    when a call follows it; review 201 #2).

    Returns:
        ``(tool_call_chunks, invalid calls to add to the chunk's invalid_tool_calls)``.

    Raises:
        UserError: ``kind`` (``type``) is not ``"AIMessageChunk"``, ``chunk_position`` is not None or ``"last"``, or
            ``tool_calls`` is not a list of call dicts.
    """
    import json

    from toolwire._call_records import _checked_call

    if kind is not None and kind != "AIMessageChunk":
        raise UserError(f"AIMessageChunk was given type={str(kind)[:40]!r}, but its type is 'AIMessageChunk': leave "
                        "type out, or make the message class of that type (message_from_dict picks it).")
    if chunk_position not in (None, "last"):
        raise UserError(f"AIMessageChunk was given chunk_position={str(chunk_position)[:40]!r}: leave it out, or "
                        "give None or 'last' (toolwire reads a chunk's calls whatever its position).")
    if tool_call_chunks or not tool_calls:
        return tool_call_chunks, []
    chunks: list[ToolCallChunk] = []
    given_invalid: list[tuple[int, Any]] = []
    last_chunk = -1
    for position, raw in enumerate(_call_list(tool_calls, "tool_calls", "AIMessageChunk")):
        call = _checked_call(raw)  # (arguments that cannot be read stay their text: an invalid call once merged)
        if isinstance(raw, dict) and type(raw.get("type")) is str and raw["type"] == "invalid_tool_call":
            given_invalid.append((position, call))
            continue
        args = call["args"]
        chunks.append(ToolCallChunk(name=call["name"], id=call["id"], index=None, type="tool_call_chunk",
                                    args=args if isinstance(args, str) or args is None
                                    else json.dumps(args, ensure_ascii=False)))
        last_chunk = position
    invalid = [{**bad, "index": position} if position < last_chunk else bad for position, bad in given_invalid]
    return chunks, invalid  # type: ignore[return-value]


def _not_read_from(chunks: Sequence[ToolCallChunk], invalid: Sequence[InvalidToolCall]) -> list[InvalidToolCall]:
    """``invalid`` (the ``invalid_tool_calls`` of a dump given back with its ``tool_call_chunks``) without the
    entries that are LangChain's reading of one of ``chunks`` (its name, arguments text and id, and no error:
    :func:`~toolwire._chunk_compat.langchain_calls`), which the chunks make again; kept, each would be a second
    invalid call (review 203 #3). Others (one with an error of its own) are kept.

    Raises:
        UserError: ``invalid`` is one call (a dict) rather than a list of them.
    """
    read = [(c.get("name"), c.get("args"), c.get("id")) for c in chunks if isinstance(c, dict)]
    return [bad for bad in _call_list(invalid, "invalid_tool_calls", "AIMessageChunk")
            if not (isinstance(bad, dict) and bad.get("error") is None
                    and (bad.get("name"), bad.get("args"), bad.get("id")) in read)]


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


@overload
def merge_chunks(chunks: Iterable[AIMessageChunk], *, as_chunk: Literal[True] = True,
                 tool_names: Collection[str] | None = None) -> AIMessageChunk: ...
@overload
def merge_chunks(chunks: Iterable[AIMessageChunk], *, as_chunk: Literal[False],
                 tool_names: Collection[str] | None = None) -> AIMessage: ...
@overload
def merge_chunks(chunks: Iterable[AIMessageChunk], *, as_chunk: bool = True,
                 tool_names: Collection[str] | None = None) -> AIMessageChunk | AIMessage: ...


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
    id for every call on index 0). When that text is the same arguments as the call's (the same JSON value, whatever
    the spacing, ``\\u`` escapes, key order, or a JSON string holding it, once complete:
    :func:`~toolwire._chunk_calls.same_arguments`), the call was sent again whole, in one piece or several, and the
    copy is dropped (review 177 #2, review 183 #1); other arguments make a call of their own. Another name from a
    piece with no id on a call's index, before any argument text, is the rest of the call's name, unless
    ``tool_names`` has both names and not the two joined (two calls of tools without parameters; review 177 #7).
    The merged chunk (``as_chunk``) keeps as their own pieces what a later merge may still read otherwise: a copy
    whose text is not complete yet, and, without ``tool_names``, the pieces of a name joined on one index; its
    :meth:`~AIMessageChunk.to_message` reads them as one merge of all the chunks would, so ``a + b + c``, this
    function and the stream give the same calls (review 183 #7). The first non-empty ``name`` and ``id`` of a call
    win (but for an id a provider stream made for a call whose first piece came without one, which the provider's id
    in a later piece replaces, as the stream does) and its ``args`` fragments are concatenated in order. When every
    call has an index, the calls come out in index order.
    ``invalid_tool_calls`` are concatenated, ``usage`` is summed (token counts key by key, nested dicts alike;
    a value that is not a number, such as None, is kept rather than added), ``response_metadata`` and
    ``provider_data`` are updated in order (a ``response_metadata`` value of None does not replace an earlier value,
    so a usage chunk's ``finish_reason: None`` keeps the reason, as LangChain keeps it), but for
    ``response_metadata["additional_kwargs"]`` (LangChain's extra reply fields), merged as LangChain's ``merge_dicts``
    merges them (:mod:`toolwire._kwargs_merge`): text joined (a streamed ``reasoning_content``, a legacy
    ``function_call``'s ``arguments``), dicts merged key by key, lists merged by their items' ``index``, ints added,
    equal values kept, and where LangChain would raise (values of two types) the later value kept; the first
    message ``id`` and ``name`` given win.

    Args:
        chunks: the chunks in arrival order.
        as_chunk: return an :class:`AIMessageChunk` (default) or, when False, the final
            :class:`AIMessage` (``merge_chunks(...).to_message(tool_names=tool_names)``).
        tool_names: the bound tools' names: they tell two calls on one index apart (see above) and, with
            ``as_chunk=False``, are listed in the error of a call that has no name (see
            :meth:`AIMessageChunk.to_message`).

    Returns:
        The merged chunk, or the final message (type checkers see which from ``as_chunk``: review 280 #3).
    """
    text: list[str] = []
    blocks: list[Any] | None = None
    indexed: dict[int | str, Block] | None = None  # the blocks merged by their index
    invalid: list[InvalidToolCall] = []
    calls = _Calls(tool_names)
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
        tool_call_chunks=calls.chunks(final=False),
        invalid_tool_calls=invalid,
        usage=usage,
        response_metadata=metadata,
        provider_data=provider_data,
        id=msg_id,
        name=name,
    )
    return merged if as_chunk else merged.to_message(tool_names=tool_names)
