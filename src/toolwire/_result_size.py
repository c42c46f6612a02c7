"""Whether a tool's result is small enough to write on the event loop (:func:`is_cheap_result`), and a big set's,
deque's, range's or array's items as the list :func:`toolwire.results.bounded_content` encodes piece by piece
(:func:`_items`). Kept apart from :mod:`toolwire.results`, which re-exports :func:`is_cheap_result`.
"""

from __future__ import annotations

import contextlib
import operator
from collections import deque
from collections.abc import Iterator
from itertools import islice
from typing import Any

from pydantic import BaseModel

from toolwire._foreign_results import is_foreign_answer
from toolwire._result_json import _json_default

__all__ = ["is_cheap_result"]

_CHEAP_NODES = 5_000  # containers' items walked before a result counts as big
_CHEAP_CHARS = 500_000  # string characters seen before a result counts as big


def is_cheap_result(result: Any) -> bool:
    """Return whether turning ``result`` into content is cheap enough to do on the event loop.

    True for text, numbers and containers (dicts, lists, tuples, sets, deques, pydantic models, dataclasses) holding
    at most a few thousand items and a few hundred thousand characters in all. The walk stops as soon as
    the budget is spent, so the answer costs little even for a huge result. An object with a ``size`` (a numpy
    array, a pandas frame) or a length (a ``range``, a ``UserList``) counts as that many items, read without
    walking them (review 245 #2: a 3-million-value array was written whole on the event loop). True also for a
    LangChain ``ToolMessage`` or a LangGraph ``Command``, which are read as messages, never written out as JSON.
    """
    kind = type(result)
    if kind is str or kind is int or kind is float or kind is bool or result is None:
        return True
    if is_foreign_answer(result):  # LangChain's ToolMessage (read as toolwire's own, review 93), a LangGraph Command
        return True
    nodes = chars = 0
    stack = [result]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is str:
            chars += len(value)
            if chars > _CHEAP_CHARS:
                return False
            continue
        if kind is dict or kind is list or kind is tuple:
            nodes += len(value)
            if nodes > _CHEAP_NODES:
                return False
            stack.extend(value.values() if kind is dict else value)  # type: ignore[union-attr]
            continue
        nodes += 1
        if kind is int or kind is float or kind is bool or value is None:
            pass
        elif kind is set or kind is frozenset or kind is deque or isinstance(value, dict | list | tuple):
            try:  # (a defaultdict, a NamedTuple... too)
                nodes += len(value)
                if nodes > _CHEAP_NODES:
                    return False
                stack.extend(value.values() if isinstance(value, dict) else value)
            except Exception:  # (a subclass whose __len__ or __iter__ raises: written off the loop)
                return False
        elif isinstance(value, bytes | bytearray):
            chars += len(value)
        elif isinstance(value, Iterator):  # read lazily, maybe slowly or without end: not on the event loop
            return False
        elif isinstance(value, BaseModel) or hasattr(type(value), "__dataclass_fields__"):  # (the class's: an
            # instance's __getattr__ may raise anything, review 31)
            fields = getattr(value, "__dict__", None)
            if fields is None:
                return False  # a slotted dataclass: not walked, treated as big
            stack.append(dict(fields))
        elif (size := _size(value)) is None:
            return False
        else:
            nodes += size
        if nodes > _CHEAP_NODES or chars > _CHEAP_CHARS:
            return False
    return True


def _size(value: Any) -> int | None:
    """How many items ``value`` holds, read without walking them: its ``size`` (a numpy array's or a pandas
    object's, given by its class), else its ``len()``, else 0 (one node: a date, an enum...); None when that
    cannot be read (a ``range`` of more items than a C integer holds, a ``size`` or ``len()`` that raises)."""
    kind = type(value)
    try:
        if hasattr(kind, "size") and not callable(size := value.size):
            return operator.index(size)
        return len(value) if hasattr(kind, "__len__") else 0
    except Exception:  # (OverflowError, a property that raises: not walked, treated as big)
        return None


def _items(result: Any, limit: int | None) -> Any:
    """A set, deque, range or array result as the list of its items (its JSON form), or ``result`` itself when that
    fails (an item pydantic cannot write: :func:`result_to_content` then reports it, as before). With a ``limit``,
    a set's, deque's or array's first ``2 * limit + 1`` items at most: each writes at least one character and a
    separator, so encoding stops at twice the limit before their end, and the others are never touched (reading
    two million set items scattered in memory held the GIL for a second)."""
    most = None if limit is None else 2 * limit + 1
    try:
        if type(result) in (set, frozenset, deque):
            return list(result if most is None else islice(result, most))
        if most is not None and type(result) is not range and len(result) > most:
            with contextlib.suppress(Exception):  # (an array type whose slice fails: all of it)
                result = result[:most]
        return _json_default(result)
    except Exception:
        return result


def _is_array(value: Any) -> bool:
    """Whether ``value`` is an array of one or more dimensions with ``tolist()``: numpy's, a pandas Series."""
    kind = type(value)
    try:
        return hasattr(kind, "tolist") and hasattr(kind, "ndim") and value.ndim > 0
    except Exception:  # (an ndim that raises, or is no number)
        return False
