"""How a tool's result or artifact holding an object pydantic cannot write gets a JSON form: :func:`json_fallback`.

Kept apart from :mod:`toolwire._result_json`, which writes results with it and re-exports it (import it from
:mod:`toolwire.results`).
"""

from __future__ import annotations

import logging
import numbers
from collections import UserString
from collections.abc import ItemsView, KeysView, Mapping, Sequence, Set, ValuesView
from typing import Any

from toolwire._array_json import array_json, is_series
from toolwire._narrow_floats import shortest_floats

__all__ = ["json_fallback"]


def json_fallback(value: Any) -> Any:
    """Return the JSON form of an object pydantic does not know: a mapping (``MappingProxyType``, ``ChainMap``,
    ``UserDict``) a dict; a dict's ``keys()`` or ``values()``, a ``range`` (of at most 100,000 items; a longer one
    its text), a set or a sequence (``UserList``) a list, and ``items()`` a list of ``[key, value]`` pairs; an
    array or number type with ``tolist()`` (numpy's, and so pandas values) its Python value (a ``float32`` or
    ``float16`` as the float of its own shortest text, ``21.7``, a ``complex64``'s parts and a record's such fields
    alike: :func:`~toolwire._narrow_floats.shortest_floats`; ``str()`` of a 2,000-item array keeps only its first
    and last items), a number whose ``tolist()`` gives back its own type (numpy's ``longdouble``, ``clongdouble``)
    a ``float`` or ``complex`` (:func:`_number`); a pandas Series an object from its index labels to its values
    (a list when its index is the plain ``0..n-1``), a ``datetime64`` / ``timedelta64`` a ``datetime`` /
    ``timedelta`` (ISO 8601 text in JSON) even in nanoseconds, pandas' ``NaT`` ``None``
    (:func:`~toolwire._array_json.array_json`, review 272), and pandas' ``NA`` ``None``; anything else its
    ``str()``; an object whose ``str()`` fails, ``"<TYPE object>"`` (the tool did return).

    An object whose class has neither ``__str__`` nor ``__repr__`` of its own is written ``<Foo object at 0x...>``,
    its class by its ``__qualname__`` without the module (a ``--tools`` file's is imported under an internal name)
    (in a result, all the model reads of it; in an artifact, what a saved conversation keeps): that is logged once per
    class (logger ``toolwire.tools``, level WARNING) with what to return instead
    (review 101: the model got a meaningless success, and nothing told the developer)."""
    kind = type(value)
    if isinstance(value, UserString):  # (a Sequence of UserStrings: as a list, it never ends; review 111)
        return _str(value)
    try:
        if isinstance(value, ItemsView):  # d.items(): pairs, as a dict's items are written in a list
            return [list(pair) for pair in value]
        if isinstance(value, Mapping):  # a mappingproxy, a ChainMap, a UserDict: an object, as a dict is
            return dict(value)
        if isinstance(value, range) and _longer(value, _RANGE_ITEMS):
            return str(value)  # range(0, 10**12): its text says it all, where its items would fill the memory
        if isinstance(value, range | KeysView | ValuesView | Set | Sequence) and not isinstance(value, str | bytes):
            return list(value)  # d.keys(), range(1, 4), a UserList: an array (review 109: was Python's text)
    except Exception:  # (a container whose iteration fails: its text is still something)
        return _str(value)
    tolist = getattr(kind, "tolist", None)
    if callable(tolist):
        if getattr(getattr(value, "dtype", None), "kind", None) in _ARRAY_KINDS or is_series(value):
            try:  # (a Series keeps its index; datetime64[ns] is ISO text, not nanoseconds: review 272 #2, #3)
                return array_json(value)
            except Exception:  # (as tolist() alone gives it, below)
                pass
        try:
            plain = tolist(value)
        except Exception:  # (a tolist that fails: the text is still something)
            pass
        else:
            # numpy's longdouble and clongdouble give themselves back (Python has no such type): writing that again
            # never ends, and pydantic stopped at its depth limit (review 176 #1)
            # (a float32's or float16's the shortest text that reads back: 21.7, not 21.700000762939453, review 245 #8)
            return _number(value) if type(plain) is kind else shortest_floats(value, plain)
    if kind.__str__ is object.__str__ and kind.__repr__ is object.__repr__:
        if kind not in _TOLD:
            _TOLD.add(kind)
            logging.getLogger("toolwire.tools").warning(
                "A tool result or artifact holds an instance of %s, which has no JSON form and no text of its own, so "
                "it is written as '<%s object at 0x...>': return a dict, a dataclass or a pydantic model of what it "
                "holds, or give the class a __str__.", kind.__qualname__, kind.__qualname__)
        # as the log says, not '<toolwire_user_tools_5f4c1ec9ae.Connection ...>' for a --tools file's (review 173 #5)
        return f"<{kind.__qualname__} object at {hex(id(value))}>"
    if kind.__name__ == "NAType" and kind.__module__.startswith("pandas"):
        return None  # pandas' missing value pd.NA: null, as pandas' own to_json writes it (not "<NA>")
    return _str(value)


_RANGE_ITEMS = 100_000  # the longest range written as its items

_ARRAY_KINDS = ("M", "m", "O")  # (datetime64, timedelta64, objects: :func:`~toolwire._array_json.array_json`)


def _longer(items: range, limit: int) -> bool:
    try:
        return len(items) > limit
    except OverflowError:  # (more items than a C ssize_t holds)
        return True


_TOLD: set[type] = set()
"""The classes :func:`json_fallback` has logged about (each once per process)."""


def _str(value: Any) -> str:
    """``str(value)``, or ``"<TYPE object>"`` when that fails: a broken ``__str__``/``__repr__`` is the result's,
    not a failure of the call that returned it."""
    try:
        return str(value)
    except Exception:
        return f"<{type(value).__name__} object>"


def _number(value: Any) -> Any:
    """A number type's value whose ``tolist()`` gives it back unchanged (numpy's ``longdouble``, ``clongdouble``),
    as Python's nearest: a real number a ``float`` and a complex one a ``complex`` (written as its text, ``"1+2j"``,
    as any complex is), or its ``str()`` when that would lose it (a ``longdouble`` beyond a float's range) or
    the value is neither."""
    try:
        near: float | complex
        if isinstance(value, numbers.Real):
            near = float(value)
        elif isinstance(value, numbers.Complex):
            near = complex(value)
        else:
            return _str(value)
        if near - near == 0 or value != value or value == near:  # (finite, NaN, or as infinite as the value; not
            return near  # a longdouble too large for a float, which float() makes infinite)
    except Exception:  # (a conversion that fails: the text is still something)
        pass
    return _str(value)
