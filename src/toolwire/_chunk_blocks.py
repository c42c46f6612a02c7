"""Merging the content blocks of streamed chunks (private to :mod:`toolwire.chunks`).

Blocks that share an ``index`` are one block streamed in parts (LangChain's and Anthropic's block streaming), merged as
LangChain's ``merge_dicts`` merges them, in time linear in the pieces. (``additional_kwargs`` are merged in
:mod:`toolwire._kwargs_merge`.)
"""

from __future__ import annotations

from typing import Any

from toolwire.messages import Content

__all__ = ["Block", "add_blocks", "join_content"]


def join_content(text: list[str], blocks: list[Any] | None) -> Content:
    """The merged content: the text, or, once a chunk carried a list, the blocks with the text after
    the last list as one text block."""
    if blocks is None:
        return "".join(text)
    blocks = [block.merged() if isinstance(block, Block) else block for block in blocks]
    return [*blocks, {"type": "text", "text": "".join(text)}] if text else blocks


_SAME_KEYS = frozenset({"type", "index", "id", "name"})  # a merged block's own keys: the first value stays


class Block:
    """The pieces of one content block streamed in parts that share its ``index`` (LangChain's and Anthropic's
    block streaming: ``{"type": "text", "text": "Hel", "index": 0}`` then ``{..., "text": "lo", "index": 0}``),
    merged as LangChain's ``merge_dicts`` merges them, in time linear in the pieces: a key's text is joined, its
    lists are joined (Anthropic's ``citations``, one per later piece), its dicts are merged key by key by the same
    rules; a later value fills a key that was missing or None, and any other later value is dropped; ``type``,
    ``index``, ``id`` and ``name`` keep their first value (a ``tool_use`` block and its ``input_json_delta`` parts are
    one block)."""

    __slots__ = ("fields",)

    def __init__(self, block: dict[str, Any]) -> None:
        self.fields: dict[str, Any] = {}  # every key in first-seen order; text and lists as _Parts, dicts as Block
        self.add(block)

    def add(self, block: dict[str, Any]) -> None:
        for key, value in block.items():
            held = self.fields.get(key)
            if isinstance(held, _Parts):
                if type(value) is held.kind:
                    held.extend([value] if held.kind is str else value)
            elif isinstance(held, Block):
                if isinstance(value, dict):
                    held.add(value)
            elif held is None:
                self.fields[key] = self._held(key, value)

    @staticmethod
    def _held(key: str, value: Any) -> Any:
        if isinstance(value, str) and key not in _SAME_KEYS:
            return _Parts(str, [value])
        if isinstance(value, list):
            return _Parts(list, value)
        if isinstance(value, dict):
            return Block(value)
        return value

    def merged(self) -> dict[str, Any]:
        return {key: value.merged() if isinstance(value, _Parts | Block) else value
                for key, value in self.fields.items()}


class _Parts(list):  # type: ignore[type-arg]
    """The pieces of one text (``kind`` str) or list (``kind`` list) value of a merged :class:`Block`."""

    def __init__(self, kind: type, items: list[Any]) -> None:
        super().__init__(items)
        self.kind = kind

    def merged(self) -> Any:
        return "".join(self) if self.kind is str else list(self)


def add_blocks(blocks: list[Any], content: list[Any],
                indexed: dict[int | str, Block] | None) -> dict[int | str, Block] | None:
    """Add a chunk's ``content`` blocks to ``blocks``: a dict block whose ``index`` an earlier block has is merged
    into it (:class:`Block`; the first of them, as LangChain's ``merge_lists`` takes), any other block is added in
    order. The blocks of the first chunk that carries a list (``blocks`` still empty) are never merged with each
    other, as LangChain's ``merge_lists`` keeps its first list as it is: a chunk that holds a whole reply's content (a
    ``_generate``-only model's, a ScriptedChatModel's) keeps each of its blocks (review 241 #4); a later chunk's
    pieces of one index are merged, within the chunk too (a ``tool_use`` start and its ``input_json_delta``), as
    there (review 257 #3). Returns the merged blocks by index."""
    added: set[int | str] | None = set() if not blocks else None  # the indexes the first chunk started
    for block in content:
        key = _block_key(block)
        if key is None or (added is not None and key in added):
            blocks.append(block)
            continue
        indexed = {} if indexed is None else indexed
        if (open_block := indexed.get(key)) is not None:
            open_block.add(block)
        else:
            indexed[key] = open_block = Block(block)
            blocks.append(open_block)
            if added is not None:
                added.add(key)
    return indexed


def _block_key(block: Any) -> int | str | None:
    """The ``index`` of a block streamed in parts, or None (not a dict, no ``index`` that is an int or a str)."""
    if not isinstance(block, dict):
        return None
    index = block.get("index")
    return index if isinstance(index, int | str) and not isinstance(index, bool) else None
