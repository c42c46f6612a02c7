"""NumPy's narrow floats (``float32``, ``float16``) as the Python floats that print as they do: ``21.7``, not the
``21.700000762939453`` their ``tolist()`` widens them to (review 245 #8). Used by
:func:`toolwire._json_fallback.json_fallback`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["shortest_floats"]


def shortest_floats(value: Any, plain: Any) -> Any:
    """``plain`` (``value.tolist()``) with each float of a narrow float ``value`` (a NumPy ``float32`` or ``float16``
    number or array, a pandas Series of them) replaced by the float64 nearest to the shortest decimal that reads back
    as the narrow value, which is the text NumPy prints for it (``str(np.float32(21.7))`` is ``"21.7"``); a
    ``complex64``'s parts alike (``1.1+2.2j``), and a structured array's (a record's) narrow fields (review 248 #6);
    ``plain`` itself for any other value, or when the conversion fails. A masked array's masked values stay
    ``None``, as its ``tolist()`` gives them (review 248 #1: its raw data, a ``-9999.0`` sentinel, was sent).

    Arrays are converted a precision at a time (1 to 9 significant digits, the most a ``float32`` needs), each
    value's candidate its float64 rounded to that many digits (an integer divided or multiplied by an exact power of
    ten: the float nearest to that decimal), and for a power of two the decimal on the other side too, kept when
    it reads back as the value; a value whose power of ten is not exact (beyond ``1e22``) takes its ``str()``. A
    million values take a fraction of a second.
    """
    dtype = getattr(value, "dtype", None)
    code, size = getattr(dtype, "kind", None), getattr(dtype, "itemsize", 16)
    try:
        if getattr(dtype, "names", None):
            return _records(value, plain)
        if code == "c" and size == 8:
            return _complex(value, plain)
        if code != "f" or not 0 < size < 8:
            return plain
        if isinstance(plain, float):  # a number, or an array of no dimension
            return float(str(value))
        return _floats(value)
    except Exception:  # (an array type NumPy cannot read: its widened values)
        return plain


def _floats(value: Any) -> Any:
    """:func:`shortest_floats` of a narrow float array (its masked values ``None``), as nested lists."""
    import numpy as np

    masked = np.ma.getmaskarray(value).ravel() if isinstance(value, np.ma.MaskedArray) else None
    narrow = np.asarray(np.ma.getdata(value)).ravel()
    with np.errstate(all="ignore"):  # (a signalling NaN; a candidate past float16's range, infinite: not kept)
        wide = narrow.astype(np.float64)
        out = wide.copy()  # (zeros, NaN and infinities as they are)
        left = np.flatnonzero(np.isfinite(wide) & (wide != 0))
        exponent = np.floor(np.log10(np.abs(wide[left]))).astype(np.int64)
        powers = np.array([float(10**k) for k in range(23)])  # (exact: 10**22 is the last power of ten a float holds)
        by_text: list[Any] = []
        edge = np.abs(np.frexp(wide[left])[0]) == 0.5  # (a power of two: the float below is nearer than the one
        # above, so a decimal on the far side of it may read back where the nearest does not: 0.01563 in float16)
        for digits in range(1, 10):
            places = digits - 1 - exponent
            far = np.abs(places) > 22  # (10**places not exact: the value's own text, review 248 #6)
            by_text.extend(left[far])
            left, exponent, places, edge = left[~far], exponent[~far], places[~far], edge[~far]
            if not left.size:
                break
            scale = powers[np.abs(places)]
            up = places >= 0
            scaled = np.where(up, wide[left] * scale, wide[left] / scale)
            whole = np.rint(scaled)
            rounded = np.where(up, whole / scale, whole * scale)
            fits = rounded.astype(narrow.dtype) == narrow[left]
            if (retry := np.flatnonzero(edge & ~fits)).size:  # (the other neighbour, review 248 #6)
                other = np.where(whole[retry] > scaled[retry], whole[retry] - 1, whole[retry] + 1)
                other = np.where(up[retry], other / scale[retry], other * scale[retry])
                good = other.astype(narrow.dtype) == narrow[left[retry]]
                rounded[retry[good]], fits[retry[good]] = other[good], True
            out[left[fits]] = rounded[fits]
            left, exponent, edge = left[~fits], exponent[~fits], edge[~fits]
    for index in (*by_text, *left):  # (no candidate fitted)
        out[index] = float(str(narrow[index]))
    if masked is not None and masked.any():
        out = out.astype(object)  # (Python floats, with None where the array is masked)
        out[masked] = None
    return out.reshape(np.shape(value)).tolist()


def _complex(value: Any, plain: Any) -> Any:
    """:func:`shortest_floats` of a ``complex64`` number or array: each part as a narrow float is."""
    import numpy as np

    data = np.asarray(np.ma.getdata(value))
    real, imag = data.real.ravel(), data.imag.ravel()
    parts = zip(shortest_floats(real, real.tolist()), shortest_floats(imag, imag.tolist()), strict=True)
    return _refill(plain, (complex(*pair) for pair in parts))


def _records(value: Any, plain: Any) -> Any:
    """:func:`shortest_floats` of a structured array or record: each field's values as that field's are, the records
    as ``tolist()`` gives them (tuples); ``plain`` when no field is narrow or the array is masked."""
    import numpy as np

    if isinstance(value, np.ma.MaskedArray):
        return plain
    flat = np.asarray(value).ravel()
    fields, changed = [], False
    for name in flat.dtype.names:
        column = flat[name]
        fields.append(shortest_floats(column, listed := column.tolist()))
        changed = changed or fields[-1] is not listed
    return _refill(plain, zip(*fields, strict=True)) if changed else plain


def _refill(plain: Any, items: Any) -> Any:
    """``plain`` (nested lists) with its leaves taken in order from ``items``; a ``None`` leaf (masked) kept."""
    if isinstance(plain, list):
        return [_refill(part, items) for part in plain]
    item = next(items)
    return None if plain is None else item
