"""Whether a tool's result is small enough to write on the event loop (:func:`is_cheap_result`), and a big set's,
deque's, range's or array's items as the list :func:`toolwire.results.bounded_content` encodes piece by piece
(:func:`_items`). Kept apart from :mod:`toolwire.results`, which re-exports :func:`is_cheap_result`.
"""

from __future__ import annotations

import contextlib
import datetime
import operator
import uuid
from collections import ChainMap, UserDict, UserList, UserString, deque
from collections.abc import Collection, Iterator, Mapping
from decimal import Decimal
from enum import Enum
from itertools import islice
from types import MappingProxyType
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
    array, a pandas frame) or a length (a ``range``) counts as that many items, read without walking them (review
    245 #2: a 3-million-value array was written whole on the event loop); an object array's cells, a mapping's
    (``MappingProxyType``) or a ``UserList``'s items and a model's extra fields are walked too (review 248 #4). An
    enum member, a date or a UUID is one item (review 248 #3). True also for a
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
            if isinstance(value, BaseModel) and value.__pydantic_extra__:  # (extra fields, review 248 #4)
                stack.append(dict(value.__pydantic_extra__))
        elif isinstance(value, _ONE_NODE):  # (an enum member, whose class has a __len__ that fails: review 248 #3)
            pass
        elif (found := _contents(value)) is None:
            return False
        else:
            nodes += found[0]
            chars += found[1]
            if nodes > _CHEAP_NODES or chars > _CHEAP_CHARS:
                return False
            stack.extend(found[2])
        if nodes > _CHEAP_NODES or chars > _CHEAP_CHARS:
            return False
    return True


_ONE_NODE = (Enum, datetime.date, datetime.time, datetime.timedelta, uuid.UUID, Decimal)  # (written as one value)


def _contents(value: Any) -> tuple[int, int, Collection[Any]] | None:
    """What ``value`` (no plain container, model or dataclass) adds to the walk, read at a cost bounded by the
    budget: ``(items, characters, the items to walk)``. An object with a ``size`` (a numpy array's or a pandas
    object's, given by its class) counts as that many items, an object array's (or a frame's) cells walked, a text
    array's bytes counted as characters; a mapping (``MappingProxyType``, ``UserDict``) or a collection
    (``UserList``, ``d.keys()``) its items, walked (review 248 #4); text its characters; anything else with a
    ``len()`` that many items; else one (a ``len()`` that raises never makes it big, review 248 #3). None when
    the count cannot be read (a ``range`` of more items than a C integer holds, a ``size`` that raises)."""
    kind = type(value)
    if isinstance(value, str | UserString):
        return 0, len(value), ()
    try:
        if hasattr(kind, "size") and not callable(size := value.size):
            size = operator.index(size)
            dtype = getattr(value, "dtype", None)
            code = getattr(dtype, "kind", None)
            if size > _CHEAP_NODES:
                return size, 0, ()
            if code in ("U", "S"):
                return size, operator.index(value.nbytes), ()
            if code == "O" or (dtype is None and hasattr(kind, "dtypes")):  # (a pandas frame: its cells)
                import numpy as np

                return size, 0, np.asarray(value, dtype=object).ravel().tolist()
            return size, 0, ()
        if kind is range:
            return len(value), 0, ()
    except Exception:  # (OverflowError, a property that raises: not walked, treated as big)
        return None
    try:
        if isinstance(value, Mapping | Collection):
            count = len(value)
            walked = () if count > _CHEAP_NODES else list(value.values() if isinstance(value, Mapping) else value)
            return count, 0, walked
        return (len(value) if hasattr(kind, "__len__") else 0), 0, ()
    except Exception:  # (a len() or an iteration that raises: one value, written as json_fallback writes it)
        return 0, 0, ()


def _by_items(result: Any) -> bool:
    """Whether :func:`_items` has a form to encode piece by piece for ``result``: a set, deque, range, array,
    ``MappingProxyType``, ``UserDict``, ``ChainMap`` or ``UserList`` (review 248 #4)."""
    return (type(result) in (set, frozenset, deque, range) or isinstance(result, _BY_ITEMS)
            or _is_array(result))


_BY_ITEMS = (MappingProxyType, UserDict, ChainMap, UserList)


def _items(result: Any, limit: int | None) -> Any:
    """A set, deque, range, array or ``UserList`` result as the list of its items (its JSON form), a mapping's as a
    dict, or ``result`` itself when that fails (an item pydantic cannot write: :func:`result_to_content` then
    reports it, as before). With a ``limit``, a set's, ``UserList``'s, deque's or array's first ``2 * limit + 1``
    items at most: each writes at least one character and a separator, so encoding stops at twice the limit
    before their end, and the others are never touched (reading two million set items scattered in memory held
    the GIL for a second)."""
    most = None if limit is None else 2 * limit + 1
    try:
        if isinstance(result, Mapping):  # (a MappingProxyType, a UserDict: an object, as json_fallback writes it)
            return dict(result)
        if type(result) in (set, frozenset, deque) or isinstance(result, UserList):
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
