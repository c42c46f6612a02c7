"""Merging streamed tool-call deltas, shared by every provider codec.

Providers stream a reply's tool calls as pieces: OpenAI Chat Completions sends
``delta.tool_calls[{index, id?, function: {name?, arguments}}]`` (the id and name only on the first
piece), the Responses API ``response.function_call_arguments.delta`` keyed by ``output_index``,
Anthropic ``input_json_delta`` keyed by the content-block ``index``, Gemini whole ``functionCall``
parts. :class:`ToolCallMerger` maps each piece to one call slot (by provider index, then by id), numbers
the calls 0, 1, 2... in the order they start, gives every piece the call's id (generated when the
provider sends none), and feeds each argument fragment once to a
:class:`~toolwire.parsing.PartialJSONParser` of its own, so the work is linear in the argument text:
nothing re-reads the whole buffer on every chunk.
"""

from __future__ import annotations

import json
from typing import Any

from toolwire.messages import InvalidToolCall, ToolCall, ToolCallChunk, new_tool_call_id
from toolwire.models.lowering._common import native_call
from toolwire.parsing import PartialJSONParser

__all__ = ["ToolCallMerger"]


class _Slot:
    __slots__ = ("fragments", "id", "name", "parser", "position")

    def __init__(self, position: int, call_id: str | None) -> None:
        self.position = position
        self.id = call_id or new_tool_call_id()
        self.name: str | None = None
        self.parser = PartialJSONParser()
        self.fragments = 0


def _starts_new_call(slot: _Slot, name: str | None, call_id: str | None, args: Any) -> bool:
    """Whether a piece that arrives on ``slot``'s index without ``slot``'s id (``call_id`` is new or
    ``None``) starts another call: it has a name, and the slot has argument text but no name, or another
    name, or complete JSON arguments while the piece brings a new id or more argument text. (The rule
    :func:`~toolwire.messages.merge_chunks` follows too.)"""
    if not name:
        return False
    if not slot.name:
        return slot.fragments > 0
    if name != slot.name:
        return True
    return bool(call_id or args) and slot.parser.complete


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

    * an id already seen picks that call (index 0 for every parallel call, with stable ids);
    * any other id (or none) starts a new call only when the piece carries a name and the call on that
      index has argument text but no name, or another name, or complete JSON arguments while the piece
      brings a new id or more argument text (index 0 reused for parallel calls: ``f`` then ``g``, or
      ``f`` twice);
    * otherwise the piece continues the call on that index. Poolside, mlx-openai-server and vLLM's
      gpt-oss streaming send a new id on every piece of one call, with the name only on the first; the
      OpenAI SDK and LangChain also merge pieces by index alone. The call keeps its first id.
    """

    def __init__(self) -> None:
        self._slots: list[_Slot] = []
        self._by_index: dict[Any, _Slot] = {}
        self._by_id: dict[str, _Slot] = {}
        self._last: _Slot | None = None

    def __len__(self) -> int:
        return len(self._slots)

    def _new(self, call_id: str | None) -> _Slot:
        slot = _Slot(len(self._slots), call_id)
        self._slots.append(slot)
        self._by_id[slot.id] = slot
        return slot

    def _resolve(self, index: Any, call_id: str | None, name: str | None, args: Any) -> _Slot:
        if index is not None:
            slot = self._by_index.get(index)
            if call_id and (slot is None or call_id != slot.id) and call_id in self._by_id:
                slot = self._by_id[call_id]  # a call seen before under this id
            elif slot is not None and call_id != slot.id and _starts_new_call(slot, name, call_id, args):
                slot = None  # the index is reused for the next call
            # else: the call's own id, or a per-piece id (or none) on the call's index: the same call
            if slot is None:
                slot = self._new(call_id)
            self._by_index[index] = slot
            return slot
        if call_id:
            return self._by_id.get(call_id) or self._new(call_id)
        if self._last is None or (name and self._last.name):
            return self._new(None)  # a named piece after a named call starts the next call
        return self._last

    def add(self, *, index: Any = None, id: str | None = None, name: str | None = None,
            args: Any = None) -> ToolCallChunk:
        """Add one streamed piece and return it as a :class:`~toolwire.messages.ToolCallChunk`.

        Args:
            index: the provider's key of the call in this reply (an int or any hashable), or ``None``.
            id: the provider's call id when the piece carries it.
            name: the function name when the piece carries it.
            args: an argument JSON text fragment, or a whole decoded object (Gemini), or ``None``.

        Returns:
            ``{"name", "args", "id", "index", "type": "tool_call_chunk"}`` where ``index`` is the call's
            position in the reply (0-based), ``id`` the call's id, and ``args`` the text fragment, so
            :func:`~toolwire.messages.merge_chunks` of the chunks rebuilds the calls.
        """
        slot = self._resolve(index, id, name, args)
        self._last = slot
        if name and not slot.name:
            slot.name = name
        if args is not None and not isinstance(args, str):
            args = json.dumps(args, ensure_ascii=False)
        if args:
            slot.parser.feed(args, build=False)  # scans only this fragment
            slot.fragments += 1
        return {"name": name or None, "args": args or "", "id": slot.id, "index": slot.position,
                "type": "tool_call_chunk"}

    def has_args(self, index: Any) -> bool:
        """Whether any argument text arrived for the call with this provider ``index``."""
        slot = self._by_index.get(index)
        return bool(slot and slot.fragments)

    def partial_args(self, position: int) -> Any:
        """The best-effort arguments of call ``position`` so far (a dict while the JSON is open).

        Built on demand (one decode of that call's text, cached until its next fragment), so reading it
        after every chunk is the caller's choice, not a cost every stream pays.
        """
        return self._slots[position].parser.value()

    def raw_args(self, position: int) -> str:
        """All argument text received for call ``position``."""
        return self._slots[position].parser.text

    def tool_calls(self) -> list[ToolCall | InvalidToolCall]:
        """The calls, in the order they started: a :class:`~toolwire.messages.ToolCall` when the arguments
        read as a JSON object, else an :class:`~toolwire.messages.InvalidToolCall` keeping the raw text."""
        return [native_call(s.name, s.parser.text, s.id) for s in self._slots]
