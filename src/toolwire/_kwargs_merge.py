"""Merging the ``additional_kwargs`` of streamed chunks as LangChain's ``merge_dicts`` merges them (private to
:mod:`toolwire.chunks`), in time linear in the pieces (review 291 #2).

The rules are langchain-core's (``langchain_core/utils/_merge.py``, ``merge_dicts`` and ``merge_lists``): a key a
later chunk brings first, or whose value so far is None, takes the later value; a later None changes nothing; text is
joined (but for an ``id``, ``output_version`` or ``model_provider`` equal to the text so far, and an ``index`` that
starts with ``lc_``, which stay); dicts are merged by the same rules; lists are merged as ``merge_lists`` merges them
(an item that is a dict whose ``index`` is an int, or text starting with ``lc_``, is merged into the first item so far
with that ``index`` whose ``id`` does not differ from its own, leaving out its ``type``; any other item is added); an
equal value stays; an int is added to the one so far (but for ``index``, ``created`` and ``timestamp``, where the later
one wins). Where LangChain raises a TypeError (two values of different types, two different bools or floats, another
kind of value), the later value replaces the earlier one, so that a stream never fails at its end over extra data.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any

__all__ = ["ExtraFields"]

_KEPT_WHEN_EQUAL = frozenset({"id", "output_version", "model_provider"})  # text joined unless the same again
_LATEST = frozenset({"index", "created", "timestamp"})  # ints where the later one wins rather than the sum


class ExtraFields:
    """One dict merged from many (``additional_kwargs``, or a dict inside them) as LangChain's ``merge_dicts`` merges
    them (see the module), in time linear in the pieces: :meth:`add` merges the next dict in, :meth:`merged` gives the
    result as new dicts and lists (the dicts given are never changed)."""

    __slots__ = ("fields",)

    def __init__(self, first: dict[str, Any] | None = None) -> None:
        self.fields: dict[str, Any] = {}  # key -> its value so far: text as _Text, a dict as ExtraFields, a list as
        # _Items, any other value as it is
        if first:
            self.add(first)

    def add(self, other: dict[str, Any]) -> None:
        """Merge ``other`` in, as ``merge_dicts(self, other)`` would."""
        fields = self.fields
        for key, value in other.items():
            if key not in fields or (value is not None and fields[key] is None):
                fields[key] = _held(value)
            elif value is not None:
                fields[key] = _merged_value(key, fields[key], value)

    def get(self, key: str) -> Any:
        """The value of ``key`` so far, as :meth:`merged` would give it (None when missing)."""
        return _plain(self.fields.get(key))

    def merged(self) -> dict[str, Any]:
        """The merged dict (new dicts and lists all through)."""
        return {key: _plain(value) for key, value in self.fields.items()}


class _Text:
    """The pieces of one text value, joined when read (:meth:`value`)."""

    __slots__ = ("pieces", "size")

    def __init__(self, text: str) -> None:
        self.pieces = [text]
        self.size = len(text)

    def add(self, text: str) -> None:
        self.pieces.append(text)
        self.size += len(text)

    def value(self) -> str:
        if len(self.pieces) > 1:
            self.pieces = ["".join(self.pieces)]
        return self.pieces[0]  # type: ignore[no-any-return]


class _Items:
    """One list value merged as LangChain's ``merge_lists`` merges lists: the first list's items as they are, each
    later item merged into the first one so far of its ``index`` (:func:`_merge_key`) whose ``id`` agrees, or added.
    Items are looked up by ``index``, so a merge takes time linear in the items (but for items of one ``index`` with
    different ids, which are compared one by one, as LangChain compares them)."""

    __slots__ = ("by_index", "items")

    def __init__(self, first: list[Any]) -> None:
        self.items: list[Any] = []  # each item as it came, or an ExtraFields once another was merged into it
        self.by_index: dict[Any, list[int]] = {}  # an index -> the places of the dict items that have it, in order
        for item in first:
            self._append(item)

    def _append(self, item: Any) -> None:
        if isinstance(item, dict) and "index" in item:
            with suppress(TypeError):  # (an index that cannot be a key, such as a list, equals no int and no text)
                self.by_index.setdefault(item["index"], []).append(len(self.items))
        self.items.append(item)

    def add(self, other: list[Any]) -> None:
        """Merge ``other`` in, as ``merge_lists(self, other)`` would."""
        for item in other:
            place = self._target(item) if _merge_key(item) else None
            if place is None:
                self._append(item)
                continue
            held = self.items[place]
            if not isinstance(held, ExtraFields):
                held = self.items[place] = ExtraFields(held)
            held.add(_part_to_merge(held.get("type"), item))

    def _target(self, item: dict[str, Any]) -> int | None:
        """The place of the first item so far with ``item``'s ``index`` whose ``id`` agrees with its own (either is
        missing, None or empty, or both are the same), or None."""
        item_id = item.get("id")
        for place in self.by_index.get(item["index"], ()):
            held = self.items[place]
            held_id = held.get("id")
            if held_id in (None, "") or item_id in (None, "") or held_id == item_id:
                return place
        return None

    def value(self) -> list[Any]:
        return [_plain(item) for item in self.items]


def _merge_key(item: Any) -> bool:
    """Whether ``merge_lists`` merges ``item`` into an earlier one: a dict whose ``index`` is an int, or text that
    starts with ``lc_``."""
    if not isinstance(item, dict) or "index" not in item:
        return False
    index = item["index"]
    return isinstance(index, int) or (isinstance(index, str) and index.startswith("lc_"))


def _part_to_merge(held_type: Any, item: dict[str, Any]) -> dict[str, Any]:
    """What ``merge_lists`` merges into an earlier item of ``held_type`` (its ``type``): ``item`` without its
    ``type``, or, for a ``non_standard`` item with a ``value``, that value (without its ``type``) as ``extras`` of
    a standard item or as the ``value`` of a ``non_standard`` one."""
    if held_type and item.get("type") == "non_standard" and "value" in item:
        value = item["value"] if isinstance(item["value"], dict) else {}
        value = {k: v for k, v in value.items() if k != "type"}
        if held_type != "non_standard":
            return {"extras": value}
        return {"value": value, **({"index": item["index"]} if "index" in item else {})}
    return {k: v for k, v in item.items() if k != "type"} if "type" in item else item


def _held(value: Any) -> Any:
    """``value`` as :class:`ExtraFields` keeps it, ready for later pieces."""
    if isinstance(value, str):
        return _Text(value)
    if isinstance(value, dict):
        return ExtraFields(value)
    if isinstance(value, list):
        return _Items(value)
    return value


def _merged_value(key: str, held: Any, value: Any) -> Any:
    """``held`` (the value of ``key`` so far, as :func:`_held` keeps it) with a later, not None ``value`` merged in,
    as ``merge_dicts`` merges them (a later value of another type, or one LangChain cannot merge, replaces it)."""
    if isinstance(held, _Text):
        if not isinstance(value, str):
            return _held(value)
        if key == "index" and held.value().startswith("lc_"):
            return held
        if key in _KEPT_WHEN_EQUAL and held.size == len(value) and held.value() == value:
            return held
        held.add(value)
        return held
    if isinstance(held, ExtraFields):
        if type(value) is not dict:
            return _held(value)
        held.add(value)
        return held
    if isinstance(held, _Items):
        if type(value) is not list:
            return _held(value)
        held.add(value)
        return held
    if type(held) is not type(value):
        return _held(value)
    if held == value:
        return held
    if type(held) is int and key not in _LATEST:
        return held + value
    return value  # (an int's index, created or timestamp; or two bools, floats or other values LangChain refuses)


def _plain(value: Any) -> Any:
    """A held value as a plain one."""
    if isinstance(value, _Text | _Items):
        return value.value()
    if isinstance(value, ExtraFields):
        return value.merged()
    return value
