"""Merging streamed tool-call deltas, shared by every provider codec.

Providers stream a reply's tool calls as pieces: OpenAI Chat Completions sends
``delta.tool_calls[{index, id?, function: {name?, arguments}}]`` (the id and name only on the first
piece), the Responses API ``response.function_call_arguments.delta`` keyed by ``output_index``,
Anthropic ``input_json_delta`` keyed by the content-block ``index``, Gemini whole ``functionCall``
parts. :class:`ToolCallMerger` maps each piece to one call slot (by provider index, then by id), numbers
the calls 0, 1, 2... in the order they start (or, with ``index_order``, by the provider's index, which is then the
call's place in the reply: a Chat Completions server may start call 1 before call 0), gives every piece the call's
id (generated when the provider sends none, renamed when an earlier call of the reply has it; none on a piece that
only continues the call's name), and feeds each argument fragment
once to a :class:`~toolwire.parsing.PartialJSONParser` of its own, so the work is linear in the argument
text: nothing re-reads the whole buffer on every chunk.
"""

from __future__ import annotations

import json
from typing import Any

from toolwire._call_records import _id_text
from toolwire._chunk_calls import continues_name, may_resend, opens_value, provisional_call_id, same_arguments
from toolwire.messages import InvalidToolCall, ToolCall, ToolCallChunk
from toolwire.models.lowering._calls import CUT_OFF
from toolwire.models.lowering._common import CallIds, native_call
from toolwire.parsing import PartialJSONParser

__all__ = ["ToolCallMerger", "cut_calls"]


class _Slot:
    __slots__ = ("copy_of", "fragments", "held_id", "id", "key", "made", "name", "parser", "prior")

    def __init__(self, call_id: str, made: bool = False, key: int = -1) -> None:
        self.key = key  # the call's ``index`` in its pieces, in the reply's order (ToolCallMerger._key); -1: a copy
        self.id = call_id  # the call's id in the reply: the provider's made unique (CallIds), or generated
        self.made = made  # the id was generated: the provider's, when a later piece brings it, replaces it
        self.name: str | None = None
        self.parser = PartialJSONParser()
        self.fragments = 0
        # a copy: opened by a piece under a call's id and name after that call's arguments were complete, which may
        # be sending it again (review 177 #2); not a call of the reply (no key) until its text is complete
        # JSON and other arguments than that call's (ToolCallMerger._copied)
        self.copy_of: _Slot | None = None
        self.held_id: str | None = None  # the provider's id the copy came with
        self.prior: _Slot | None = None  # the call that id named (with no index) before the copy


def _starts_new_call(slot: _Slot, name: str | None, call_id: str | None, args: Any, same_id: bool = False,
                     names: Any = None) -> bool:
    """Whether a named piece that would continue ``slot`` starts another call instead.

    A piece without ``slot``'s id (``call_id`` is another id, or ``None``) starts one when it has a name, and the slot
    has argument text but no name, or another name, or complete JSON arguments while the piece brings a new id or more
    argument text. A piece that continues the slot's name (:func:`~toolwire.chunks.continues_name`: the name streamed
    in pieces, as the OpenAI SDK joins them) starts none. A piece with the slot's own id (``same_id``) starts one only
    when the slot has a name and the piece another, or the same name with more argument text after complete JSON
    (DeepSeek, GLM, Kimi and OpenRouter send parallel calls under one id, OpenRouter even on one index). ``names``:
    the bound tools' names, when known (:func:`~toolwire.chunks.continues_name`). (The rule
    :func:`~toolwire.messages.merge_chunks` follows too.)"""
    if not name:
        return False
    if not slot.name:
        return not same_id and slot.fragments > 0
    if continues_name(slot.name, slot.fragments > 0, name, call_id, names):  # a piece with an id is no name piece
        return False
    if name != slot.name:
        return True
    if same_id:  # the same name again: a new call only when its arguments open a JSON value (not whitespace)
        return opens_value(args) and slot.parser.complete
    return bool(call_id or args) and slot.parser.complete


def _restarts(slot: _Slot, name: str | None, args: Any) -> bool:
    """Whether a piece with ``slot``'s own id may be sending ``slot`` again: its name, after its arguments are
    complete, with no argument text or text that opens a JSON value or string (:func:`~toolwire.chunks.may_resend`;
    the rule ``merge_chunks`` follows too)."""
    return (bool(name) and name == slot.name and slot.copy_of is None and slot.parser.complete
            and may_resend(args))


def _text(args: Any) -> str:
    """A piece's ``args`` as text (decoded arguments as their JSON text)."""
    if args is None:
        return ""
    return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)


class ToolCallMerger:
    """Fold streamed tool-call pieces into calls.

    Usage::

        merger = ToolCallMerger()
        chunk = merger.add(index=0, id="call_1", name="get_weather", args='{"ci')
        chunk = merger.add(index=0, args='ty": "Paris"}')
        merger.partial_args(0)   # {"city": "Paris"}
        merger.tool_calls()      # [{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1", ...}]

    A piece is matched to a call by the provider's ``index`` when it has one, else by ``id``; a piece with
    neither continues the last call, unless it carries a name and the last call already has one (then it
    starts the next call).

    On a known index, the piece's ``id`` is not trusted alone, because OpenAI-compatible servers differ:

    * an id already seen on this index picks the latest call it opened there (index 0 for every parallel
      call, with stable ids), unless the piece starts another call under the same id: another name, or
      the same name with more argument text after complete JSON (OpenRouter: index 0 and one id for every
      call). An id seen on another index does not count: a new index is a new call, whatever its id
      (DeepSeek, GLM, Kimi and OpenRouter reuse one id across the indexes of parallel calls);
    * any other id (or none) starts a new call only when the piece carries a name and the call on that
      index has argument text but no name, or another name, or complete JSON arguments while the piece
      brings a new id or more argument text (index 0 reused for parallel calls: ``f`` then ``g``, or
      ``f`` twice; Ollama sends whole calls on index 0);
    * otherwise the piece continues the call on that index. Poolside, mlx-openai-server and vLLM's
      gpt-oss streaming send a new id on every piece of one call, with the name only on the first; the
      OpenAI SDK and LangChain also merge pieces by index alone. The call keeps its first id (but for a
      generated one: see below).

    A call's id is the provider's, renamed ``<id>_2``... when an earlier call of the reply has it
    (:class:`~toolwire.models.lowering._common.CallIds`, as :func:`~toolwire.models.lowering._common.split_calls`
    renames a whole reply's), or a generated one (:func:`~toolwire.chunks.provisional_call_id`) while the provider
    has sent none: the first id a later piece of the call brings replaces it, on that piece and the ones after it,
    and :func:`~toolwire.messages.merge_chunks` lets it replace the generated one too, so the merged stream has the
    provider's id as ``invoke`` has (review 142 #1: OpenAI-compatible servers that send the id after the first piece).

    A piece with a call's own id and name after its arguments are complete, with no argument text or text that opens
    a JSON value or string, opens a copy: it and the pieces after it on its index (whatever their id) are held, and
    come back empty (no name, no argument text), until the copy's argument text is complete JSON. When its arguments
    are then the call's own (:func:`~toolwire.chunks.same_arguments`: the same JSON value, whatever the spacing,
    ``\\u`` escapes, key order, or a JSON string holding it), the copy sent the call again (LiteLLM's summary chunk,
    GLM's resent payload) and is dropped, not made a second call, and the pieces after it continue the call as before
    (review 177 #2, review 183 #1, #2); else it is another call after all (OpenRouter's parallel calls under one id),
    which comes back whole, in one piece, once complete. A copy the stream ends inside is dropped. The work stays
    linear in the text (the copy's pieces are read once). (The rule :func:`~toolwire.messages.merge_chunks` follows
    too.)

    Args:
        tool_names: the bound tools' names, when known: another name on a call's index from a piece with no id,
            before any argument text, is then another call when both names are tools and the two joined are not
            (a server that sends no ids and ``""`` for a tool without parameters; review 177 #7). Settable later as
            the ``tool_names`` attribute.
        index_order: the provider's ``index`` is the call's place among the reply's calls (Chat Completions'
            ``delta.tool_calls[].index``; not Anthropic's content-block index or the Responses API's
            ``output_index``, which count other blocks too): each call's pieces carry it as their ``index``, so the
            calls merge in the reply's order even when a later call starts first (see :meth:`add`; review 236 #2).
            Default False: the calls are numbered 0, 1, 2... in the order they start.
    """

    def __init__(self, tool_names: Any = None, *, index_order: bool = False) -> None:
        self.tool_names = tool_names
        self.index_order = index_order
        self._slots: list[_Slot] = []  # the calls, in the order they started
        self._keys: set[int] = set()  # the ``index`` given to a call so far
        self._next_key = 0  # one more than the highest of them
        self._in_order = True  # every call started after those before it in the reply (the common case)
        self._by_index: dict[Any, _Slot] = {}  # provider index -> the call open on it
        self._by_key: dict[tuple[Any, str], _Slot] = {}  # (index, provider id) -> the latest call it opened there
        self._by_id: dict[str, _Slot] = {}  # provider id -> the latest call opened with it
        self._ids = CallIds()
        self._last: _Slot | None = None

    def __len__(self) -> int:
        return len(self._slots)

    def _key(self, index: Any) -> int:
        """The ``index`` a new call's pieces get: one more than the highest given (0, 1, 2... in the order the calls
        start); with :attr:`index_order`, the provider's ``index`` when it is a whole number of 0 or more that no call
        has yet (else, as for a call with no index, a key that is not a number, or an index reused for another call
        as Ollama sends every call on index 0, the next one: they follow in the order they start). Merged, the calls
        come in that order (:func:`~toolwire.messages.merge_chunks`): the provider's, as ``invoke`` reads the whole
        reply and as the OpenAI SDK and LangChain merge a stream (review 236 #2)."""
        key = index if (self.index_order and type(index) is int and index >= 0 and index not in self._keys) \
            else self._next_key
        if key < self._next_key:
            self._in_order = False  # a call that starts after one that comes later in the reply
        self._keys.add(key)
        self._next_key = max(self._next_key, key + 1)
        return key

    def _new(self, index: Any, call_id: str | None) -> _Slot:
        slot = _Slot(self._ids.unique(call_id or provisional_call_id()), made=not call_id, key=self._key(index))
        self._slots.append(slot)
        if call_id:
            self._register(slot, index, call_id)
        return slot

    def _register(self, slot: _Slot, index: Any, call_id: str) -> None:
        self._by_id[call_id] = slot
        if index is not None:
            self._by_key[index, call_id] = slot

    def _adopt(self, slot: _Slot, index: Any, call_id: str) -> None:
        """Give ``slot``, whose id was generated, the provider's ``call_id`` (made unique), which a later piece
        brought; the tool remembered for the generated id (:func:`~toolwire.models.lowering._calls.remember_streamed`)
        is remembered for the new one too."""
        from toolwire.models.lowering import _calls

        made, slot.id, slot.made = slot.id, self._ids.unique(call_id), False
        self._register(slot, index, call_id)
        with _calls._STREAMED_LOCK:
            if (kept := _calls._STREAMED.get(made)) is not None:
                _calls._STREAMED[slot.id] = kept

    def _resolve(self, index: Any, call_id: str | None, name: str | None, args: Any) -> _Slot:
        if index is not None:
            slot = self._by_key.get((index, call_id)) if call_id else None
            if slot is not None:  # this id opened a call on this index: that call, or the next under the same id
                if _restarts(slot, name, args):
                    slot = self._copy(slot, index, call_id)
                elif _starts_new_call(slot, name, call_id, args, same_id=True):
                    slot = None
            else:  # a new id, a per-piece id or none: the call open on the index, unless the piece starts one
                slot = self._by_index.get(index)
                if slot is not None and _starts_new_call(slot, name, call_id, args, names=self.tool_names):
                    slot = None
            if slot is None:
                slot = self._new(index, call_id)
            self._by_index[index] = slot
            return slot
        if call_id:
            slot = self._by_id.get(call_id)
            if slot is not None and _restarts(slot, name, args):
                return self._copy(slot, None, call_id)
            if slot is None or _starts_new_call(slot, name, call_id, args, same_id=True):
                slot = self._new(None, call_id)
            return slot
        if self._last is None or (name and self._last.name):
            return self._new(None, None)  # a named piece after a named call starts the next call
        return self._last

    def _copy(self, slot: _Slot, index: Any, call_id: str) -> _Slot:
        """A copy of ``slot`` opened by a piece with its provider id ``call_id`` (see the class): held, not a call."""
        copy = _Slot(slot.id)
        copy.copy_of, copy.name, copy.held_id, copy.prior = slot, slot.name, call_id, self._by_id.get(call_id)
        self._register(copy, index, call_id)
        return copy

    def _copied(self, copy: _Slot, index: Any, name: str | None, args: Any) -> ToolCallChunk:
        """Read a piece of ``copy`` (:meth:`_copy`): held while its text is not complete JSON; then dropped when its
        arguments are its call's (the pieces after it continue that call), else made a call of the reply, all its
        text in the piece returned."""
        first = copy.copy_of
        assert first is not None
        if name and name != copy.name and not copy.fragments:
            copy.name = (copy.name or "") + name  # (the name streamed on: continues_name, as merge_chunks reads it)
        text = _text(args)
        if text:
            copy.parser.feed(text, build=False)
            copy.fragments += 1
        held: ToolCallChunk = {"name": None, "args": "", "id": first.id, "index": first.key, "type": "tool_call_chunk"}
        if not text or not copy.parser.complete:
            return held
        copy.copy_of = None
        if copy.name == first.name and same_arguments(first.parser.text, copy.parser.text):
            if index is not None:  # the call sent again: dropped, its call open again as before it
                self._by_index[index] = first
                self._by_key[index, copy.held_id] = first  # type: ignore[index]
            self._by_id[copy.held_id] = copy.prior or first  # type: ignore[index]
            self._last = first
            return held
        copy.id, copy.key = self._ids.unique(copy.held_id), self._key(None)
        self._slots.append(copy)  # another call under the same id (OpenRouter): now a call of the reply, whole
        return {"name": copy.name, "args": copy.parser.text, "id": copy.id, "index": copy.key,
                "type": "tool_call_chunk"}

    def add(self, *, index: Any = None, id: str | None = None, name: str | None = None,
            args: Any = None) -> ToolCallChunk:
        """Add one streamed piece and return it as a :class:`~toolwire.messages.ToolCallChunk`.

        Args:
            index: the provider's key of the call in this reply (an int or any hashable), or ``None``.
            id: the provider's call id when the piece carries it (one that is not a string, a number such as ``0``
                included, is kept as its text).
            name: the function name when the piece carries it.
            args: an argument JSON text fragment, or a whole decoded object (Gemini), or ``None``.

        Returns:
            ``{"name", "args", "id", "index", "type": "tool_call_chunk"}`` where ``index`` is the call's
            place in the reply: 0, 1, 2... in the order the calls start; with ``index_order``, the provider's
            ``index`` (a whole number of 0 or more) when no other call has it, else one more than the highest before
            it; ``id`` the call's id (``None`` on a piece that continues the
            call's name, as OpenAI sends such pieces), and ``args`` the text fragment, so
            :func:`~toolwire.messages.merge_chunks` of the chunks rebuilds the calls (a piece that sends a call
            again comes back with no name and no text; see the class).
        """
        id = _id_text(id)  # a number (0 too) as its text, as invoke keeps it (review 177 #8); "" is no id
        slot = self._resolve(index, id, name, args)
        self._last = slot
        if slot.copy_of is not None:  # a piece of the call sent again, or of another call under its id
            return self._copied(slot, index, name, args)
        if slot.made and id:
            self._adopt(slot, index, id)
        call_id: str | None = slot.id
        if name and not slot.name:
            slot.name = name
        elif name and name != slot.name and not slot.fragments:
            slot.name += name  # _resolve kept the slot: the piece continues its name (continues_name)
            call_id = None  # so merge_chunks joins it too (a piece with an id is never a name piece there)
        if args is not None and not isinstance(args, str):
            args = json.dumps(args, ensure_ascii=False)
        if args:
            slot.parser.feed(args, build=False)  # scans only this fragment
            slot.fragments += 1
        return {"name": name or None, "args": args or "", "id": call_id, "index": slot.key, "type": "tool_call_chunk"}

    def has_args(self, index: Any) -> bool:
        """Whether any argument text arrived for the call with this provider ``index``."""
        slot = self._by_index.get(index)
        return bool(slot and slot.fragments)

    def _ordered(self) -> list[_Slot]:
        """The calls in the reply's order (their keys'); sorted only when one started before an earlier one."""
        return self._slots if self._in_order else sorted(self._slots, key=lambda slot: slot.key)

    def partial_args(self, position: int) -> Any:
        """The best-effort arguments of call ``position`` so far (a dict while the JSON is open).

        Args:
            position: the call's place in the reply (0-based), as :meth:`tool_calls` lists the calls.

        Built on demand (one decode of that call's text, cached until its next fragment), so reading it
        after every chunk is the caller's choice, not a cost every stream pays.
        """
        return self._ordered()[position].parser.value()

    def raw_args(self, position: int) -> str:
        """All argument text received for call ``position`` (its place in the reply, as :meth:`tool_calls` lists
        it)."""
        return self._ordered()[position].parser.text

    def tool_calls(self, cut: bool | str = False) -> list[ToolCall | InvalidToolCall]:
        """The calls, in the reply's order (the order they started; with ``index_order``, the provider's
        ``index``, see :meth:`add`): a :class:`~toolwire.messages.ToolCall` when the arguments
        read as a JSON object, else an :class:`~toolwire.messages.InvalidToolCall` keeping the raw text (``cut``:
        the stream was cut short, as :func:`~toolwire.models.lowering._calls.native_call` takes it)."""
        return [native_call(s.name, s.parser.text, s.id, cut=cut) for s in self._ordered()]


def cut_calls(merger: ToolCallMerger, error: str = CUT_OFF) -> list[InvalidToolCall]:
    """The calls of a stream that was cut short whose argument text never began or is not closed: each an
    InvalidToolCall with ``error`` and the call's id.

    Args:
        merger: the stream's calls.
        error: why they are cut: :data:`~toolwire.models.lowering._calls.CUT_OFF` (the token limit) or
            :data:`~toolwire.models.lowering._calls.STREAM_CUT` (a stream that ended without a finish reason).

    A stream state puts them in its closing chunk's ``invalid_tool_calls``; the merged message
    (:meth:`~toolwire.chunks.AIMessageChunk.to_message`) then leaves out the tool-call chunks with those ids, which
    would read as ``{}`` (text that never began) or as JSON that is merely invalid (text not closed).
    """
    return [call for call in merger.tool_calls(cut=error)  # type: ignore[misc]
            if call.get("type") == "invalid_tool_call" and call.get("error") == error]
