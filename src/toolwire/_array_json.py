"""NumPy's and pandas' values whose ``tolist()`` alone would not give the model what they hold (review 272), for
:func:`toolwire._json_fallback.json_fallback`, and the "not a time" values (pandas' ``NaT``) JSON writes as null.

* :func:`array_json`: a pandas Series as an object of its index labels and values (a list when its index is the
  plain ``0..n-1``), NumPy's ``datetime64`` / ``timedelta64`` finer than a microsecond (whose ``tolist()`` gives
  integers of nanoseconds) as ``datetime`` / ``timedelta`` values, written as ISO 8601 text, and every not-a-time
  value in them ``None``.
* :func:`not_a_time` and :func:`times_as_null`: pandas' ``NaT`` is a ``datetime`` that pydantic cannot write (it
  raised ``TypeError``, and the whole result was an error); JSON gets ``null`` for it, as pandas' own ``to_json``
  writes it.

Duck-typed: neither NumPy nor pandas is imported here.
"""

from __future__ import annotations

import contextlib
import datetime
import math
import re
from collections.abc import Callable
from typing import Any

from toolwire._narrow_floats import shortest_floats

__all__ = ["array_json", "is_series", "not_a_time", "odd_time_type", "times_as_null"]

_TIMES = (datetime.date, datetime.time, datetime.timedelta)
_PLAIN_TIMES = frozenset({datetime.date, datetime.datetime, datetime.time, datetime.timedelta})
_SCALARS = frozenset({str, int, float, bool, type(None)})
_FINER = frozenset({"ns", "ps", "fs", "as"})  # (units whose tolist() gives integers: finer than a datetime holds)
_UNIT = re.compile(r"\[(\d*)(\w+)\]")


def not_a_time(value: Any) -> bool:
    """Whether ``value`` is a date, time or timedelta that is not one: unequal to itself, as pandas' ``NaT`` is."""
    try:
        return isinstance(value, _TIMES) and value != value
    except Exception:  # (a subclass whose comparison fails)
        return False


def odd_time_type(kind: type) -> bool:
    """Whether ``kind`` is a subclass of ``date``, ``time`` or ``timedelta`` other than those (pandas' ``Timestamp``
    and ``NaT``'s type): a value of it may be :func:`not_a_time`, which a plain ``datetime`` never is."""
    return kind not in _PLAIN_TIMES and issubclass(kind, _TIMES)


def times_as_null(value: Any, parts: Callable[[Any], dict[Any, Any] | None] | None = None) -> Any:
    """``value`` with each :func:`not_a_time` value in it (in dicts, lists and tuples, at any depth) ``None``.

    Args:
        value: any value.
        parts: for an object of another type, the dict of its fields to look in (a pydantic model's, a
            dataclass's), or None to leave it as it is.

    Returns:
        ``value`` itself when it holds none; else a copy (a plain tuple stays a tuple, another tuple type and a
        set become lists, an object ``parts`` read the dict of its fields).
    """
    return _nulled(value, parts, set())


def _nulled(value: Any, parts: Callable[[Any], dict[Any, Any] | None] | None, path: set[int]) -> Any:
    kind = type(value)
    if kind in _SCALARS:
        return value
    if not_a_time(value):
        return None
    if id(value) in path:  # (a circular value: left for the writer to refuse)
        return value
    path.add(id(value))
    try:
        if isinstance(value, dict):
            items = {key: _nulled(item, parts, path) for key, item in value.items()}
            return value if all(items[key] is item for key, item in value.items()) else items
        if isinstance(value, list | tuple | set | frozenset):
            listed = list(value)
            new = [_nulled(item, parts, path) for item in listed]
            if all(a is b for a, b in zip(new, listed, strict=True)):
                return value
            return tuple(new) if kind is tuple else new
        if parts is not None and (fields := parts(value)) is not None:
            plain = _nulled(fields, parts, path)
            return value if plain is fields else plain
        return value
    finally:
        path.discard(id(value))


def is_series(value: Any) -> bool:
    """Whether ``value`` is a pandas Series (or a type like it): ``tolist()`` and ``to_dict()``, and an ``index``
    that is data, not a method (a list's)."""
    index = getattr(value, "index", None)
    return index is not None and not callable(index) and hasattr(type(value), "to_dict")


def array_json(value: Any) -> Any:
    """The JSON-ready value of a pandas Series or of an array or number with ``tolist()`` whose ``dtype`` is of kind
    ``"M"`` (``datetime64``), ``"m"`` (``timedelta64``) or ``"O"`` (objects).

    A Series is the list of its values when its index is the plain ``RangeIndex`` ``0..n-1``, else an object from
    its index labels to its values, as ``Series.to_dict()`` gives it (a label ``None`` or ``NaT`` as ``"null"``, a
    NaN ``"NaN"``; labels that are not unique: the list of ``[label, value]`` pairs, so none is lost). Values of a
    unit finer than a microsecond are made microseconds first (their ``tolist()`` gives integers of nanoseconds,
    where a microsecond's gives a ``datetime`` or ``timedelta``, which JSON gets as ISO 8601 text); a ``timedelta64``
    in years or months (no ``timedelta`` holds one) is its ISO 8601 duration text, ``"P3M"``; a not-a-time value
    (``NaT``) is ``None``.

    Raises:
        Exception: what the value's own ``tolist()``, ``index`` or ``astype`` raised.
    """
    if not is_series(value):
        return _values(value)
    values = _values(value)
    index = value.index
    if _plain_range(index) and isinstance(values, list) and len(values) == len(index):
        return values
    labels = [_label(label) for label in _values(index)]
    if getattr(index, "is_unique", False) is True:
        return dict(zip(labels, values, strict=False))
    return [[label, item] for label, item in zip(labels, values, strict=False)]


def _plain_range(index: Any) -> bool:
    """Whether ``index`` is a pandas ``RangeIndex`` from 0 by 1 (its labels are the positions)."""
    try:
        return type(index).__name__ == "RangeIndex" and index.start == 0 and index.step == 1
    except Exception:
        return False


def _label(label: Any) -> Any:
    """A Series' index label as a dict key: ``None`` and ``NaT`` ``"null"``, a NaN or infinite float its name
    (as a result's dict keys are written), a tuple's items alike (a MultiIndex's); any other label itself."""
    if label is None or not_a_time(label):
        return "null"
    if isinstance(label, float) and not math.isfinite(label):
        return "NaN" if math.isnan(label) else "Infinity" if label > 0 else "-Infinity"
    if type(label) is tuple:
        return tuple(_label(item) for item in label)
    return label


def _values(value: Any) -> Any:
    """``value.tolist()`` as :func:`array_json` gives it (a narrow float's as its shortest text reads back:
    :func:`~toolwire._narrow_floats.shortest_floats`)."""
    dtype = getattr(value, "dtype", None)
    code = getattr(dtype, "kind", None)
    if code not in ("M", "m"):
        plain = value.tolist()
        return times_as_null(plain) if code == "O" else shortest_floats(value, plain)
    found = _UNIT.search(str(getattr(dtype, "str", "")))
    count, unit = (int(found[1] or 1), found[2]) if found else (1, "")
    if unit in _FINER:
        with contextlib.suppress(Exception):  # (a timezone-aware pandas Series: its tolist() gives Timestamps)
            value = value.astype(f"{code}8[us]")
    plain = times_as_null(value.tolist())
    if code == "m" and unit in ("Y", "M"):
        return _durations(plain, count, unit)
    return plain


def _durations(plain: Any, count: int, unit: str) -> Any:
    """The integers of a ``timedelta64`` in years or months (``count`` of ``unit`` each) as ISO 8601 durations."""
    if isinstance(plain, list):
        return [_durations(item, count, unit) for item in plain]
    if type(plain) is int:
        return f"{'-' if plain < 0 else ''}P{abs(plain) * count}{unit}"
    return plain
