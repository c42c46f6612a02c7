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

    def starts_with_lc(self) -> bool:
        """Whether the text so far starts with ``lc_`` (joined only while its first piece is shorter than that)."""
        first = self.pieces[0]
        return (first if len(first) >= 3 else self.value()).startswith("lc_")

    def value(self) -> str:
        if len(self.pieces) > 1:
            self.pieces = ["".join(self.pieces)]
        return self.pieces[0]  # type: ignore[no-any-return]


class _Items:
    """One list value merged as LangChain's ``merge_lists`` merges lists: the first list's items as they are, each
    later item merged into the first one so far of its ``index`` (:func:`_merge_key`) whose ``id`` agrees, or added.
    Items are looked up by ``index`` and then by ``id`` (:class:`_Slots`), so a merge takes time linear in the items
    (review 304 #5: items of one ``index`` with different ids were compared one by one)."""

    __slots__ = ("by_index", "items")

    def __init__(self, first: list[Any]) -> None:
        self.items: list[Any] = []  # each item as it came, or an ExtraFields once another was merged into it
        self.by_index: dict[Any, _Slots] = {}  # an index -> the places of the dict items that have it
        for item in first:
            self._append(item)

    def _append(self, item: Any) -> None:
        if isinstance(item, dict) and "index" in item:
            with suppress(TypeError):  # (an index that cannot be a key, such as a list, equals no int and no text)
                slots = self.by_index.get(item["index"])
                if slots is None:
                    slots = self.by_index[item["index"]] = _Slots()
                slots.add(len(self.items), item.get("id"))
        self.items.append(item)

    def add(self, other: list[Any]) -> None:
        """Merge ``other`` in, as ``merge_lists(self, other)`` would."""
        for item in other:
            slots = self.by_index.get(item["index"]) if _merge_key(item) else None
            place = slots.target(item.get("id"), self.items) if slots is not None else None
            if place is None:
                self._append(item)
                continue
            held = self.items[place]
            if not isinstance(held, ExtraFields):
                held = self.items[place] = ExtraFields(held)
            old_id = held.get("id")
            held.add(_part_to_merge(held.get("type"), item))
            slots.merged(place, old_id, held.get("id"), self.items)  # type: ignore[union-attr]

    def value(self) -> list[Any]:
        return [_plain(item) for item in self.items]


def _no_id(value: Any) -> bool:
    """Whether an item's ``id`` is missing, None or empty text (it agrees with every id)."""
    return value is None or (isinstance(value, str) and not value)


class _Slots:
    """The places of the items of one ``index``, in order, found by the ``id`` of a later item: the first place of
    all (for an item with no id), the places whose item has no id (a queue: such a place gains an id only when it is
    the first of them, the target of an item with one), and the first place of each id. Once an id that cannot be a
    dict key (a list...) is seen, the items are compared one by one, as LangChain compares them."""

    __slots__ = ("by_id", "head", "no_id", "places", "scan")

    def __init__(self) -> None:
        self.places: list[int] = []  # every place, in order
        self.no_id: list[int] = []  # places whose item had no id, in order; no_id[head:] still have none
        self.head = 0
        self.by_id: dict[Any, int] = {}  # an id -> the first place whose item has it
        self.scan = False  # compare one by one (an id that cannot be a key was seen)

    def add(self, place: int, item_id: Any) -> None:
        """Note the item at ``place`` (after all others so far) with its ``item_id``."""
        self.places.append(place)
        self._note(place, item_id)

    def _note(self, place: int, item_id: Any) -> None:
        if _no_id(item_id):
            self.no_id.append(place)
        elif not self.scan:
            try:
                known = self.by_id.get(item_id)
                if known is None or place < known:  # (a place with no id that took it may come first)
                    self.by_id[item_id] = place
            except TypeError:
                self.scan = True

    def target(self, item_id: Any, items: list[Any]) -> int | None:
        """The first place whose item's id agrees with ``item_id`` (either has none, or they are equal), or None."""
        if _no_id(item_id):
            return self.places[0] if self.places else None
        if not self.scan:
            with suppress(TypeError):  # (an id that cannot be a key: compared one by one below)
                same = self.by_id.get(item_id)
                free = self.no_id[self.head] if self.head < len(self.no_id) else None
                return free if same is None or (free is not None and free < same) else same
        for place in self.places:
            held_id = items[place].get("id")
            if _no_id(held_id) or held_id == item_id:
                return place
        return None

    def merged(self, place: int, old_id: Any, new_id: Any, items: list[Any]) -> None:
        """Note that an item was merged into the one at ``place``, whose id was ``old_id`` and is now ``new_id``."""
        if self.scan or old_id is new_id or (_no_id(old_id) and _no_id(new_id)):
            return
        if _no_id(old_id) and self.head < len(self.no_id) and self.no_id[self.head] == place:
            self.head += 1  # (the usual change: the first place with no id takes the id of the item merged in)
            self._note(place, new_id)
            return
        with suppress(TypeError):
            if old_id == new_id and not _no_id(new_id):
                return
        self.no_id, self.head, self.by_id = [], 0, {}  # (any other change, where LangChain raises: noted anew)
        for known in self.places:
            self._note(known, items[known].get("id"))


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
        if key == "index" and held.starts_with_lc():
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
