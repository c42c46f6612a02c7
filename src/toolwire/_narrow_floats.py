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
    as the narrow value, which is the text NumPy prints for it (``str(np.float32(21.7))`` is ``"21.7"``); ``plain``
    itself for any other value, or when the conversion fails. A masked array's masked values stay ``None``, as its
    ``tolist()`` gives them (review 248 #1: its raw data, a ``-9999.0`` sentinel, was sent).

    Arrays are converted a precision at a time (1 to 9 significant digits, the most a ``float32`` needs), each
    value's candidate its float64 rounded to that many digits (an integer divided or multiplied by an exact power of
    ten: the float nearest to that decimal), kept when it reads back as the value; the rare value left over takes
    its ``str()``. A million values take a fraction of a second.
    """
    dtype = getattr(value, "dtype", None)
    if getattr(dtype, "kind", None) != "f" or not 0 < getattr(dtype, "itemsize", 8) < 8:
        return plain
    try:
        if isinstance(plain, float):  # a number, or an array of no dimension
            return float(str(value))
        import numpy as np

        masked = np.ma.getmaskarray(value).ravel() if isinstance(value, np.ma.MaskedArray) else None
        narrow = np.asarray(np.ma.getdata(value)).ravel()
        wide = narrow.astype(np.float64)
        out = wide.copy()  # (zeros, NaN and infinities as they are)
        left = np.flatnonzero(np.isfinite(wide) & (wide != 0))
        exponent = np.floor(np.log10(np.abs(wide[left]))).astype(np.int64)
        powers = np.array([float(10**k) for k in range(23)])  # (exact: 10**22 is the last power of ten a float holds)
        with np.errstate(all="ignore"):  # (a candidate past float16's range is infinite there: not kept)
            for digits in range(1, 10):
                if not left.size:
                    break
                places = digits - 1 - exponent
                scale = powers[np.minimum(np.abs(places), 22)]
                values = wide[left]
                rounded = np.where(places >= 0, np.rint(values * scale) / scale, np.rint(values / scale) * scale)
                fits = (np.abs(places) <= 22) & (rounded.astype(narrow.dtype) == narrow[left])
                out[left[fits]] = rounded[fits]
                left, exponent = left[~fits], exponent[~fits]
        for index in left:  # (10**places not exact, or no candidate fitted)
            out[index] = float(str(narrow[index]))
        if masked is not None and masked.any():
            out = out.astype(object)  # (Python floats, with None where the array is masked)
            out[masked] = None
        return out.reshape(np.shape(value)).tolist()
    except Exception:  # (an array type NumPy cannot read: its widened values)
        return plain
