"""Message content for a local model that reads only text (the dialects of :mod:`toolwire.models.dialects`).

* :func:`json_form`: a value in its JSON form (dates, decimals, sets...), for call arguments in the
  history.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import to_jsonable_python

__all__ = ["json_form"]


def _text(value: Any) -> str:
    try:
        return str(value)
    except Exception:  # an object whose __str__ fails is still written
        return f"<{type(value).__name__}>"


def json_form(value: Any, _depth: int = 0) -> Any:
    """``value`` in its JSON form, as toolwire writes tool results: ``to_jsonable_python`` with a ``str``
    fallback (a date becomes ``"2025-01-02"``, a set a list, a pydantic model its dict). JSON values come
    back equal; a value it cannot convert (bytes that are not UTF-8, a circular list) is converted part
    by part, and what is left becomes its ``str``."""
    try:
        return to_jsonable_python(value, fallback=_text)
    except Exception:
        if _depth < 32 and isinstance(value, dict):
            return {k if isinstance(k, str) else _text(json_form(k, _depth + 1)): json_form(v, _depth + 1)
                    for k, v in value.items()}
        if _depth < 32 and isinstance(value, list | tuple | set | frozenset):
            return [json_form(v, _depth + 1) for v in value]
        return _text(value)
