"""A mapping that keeps its most recently used entries (the grammar texts and samplers a loaded model keeps:
:mod:`toolwire.models._loaded`)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

__all__ = ["_Recent"]

K = TypeVar("K")
V = TypeVar("V")


class _Recent(OrderedDict[K, V]):
    """A mapping that keeps its ``size`` most recently used entries (``on_drop`` is called on each one
    it lets go)."""

    def __init__(self, size: int, on_drop: Callable[[V], object] | None = None) -> None:
        super().__init__()
        self.size = size
        self.on_drop = on_drop

    def __getitem__(self, key: K) -> V:
        value = super().__getitem__(key)
        self.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.size:
            _, old = self.popitem(last=False)
            if self.on_drop is not None:
                self.on_drop(old)

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value of ``key``, made with ``make()`` and kept when missing."""
        if key in self:
            return self[key]
        value = make()
        self[key] = value
        return value
